"""The opening rule ``handicap``: one side of each game (a coin flip) plays its first ``n``
moves uniformly at random, ``n`` drawn per game from 0 to ``handicap_moves``.

The search still runs and is still the policy target at those positions, and the values are
the game's real outcome; what changes is which positions the replay memory holds. A network
trained on its own play alone never sees, say, a Quoridor board fenced by a random player's
scattered walls, and misjudges it (docs/results/quoridor_5x5.md).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alphazero_jax.search import uniform_choice
from alphazero_jax.training.openings.base import Opening, Start, register
from alphazero_jax.types import Game


def make_handicap(game: Game, *, handicap_moves: int = 3) -> Opening:
    """One side's first 0..``handicap_moves`` moves at random; every position kept.

    Raises:
      ValueError: ``handicap_moves`` below 0; one line.
    """
    del game
    if handicap_moves < 0:
        raise ValueError(f"handicap_moves must be >= 0, got {handicap_moves}.")

    def start(key, batch_size: int) -> Start:
        _, side_key, moves_key = jax.random.split(key, 3)  # the first is the games' own
        side = jax.random.randint(side_key, (batch_size,), 0, 2, dtype=jnp.int32)
        moves = jax.random.randint(moves_key, (batch_size,), 0, handicap_moves + 1, jnp.int32)
        return Start(jnp.zeros((batch_size,), jnp.int32), (side, moves))

    def play(start, key, states, legal_action_mask, action):
        side, moves = start.data
        # The side's first `moves` moves fall in the game's first 2 * moves plies.
        at_random = (states.current_player == side) & (states.num_moves < 2 * moves)
        return jnp.where(at_random, uniform_choice(key, legal_action_mask), action)

    return Opening(start, play)


register("handicap", make_handicap)
