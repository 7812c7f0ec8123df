"""Each game's final score, a registry keyed by game name: the score-like auxiliary target.

KataGo predicts the final score of Go beside the outcome and measures the two score-like
targets, ownership and score, worth 1.65x less self-play to the same strength (Wu (2019)).
An outcome of +1, 0 or -1 says who won; a score says by how much, a denser signal. Here a
score is a function of a game's last state, from the first player's view, in [-1, 1]:

- ``othello``: the final disc difference over the board's cells;
- ``quoridor``: the path-length race at the end, the second player's shortest path to
  its goal minus the first's (the winner's is 0), over the board's squares;
- ``connect_four`` and ``tic_tac_toe``: the outcome times the share of the board left
  empty at the end, plus one, ``outcome * (empty + 1) / (cells + 1)``: the sooner a win,
  the larger, as a solver scores a position (Connect Four's perfect-play sets) and as the
  number of plies to the end tells.

Self-play records each game's score where it ends (``selfplay.make_selfplay``'s
``score_fn``), the target ``final_score`` (``training.targets``) gives it to every position
of the game from its mover's view, and the loss term ``score`` (``training.losses``) trains
the ResNet's ``score_head`` on it: ``config.network.score_head=True`` and
``config.learner.aux_weights={'score': w}``. A game of one's own registers its score here.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax.games import quoridor_geometry as geometry
from alphazero_jax.games import quoridor_rules
from alphazero_jax.types import Array, Game, State

ScoreFn = Callable[[State], Array]  # a final state -> float32[], first player's view

_SCORES: dict[str, Callable[[Game], ScoreFn]] = {}


def register(game_name: str, make: Callable[[Game], ScoreFn]) -> None:
    """Adds the score of the game registered as ``game_name`` (``games.register``).

    Args:
      game_name: the game's registry name.
      make: ``make(game) -> score(state) -> float32[]``: the score of a finished game's
        last state from the first player's view, in [-1, 1], pure and jittable (unbatched).

    Raises:
      ValueError: a game name that has a score from another function.
    """
    if _SCORES.get(game_name, make) is not make:
        raise ValueError(
            f"The game {game_name!r} has a score already, from {_SCORES[game_name].__module__}."
        )
    _SCORES[game_name] = make


def available() -> tuple[str, ...]:
    """The games with a registered score, sorted."""
    return tuple(sorted(_SCORES))


def make(game: Game) -> ScoreFn:
    """``score(state) -> float32[]`` of ``game`` (unbatched; the caller vmaps).

    Raises:
      ValueError: a game without a registered score; the message lists those with one.
    """
    if game.name not in _SCORES:
        raise ValueError(
            f"The game {game.name!r} has no registered score; games with one: "
            f"{', '.join(available())} (training.scores.register)."
        )
    return _SCORES[game.name](game)


def _in_a_row(game: Game) -> ScoreFn:
    """Connect Four's and Tic-Tac-Toe's: ``outcome * (empty + 1) / (cells + 1)``."""
    height, width = game.observation_shape[:2]
    cells = height * width

    def score(state: State) -> Array:
        empty = cells - state.num_moves.astype(jnp.float32)
        return state.rewards[0] * (empty + 1) / (cells + 1)

    return score


def _othello(game: Game) -> ScoreFn:
    """Othello's: the first player's discs minus the second's, over the cells."""
    height, width = game.observation_shape[:2]

    def score(state: State) -> Array:
        # state.board: uint32[2, W], each player's discs as bitboard words.
        discs = jnp.sum(jax.lax.population_count(state.board), axis=-1).astype(jnp.float32)
        return (discs[0] - discs[1]) / (height * width)

    return score


def _quoridor(game: Game) -> ScoreFn:
    """Quoridor's: the second player's shortest path minus the first's, over the squares."""
    size = game.observation_shape[0]

    def score(state: State) -> Array:
        own, other, walls_h, walls_v, _, _ = quoridor_rules.mover_view(size, state)
        east, south = geometry.open_edges(size, walls_h, walls_v)
        pawns = jnp.stack([geometry.pawn_rows(size, own), geometry.pawn_rows(size, other)])
        steps = geometry.race(pawns, jnp.asarray(geometry.tables(size).goals), east, south)
        mover = jnp.clip((steps[1] - steps[0]).astype(jnp.float32) / (size * size), -1, 1)
        return jnp.where(state.current_player == 0, mover, -mover)

    return score


register("connect_four", _in_a_row)
register("tic_tac_toe", _in_a_row)
register("othello", _othello)
register("quoridor", _quoridor)
