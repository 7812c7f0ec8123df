"""The AlphaZero network: a residual convolutional trunk with a policy head and a value head.

``make_network(game, ...)`` builds the Flax module, initialises it, and returns a pure
``apply_fn`` together with the initial variables; no module object reaches the caller. The
value is from the point of view of the player to move, as are the observations.

Layout (AlphaZero, at a smaller scale)::

  stem:      3x3 conv -> norm -> activation
  blocks x:  3x3 conv -> norm -> activation -> 3x3 conv -> norm -> (+ input) -> activation
  policy:    1x1 conv (2) -> norm -> activation -> flatten -> dense (A logits)
  value:     1x1 conv (1) -> norm -> activation -> flatten -> dense (hidden) -> activation
             -> dense (1) -> tanh
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from alphazero_jax.configs.settings import default
from alphazero_jax.types import Array, Game

Variables = dict[str, Any]  # Flax variables: {"params": ..., "batch_stats": ...}.
ApplyFn = Callable[..., tuple["NetworkOutput", Variables]]

ACTIVATIONS = types.MappingProxyType({"relu": nn.relu, "leaky_relu": nn.leaky_relu})
NORMALIZATIONS = ("batch_norm", "none")
_BATCH_NORM_MOMENTUM = 0.9
_BATCH_NORM_EPSILON = 1e-5


class NetworkOutput(NamedTuple):
    """What the network predicts for a batch of positions.

    Attributes:
      logits: float32[B, A], unnormalised log-probabilities over all actions (illegal ones
        included; the caller masks them).
      value: float32[B], in [-1, 1] (tanh), the expected outcome for the player to move.
    """

    logits: Array
    value: Array


COMPUTE_DTYPES = ("float32", "bfloat16")


class _Layers(nn.Module):
    """Builds the convolution + normalisation + activation pieces that every part shares.

    Convolutions and dense layers compute in ``compute_dtype`` (their weights stay float32
    and are cast); normalisations compute in float32."""

    activation: str
    normalization: str
    compute_dtype: str

    def conv(self, features: int, size: int, name: str) -> nn.Conv:
        # A bias before batch norm is redundant: the norm's own bias replaces it.
        return nn.Conv(
            features,
            (size, size),
            padding="SAME",
            use_bias=self.normalization == "none",
            dtype=jnp.dtype(self.compute_dtype),
            name=name,
        )

    def norm(self, x: Array, train: bool, name: str) -> Array:
        if self.normalization == "none":
            return x
        return nn.BatchNorm(
            use_running_average=not train,
            momentum=_BATCH_NORM_MOMENTUM,
            epsilon=_BATCH_NORM_EPSILON,
            dtype=jnp.float32,
            name=name,
        )(x)

    def act(self, x: Array) -> Array:
        return ACTIVATIONS[self.activation](x)


class _ResidualBlock(_Layers):
    channels: int

    @nn.compact
    def __call__(self, x: Array, train: bool) -> Array:
        y = self.act(self.norm(self.conv(self.channels, 3, "conv_0")(x), train, "norm_0"))
        y = self.norm(self.conv(self.channels, 3, "conv_1")(y), train, "norm_1")
        return self.act(x + y)


class _ResNet(_Layers):
    num_actions: int
    channels: int
    blocks: int
    value_hidden: int

    @nn.compact
    def __call__(self, observations: Array, train: bool) -> NetworkOutput:
        settings = {
            "activation": self.activation,
            "normalization": self.normalization,
            "compute_dtype": self.compute_dtype,
        }
        dense_dtype = jnp.dtype(self.compute_dtype)
        x = self.conv(self.channels, 3, "stem_conv")(observations)
        x = self.act(self.norm(x, train, "stem_norm"))
        for index in range(self.blocks):
            x = _ResidualBlock(**settings, channels=self.channels, name=f"block_{index}")(x, train)

        p = self.act(self.norm(self.conv(2, 1, "policy_conv")(x), train, "policy_norm"))
        p = p.reshape(p.shape[0], -1)
        logits = nn.Dense(self.num_actions, dtype=dense_dtype, name="policy_dense")(p)

        v = self.act(self.norm(self.conv(1, 1, "value_conv")(x), train, "value_norm"))
        v = v.reshape(v.shape[0], -1)
        v = self.act(nn.Dense(self.value_hidden, dtype=dense_dtype, name="value_hidden")(v))
        v = nn.Dense(1, dtype=dense_dtype, name="value_dense")(v)
        value = jnp.tanh(v[:, 0].astype(jnp.float32))
        return NetworkOutput(logits.astype(jnp.float32), value.astype(jnp.float32))


def make_network(
    game: Game,
    *,
    channels: int = default("network.channels"),
    blocks: int = default("network.blocks"),
    activation: str = default("network.activation"),
    normalization: str = default("network.normalization"),
    value_hidden: int = default("network.value_hidden"),
    key: jax.Array | None = None,
) -> tuple[ApplyFn, Variables]:
    """Builds the AlphaZero ResNet for a game and initialises its variables.

    Args:
      game: the game; fixes the observation shape ``(H, W, C)`` and the number of actions.
      channels: convolution channels of the trunk, >= 1.
      blocks: residual blocks, >= 0.
      activation: ``"relu"`` or ``"leaky_relu"`` (negative slope 0.01).
      normalization: ``"batch_norm"`` or ``"none"``.
      value_hidden: units of the value head's hidden layer, >= 1.
      key: PRNG key for the initial weights; ``None`` means ``jax.random.key(0)``.

    Returns:
      ``(apply_fn, variables)``. ``apply_fn(variables, observations, *, train=False)`` maps
      float32[B, H, W, C] observations to ``(NetworkOutput, new_variables)``. With
      ``train=True`` and batch norm, the batch's statistics normalise and
      ``new_variables["batch_stats"]`` holds the updated running averages; otherwise the
      running averages normalise and ``new_variables is variables``. ``variables`` holds
      ``"params"`` and, with batch norm, ``"batch_stats"``.

    Raises:
      ValueError: for a setting out of range or not among the accepted names.
    """
    _check_count("channels", channels, 1)
    _check_count("blocks", blocks, 0)
    _check_count("value_hidden", value_hidden, 1)
    _check_choice("activation", activation, tuple(ACTIVATIONS))
    _check_choice("normalization", normalization, NORMALIZATIONS)
    module, apply_fn = _make_apply_fn(
        game, channels, blocks, activation, normalization, value_hidden
    )
    observation_shape = tuple(game.observation_shape)
    key = jax.random.key(0) if key is None else key
    dummy = jnp.zeros((1, *observation_shape), jnp.float32)
    # Eager on purpose: op-by-op kernels are cached across calls, a jitted init is not.
    variables = module.init(key, dummy, train=False)
    return apply_fn, dict(variables)


def make_inference_apply_fn(
    game: Game,
    *,
    compute_dtype: str,
    channels: int = 64,
    blocks: int = 4,
    activation: str = "relu",
    normalization: str = "batch_norm",
    value_hidden: int = 64,
) -> ApplyFn:
    """``make_network``'s ``apply_fn`` computing in ``compute_dtype``, for the same
    (float32) variables: ``"bfloat16"`` halves the bytes a convolution moves and runs on
    a GPU's or TPU's bfloat16 units; its outputs are float32 again. For inference (search,
    self-play); the learner keeps float32."""
    _check_choice("compute_dtype", compute_dtype, COMPUTE_DTYPES)
    settings = (channels, blocks, activation, normalization, value_hidden)
    return _make_apply_fn(game, *settings, compute_dtype)[1]


def _make_apply_fn(
    game, channels, blocks, activation, normalization, value_hidden, compute_dtype="float32"
):
    """The module and a new apply function. Whoever jits over it (a training session, an
    agent, an evaluator) holds the function, so that what it compiles is freed with it."""
    module = _ResNet(
        activation=activation,
        normalization=normalization,
        compute_dtype=compute_dtype,
        num_actions=game.num_actions,
        channels=channels,
        blocks=blocks,
        value_hidden=value_hidden,
    )
    observation_shape = tuple(game.observation_shape)
    has_batch_stats = normalization == "batch_norm"

    def apply_fn(
        variables: Variables, observations: Array, *, train: bool = False
    ) -> tuple[NetworkOutput, Variables]:
        observations = jnp.asarray(observations, jnp.float32)
        if observations.ndim != 4 or observations.shape[1:] != observation_shape:
            raise ValueError(
                f"{game.name} network: observations must have shape [B, "
                f"{', '.join(map(str, observation_shape))}] (channels last), got "
                f"{list(observations.shape)}; add a batch axis to a single observation."
            )
        if train and has_batch_stats:
            output, updates = module.apply(
                variables, observations, train=True, mutable=["batch_stats"]
            )
            return output, {**variables, "batch_stats": updates["batch_stats"]}
        return module.apply(variables, observations, train=False), variables

    return module, apply_fn


def num_parameters(variables: Variables) -> int:
    """Counts the scalar weights in ``variables["params"]`` (batch statistics excluded)."""
    return sum(int(leaf.size) for leaf in jax.tree_util.tree_leaves(variables["params"]))


def flops_per_evaluation(
    game: Game,
    *,
    channels: int = 64,
    blocks: int = 4,
    value_hidden: int = 64,
    padded: bool = True,
    **unused,
) -> int:
    """FLOPs of one position through ``make_network``'s ResNet, counted from its shapes.

    Two FLOPs per multiply-add of every convolution and dense layer (the stem, two 3x3
    convolutions per block, the 1x1 head convolutions and the heads' dense layers); the
    normalisations, activations and additions, about 1% on Connect Four, are left out.
    Counted, not measured, because XLA's cost analysis misses the convolutions that it
    hands to cuDNN on a GPU.

    Args:
      game: the game; its observation shape and number of actions.
      channels, blocks, value_hidden: as in ``make_network`` (``unused`` takes its other
        settings).
      padded: count a 3x3 convolution's taps on the zero border as work, as a GPU
        computes them; False counts only in-board taps, as XLA's CPU cost analysis does
        (0.80x on a 6x7 board).
    """
    del unused
    height, width, planes = game.observation_shape
    cells = height * width
    taps = 9 * cells if padded else (3 * height - 2) * (3 * width - 2)  # 3x3, SAME
    multiply_adds = (
        taps * planes * channels  # stem
        + blocks * 2 * taps * channels * channels  # residual blocks
        + cells * channels * (2 + 1)  # policy and value 1x1 convolutions
        + cells * 2 * game.num_actions  # policy dense
        + cells * value_hidden  # value hidden layer
        + value_hidden  # value output
    )
    return 2 * multiply_adds


def _check_count(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"make_network: {name} must be an integer >= {low}, got {value!r}.")


def _check_choice(name: str, value: object, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        raise ValueError(
            f"make_network: {name} must be one of {', '.join(map(repr, accepted))}, got {value!r}."
        )


DRAW_MARGIN = 1.0 / 3.0  # |value| up to this reads as a draw.


def outcome_label(value: Array) -> Array:
    """The value head read as an outcome: +1 for a win (> 1/3), -1 for a loss (< -1/3),
    0 for a draw in between."""
    return jnp.where(value > DRAW_MARGIN, 1, jnp.where(value < -DRAW_MARGIN, -1, 0))
