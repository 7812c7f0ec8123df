r"""Benchmarks that compare alphazero_jax with a peer in the same run and print ratios.

    python -m experiments.benchmark games [--batch_sizes=1,1024,4096] [--rounds=7]
    python -m experiments.benchmark selfplay [--batch_sizes=64,512] [--rounds=3]
    python -m experiments.benchmark arena [--batch_sizes=256] [--depths=4,5,6] [--rounds=3]
    python -m experiments.benchmark quoridor [--sizes=9,5] [--batch_sizes=1,1024,4096]
    python -m experiments.benchmark training [--config=connect_four:cpu]
        [--config.selfplay.batch_size=256] [--inference_dtypes=float32,bfloat16] [--rounds=3]

``training`` times the training loop beside self-play alone (no peer needed).

``quoridor`` compares with OpenSpiel's C++ game (the ``test`` extra).
``games`` and ``selfplay`` need the ``bench`` extra (pgx): ``pip install -e '.[bench]'``
or ``make bench``.
"""

from __future__ import annotations

from absl import app, flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import compilation_cache, config_flag

_BATCH_SIZES = flags.DEFINE_list("batch_sizes", None, "Batch sizes (default: per mode).")
_GAMES = flags.DEFINE_list(
    "games", ["connect_four", "tic_tac_toe", "othello"], "games: games to compare."
)
_ROUNDS = flags.DEFINE_integer("rounds", None, "Alternating timing rounds (default: per mode).")
_MOVES = flags.DEFINE_integer("moves", 2_000_000, "games: moves per timed call.")
_POLICIES = flags.DEFINE_list("policies", ["puct", "gumbel"], "selfplay: search policies.")
_SIMULATIONS = flags.DEFINE_integer("simulations", 64, "selfplay: simulations per search.")
_CHANNELS = flags.DEFINE_integer("channels", 64, "selfplay: network channels.")
_BLOCKS = flags.DEFINE_integer("blocks", 4, "selfplay: residual blocks.")
_EVALUATIONS = flags.DEFINE_integer("evaluations", 30_000, "selfplay: evaluations per call.")
_MATCHES = flags.DEFINE_list("matches", ["minimax:4", "mcts:200"], "arena: agents vs random.")
_DEPTHS = flags.DEFINE_list("depths", ["4", "5", "6"], "arena: minimax depths to time.")
_SIZES = flags.DEFINE_list("sizes", ["9", "5"], "quoridor: board sizes.")
_CONFIG = config_flag.define("config", "connect_four:cpu")
_DTYPES = flags.DEFINE_list("inference_dtypes", ["float32"], "training: self-play dtypes.")


def _games() -> None:
    from experiments.benchmarks import games as games_benchmark

    games_benchmark.run(
        game_names=tuple(_GAMES.value),
        batch_sizes=tuple(int(b) for b in _BATCH_SIZES.value or ["1", "1024", "4096"]),
        rounds=_ROUNDS.value or 7,
        moves=_MOVES.value,
    )


def _selfplay() -> None:
    from experiments.benchmarks import selfplay as selfplay_benchmark

    selfplay_benchmark.run(
        batch_sizes=tuple(int(b) for b in _BATCH_SIZES.value or ["64", "512"]),
        policies=tuple(_POLICIES.value),
        simulations=_SIMULATIONS.value,
        channels=_CHANNELS.value,
        blocks=_BLOCKS.value,
        rounds=_ROUNDS.value or 3,
        evaluations_per_call=_EVALUATIONS.value,
    )


def _arena() -> None:
    from experiments.benchmarks import arena as arena_benchmark

    arena_benchmark.run(
        matches=tuple(_MATCHES.value),
        batch_size=int((_BATCH_SIZES.value or ["256"])[0]),
        depths=tuple(int(d) for d in _DEPTHS.value),
        rounds=_ROUNDS.value or 3,
    )


def _quoridor() -> None:
    from experiments.benchmarks import quoridor as quoridor_benchmark

    quoridor_benchmark.run(
        sizes=tuple(int(s) for s in _SIZES.value),
        batch_sizes=tuple(int(b) for b in _BATCH_SIZES.value or ["1", "1024", "4096"]),
        rounds=_ROUNDS.value or 3,
        moves=_MOVES.value // 10,
    )


def _training() -> None:
    from experiments.benchmarks import training as training_benchmark

    training_benchmark.run(
        config=_CONFIG.value, inference_dtypes=tuple(_DTYPES.value), rounds=_ROUNDS.value or 3
    )


_MODES = {
    "games": _games,
    "selfplay": _selfplay,
    "arena": _arena,
    "quoridor": _quoridor,
    "training": _training,
}


def main(argv: list[str]) -> None:
    if len(argv) != 2 or argv[1] not in _MODES:
        raise app.UsageError(f"Expected one mode, one of {', '.join(_MODES)}; got {argv[1:]}.")
    compilation_cache.setup()
    _MODES[argv[1]]()


if __name__ == "__main__":
    app.run(main)
