"""Batched self-play: B games advanced together in one ``lax.scan``, a search per move.

All B games start together and the scan runs ``game.max_num_moves`` moves; a game that has
ended keeps being searched (fixed shapes) but its records are marked invalid. Moves are
sampled for the first ``num_sampling_moves`` plies of each game and chosen greedily after
(``search.choose_action``).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax import search
from alphazero_jax.types import Array, Game, State, Trajectory


def value_targets(final_rewards: Array, player: Array, valid: Array) -> Array:
    """float32[T, B]: each position's final outcome from its mover's view; 0 where invalid.

    Args:
      final_rewards: float32[B, 2], the outcome of each game per player.
      player: int32[T, B], the player to move at each recorded position.
      valid: bool[T, B], whether the position was part of the game.
    """
    per_player = jnp.broadcast_to(final_rewards[None], (*player.shape, 2))
    outcome = jnp.take_along_axis(per_player, player[..., None], axis=-1)[..., 0]
    return jnp.where(valid, outcome, 0.0)


def make_selfplay(
    game: Game,
    search_fn: search.SearchFn,
    *,
    policy: str,
    batch_size: int,
    num_sampling_moves: int,
) -> Callable[[dict, Array], Trajectory]:
    """Builds ``selfplay(variables, key) -> Trajectory`` of ``[max_num_moves, batch_size]``.

    Args:
      game: the game.
      search_fn: ``search.make_search``'s function.
      policy: the search's policy (``"puct"`` or ``"gumbel"``), which decides how a move
        is read from its output.
      batch_size: games played together.
      num_sampling_moves: plies (from the start of each game) whose move is sampled from the
        search; later moves are greedy. 0 makes every move greedy.

    Returns:
      The self-play function; the caller jits it.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}.")
    if num_sampling_moves < 0:
        raise ValueError(f"num_sampling_moves must be >= 0, got {num_sampling_moves}.")

    def move(variables: dict, states: State, key: Array):
        search_key, choice_key = jax.random.split(key)
        output = search_fn(variables, search_key, states)
        sampling = states.num_moves < num_sampling_moves
        action = search.choose_action(output, choice_key, policy=policy, sample=sampling)
        record = (
            jax.vmap(game.observe)(states),
            jax.vmap(game.legal_action_mask)(states),
            output.action_weights,
            states.current_player,
            ~states.terminal,
        )
        return jax.vmap(game.step)(states, action), record

    def selfplay(variables: dict, key: Array) -> Trajectory:
        init_key, moves_key = jax.random.split(key)
        states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))
        keys = jax.random.split(moves_key, game.max_num_moves)
        final, records = jax.lax.scan(lambda s, k: move(variables, s, k), states, keys)
        observation, legal, policy, player, valid = records
        return Trajectory(
            observation=observation,
            legal_action_mask=legal,
            policy=policy,
            player=player,
            valid=valid,
            value=value_targets(final.rewards, player, valid),
        )

    return selfplay
