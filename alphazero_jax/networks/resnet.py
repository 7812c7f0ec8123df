"""The AlphaZero ResNet, the network kind ``"resnet"`` (``make_resnet``), and its FLOPs.

Its layout (AlphaZero, at a smaller scale)::

  stem:      3x3 conv -> norm -> activation
  blocks x:  3x3 conv -> norm -> activation -> 3x3 conv -> norm -> (+ input) -> activation
  policy:    1x1 conv (2) -> norm -> activation -> flatten -> dense (A logits)
  value:     1x1 conv (1) -> norm -> activation -> flatten -> dense (hidden) -> activation
             -> dense (1) -> tanh

Two optional auxiliary heads, off by default (no weights of them then), feed the loss terms
of ``training.losses``: ``reply_head`` adds ``aux["reply"]``, logits of the opponent's reply
(a second policy head, Wu (2019)), and ``score_head`` adds ``aux["score"]``, the game's final
score from the mover's view in [-1, 1] (a second value head, Wu (2019)).
"""

from __future__ import annotations

import types

import flax.linen as nn
import jax.numpy as jnp

from alphazero_jax.networks.outputs import NetworkOutput
from alphazero_jax.types import Array, Game

ACTIVATIONS = types.MappingProxyType({"relu": nn.relu, "leaky_relu": nn.leaky_relu})
NORMALIZATIONS = ("batch_norm", "none")
COMPUTE_DTYPES = ("float32", "bfloat16")
_BATCH_NORM_MOMENTUM = 0.9
_BATCH_NORM_EPSILON = 1e-5


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


class _Tower(_Layers):
    """The residual tower's fields and its layers, built inline by ``tower`` (called from a
    subclass's compact ``__call__``, so its variables sit at the top of the tree:
    ``stem_conv``, ``stem_norm``, ``block_0``, ...)."""

    channels: int
    blocks: int

    def tower(self, observations: Array, train: bool) -> Array:
        settings = {
            "activation": self.activation,
            "normalization": self.normalization,
            "compute_dtype": self.compute_dtype,
        }
        x = self.conv(self.channels, 3, "stem_conv")(observations)
        x = self.act(self.norm(x, train, "stem_norm"))
        for index in range(self.blocks):
            x = _ResidualBlock(**settings, channels=self.channels, name=f"block_{index}")(x, train)
        return x


class _ResNet(_Tower):
    num_actions: int
    value_hidden: int
    reply_head: bool = False
    score_head: bool = False

    @nn.compact
    def __call__(self, observations: Array, train: bool) -> NetworkOutput:
        dense_dtype = jnp.dtype(self.compute_dtype)
        x = self.tower(observations, train)

        p = self.act(self.norm(self.conv(2, 1, "policy_conv")(x), train, "policy_norm"))
        p = p.reshape(p.shape[0], -1)
        logits = nn.Dense(self.num_actions, dtype=dense_dtype, name="policy_dense")(p)

        v = self.act(self.norm(self.conv(1, 1, "value_conv")(x), train, "value_norm"))
        v = v.reshape(v.shape[0], -1)
        v = self.act(nn.Dense(self.value_hidden, dtype=dense_dtype, name="value_hidden")(v))
        v = nn.Dense(1, dtype=dense_dtype, name="value_dense")(v)
        value = jnp.tanh(v[:, 0].astype(jnp.float32))
        aux = {}
        if self.reply_head:  # the policy head's layout, its own weights
            r = self.act(self.norm(self.conv(2, 1, "reply_conv")(x), train, "reply_norm"))
            r = r.reshape(r.shape[0], -1)
            r = nn.Dense(self.num_actions, dtype=dense_dtype, name="reply_dense")(r)
            aux["reply"] = r.astype(jnp.float32)
        if self.score_head:  # the value head's layout, its own weights
            s = self.act(self.norm(self.conv(1, 1, "score_conv")(x), train, "score_norm"))
            s = s.reshape(s.shape[0], -1)
            s = self.act(nn.Dense(self.value_hidden, dtype=dense_dtype, name="score_hidden")(s))
            s = nn.Dense(1, dtype=dense_dtype, name="score_dense")(s)
            aux["score"] = jnp.tanh(s[:, 0].astype(jnp.float32))
        return NetworkOutput(logits.astype(jnp.float32), value.astype(jnp.float32), aux)


def make_resnet(
    game: Game,
    *,
    channels: int = 64,
    blocks: int = 4,
    activation: str = "relu",
    normalization: str = "batch_norm",
    value_hidden: int = 64,
    compute_dtype: str = "float32",
    reply_head: bool = False,
    score_head: bool = False,
) -> nn.Module:
    """The AlphaZero ResNet's Flax module for ``game`` (the ``"resnet"`` network kind).

    Args:
      game: the game; fixes the number of actions.
      channels: convolution channels of the trunk, >= 1.
      blocks: residual blocks, >= 0.
      activation: ``"relu"`` or ``"leaky_relu"`` (negative slope 0.01).
      normalization: ``"batch_norm"`` or ``"none"``.
      value_hidden: units of the value head's hidden layer, >= 1.
      compute_dtype: the convolutions' and dense layers' arithmetic, ``"float32"`` or
        ``"bfloat16"`` (weights stay float32; for inference).
      reply_head: add ``aux["reply"]``, float32[B, A] logits of the opponent's reply (the
        loss term ``reply``; Wu, 2019).
      score_head: add ``aux["score"]``, float32[B] in [-1, 1], the game's final score from
        the mover's view (the loss term ``score``; Wu, 2019).

    Raises:
      ValueError: for a setting out of range or not among the accepted names.
    """
    _check_resnet_settings(
        channels=channels,
        blocks=blocks,
        value_hidden=value_hidden,
        activation=activation,
        normalization=normalization,
        compute_dtype=compute_dtype,
        reply_head=reply_head,
        score_head=score_head,
    )
    return _ResNet(
        activation=activation,
        normalization=normalization,
        compute_dtype=compute_dtype,
        num_actions=game.num_actions,
        channels=channels,
        blocks=blocks,
        value_hidden=value_hidden,
        reply_head=reply_head,
        score_head=score_head,
    )


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


def _check_resnet_settings(
    *,
    channels,
    blocks,
    value_hidden,
    activation,
    normalization,
    compute_dtype,
    reply_head,
    score_head,
) -> None:
    """Raises ValueError (one line) for a ResNet setting out of range or not accepted; the
    ``"resnet_any_size"`` kind takes the same settings."""
    _check_count("channels", channels, 1)
    _check_count("blocks", blocks, 0)
    _check_count("value_hidden", value_hidden, 1)
    _check_choice("activation", activation, tuple(ACTIVATIONS))
    _check_choice("normalization", normalization, NORMALIZATIONS)
    _check_choice("compute_dtype", compute_dtype, COMPUTE_DTYPES)
    for name, flag in (("reply_head", reply_head), ("score_head", score_head)):
        if not isinstance(flag, bool):
            raise ValueError(f"make_network: {name} must be True or False, got {flag!r}.")


def _check_count(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"make_network: {name} must be an integer >= {low}, got {value!r}.")


def _check_choice(name: str, value: object, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        raise ValueError(
            f"make_network: {name} must be one of {', '.join(map(repr, accepted))}, got {value!r}."
        )
