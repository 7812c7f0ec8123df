r"""Generates the Random-Play set: 1000 Connect Four positions reached by random play.

    python -m experiments.data.random_play_set           # positions and scores, then labels
    python -m experiments.data.random_play_set --check   # regenerates the moves and labels

The rule, on the 6x7 connect-4 board, with ``numpy.random.default_rng(0)`` as the only
source of randomness, drawn in this order:

1. Draw a target ply count ``rng.integers(10, 31)``: uniform on 10..30.
2. From the empty board, play that many moves, each ``legal[rng.integers(len(legal))]``
   with ``legal`` the columns that have room, in increasing order.
3. Reject the attempt and go back to 1 if a move makes four in a line on the way, if the
   side to move can then make four at once, or if the same board (the same stones,
   however reached) is already in the set.
4. Keep the position; stop at 1000, in the order they were kept.

Each position goes to ``alphazero_jax/data/random_play/Random_Play`` as ``<moves> <score>``
(Pons' notation; the exact score from ``solvers.connect_four.score``), then its per-move
labels to ``Random_Play.labels`` through ``label_pons.label_set``; both are written one
line at a time, so an interrupted run resumes. ``--check`` (``label_pons``' flag) instead
regenerates the move strings and the labels and compares them with the shipped ones
(``solver_check --sets=Random_Play`` recomputes the scores).

Rejection favours short games: a longer random game more often ends on the way, so the
kept plies are not uniform (about 10% at each of plies 10 to 13, about 1% at each of 27
to 30; the data folder's README gives the counts, and the numpy version that made the
shipped files).
"""

from __future__ import annotations

from absl import app, flags

from experiments.data import label_pons  # also defines --check
from experiments.data.positions import MAX_PLIES, MIN_PLIES, random_positions  # the rule

SEED = 0
NUM_POSITIONS = 1000


def _score(moves: str) -> str:
    """The exact score of a position, as its line of the positions file writes it."""
    from alphazero_jax.solvers import connect_four

    return str(connect_four.score(moves))


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from alphazero_jax.solvers import benchmark_sets

    name = benchmark_sets.RANDOM_PLAY
    moves = random_positions(
        seed=SEED, count=NUM_POSITIONS, min_plies=MIN_PLIES, max_plies=MAX_PLIES
    )
    if flags.FLAGS.check:
        shipped = [p.moves for p in benchmark_sets.load(name)]
        same = sum(a == b for a, b in zip(shipped, moves))
        print(f"{name}: {same}/{len(moves)} regenerated positions equal the shipped ones")
        return 0 if shipped == moves and label_pons.check_labels(name) else 1
    path = benchmark_sets.path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    label_pons.append_lines(path, moves, _score, name=f"{name} positions and scores")
    label_pons.label_set(name)
    return 0


if __name__ == "__main__":
    app.run(main)
