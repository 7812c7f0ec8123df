r"""Batched ``step`` throughput of our games against pgx's, side by side in one process.

    python -m experiments.benchmarks.games [--games=connect_four,tic_tac_toe,othello] \
        [--batch_sizes=1,1024,4096] [--rounds=7] [--moves=2000000]

Needs pgx, the ``bench`` extra: ``pip install -e '.[bench]'``, or ``make bench``.

Each side runs the loop of ``step_loop.py``, jitted whole: ``lax.scan`` over moves, vmapped
over a batch of games; at every move each game picks a uniformly random legal move and
games that have ended restart from the initial position. The two sides are timed
alternately, round after round, and the ratio is taken within each round, because this
host's speed drifts.

pgx's ``step`` also writes the observation and the legal-action mask into its State at
every move; ours computes them only when asked. The row "ours+observe" also computes the
observation at every move and carries it in the loop state, as pgx does, so that the two
sides do the same work. The row "loop only" replaces the step by a move counter: it is
the cost of the harness itself (random legal choice and restarts), a ceiling on any step.
"""

from __future__ import annotations

import importlib.util
import statistics

import jax
import jax.numpy as jnp
from absl import app, flags

from alphazero_jax import games
from alphazero_jax.cli import common as cli
from experiments.benchmarks import common
from experiments.benchmarks.step_loop import MAX_SCAN_STEPS, make_loop, time_loop

_GAMES = flags.DEFINE_list(
    "games", ["connect_four", "tic_tac_toe", "othello"], "Games to compare (pgx has each)."
)
_BATCH_SIZES = common.define_batch_sizes(["1", "1024", "4096"])
_ROUNDS = common.define_rounds(7)
_MOVES = common.define_moves(2_000_000)


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
            num_steps = min(max(64, moves // batch), MAX_SCAN_STEPS)
            sides = {
                "pgx": _pgx(name),
                "ours": _ours(name, observe=False),
                "ours+observe": _ours(name, observe=True),
                "loop only": _loop_only(name),
            }
            loops = {k: make_loop(*v, batch, num_steps) for k, v in sides.items()}
            for loop in loops.values():  # compile and warm up
                time_loop(loop, 0)
            times = {k: [] for k in loops}
            for r in range(rounds):
                for side, loop in loops.items():
                    times[side].append(time_loop(loop, r + 1))
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


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if importlib.util.find_spec("pgx") is None:
        cli.fail("pgx is not installed: pip install -e '.[bench]' (or make bench) adds it.")
    run(
        game_names=tuple(_GAMES.value),
        batch_sizes=common.ints(_BATCH_SIZES),
        rounds=_ROUNDS.value,
        moves=_MOVES.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
