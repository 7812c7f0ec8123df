"""The ResNet with heads whose weights do not depend on the board's size, the network kind
``"resnet_any_size"`` (``make_any_size_resnet``): one set of variables plays every size of a
game, so that one network can learn on small boards beside a large one
(``config.game.mixed``), as KataGo trains one network on mixed board sizes (Wu, 2019).

Its trunk is the ``"resnet"`` kind's, and its settings are the same. Its heads read the
trunk's features where the actions are, instead of a dense layer over the flattened board::

  policy:  1x1 conv (channels) -> norm -> activation, then by the game's action layout:
           cells (Tic-Tac-Toe)      a logit per cell, a dense layer shared by the cells
           cells and a pass (Othello)  the same, and the pass from the pooled board
           columns (Connect Four)   a logit per column from its cells' mean and soft max
           Quoridor                 the pawn moves from the features under the mover's
                                    pawn (observation plane 0) and the pooled board; the
                                    walls from a 2x2 convolution, two logits per groove
                                    (horizontal, vertical) over the four squares around it
  value:   1x1 conv (channels) -> norm -> activation -> the board's mean and soft max ->
           dense (value_hidden) -> activation -> dense (1) -> tanh

The reply head has the policy head's layout and the score head the value head's, each with
weights of its own, as in ``"resnet"``. A game's layout is its record's ``action_layout``
(``games.GameRecord``); a layout is a registered ``ActionLayout`` (``plugs.ACTION_LAYOUTS``:
the four above are registered here the same way, ``register_layout`` adds one's own). A game
whose record names none is refused in one line; any other network goes through
``networks.register``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from alphazero_jax import plugs
from alphazero_jax.networks.outputs import NetworkOutput
from alphazero_jax.networks.resnet import _check_resnet_settings, _Tower
from alphazero_jax.registry import module_of
from alphazero_jax.types import Array, Game

# (features float32[B, H, W, C], observations float32[B, H, W, C'], num_actions, prefix,
# dtype) -> float32[B, A]: a policy head's logits, its layers named from ``prefix``.
HeadFn = Callable[[Array, Array, int, str, jnp.dtype], Array]


class ActionLayout(NamedTuple):
    """A registered action layout: whether a board's actions have it (``fits(height,
    width, num_actions)``) and the policy head that reads them from the trunk (``head``,
    called inside the network's Flax module, so its layers are the network's)."""

    name: str
    fits: Callable[[int, int, int], bool]
    head: HeadFn


def register_layout(name: str, fits: Callable[[int, int, int], bool], head: HeadFn) -> None:
    """Adds an action layout that ``resnet_any_size`` can read; a game names it in its
    record (``GameRecord(action_layout=name)``).

    Raises:
      ValueError: a name that is no identifier, or one taken; one line.
    """
    plugs.ACTION_LAYOUTS.register(name, ActionLayout(name, fits, head), module=module_of(head))


def layout_of(game: Game) -> ActionLayout:
    """The registered layout that ``game``'s record names.

    Raises:
      ValueError: the record names none, or one whose actions do not fit the board; one line.
    """
    registered = game.name in plugs.GAMES
    name = plugs.GAMES.get(game.name).record.action_layout if registered else None
    height, width = tuple(game.observation_shape)[:2]
    if name is None:
        raise ValueError(
            f"Network kind 'resnet_any_size' reads a game's actions by its record's "
            f"action_layout, and {game.name!r} names none; name one of "
            f"{', '.join(plugs.ACTION_LAYOUTS.available())} (GameRecord(action_layout=...); "
            "networks.any_size.register_layout adds one) or register a network of its own "
            "(networks.register)."
        )
    layout = plugs.ACTION_LAYOUTS.get(name)
    if not layout.fits(height, width, game.num_actions):
        raise ValueError(
            f"Network kind 'resnet_any_size': {game.name!r} has {game.num_actions} actions on "
            f"a {height}x{width} board, which do not fit its action layout {name!r}."
        )
    return layout


def _pooled(x: Array) -> Array:
    """float32[B, 2C]: the mean and a soft maximum of ``x`` [B, H, W, C] over the board.

    The soft maximum is the log-sum-exp less the log of the cells: a board of equal
    features gives that feature, a single large one nearly its value. Its gradient is a
    softmax over the cells; a hard maximum's divides by the number of cells equal to the
    maximum, and with it the learner's gradients turned NaN from the second update of a
    Tic-Tac-Toe smoke run on the CPU at ``--xla_backend_optimization_level=0`` (the test
    suite's level; 2026-11-28)."""
    cells = x.shape[1] * x.shape[2]
    soft_max = jax.nn.logsumexp(x, axis=(1, 2)) - jnp.log(cells)
    return jnp.concatenate([x.mean(axis=(1, 2)), soft_max], axis=-1)


class _AnySizeResNet(_Tower):
    layout: str
    num_actions: int
    value_hidden: int
    reply_head: bool = False
    score_head: bool = False

    @nn.compact
    def __call__(self, observations: Array, train: bool) -> NetworkOutput:
        x = self.tower(observations, train)
        logits = self._policy(x, observations, train, "policy")
        value = self._scalar(x, train, "value")
        aux = {}
        if self.reply_head:
            aux["reply"] = self._policy(x, observations, train, "reply")
        if self.score_head:
            aux["score"] = self._scalar(x, train, "score")
        return NetworkOutput(logits, value, aux)

    def _dense(self, features: int, name: str) -> nn.Dense:
        return nn.Dense(features, dtype=jnp.dtype(self.compute_dtype), name=name)

    def _features(self, x: Array, train: bool, prefix: str) -> Array:
        h = self.conv(self.channels, 1, f"{prefix}_conv")(x)
        return self.act(self.norm(h, train, f"{prefix}_norm")).astype(jnp.float32)

    def _policy(self, x: Array, observations: Array, train: bool, prefix: str) -> Array:
        """float32[B, A] logits in the game's action order."""
        h = self._features(x, train, prefix)
        head = plugs.ACTION_LAYOUTS.get(self.layout).head
        dtype = jnp.dtype(self.compute_dtype)
        return head(h, observations, self.num_actions, prefix, dtype).astype(jnp.float32)

    def _scalar(self, x: Array, train: bool, prefix: str) -> Array:
        """float32[B] in [-1, 1]: the value head's layout."""
        h = _pooled(self._features(x, train, prefix))
        h = self.act(self._dense(self.value_hidden, f"{prefix}_hidden")(h))
        return jnp.tanh(self._dense(1, f"{prefix}_dense")(h)[:, 0].astype(jnp.float32))


def make_any_size_resnet(
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
    """The ResNet whose variables fit every board size of ``game`` (the
    ``"resnet_any_size"`` network kind); the settings are ``make_resnet``'s.

    Raises:
      ValueError: a game without a known action layout, or a setting ``make_resnet``
        refuses; one line.
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
    layout = layout_of(game).name
    return _AnySizeResNet(
        activation=activation,
        normalization=normalization,
        compute_dtype=compute_dtype,
        layout=layout,
        num_actions=game.num_actions,
        channels=channels,
        blocks=blocks,
        value_hidden=value_hidden,
        reply_head=reply_head,
        score_head=score_head,
    )


def _cells(h: Array, observations: Array, num_actions: int, prefix: str, dtype) -> Array:
    """A logit per cell, row by row: a dense layer shared by the cells."""
    batch, height, width, _ = h.shape
    return nn.Dense(1, dtype=dtype, name=f"{prefix}_cell")(h).reshape(batch, height * width)


def _cells_and_pass(h: Array, observations: Array, num_actions: int, prefix: str, dtype) -> Array:
    """The cells' logits, then the pass's from the pooled board."""
    cells = _cells(h, observations, num_actions, prefix, dtype)
    passing = nn.Dense(1, dtype=dtype, name=f"{prefix}_pass")(_pooled(h))
    return jnp.concatenate([cells, passing], axis=-1)


def _columns(h: Array, observations: Array, num_actions: int, prefix: str, dtype) -> Array:
    """A logit per column from its cells' mean and soft max."""
    soft_max = jax.nn.logsumexp(h, axis=1) - jnp.log(h.shape[1])  # as in _pooled
    column = jnp.concatenate([h.mean(axis=1), soft_max], axis=-1)  # [B, W, 2C]
    return nn.Dense(1, dtype=dtype, name=f"{prefix}_column")(column)[..., 0]


def _quoridor(h: Array, observations: Array, num_actions: int, prefix: str, dtype) -> Array:
    """The pawn moves from the features under the mover's pawn (observation plane 0) and the
    pooled board, then the horizontal and the vertical grooves from a 2x2 convolution."""
    batch, height, width, _ = h.shape
    pawn = observations[..., :1].astype(jnp.float32)  # the mover's pawn's square
    under = (h * pawn).sum(axis=(1, 2))
    num_pawn = num_actions - 2 * (height - 1) * (width - 1)
    moves = nn.Dense(num_pawn, dtype=dtype, name=f"{prefix}_pawn")(
        jnp.concatenate([under, _pooled(h)], axis=-1)
    )
    walls = nn.Conv(2, (2, 2), padding="VALID", dtype=dtype, name=f"{prefix}_walls")(h)
    # [B, H-1, W-1, 2]: groove (r, c) lies among the squares (r..r+1, c..c+1)
    walls = jnp.moveaxis(walls, -1, 1).reshape(batch, -1)
    return jnp.concatenate([moves, walls], axis=-1)


register_layout("cells", lambda height, width, actions: actions == height * width, _cells)
register_layout(
    "cells_and_pass", lambda height, width, actions: actions == height * width + 1, _cells_and_pass
)
register_layout("columns", lambda height, width, actions: actions == width, _columns)
register_layout(
    "quoridor", lambda height, width, actions: actions > 2 * (height - 1) * (width - 1), _quoridor
)
