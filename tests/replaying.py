"""Test helper: every state of many move lists, through a game's jitted step."""

import jax
import jax.numpy as jnp
import numpy as np


def every_state(game, move_lists):
    """The states before and after each move of each list: a State of ``[B, T + 1]``
    arrays (T the longest list; a shorter list's state stays put after its end)."""
    length = max(len(m) for m in move_lists)
    actions = np.full((len(move_lists), length), -1, np.int32)
    for i, moves in enumerate(move_lists):
        actions[i, : len(moves)] = moves

    def play(moves):
        def move(state, action):
            new = game.step(state, action)
            new = jax.tree.map(lambda a, b: jnp.where(action < 0, a, b), state, new)
            return new, new

        init = game.init(jax.random.key(0))
        _, states = jax.lax.scan(move, init, moves)
        return jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), init, states)

    return jax.jit(jax.vmap(play))(jnp.asarray(actions))
