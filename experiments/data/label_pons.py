r"""Computes the per-move labels of the perfect-play sets with our exact solver.

    python -m experiments.data.label_pons                       # every set, as shipped
    python -m experiments.data.label_pons --sets=Test_L2_R2 --check

The sets are those of ``solvers.benchmark_sets.SETS``: Pascal Pons' six and Random-Play
(``experiments/data/random_play_set.py`` makes its positions, then labels them with this code).

For each position of a set, every column gets the game-theoretic outcome of playing it,
for the side to move: ``W`` (win), ``D`` (draw), ``L`` (loss) or ``.`` (full column), from
``solvers.connect_four.move_scores(moves, weak=True)``. Each line of ``<set>.labels``,
beside the set's positions (``alphazero_jax/data/pons/`` for Pons' sets), is
``<moves> <labels>``, e.g. ``4453 LLDWDL.``, in the set's order. These labels are what
``alphazero_jax.evaluation.perfect_play`` judges moves by.

Begin-Hard (Test_L1_R3) takes seconds to a minute per position beyond the opening book
(those of at most 5 plies the book answers at once), so its labels may cover only its
first positions in the published order (``--limit_hard``, default all 1000); ``--jobs=2``
labels on two cores, the lines still written in order.

Lines are appended one at a time; an interrupted run picks up where it stopped. Labels
written for another selection (before the book, Begin-Hard's first 300 positions of at
least 4 plies) are reused: the file is rewritten in the set's order up to the last of
them, labelling the positions between them, then continued.
``--check`` recomputes the existing labels instead and reports any difference.
"""

from __future__ import annotations

import pathlib
import time
from collections.abc import Callable, Sequence

from absl import app, flags

from experiments.data import positions
from experiments.data.positions import append_lines, label  # also label_pons' own names

_SETS = flags.DEFINE_list("sets", None, "Sets to label (default: all of benchmark_sets.SETS).")
_LIMIT_HARD = flags.DEFINE_integer("limit_hard", 1000, "Positions of Test_L1_R3 to label.")
_CHECK = flags.DEFINE_bool("check", False, "Recompute the existing labels and compare.")
_JOBS = flags.DEFINE_integer("jobs", 1, "Processes that label positions (lines stay in order).")

_HARD = "Test_L1_R3"


def _selected(set_name: str) -> list[str]:
    """The move strings of the positions to label, in the set's order."""
    from alphazero_jax.solvers import benchmark_sets

    moves = [p.moves for p in benchmark_sets.load(set_name)]
    return moves[: _LIMIT_HARD.value] if set_name == _HARD else moves


def reorder(
    path: pathlib.Path, keys: Sequence[str], line_fn: Callable[[str], str], *, name: str
) -> None:
    """Puts lines written for another selection of keys in the order of ``keys``.

    Unless the lines of ``path`` already start ``keys`` (then nothing changes), rewrites it
    as the lines of ``keys`` up to the last one it holds, keeping the lines it has and
    computing the others with ``line_fn``; lines of keys not in ``keys`` are dropped. The
    file is replaced in one step, so an interruption leaves the old one.
    """
    lines = positions.existing(path)
    known = dict(line.split(" ", 1) for line in lines)
    if [line.split()[0] for line in lines] == list(keys[: len(lines)]):
        return
    last = max((keys.index(key) for key in known if key in keys), default=-1)
    added = [key for key in keys[: last + 1] if key not in known]
    print(f"{name}: {last + 1 - len(added)} lines reordered, {len(added)} added between")
    text = "".join(f"{key} {known.get(key) or line_fn(key)}\n" for key in keys[: last + 1])
    temporary = path.with_suffix(".partial")
    temporary.write_text(text)
    temporary.replace(path)


def label_set(set_name: str) -> None:
    """Writes (or completes) the shipped labels of a set of ``benchmark_sets.SETS``."""
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import benchmark_sets

    name = f"{set_name} ({benchmark_sets.SETS[set_name]}) labels"
    path, keys = perfect_play.labels_path(set_name), _selected(set_name)
    reorder(path, keys, label, name=name)
    append_lines(path, keys, label, name=name, jobs=_JOBS.value)


def check_labels(set_name: str) -> bool:
    """Recomputes a set's shipped labels; prints and returns whether all agree."""
    from alphazero_jax.evaluation import perfect_play

    stored = perfect_play.load_labels(set_name)  # also checks the best move against the score
    start = time.perf_counter()
    computed = [label(moves) for moves in stored.moves]
    expected = [perfect_play.label_text(row) for row in stored.outcomes]
    wrong = [n for n, (a, b) in enumerate(zip(computed, expected)) if a != b]
    seconds = time.perf_counter() - start
    print(
        f"{set_name}: {len(computed) - len(wrong)}/{len(computed)} labels agree ({seconds:.1f} s)"
    )
    for number in wrong[:5]:
        print(f"  {stored.moves[number]}: stored {expected[number]}, computed {computed[number]}")
    return not wrong


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from alphazero_jax.solvers import benchmark_sets

    known = list(benchmark_sets.SETS)
    sets = _SETS.value or known
    unknown = [name for name in sets if name not in known]
    if unknown:
        raise app.UsageError(f"--sets: unknown {unknown}; expected some of {known}.")
    if _CHECK.value:
        return 0 if all([check_labels(name) for name in sets]) else 1
    for name in sets:
        label_set(name)
    return 0


if __name__ == "__main__":
    app.run(main)
