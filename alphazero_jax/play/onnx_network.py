"""The AlphaZero ResNet (``networks.make_network``) written as an ONNX graph from its trained
variables, so that ONNX Runtime (Python, Node or the browser's WebAssembly) evaluates the same
function as JAX.

The graph is built with ``onnx.helper`` from the variables alone: each 3x3 or 1x1 convolution
with its batch norm folded in (``scale / sqrt(var + eps)`` times the kernel, the shift as the
convolution's bias), the activation (Relu, or LeakyRelu with slope 0.01), the residual Add,
the two heads' flattening in the JAX layout (height, width, channels) and their Gemm layers,
and Tanh on the value. Its input is JAX's ``float32[B, H, W, C]`` observations (channels
last, transposed to channels first inside the graph); its outputs are ``logits`` float32[B, A]
and ``value`` float32[B].

Only the built-in ResNet exports (``config.network.kind`` ``"resnet"``): another network kind
is refused with one line naming what the writer needs and did not find. The graph computes
in float32 whatever the ResNet's ``compute_dtype``, and leaves out its auxiliary heads
(``reply_head``, ``score_head``), which only training's loss terms read.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from alphazero_jax import networks

OPSET = 17  # supported by onnxruntime-web and -node 1.2x-1.3x and by Python's onnxruntime
IR_VERSION = 8  # the oldest IR of opset 17: every runtime of the last years reads it
INPUT, LOGITS, VALUE = "observations", "logits", "value"
_EPSILON = 1e-5  # networks._BATCH_NORM_EPSILON
_LEAKY_SLOPE = 0.01  # flax.linen.leaky_relu's default
_KIND_KEY = "kind"  # config.network.kind: a registered network (networks.register)


def check_exportable(network_settings: Mapping, variables: Mapping) -> None:
    """Raises ValueError, in one line, unless ``network_settings`` (a run's
    ``config.network``) and ``variables`` are the built-in ResNet's, which is all
    ``resnet_to_onnx`` can write."""
    settings = {**_resnet_defaults(), **network_settings}
    kind = settings.pop(_KIND_KEY, networks.DEFAULT_KIND)
    if kind != "resnet":
        raise ValueError(
            f"ONNX export writes only the built-in ResNet; network kind {kind!r} has no "
            "ONNX writer (add one beside alphazero_jax/play/onnx_network.py to export it)."
        )
    unknown = sorted(set(settings) - set(_resnet_defaults()))
    missing = [name for name in _expected_layers(settings) if name not in variables["params"]]
    problems = [f"settings it does not know ({', '.join(unknown)})"] if unknown else []
    problems += [f"no layers {', '.join(missing)}"] if missing else []
    if problems:
        raise ValueError(
            "ONNX export writes only the built-in ResNet (networks.make_network); this "
            f"network has {' and '.join(problems)}."
        )


def _expected_layers(settings: Mapping) -> list[str]:
    blocks = int(settings.get("blocks", 0))
    return [
        "stem_conv",
        *(f"block_{i}" for i in range(blocks)),
        "policy_conv",
        "policy_dense",
        "value_conv",
        "value_hidden",
        "value_dense",
    ]


def resnet_to_onnx(
    variables: Mapping,
    network_settings: Mapping,
    *,
    observation_shape: tuple[int, int, int],
    num_actions: int,
    name: str = "alphazero_resnet",
):
    """The ResNet of ``variables`` as an ``onnx.ModelProto`` (checked by ``onnx.checker``).

    Args:
      variables: the network's Flax variables, ``{"params": ..., "batch_stats": ...}``
        (NumPy or JAX arrays).
      network_settings: its settings as ``make_network`` took them (a run's
        ``config.network``): ``blocks``, ``activation``, ``normalization``, ...
      observation_shape: the game's ``(H, W, C)``.
      num_actions: the game's number of actions ``A``.
      name: the graph's name.

    Returns:
      The model: input ``observations`` float32[B, H, W, C], outputs ``logits``
      float32[B, A] and ``value`` float32[B] (B is free).

    Raises:
      ValueError: the network is not the built-in ResNet (``check_exportable``).
    """
    import onnx
    from onnx import TensorProto, helper

    check_exportable(network_settings, variables)
    settings = {**_resnet_defaults(), **network_settings}
    params = _numpy(variables["params"])
    stats = _numpy(variables.get("batch_stats", {}))
    graph = _Graph(settings, params, stats)
    x = graph.op("Transpose", [INPUT], perm=[0, 3, 1, 2])  # NHWC -> NCHW
    x = graph.act(graph.conv_norm(x, "stem_conv", "stem_norm", params, stats))
    for index in range(int(settings["blocks"])):
        block_params, block_stats = params[f"block_{index}"], stats.get(f"block_{index}", {})
        y = graph.act(graph.conv_norm(x, "conv_0", "norm_0", block_params, block_stats))
        y = graph.conv_norm(y, "conv_1", "norm_1", block_params, block_stats)
        x = graph.act(graph.op("Add", [x, y]))
    p = graph.act(graph.conv_norm(x, "policy_conv", "policy_norm", params, stats))
    graph.dense(graph.flatten(p), "policy_dense", output=LOGITS)
    v = graph.act(graph.conv_norm(x, "value_conv", "value_norm", params, stats))
    v = graph.act(graph.dense(graph.flatten(v), "value_hidden"))
    v = graph.op("Tanh", [graph.dense(v, "value_dense")])
    graph.op("Reshape", [v, graph.constant("value_shape", np.array([-1], np.int64))], out=VALUE)

    height, width, planes = observation_shape
    inputs = [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["B", height, width, planes])]
    outputs = [
        helper.make_tensor_value_info(LOGITS, TensorProto.FLOAT, ["B", num_actions]),
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
        self.params, self._count = params, 0

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

    def flatten(self, x: str) -> str:
        """[B, C, H, W] -> [B, H * W * C], in JAX's (channels last) order."""
        return self.op("Flatten", [self.op("Transpose", [x], perm=[0, 2, 3, 1])], axis=1)

    def dense(self, x: str, layer: str, output: str | None = None) -> str:
        weight = self.constant(f"{layer}_w", self.params[layer]["kernel"])
        bias = self.constant(f"{layer}_b", self.params[layer]["bias"])
        return self.op("Gemm", [x, weight, bias], out=output)
