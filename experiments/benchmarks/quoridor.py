"""Quoridor's batched ``step`` throughput, the path check's share of it, and OpenSpiel's C++
random playouts in the same run.

No JAX Quoridor exists to compare with (pgx and jumanji have none), so the peer is
OpenSpiel's C++ game: ``pyspiel.random_sim_test`` plays whole random games in C++
(with its own consistency checks, which it cannot skip). Ours is timed with the harness of
``step_loop.py``: random legal moves, games restarting when they end.

The path check's share: the same loop once more with one extra legal-move computation
per move (``quoridor.legal_actions``: the distance fields and the fills of the walls in
doubt), as ``step`` makes one for the next mover; the difference over the plain loop's
time is the check's cost.
"""

from __future__ import annotations

import importlib.util
import statistics
import time

import jax
import numpy as np
from absl import app, flags

from alphazero_jax import games
from alphazero_jax.cli import common as cli
from alphazero_jax.games import quoridor
from experiments.benchmarks import common
from experiments.benchmarks.step_loop import MAX_SCAN_STEPS, make_loop, time_loop

_SIZES = flags.DEFINE_list("sizes", ["9", "5"], "Board sizes (5, 7 or 9).")
_BATCH_SIZES = common.define_batch_sizes(["1", "1024", "4096"])
_ROUNDS = common.define_rounds(3)
_MOVES = common.define_moves(200_000)


def _legal_again(state):
    return quoridor.legal_actions(state).sum().astype(np.float32)


def _openspiel_playouts(size: int, walls: int, seconds: float) -> tuple[float, float]:
    """(playouts/s in C++, mean plies per game) for OpenSpiel's quoridor."""
    import pyspiel

    game = pyspiel.load_game("quoridor", {"board_size": size, "wall_count": walls})
    rng = np.random.default_rng(0)
    lengths = []
    for _ in range(200):  # the mean game length, from Python (not timed)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        lengths.append(len(state.history()))
    sims, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)
        sims += 10
    return sims / (time.perf_counter() - start), float(np.mean(lengths))


def run(*, sizes: tuple[int, ...], batch_sizes: tuple[int, ...], rounds: int, moves: int):
    """Prints and returns steps/s per size and batch, the path check's share and the peer."""
    rows = []
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; {rounds} alternating rounds")
    for size in sizes:
        walls = {5: 3, 7: 6, 9: 10}[size]
        game = games.make(quoridor.NAME, size=size, walls=walls)
        playouts, plies = _openspiel_playouts(size, walls, seconds=5.0)
        print(
            f"quoridor {size}x{size} ({walls} walls): OpenSpiel C++ {playouts:,.0f} random "
            f"playouts/s, {plies:.0f} plies each: {playouts * plies:,.0f} steps/s"
        )
        base = (game.init, game.step, game.legal_action_mask, lambda s: s.terminal)
        for batch in batch_sizes:
            num_steps = min(max(32, moves // batch), MAX_SCAN_STEPS)
            loops = {
                "step": make_loop(*base, lambda s: np.float32(0), batch, num_steps),
                "step+check": make_loop(*base, _legal_again, batch, num_steps),
            }
            for loop in loops.values():
                time_loop(loop, 0)
            times = {k: [] for k in loops}
            for r in range(rounds):
                for side, loop in loops.items():
                    times[side].append(time_loop(loop, r + 1))
            plain = statistics.median(times["step"])
            share = statistics.median(
                [(c - p) / p for p, c in zip(times["step"], times["step+check"])]
            )
            rate = batch * num_steps / plain
            row = dict(
                size=size,
                batch=batch,
                steps_per_s=rate,
                path_check_share=share,
                vs_openspiel=rate / (playouts * plies),
            )
            rows.append(row)
            print(
                f"  batch {batch:>5}: {rate:>12,.0f} steps/s ({row['vs_openspiel']:.1f}x "
                f"OpenSpiel's C++ steps/s), path check {share:.0%} of a step"
            )
    return rows


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if importlib.util.find_spec("pyspiel") is None:
        cli.fail("OpenSpiel is not installed: pip install -e '.[test]' adds it (open-spiel).")
    sizes = common.ints(_SIZES)
    if not set(sizes) <= {5, 7, 9}:
        cli.fail(f"--sizes: expected some of 5, 7, 9, got {_SIZES.value}.")
    run(
        sizes=sizes,
        batch_sizes=common.ints(_BATCH_SIZES),
        rounds=_ROUNDS.value,
        moves=_MOVES.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
