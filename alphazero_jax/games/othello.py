"""Othello (Reversi) on an even ``size`` x ``size`` board, 4..16 (8 is the standard game).

``make`` binds the rules (``othello_rules.py``: the state and its pure functions) to the
notation and picture (``othello_text.py``) as a ``Game``. The names players and tests use
are here too.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from alphazero_jax.games import othello_rules as rules
from alphazero_jax.games import othello_text as text
from alphazero_jax.games._notation import board_json
from alphazero_jax.games._validate import check_int
from alphazero_jax.games.othello_rules import WEIGHTS, OthelloState, count_discs, from_grid, grid
from alphazero_jax.types import Array, Game

__all__ = [
    "LIMITS",
    "NAME",
    "WEIGHTS",
    "OthelloState",
    "count_discs",
    "from_grid",
    "grid",
    "make",
    "score",
]

NAME = "othello"
# Each setting's bounds and step: sizes are even.
LIMITS = {"size": (4, 16, 2), "legal_plane": (0, 1)}


def make(*, size: int = 8, legal_plane: int = 1) -> Game:
    """Othello on a ``size`` x ``size`` board.

    Args:
      size: the board's side, even, 4..16.
      legal_plane: 1 to add a third observation plane marking the mover's legal
        placements, 0 for only the two disc planes.

    Returns:
      The game as pure functions; its states are ``OthelloState``.
    """
    check_int(NAME, "size", size, *LIMITS["size"][:2])
    if size % 2:
        raise ValueError(f"{NAME}: size must be even (4, 6, ..., 16), got {size!r}.")
    check_int(NAME, "legal_plane", legal_plane, *LIMITS["legal_plane"])
    settings = rules.Settings(size, legal_plane)
    return Game(
        name=NAME,
        num_actions=settings.num_actions,
        observation_shape=settings.observation_shape,
        max_num_moves=settings.max_num_moves,
        settings=(("size", size), ("legal_plane", legal_plane)),
        init=functools.partial(rules.init, settings),
        step=functools.partial(rules.step, settings),
        observe=functools.partial(rules.observe, settings),
        legal_action_mask=functools.partial(rules.legal_action_mask, settings),
        heuristic=functools.partial(rules.heuristic, settings),
        symmetries=rules.symmetries(size),
        to_text=lambda state: text.to_text(size, grid(size, state)),
        action_to_text=lambda action, state=None: text.action_to_text(size, action),
        actions_from_text=lambda moves, state=None: text.actions_from_text(size, moves),
        actions_to_text=lambda actions, state=None: text.actions_to_text(size, actions),
        to_json=lambda state: board_json(grid(size, state)),
    )


def score(game: Game):
    """Othello's final score, from the first player's view: the first player's discs minus
    the second's, over the cells."""
    height, width = game.observation_shape[:2]

    def final_score(state: OthelloState) -> Array:
        # state.board: uint32[2, W], each player's discs as bitboard words.
        discs = jnp.sum(jax.lax.population_count(state.board), axis=-1).astype(jnp.float32)
        return (discs[0] - discs[1]) / (height * width)

    return final_score
