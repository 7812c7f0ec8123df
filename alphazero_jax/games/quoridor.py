"""Quoridor for two players on an odd ``size`` x ``size`` board, 5..9 (9 is the standard game).

``make`` binds the rules (``quoridor_rules.py``: the state and its pure functions, with the
paths and walls of ``quoridor_geometry.py``) to the notation, picture and refusal words
(``quoridor_text.py``) as a ``Game``. The names players and tests use are here too.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from alphazero_jax.games import quoridor_geometry as geometry
from alphazero_jax.games import quoridor_rules as rules
from alphazero_jax.games import quoridor_text as text
from alphazero_jax.games._validate import check_int
from alphazero_jax.games.quoridor_rules import (
    FAR,
    NUM_PAWN_ACTIONS,
    PAWN_OFFSETS,
    WEIGHTS,
    QuoridorState,
    legal_actions,
    opponent_distances,
    pawn_distances,
)
from alphazero_jax.types import Array, Game

__all__ = [
    "FAR",
    "LIMITS",
    "NAME",
    "NUM_PAWN_ACTIONS",
    "PAWN_OFFSETS",
    "WEIGHTS",
    "QuoridorState",
    "legal_actions",
    "make",
    "opponent_distances",
    "pawn_distances",
    "score",
]

NAME = "quoridor"
LIMITS = {"size": (5, 9, 2), "walls": (0, 20), "distance_planes": (0, 1)}


def make(*, size: int = 9, walls: int = 10, distance_planes: int = 1) -> Game:
    """Quoridor on a ``size`` x ``size`` board with ``walls`` walls per player.

    Args:
      size: the board's side, odd, 5..9 (5 with 3 walls and 7 with 6 suit a CPU).
      walls: walls each player starts with, 0..20.
      distance_planes: 1 to add two observation planes with every square's shortest-path
        distance to the mover's goal and to the opponent's (divided by ``size^2``).

    Returns:
      The game as pure functions; its states are ``QuoridorState``.
    """
    check_int(NAME, "size", size, *LIMITS["size"][:2])
    if size % 2 == 0:
        raise ValueError(f"{NAME}: size must be odd (5, 7 or 9), got {size!r}.")
    check_int(NAME, "walls", walls, *LIMITS["walls"])
    check_int(NAME, "distance_planes", distance_planes, *LIMITS["distance_planes"])
    settings = rules.Settings(size, walls, distance_planes)
    notation = functools.partial(text.Notation, size, PAWN_OFFSETS, rules.start_pawns(size))
    return Game(
        name=NAME,
        num_actions=settings.num_actions,
        observation_shape=settings.observation_shape,
        max_num_moves=settings.max_num_moves,
        settings=(("size", size), ("walls", walls), ("distance_planes", distance_planes)),
        init=functools.partial(rules.init, settings),
        step=functools.partial(rules.step, settings),
        observe=functools.partial(rules.observe, settings),
        legal_action_mask=rules.legal_action_mask,
        heuristic=functools.partial(rules.heuristic, settings),
        symmetries=rules.symmetries(size),
        to_text=text.to_text,
        action_to_text=lambda action, state=None: notation(state).name(action),
        actions_from_text=lambda moves, state=None: notation(state).parse(moves),
        actions_to_text=lambda actions, state=None: notation(state).write(actions),
        to_json=text.to_json,
        explain_illegal=lambda state, action: text.refusal(
            rules.illegal_reasons(state, int(action))
        ),
    )


def score(game: Game):
    """Quoridor's final score, from the first player's view: the path-length race at the
    end, the second player's shortest path to its goal minus the first's (the winner's is
    0), over the board's squares."""
    size = game.observation_shape[0]

    def final_score(state: QuoridorState) -> Array:
        own, other, walls_h, walls_v, _, _ = rules.mover_view(size, state)
        east, south = geometry.open_edges(size, walls_h, walls_v)
        pawns = jnp.stack([geometry.pawn_rows(size, own), geometry.pawn_rows(size, other)])
        steps = geometry.race(pawns, jnp.asarray(geometry.tables(size).goals), east, south)
        mover = jnp.clip((steps[1] - steps[0]).astype(jnp.float32) / (size * size), -1, 1)
        return jnp.where(state.current_player == 0, mover, -mover)

    return final_score
