"""The opening rule ``random``: each game starts from a random position, its first ``n``
plies (``n`` drawn per game from 0 to ``random_plies``) uniform random legal moves of both
sides, as AlphaZero.jl's GPU redesign starts its games from random 0-2-ply positions
(AlphaZero.jl issue #217 (2024)).

Unlike the handicap, those plies' positions are not trained on: the game is taken to start
after them, so no value target follows a move the search did not choose, and no policy
target is a position's search whose move was thrown away. The search still runs there (the
slots move together), a cost of ``random_plies / 2`` plies a game.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alphazero_jax.search import uniform_choice
from alphazero_jax.training.openings.base import Opening, Start, register
from alphazero_jax.types import Game


def make_random(game: Game, *, random_plies: int = 2) -> Opening:
    """Games opening with 0..``random_plies`` uniform random plies, not trained on.

    Raises:
      ValueError: ``random_plies`` below 0; one line.
    """
    del game
    if random_plies < 0:
        raise ValueError(f"random_plies must be >= 0, got {random_plies}.")

    def start(key, batch_size: int) -> Start:
        plies = jax.random.randint(
            jax.random.fold_in(key, 1), (batch_size,), 0, random_plies + 1, jnp.int32
        )
        return Start(plies)

    def play(start, key, states, legal_action_mask, action):
        in_opening = states.num_moves < start.plies
        choice = uniform_choice(jax.random.fold_in(key, 1), legal_action_mask)
        return jnp.where(in_opening, choice, action)

    return Opening(start, play)


register("random", make_random)
