"""Batched ``step`` throughput of our games against pgx's, side by side in one process.

Each side runs the same loop, jitted whole: ``lax.scan`` over moves, vmapped over a batch
of games; at every move each game picks a uniformly random legal move (a per-game
xorshift32 generator, so the choice costs a few integer ops on both sides) and games that
have ended restart from the initial position. The two sides are timed alternately, round
after round, and the ratio is taken within each round, because this host's speed drifts.

pgx's ``step`` also writes the observation and the legal-action mask into its State at
every move; ours computes them only when asked. The row "ours+observe" also computes the
observation at every move and carries it in the loop state, as pgx does, so that the two
sides do the same work. The row "loop only" replaces the step by a move counter: it is
the cost of the harness itself (random legal choice and restarts), a ceiling on any step.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax import games

_MAX_SCAN_STEPS = 20_000


def _xorshift(bits):
    bits = bits ^ (bits << 13)
    bits = bits ^ (bits >> 17)
    return bits ^ (bits << 5)


def _pick(bits, legal):
    """The (bits mod #legal)-th legal action."""
    count = jnp.maximum(legal.sum(), 1).astype(jnp.uint32)
    rank = (bits % count).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(legal) > rank).astype(jnp.int32)


def _make_loop(init_fn, step_fn, legal_fn, done_fn, extra_fn, batch, num_steps):
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


def _ours(name: str, observe: bool):
    game = games.make(name)
    extra = game.observe if observe else _nothing
    return game.init, game.step, game.legal_action_mask, lambda s: s.terminal, extra


def _loop_only(name: str):
    game = games.make(name)

    def count_move(state, action):
        num_moves = state.num_moves + (action >= 0)  # uses the action, so XLA keeps the choice
        return state.replace(num_moves=num_moves, terminal=num_moves >= game.max_num_moves)

    return game.init, count_move, game.legal_action_mask, lambda s: s.terminal, _nothing


def _nothing(state):
    del state
    return jnp.float32(0)


def _pgx(name: str):
    import pgx

    env = pgx.make(name)
    return (
        env.init,
        env.step,
        lambda s: s.legal_action_mask,
        lambda s: s.terminated,
        _nothing,
    )


def _time(loop: Callable, seed: int) -> float:
    start = time.perf_counter()
    jax.block_until_ready(loop(jnp.uint32(seed)))
    return time.perf_counter() - start


def run(
    *, game_names: tuple[str, ...], batch_sizes: tuple[int, ...], rounds: int, moves: int
) -> list[dict]:
    """Measures steps/s for each game and batch size; prints and returns the rows.

    Args:
      game_names: games that pgx has too (``connect_four``, ``tic_tac_toe``, ``othello``).
      batch_sizes: numbers of games stepped together.
      rounds: alternating timing rounds per configuration (the median is reported).
      moves: total moves per timed call, split over the batch (64 to 20,000 scan steps).
    """
    rows = []
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; {rounds} alternating rounds")
    print(f"{'game':<13} {'batch':>6} {'side':<14} {'steps/s':>12} {'vs pgx':>7}")
    for name in game_names:
        for batch in batch_sizes:
            num_steps = min(max(64, moves // batch), _MAX_SCAN_STEPS)
            sides = {
                "pgx": _pgx(name),
                "ours": _ours(name, observe=False),
                "ours+observe": _ours(name, observe=True),
                "loop only": _loop_only(name),
            }
            loops = {k: _make_loop(*v, batch, num_steps) for k, v in sides.items()}
            for loop in loops.values():  # compile and warm up
                _time(loop, 0)
            times = {k: [] for k in loops}
            for r in range(rounds):
                for side, loop in loops.items():
                    times[side].append(_time(loop, r + 1))
            for side in loops:
                ratios = [p / t for p, t in zip(times["pgx"], times[side])]
                rate = batch * num_steps / statistics.median(times[side])
                row = dict(
                    game=name,
                    batch=batch,
                    side=side,
                    steps_per_s=rate,
                    ratio=statistics.median(ratios),
                )
                rows.append(row)
                print(f"{name:<13} {batch:>6} {side:<14} {rate:>12,.0f} {row['ratio']:>6.2f}x")
    return rows
