r"""Benchmarks that compare alphazero_jax with a peer in the same run and print ratios.

    python -m experiments.benchmark games [--batch_sizes=1,1024,4096] [--rounds=7]

Needs the ``bench`` extra (pgx): ``pip install -e '.[bench]'`` or ``make bench``.
"""

from __future__ import annotations

from absl import app, flags

_BATCH_SIZES = flags.DEFINE_list("batch_sizes", ["1", "1024", "4096"], "Games stepped together.")
_GAMES = flags.DEFINE_list("games", ["connect_four", "tic_tac_toe"], "Games to compare.")
_ROUNDS = flags.DEFINE_integer("rounds", 7, "Alternating timing rounds per configuration.")
_MOVES = flags.DEFINE_integer("moves", 2_000_000, "Moves per timed call (over the batch).")

_MODES = ("games",)


def main(argv: list[str]) -> None:
    if len(argv) != 2 or argv[1] not in _MODES:
        raise app.UsageError(f"Expected one mode, one of {', '.join(_MODES)}; got {argv[1:]}.")
    from experiments.benchmarks import games as games_benchmark

    games_benchmark.run(
        game_names=tuple(_GAMES.value),
        batch_sizes=tuple(int(b) for b in _BATCH_SIZES.value),
        rounds=_ROUNDS.value,
        moves=_MOVES.value,
    )


if __name__ == "__main__":
    app.run(main)
