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

Only those two kinds export (``EXPORTABLE``): another network kind is refused with one line
naming what the writer needs and did not find. The graph computes in float32 whatever the
network's ``compute_dtype``, and leaves out its auxiliary heads (``reply_head``,
``score_head``), which only training's loss terms read.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from alphazero_jax import networks
from alphazero_jax.networks import any_size
from alphazero_jax.types import Game

OPSET = 17  # supported by onnxruntime-web and -node 1.2x-1.3x and by Python's onnxruntime
IR_VERSION = 8  # the oldest IR of opset 17: every runtime of the last years reads it
INPUT, LOGITS, VALUE = "observations", "logits", "value"
_EPSILON = 1e-5  # networks._BATCH_NORM_EPSILON
_LEAKY_SLOPE = 0.01  # flax.linen.leaky_relu's default
_KIND_KEY = "kind"  # config.network.kind: a registered network (networks.register)
EXPORTABLE = ("resnet", "resnet_any_size")  # the kinds with a writer here


def check_exportable(network_settings: Mapping, variables: Mapping) -> None:
    """Raises ValueError, in one line, unless ``network_settings`` (a run's
    ``config.network``) and ``variables`` are one of the library's ResNets (``EXPORTABLE``),
    which is all ``network_to_onnx`` can write."""
    settings = {**_resnet_defaults(), **network_settings}
    kind = settings.pop(_KIND_KEY, networks.DEFAULT_KIND)
    if kind not in EXPORTABLE:
        raise ValueError(
            f"ONNX export writes only the network kinds {', '.join(EXPORTABLE)}; network kind "
            f"{kind!r} has no ONNX writer (add one beside alphazero_jax/play/onnx_network.py "
            "to export it)."
        )
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
        ``A`` and, for ``"resnet_any_size"``, its action layout (``any_size.LAYOUTS``).
      name: the graph's name.

    Returns:
      The model: input ``observations`` float32[B, H, W, C], outputs ``logits``
      float32[B, A] and ``value`` float32[B] (B is free).

    Raises:
      ValueError: the network is not one of ``EXPORTABLE`` (``check_exportable``), or a
        ``"resnet_any_size"`` network of a game without an action layout; one line.
    """
    import onnx
    from onnx import TensorProto, helper

    check_exportable(network_settings, variables)
    settings = {**_resnet_defaults(), **network_settings}
    kind = settings.get(_KIND_KEY, networks.DEFAULT_KIND)
    layout = None if kind == "resnet" else _layout_of(game)
    height, width, planes = tuple(game.observation_shape)
    params = _numpy(variables["params"])
    stats = _numpy(variables.get("batch_stats", {}))
    graph = _Graph(settings, params, stats)
    observations = graph.op("Transpose", [INPUT], perm=[0, 3, 1, 2])  # NHWC -> NCHW
    x = graph.act(graph.conv_norm(observations, "stem_conv", "stem_norm", params, stats))
    for index in range(int(settings["blocks"])):
        block_params, block_stats = params[f"block_{index}"], stats.get(f"block_{index}", {})
        y = graph.act(graph.conv_norm(x, "conv_0", "norm_0", block_params, block_stats))
        y = graph.conv_norm(y, "conv_1", "norm_1", block_params, block_stats)
        x = graph.act(graph.op("Add", [x, y]))
    if layout is None:
        _resnet_heads(graph, x)
    else:
        _any_size_heads(graph, x, observations, layout, (height, width))

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


def _resnet_heads(graph: _Graph, x: str) -> None:
    """The ``"resnet"`` kind's heads: flattened 1x1 convolutions and dense layers."""
    params, stats = graph.params, graph.stats
    p = graph.act(graph.conv_norm(x, "policy_conv", "policy_norm", params, stats))
    graph.dense(graph.flatten(p), "policy_dense", output=LOGITS)
    v = graph.act(graph.conv_norm(x, "value_conv", "value_norm", params, stats))
    v = graph.act(graph.dense(graph.flatten(v), "value_hidden"))
    graph.value(graph.dense(v, "value_dense"))


def _layout_of(game: Game) -> str:
    layout = any_size.LAYOUTS.get(game.name)
    if layout is None:
        raise ValueError(
            f"ONNX export of a 'resnet_any_size' network needs the action layout of "
            f"{game.name!r}, which has none (networks.any_size.register_layout)."
        )
    return layout


def _any_size_heads(graph: _Graph, x: str, observations: str, layout: str, board: tuple) -> None:
    """The ``"resnet_any_size"`` kind's heads (``networks.any_size._AnySizeResNet``), on the
    NCHW trunk ``x``; ``observations`` is the NCHW input (Quoridor reads plane 0)."""
    height, width = board
    h = graph.features(x, "policy")  # [B, C, H, W]
    if layout in ("cells", "cells_and_pass"):
        cells = graph.flatten(graph.per_cell(h, "policy_cell"))  # [B, H * W]
        if layout == "cells":
            graph.op("Identity", [cells], out=LOGITS)
        else:
            passing = graph.dense(graph.pooled(h, [2, 3], height * width), "policy_pass")
            graph.op("Concat", [cells, passing], out=LOGITS, axis=1)
    elif layout == "columns":
        column = graph.pooled(h, [2], height)  # [B, 2C, W]
        column = graph.op("Transpose", [column], perm=[0, 2, 1])  # [B, W, 2C]
        logits = graph.dense(column, "policy_column", matmul=True)  # [B, W, 1]
        graph.reshape(logits, [-1, width], out=LOGITS)
    else:  # quoridor: the pawn moves, then the walls (horizontal grooves, then vertical)
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
        pooled = graph.pooled(h, [2, 3], height * width)
        moves = graph.dense(graph.op("Concat", [under, pooled], axis=1), "policy_pawn")
        walls = graph.conv(h, "policy_walls", padding=0)  # [B, 2, H - 1, W - 1]
        graph.op("Concat", [moves, graph.flatten_nchw(walls)], out=LOGITS, axis=1)
    v = graph.pooled(graph.features(x, "value"), [2, 3], height * width)
    v = graph.act(graph.dense(v, "value_hidden"))
    graph.value(graph.dense(v, "value_dense"))


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
