"""Host helpers that play move lists through a game's jitted ``step``, batched."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.types import Game, State

_OK, _GAME_OVER, _ILLEGAL = 0, 1, 2
_PAD = -1


# Games whose replay function is kept compiled. ``replay`` is a host convenience called
# with a game and a move list from many places (tests, evaluation, experiments) that hold
# nothing between calls, so the compiled scan is cached here per game. A process replays
# moves of a few games; past the bound the least recently used one recompiles when next
# asked for (a second or so), never a wrong result.
_MAX_REPLAY_GAMES = 16


@functools.lru_cache(maxsize=_MAX_REPLAY_GAMES)
def _replay_fn(game: Game):
    """Jitted ``(actions int32[B, T]) -> (states[B], problems int8[B, T])``, one per game
    (jit keys on the closure, so a fresh one per call would compile every call); bounded by
    ``_MAX_REPLAY_GAMES``, least recently used first out."""

    def play_one(actions):
        def move(state, action):
            legal = game.legal_action_mask(state)
            in_range = (action >= 0) & (action < game.num_actions)
            is_legal = in_range & legal[jnp.clip(action, 0, game.num_actions - 1)]
            problem = jnp.where(
                action == _PAD,
                _OK,
                jnp.where(state.terminal, _GAME_OVER, jnp.where(is_legal, _OK, _ILLEGAL)),
            ).astype(jnp.int8)
            next_state = game.step(state, action)
            keep = (action == _PAD) | (problem != _OK)
            state = jax.tree.map(lambda old, new: jnp.where(keep, old, new), state, next_state)
            return state, problem

        return jax.lax.scan(move, game.init(jax.random.key(0)), actions)

    return jax.jit(jax.vmap(play_one))


def replay_batch(game: Game, move_lists: Sequence[Sequence[int]]) -> State:
    """Plays each list of actions from the start position, all lists in one batch.

    Args:
      game: the game.
      move_lists: B lists of actions (any lengths up to ``game.max_num_moves``).

    Returns:
      The B final states, stacked (a batched State).

    Raises:
      ValueError: naming the list, the move and its index, when a move is illegal or comes
        after the game has ended.
    """
    num_lists = len(move_lists)
    length = max([len(m) for m in move_lists] + [1])
    if length > game.max_num_moves:
        raise ValueError(
            f"A {game.name} game has at most {game.max_num_moves} moves, got {length}."
        )
    for row, moves in enumerate(move_lists):
        for index, action in enumerate(moves):
            if not 0 <= int(action) < game.num_actions:
                raise ValueError(
                    f"Move {index} of move list {row} is action {int(action)}, but {game.name} "
                    f"actions are in [0, {game.num_actions})."
                )
    # Pad the batch to a power of two and the time axis to the game's bound: few shapes.
    batch = 1 << max(num_lists - 1, 0).bit_length()
    actions = np.full((batch, game.max_num_moves), _PAD, np.int32)
    for i, moves in enumerate(move_lists):
        actions[i, : len(moves)] = moves
    states, problems = _replay_fn(game)(jnp.asarray(actions))
    problems = np.asarray(problems)[:num_lists]
    bad = np.argwhere(problems != _OK)
    if len(bad):
        row, index = (int(x) for x in bad[0])
        move, moves_text = _named(game, list(move_lists[row]), index)
        where = f" of move list {row}" if num_lists > 1 else ""
        if problems[row, index] == _GAME_OVER:
            reason = "comes after the game has ended"
        else:
            reason = "is illegal in this position (e.g. a full column or a taken cell)"
        raise ValueError(f"Move {move!r} at index {index}{where} ({moves_text!r}) {reason}.")
    return jax.tree.map(lambda x: x[:num_lists], states)


def _named(game: Game, moves: list[int], index: int) -> tuple[str, str]:
    """The name of ``moves[index]`` where it is played, and the moves up to it, as text.

    A move's name may depend on the position (a Quoridor pawn move names its square), so it
    is read off the move list's text rather than named from the start position."""
    through = game.actions_to_text(moves[: index + 1])
    before = game.actions_to_text(moves[:index])
    return through[len(before) :].strip(), through


def replay(game: Game, moves: str | Sequence[int]) -> State:
    """The position reached by a move list, given as text in the game's notation or as
    actions. Raises ValueError naming the first bad move and its index."""
    actions = game.actions_from_text(moves) if isinstance(moves, str) else list(moves)
    return jax.tree.map(lambda x: x[0], replay_batch(game, [actions]))
