"""The library's ResNets (the network kinds ``"resnet"`` and ``"resnet_any_size"``) written as
ONNX graphs from their trained variables, so that ONNX Runtime (Python, Node or the browser's
WebAssembly) evaluates the same function as JAX.

The graph is built with ``onnx.helper`` from the variables alone: each 3x3 or 1x1 convolution
with its batch norm folded in (``scale / sqrt(var + eps)`` times the kernel, the shift as the
convolution's bias), the activation (Relu, or LeakyRelu with slope 0.01), the residual Add,
the two heads' flattening in the JAX layout (height, width, channels) and their Gemm layers,
and Tanh on the value. ``"resnet_any_size"``'s heads (``networks.any_size``) pool the board
(ReduceMean, and ReduceLogSumExp less the log of the cells) and read each action where it
lies: a 1x1 convolution per cell, a MatMul per column, Quoridor's pawn moves from the
features under the mover's pawn and its walls from a 2x2 VALID convolution. Its input is
JAX's ``float32[B, H, W, C]`` observations (channels last, transposed to channels first
inside the graph); its outputs are ``logits`` float32[B, A] and ``value`` float32[B].

A network kind exports where an ONNX writer is registered for it (``register``, into
``plugs.ONNX_WRITERS``; the two ResNets' are registered here the same way): another kind is
refused with one line naming it and its module, and a ResNet whose settings or layers are
not the library's with one line naming what the writer needs and did not find. The graph
computes in float32 whatever the network's ``compute_dtype``, and leaves out its auxiliary
heads (``reply_head``, ``score_head``), which only training's loss terms read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from alphazero_jax import networks, plugs
from alphazero_jax.networks import any_size
from alphazero_jax.registry import module_of
from alphazero_jax.types import Game

OPSET = 17  # supported by onnxruntime-web and -node 1.2x-1.3x and by Python's onnxruntime
IR_VERSION = 8  # the oldest IR of opset 17: every runtime of the last years reads it
INPUT, LOGITS, VALUE = "observations", "logits", "value"
_EPSILON = 1e-5  # networks._BATCH_NORM_EPSILON
_LEAKY_SLOPE = 0.01  # flax.linen.leaky_relu's default
_KIND_KEY = "kind"  # config.network.kind: a registered network (networks.register)


class OnnxWriter(NamedTuple):
    """A registered ONNX writer of a network kind.

    Attributes:
      kind: the network kind it writes.
      check: ``check(settings, variables)`` raises ValueError, in one line, for a network of
        the kind that it cannot write (``settings``: the run's ``config.network``).
      fn: ``fn(graph, observations, settings, game)`` adds the nodes from the NCHW
        ``observations`` to the outputs ``logits`` and ``value`` (``_Graph``'s helpers).
    """

    kind: str
    check: Callable[[dict, Mapping], None]
    fn: Callable


def register(kind: str, fn: Callable, *, check: Callable[[dict, Mapping], None]) -> None:
    """Adds the ONNX writer of the network kind ``kind`` (see ``OnnxWriter``), so that
    ``alphazero-export-web`` writes its runs for the page.

    Raises:
      ValueError: a name that is no identifier, or a kind that has a writer already.
    """
    plugs.ONNX_WRITERS.register(kind, OnnxWriter(kind, check, fn), module=module_of(fn))


def check_exportable(network_settings: Mapping, variables: Mapping) -> None:
    """Raises ValueError, in one line, unless a writer is registered for the network kind of
    ``network_settings`` (a run's ``config.network``) and writes ``variables``."""
    kind = dict(network_settings).get(_KIND_KEY, networks.DEFAULT_KIND)
    if kind not in plugs.ONNX_WRITERS:
        where = f" ({plugs.NETWORKS.module_of(kind)})" if kind in plugs.NETWORKS else ""
        raise ValueError(
            f"network kind {kind!r}{where} has no ONNX writer, so the page cannot play it; "
            f"the kinds with one: {', '.join(plugs.ONNX_WRITERS.available())} "
            "(play.onnx_network.register adds one)."
        )
    plugs.ONNX_WRITERS.get(kind).check(dict(network_settings), variables)


def _check_resnet(network_settings: dict, variables: Mapping) -> None:
    """The ResNets' check: the library's settings and every layer they make."""
    settings = {**_resnet_defaults(), **network_settings}
    kind = settings.pop(_KIND_KEY, networks.DEFAULT_KIND)
    unknown = sorted(set(settings) - set(_resnet_defaults()))
    missing = [name for name in _expected_layers(kind, settings) if name not in variables["params"]]
    problems = [f"settings it does not know ({', '.join(unknown)})"] if unknown else []
    problems += [f"no layers {', '.join(missing)}"] if missing else []
    if problems:
        raise ValueError(
            f"ONNX export writes only the library's {kind!r} network (networks.make_network); "
            f"this network has {' and '.join(problems)}."
        )


def _expected_layers(kind: str, settings: Mapping) -> list[str]:
    blocks = int(settings.get("blocks", 0))
    heads = ["policy_dense", "value_conv"] if kind == "resnet" else ["value_conv"]
    return [
        "stem_conv",
        *(f"block_{i}" for i in range(blocks)),
        "policy_conv",
        *heads,
        "value_hidden",
        "value_dense",
    ]


def network_to_onnx(
    variables: Mapping,
    network_settings: Mapping,
    game: Game,
    *,
    name: str = "alphazero_resnet",
):
    """The network of ``variables`` as an ``onnx.ModelProto`` (checked by ``onnx.checker``).

    Args:
      variables: the network's Flax variables, ``{"params": ..., "batch_stats": ...}``
        (NumPy or JAX arrays).
      network_settings: its settings as ``make_network`` took them (a run's
        ``config.network``): ``kind``, ``blocks``, ``activation``, ``normalization``, ...
      game: the game it plays: its observation shape ``(H, W, C)``, its number of actions
        ``A`` and, for ``"resnet_any_size"``, its record's action layout.
      name: the graph's name.

    Returns:
      The model: input ``observations`` float32[B, H, W, C], outputs ``logits``
      float32[B, A] and ``value`` float32[B] (B is free).

    Raises:
      ValueError: a network kind without a writer, one its writer refuses
        (``check_exportable``), or a ``"resnet_any_size"`` network of a game without an
        action layout; one line.
    """
    import onnx
    from onnx import TensorProto, helper

    check_exportable(network_settings, variables)
    settings = {**_resnet_defaults(), **network_settings}
    kind = settings.get(_KIND_KEY, networks.DEFAULT_KIND)
    height, width, planes = tuple(game.observation_shape)
    graph = _Graph(settings, _numpy(variables["params"]), _numpy(variables.get("batch_stats", {})))
    observations = graph.op("Transpose", [INPUT], perm=[0, 3, 1, 2])  # NHWC -> NCHW
    plugs.ONNX_WRITERS.get(kind).fn(graph, observations, settings, game)

    inputs = [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["B", height, width, planes])]
    outputs = [
        helper.make_tensor_value_info(LOGITS, TensorProto.FLOAT, ["B", game.num_actions]),
        helper.make_tensor_value_info(VALUE, TensorProto.FLOAT, ["B"]),
    ]
    model = helper.make_model(
        helper.make_graph(graph.nodes, name, inputs, outputs, graph.initializers),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="alphazero_jax",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def _trunk(graph: _Graph, observations: str, settings: dict) -> str:
    """The ResNets' stem and residual blocks, on the NCHW ``observations``."""
    params, stats = graph.params, graph.stats
    x = graph.act(graph.conv_norm(observations, "stem_conv", "stem_norm", params, stats))
    for index in range(int(settings["blocks"])):
        block_params, block_stats = params[f"block_{index}"], stats.get(f"block_{index}", {})
        y = graph.act(graph.conv_norm(x, "conv_0", "norm_0", block_params, block_stats))
        y = graph.conv_norm(y, "conv_1", "norm_1", block_params, block_stats)
        x = graph.act(graph.op("Add", [x, y]))
    return x


def _write_resnet(graph: _Graph, observations: str, settings: dict, game: Game) -> None:
    """The ``"resnet"`` kind: its trunk, then flattened 1x1 convolutions and dense layers."""
    x = _trunk(graph, observations, settings)
    params, stats = graph.params, graph.stats
    p = graph.act(graph.conv_norm(x, "policy_conv", "policy_norm", params, stats))
    graph.dense(graph.flatten(p), "policy_dense", output=LOGITS)
    v = graph.act(graph.conv_norm(x, "value_conv", "value_norm", params, stats))
    v = graph.act(graph.dense(graph.flatten(v), "value_hidden"))
    graph.value(graph.dense(v, "value_dense"))


def _write_any_size(graph: _Graph, observations: str, settings: dict, game: Game) -> None:
    """The ``"resnet_any_size"`` kind (``networks.any_size._AnySizeResNet``): its trunk, the
    policy head of the game's action layout and the pooled value head; ``observations`` is
    the NCHW input (Quoridor reads plane 0)."""
    layout = any_size.layout_of(game).name
    if layout not in _LAYOUT_HEADS:
        raise ValueError(
            f"ONNX export of a 'resnet_any_size' network writes the action layouts "
            f"{', '.join(_LAYOUT_HEADS)}; {game.name!r}'s layout {layout!r} "
            f"({plugs.ACTION_LAYOUTS.module_of(layout)}) has no writer."
        )
    height, width = tuple(game.observation_shape)[:2]
    x = _trunk(graph, observations, settings)
    h = graph.features(x, "policy")  # [B, C, H, W]
    _LAYOUT_HEADS[layout](graph, h, observations, (height, width))
    v = graph.pooled(graph.features(x, "value"), [2, 3], height * width)
    v = graph.act(graph.dense(v, "value_hidden"))
    graph.value(graph.dense(v, "value_dense"))


def _cells_head(graph: _Graph, h: str, observations: str, board: tuple) -> None:
    graph.op("Identity", [graph.flatten(graph.per_cell(h, "policy_cell"))], out=LOGITS)


def _cells_and_pass_head(graph: _Graph, h: str, observations: str, board: tuple) -> None:
    cells = graph.flatten(graph.per_cell(h, "policy_cell"))  # [B, H * W]
    passing = graph.dense(graph.pooled(h, [2, 3], board[0] * board[1]), "policy_pass")
    graph.op("Concat", [cells, passing], out=LOGITS, axis=1)


def _columns_head(graph: _Graph, h: str, observations: str, board: tuple) -> None:
    column = graph.pooled(h, [2], board[0])  # [B, 2C, W]
    column = graph.op("Transpose", [column], perm=[0, 2, 1])  # [B, W, 2C]
    logits = graph.dense(column, "policy_column", matmul=True)  # [B, W, 1]
    graph.reshape(logits, [-1, board[1]], out=LOGITS)


def _quoridor_head(graph: _Graph, h: str, observations: str, board: tuple) -> None:
    """The pawn moves, then the walls (horizontal grooves, then vertical)."""
    pawn = graph.op(
        "Slice",
        [
            observations,
            graph.constant("first", np.array([0], np.int64)),
            graph.constant("second", np.array([1], np.int64)),
            graph.constant("channel_axis", np.array([1], np.int64)),
        ],
    )  # [B, 1, H, W]: the mover's pawn
    under = graph.op(
        "ReduceSum",
        [graph.op("Mul", [h, pawn]), graph.constant("board_axes", np.array([2, 3], np.int64))],
        keepdims=0,
    )  # [B, C]
    pooled = graph.pooled(h, [2, 3], board[0] * board[1])
    moves = graph.dense(graph.op("Concat", [under, pooled], axis=1), "policy_pawn")
    walls = graph.conv(h, "policy_walls", padding=0)  # [B, 2, H - 1, W - 1]
    graph.op("Concat", [moves, graph.flatten_nchw(walls)], out=LOGITS, axis=1)


# The policy heads of resnet_any_size's action layouts (networks.any_size), by layout.
_LAYOUT_HEADS = {
    "cells": _cells_head,
    "cells_and_pass": _cells_and_pass_head,
    "columns": _columns_head,
    "quoridor": _quoridor_head,
}


def _resnet_defaults() -> dict:
    """The ResNet's settings with their defaults (``networks.settings_of``), for those a
    config leaves out."""
    return networks.settings_of("resnet")


def _numpy(tree: Mapping) -> dict:
    return {
        k: _numpy(v) if isinstance(v, Mapping) else np.asarray(v, np.float32)
        for k, v in tree.items()
    }


class _Graph:
    """Collects the nodes and weights of the graph being written (names made unique)."""

    def __init__(self, settings: dict, params: dict, stats: dict):
        self.nodes, self.initializers = [], []
        self.activation = settings["activation"]
        self.normalized = settings["normalization"] == "batch_norm"
        self.params, self.stats, self._count = params, stats, 0

    def name(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def op(self, kind: str, inputs: list[str], out: str | None = None, **attributes) -> str:
        from onnx import helper

        out = out or self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attributes))
        return out

    def constant(self, stem: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def act(self, x: str) -> str:
        if self.activation == "relu":
            return self.op("Relu", [x])
        return self.op("LeakyRelu", [x], alpha=_LEAKY_SLOPE)

    def conv_norm(self, x: str, conv: str, norm: str, params: dict, stats: dict) -> str:
        """A SAME convolution (HWIO kernel) with the batch norm after it folded in."""
        kernel = params[conv]["kernel"].astype(np.float64)  # [kh, kw, in, out]
        size = kernel.shape[0]
        if self.normalized:
            scale = params[norm]["scale"] / np.sqrt(
                stats[norm]["var"].astype(np.float64) + _EPSILON
            )
            bias = params[norm]["bias"] - stats[norm]["mean"] * scale
            kernel = kernel * scale
        else:
            bias = params[conv]["bias"].astype(np.float64)
        weight = self.constant(f"{conv}_w", kernel.transpose(3, 2, 0, 1).astype(np.float32))
        shift = self.constant(f"{conv}_b", np.asarray(bias, np.float32))
        pad = (size - 1) // 2
        return self.op("Conv", [x, weight, shift], kernel_shape=[size, size], pads=[pad] * 4)

    def conv(self, x: str, layer: str, padding: int) -> str:
        """A convolution with its own bias and no normalisation (an OIHW kernel from HWIO)."""
        kernel = self.params[layer]["kernel"]
        weight = self.constant(f"{layer}_w", kernel.transpose(3, 2, 0, 1))
        bias = self.constant(f"{layer}_b", self.params[layer]["bias"])
        size = list(kernel.shape[:2])
        return self.op("Conv", [x, weight, bias], kernel_shape=size, pads=[padding] * 4)

    def features(self, x: str, prefix: str) -> str:
        """``resnet_any_size``'s head features: 1x1 convolution, norm, activation."""
        conv, norm = f"{prefix}_conv", f"{prefix}_norm"
        return self.act(self.conv_norm(x, conv, norm, self.params, self.stats))

    def per_cell(self, x: str, layer: str) -> str:
        """A dense layer to one unit applied at every cell: [B, C, H, W] -> [B, 1, H, W]."""
        kernel = self.params[layer]["kernel"]  # [C, 1]
        weight = self.constant(f"{layer}_w", kernel.T[:, :, None, None])
        bias = self.constant(f"{layer}_b", self.params[layer]["bias"])
        return self.op("Conv", [x, weight, bias], kernel_shape=[1, 1])

    def pooled(self, x: str, axes: list[int], cells: int) -> str:
        """The mean and the soft maximum (log-sum-exp less ``log(cells)``) over ``axes``,
        concatenated on the channel axis (``networks.any_size._pooled``)."""
        mean = self.op("ReduceMean", [x], axes=axes, keepdims=0)
        log_sum_exp = self.op("ReduceLogSumExp", [x], axes=axes, keepdims=0)
        log_cells = self.constant("log_cells", np.array(np.log(cells), np.float32))
        soft_max = self.op("Sub", [log_sum_exp, log_cells])
        return self.op("Concat", [mean, soft_max], axis=1)

    def reshape(self, x: str, shape: list[int], out: str | None = None) -> str:
        target = self.constant("shape", np.array(shape, np.int64))
        return self.op("Reshape", [x, target], out=out)

    def value(self, v: str) -> str:
        """Tanh, then [B, 1] -> the output ``value`` [B]."""
        return self.reshape(self.op("Tanh", [v]), [-1], out=VALUE)

    def flatten_nchw(self, x: str) -> str:
        """[B, C, H, W] -> [B, C * H * W] in channels-first order."""
        return self.op("Flatten", [x], axis=1)

    def flatten(self, x: str) -> str:
        """[B, C, H, W] -> [B, H * W * C], in JAX's (channels last) order."""
        return self.op("Flatten", [self.op("Transpose", [x], perm=[0, 2, 3, 1])], axis=1)

    def dense(self, x: str, layer: str, output: str | None = None, matmul: bool = False) -> str:
        """A dense layer: Gemm on [B, K]; MatMul and Add on the last axis of more axes."""
        weight = self.constant(f"{layer}_w", self.params[layer]["kernel"])
        bias = self.constant(f"{layer}_b", self.params[layer]["bias"])
        if matmul:
            return self.op("Add", [self.op("MatMul", [x, weight]), bias], out=output)
        return self.op("Gemm", [x, weight, bias], out=output)


register("resnet", _write_resnet, check=_check_resnet)
register("resnet_any_size", _write_any_size, check=_check_resnet)
