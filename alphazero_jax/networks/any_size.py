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
weights of its own, as in ``"resnet"``. A game whose actions have none of these layouts is
refused in one line: a game of one's own whose actions have one of these layouts says so
with ``register_layout``; any other goes through ``networks.register``.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from alphazero_jax.networks.outputs import NetworkOutput
from alphazero_jax.networks.resnet import _check_resnet_settings, _Tower
from alphazero_jax.types import Array, Game

# The action layout of each game, by its registry name (``register_layout`` adds one's own).
LAYOUTS = {
    "tic_tac_toe": "cells",
    "othello": "cells_and_pass",
    "connect_four": "columns",
    "quoridor": "quoridor",
}
KINDS_OF_LAYOUT = ("cells", "cells_and_pass", "columns", "quoridor")


def register_layout(game_name: str, layout: str) -> None:
    """Says that a game of one's own (``games.register``) lays its actions out as one of
    ``KINDS_OF_LAYOUT``: ``"cells"`` (an action per cell, row by row), ``"cells_and_pass"``
    (then a pass), ``"columns"`` (an action per column), ``"quoridor"``; then
    ``resnet_any_size`` builds for it. A layout of another shape needs a network kind of
    its own (``networks.register``).

    Raises:
      ValueError: a layout not among ``KINDS_OF_LAYOUT``; one line.
    """
    if layout not in KINDS_OF_LAYOUT:
        raise ValueError(
            f"An action layout must be one of {', '.join(KINDS_OF_LAYOUT)}, got {layout!r}."
        )
    LAYOUTS[game_name] = layout


def _expected_actions(layout: str, height: int, width: int, num_actions: int) -> bool:
    grooves = (height - 1) * (width - 1)
    return {
        "cells": num_actions == height * width,
        "cells_and_pass": num_actions == height * width + 1,
        "columns": num_actions == width,
        "quoridor": num_actions > 2 * grooves,
    }[layout]


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
        batch, height, width, _ = h.shape
        if self.layout in ("cells", "cells_and_pass"):
            logits = self._dense(1, f"{prefix}_cell")(h).reshape(batch, height * width)
            if self.layout == "cells_and_pass":
                passing = self._dense(1, f"{prefix}_pass")(_pooled(h))
                logits = jnp.concatenate([logits, passing], axis=-1)
        elif self.layout == "columns":
            soft_max = jax.nn.logsumexp(h, axis=1) - jnp.log(height)  # as in _pooled
            column = jnp.concatenate([h.mean(axis=1), soft_max], axis=-1)  # [B, W, 2C]
            logits = self._dense(1, f"{prefix}_column")(column)[..., 0]
        else:  # quoridor: the pawn moves, then the horizontal and the vertical grooves
            pawn = observations[..., :1].astype(jnp.float32)  # the mover's pawn's square
            under = (h * pawn).sum(axis=(1, 2))
            num_pawn = self.num_actions - 2 * (height - 1) * (width - 1)
            moves = self._dense(num_pawn, f"{prefix}_pawn")(
                jnp.concatenate([under, _pooled(h)], axis=-1)
            )
            walls = nn.Conv(
                2,
                (2, 2),
                padding="VALID",
                dtype=jnp.dtype(self.compute_dtype),
                name=f"{prefix}_walls",
            )(h)  # [B, H-1, W-1, 2]: groove (r, c) lies among the squares (r..r+1, c..c+1)
            walls = jnp.moveaxis(walls, -1, 1).reshape(batch, -1)
            logits = jnp.concatenate([moves, walls], axis=-1)
        return logits.astype(jnp.float32)

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
    height, width = tuple(game.observation_shape)[:2]
    layout = LAYOUTS.get(game.name)
    if layout is None or not _expected_actions(layout, height, width, game.num_actions):
        raise ValueError(
            f"Network kind 'resnet_any_size' knows the action layouts of "
            f"{', '.join(sorted(LAYOUTS))}, not that of {game.name!r} ({game.num_actions} "
            f"actions on a {height}x{width} board); give it one (networks.any_size."
            "register_layout) or register a network of its own (networks.register)."
        )
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
