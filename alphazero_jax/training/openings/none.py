"""The opening rule ``none``: every game starts from the game's initial position and every
move is the search's."""

from __future__ import annotations

import jax.numpy as jnp

from alphazero_jax.training.openings.base import Opening, Start, register
from alphazero_jax.types import Game


def make_none(game: Game) -> Opening:
    """No opening: no plies set aside, the search's move always."""
    del game

    def start(key, batch_size: int) -> Start:
        del key
        return Start(jnp.zeros((batch_size,), jnp.int32))

    def play(start, key, states, legal_action_mask, action):
        del start, key, states, legal_action_mask
        return action

    return Opening(start, play)


register("none", make_none)
