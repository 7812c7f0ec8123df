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

import contextlib
import multiprocessing
import pathlib
import time
from collections.abc import Callable, Sequence

from absl import app, flags

_SETS = flags.DEFINE_list("sets", None, "Sets to label (default: all of benchmark_sets.SETS).")
_LIMIT_HARD = flags.DEFINE_integer("limit_hard", 1000, "Positions of Test_L1_R3 to label.")
_CHECK = flags.DEFINE_bool("check", False, "Recompute the existing labels and compare.")
_JOBS = flags.DEFINE_integer("jobs", 1, "Processes that label positions (lines stay in order).")

_HARD = "Test_L1_R3"
_CHARS = {1: "W", 0: "D", -1: "L", None: "."}


def label(moves: str) -> str:
    """The label string of one 6x7 position, e.g. "LLDWDL." (see the module doc)."""
    from alphazero_jax.solvers import connect_four

    return "".join(_CHARS[s] for s in connect_four.move_scores(moves, weak=True))


def _selected(set_name: str) -> list[str]:
    """The move strings of the positions to label, in the set's order."""
    from alphazero_jax.solvers import benchmark_sets

    moves = [p.moves for p in benchmark_sets.load(set_name)]
    return moves[: _LIMIT_HARD.value] if set_name == _HARD else moves


def _existing(path: pathlib.Path) -> list[str]:
    """The complete lines already written (a line cut short by an interruption is dropped)."""
    if not path.exists():
        return []
    return path.read_text().split("\n")[:-1]  # after the last newline: empty or incomplete


def append_lines(
    path: pathlib.Path,
    keys: Sequence[str],
    line_fn: Callable[[str], str],
    *,
    name: str,
    jobs: int = 1,
) -> None:
    """Writes ``<key> <line_fn(key)>`` for each key, one flushed line at a time, resuming.

    The lines already in ``path`` must start with a prefix of ``keys`` (a last line cut
    short by an interruption is dropped); only the missing lines are computed, so an
    interrupted run picks up where it stopped. Prints progress every 50 lines and the time.

    Args:
      path: the file to write.
      keys: the first field of each line, in order (move strings).
      line_fn: the rest of a line from its key, e.g. ``label``.
      name: what the progress lines call the file.
      jobs: processes computing ``line_fn`` (a module-level function, then) ahead of the
        line being written; the lines are written in order all the same.

    Raises:
      ValueError: ``path`` holds lines that are not those of a prefix of ``keys``.
    """
    done = _existing(path)
    if [line.split()[0] for line in done] != list(keys[: len(done)]):
        raise ValueError(
            f"{path} holds {len(done)} lines that are not those of the first {len(done)} "
            f"positions to write; expected a prefix of them (delete the file to start again)."
        )
    path.write_text("".join(line + "\n" for line in done))  # drops an incomplete line
    start = time.perf_counter()
    pending = keys[len(done) :]
    with contextlib.ExitStack() as stack:
        lines = map(line_fn, pending)
        if jobs > 1 and len(pending) > 1:
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(jobs))
            lines = pool.imap(line_fn, pending)
        out = stack.enter_context(path.open("a"))
        for number, line in enumerate(lines, start=len(done)):
            out.write(f"{keys[number]} {line}\n")
            out.flush()
            if (number + 1) % 50 == 0:
                seconds = time.perf_counter() - start
                print(f"{name}: {number + 1}/{len(keys)}, {seconds:.0f} s", flush=True)
    seconds = time.perf_counter() - start
    print(f"{name}: {len(keys) - len(done)} lines written in {seconds:.1f} s", flush=True)


def reorder(
    path: pathlib.Path, keys: Sequence[str], line_fn: Callable[[str], str], *, name: str
) -> None:
    """Puts lines written for another selection of keys in the order of ``keys``.

    Unless the lines of ``path`` already start ``keys`` (then nothing changes), rewrites it
    as the lines of ``keys`` up to the last one it holds, keeping the lines it has and
    computing the others with ``line_fn``; lines of keys not in ``keys`` are dropped. The
    file is replaced in one step, so an interruption leaves the old one.
    """
    lines = _existing(path)
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
    expected = ["".join(_CHARS.get(int(o), ".") for o in row) for row in stored.outcomes]
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
