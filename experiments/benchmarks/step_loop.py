"""The harness that times a game's batched ``step`` (``games.py``, ``quoridor.py``).

One loop, jitted whole: ``lax.scan`` over moves, vmapped over a batch of games; at every
move each game picks a uniformly random legal move (a per-game xorshift32 generator, so
the choice costs a few integer ops whatever the game) and games that have ended restart
from the initial position.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

MAX_SCAN_STEPS = 20_000


def _xorshift(bits):
    bits = bits ^ (bits << 13)
    bits = bits ^ (bits >> 17)
    return bits ^ (bits << 5)


def _pick(bits, legal):
    """The (bits mod #legal)-th legal action."""
    count = jnp.maximum(legal.sum(), 1).astype(jnp.uint32)
    rank = (bits % count).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(legal) > rank).astype(jnp.int32)


def make_loop(init_fn, step_fn, legal_fn, done_fn, extra_fn, batch, num_steps):
    """A jitted ``(seed) -> checksum`` that plays ``num_steps`` moves in ``batch`` games.

    ``extra_fn(state)`` is computed after every move and kept in the loop's carry.
    """

    def one_move(carry, _):
        states, bits, extra = carry
        bits = _xorshift(bits)
        actions = jax.vmap(_pick)(bits, jax.vmap(legal_fn)(states))
        states = jax.vmap(step_fn)(states, actions)
        extra = jax.vmap(extra_fn)(states)
        fresh = jax.vmap(init_fn)(jax.random.split(jax.random.key(0), batch))
        done = jax.vmap(done_fn)(states)
        states = jax.tree.map(
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), fresh, states
        )
        return (states, bits, extra), None

    def run(seed):
        states = jax.vmap(init_fn)(jax.random.split(jax.random.key(0), batch))
        bits = (jnp.arange(batch, dtype=jnp.uint32) + seed) * jnp.uint32(2654435761) | 1
        carry = (states, bits, jax.vmap(extra_fn)(states))
        (states, _, extra), _ = jax.lax.scan(one_move, carry, None, length=num_steps)
        return jnp.sum(extra) + jax.vmap(done_fn)(states).sum()

    return jax.jit(run)


def time_loop(loop: Callable, seed: int) -> float:
    """Seconds of one call of a ``make_loop`` loop."""
    start = time.perf_counter()
    jax.block_until_ready(loop(jnp.uint32(seed)))
    return time.perf_counter() - start
