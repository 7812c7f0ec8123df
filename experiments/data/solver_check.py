r"""Checks the Connect Four solver against Pascal Pons' benchmark sets, and times it.

    python -m experiments.data.solver_check --sets=Test_L3_R1,Test_L2_R2 --move_scores
    python -m experiments.data.solver_check --sets= --book_sample=200 \
        --pons_solver=path/to/c4solver

For each set, scores every position and compares with the shipped exact score; prints the
number correct, the total seconds and the mean milliseconds per position. With
``--move_scores`` also times ``move_scores`` over the set and checks that its best entry
equals the score. Exits with status 1 on any mismatch.

Any set of ``benchmark_sets.SETS`` can be named. Pons' scores are published, so his sets
check the solver against an independent source; Random-Play's scores were computed by
this solver (``experiments/data/random_play_set.py``), so on it the check is a regression test
and a timing, marked "(our own scores)".

``--book_sample=N`` times the search alone (``book=None``) on N positions of the 6x7
opening book's deepest ply (drawn with seed 0 from every position there, one per mirror
pair), one after another in this process as the book's generator solves them, and checks
each score against the shipped book where one ships. With ``--pons_solver`` (Pons' C++
``c4solver``, built from his repository with ``make``) his solver scores the same
positions, without his book, in the same run: the two times and their ratio tell what
the whole book would have cost him.
"""

from __future__ import annotations

import time

from absl import app, flags

_SETS = flags.DEFINE_list(
    "sets",
    ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R2"],
    "Sets to check (any of benchmark_sets.SETS).",
)
_MOVE_SCORES = flags.DEFINE_bool("move_scores", False, "Also time and check move_scores.")
_BOOK_SAMPLE = flags.DEFINE_integer(
    "book_sample", 0, "Also time the search on this many positions of the book's deepest ply."
)
_BOOK_DEPTH = flags.DEFINE_integer("book_depth", 6, "The ply --book_sample draws from.")
_PONS_SOLVER = flags.DEFINE_string(
    "pons_solver", None, "Pons' c4solver binary: also time it on the --book_sample positions."
)


def _check(name: str, solve_fn, label: str) -> bool:
    """Runs ``solve_fn`` on every position of a set; prints and returns whether all agree."""
    from alphazero_jax.solvers import benchmark_sets

    positions = benchmark_sets.load(name)
    start = time.perf_counter()
    wrong = [p for p in positions if solve_fn(p.moves) != p.score]
    seconds = time.perf_counter() - start
    source = "" if benchmark_sets.is_published(name) else " (our own scores)"
    print(
        f"{name} ({benchmark_sets.SETS[name]}) {label}: {len(positions) - len(wrong)}/"
        f"{len(positions)} correct{source}, {seconds:.2f} s, "
        f"{1000 * seconds / len(positions):.2f} ms per position"
    )
    for position in wrong[:5]:
        print(f"  mismatch: {position.moves} expected {position.score}")
    return not wrong


def _best_move_score(moves: str) -> int:
    from alphazero_jax.solvers import connect_four

    return max(s for s in connect_four.move_scores(moves) if s is not None)


def _book_sample(count: int, depth: int, pons_solver: str | None) -> bool:
    """Times our search (and Pons', if given) on ``count`` positions at ``depth`` plies."""
    import random
    import subprocess

    from alphazero_jax.solvers import connect_four, opening_book

    paths = opening_book.sequences(6, 7, depth)
    sample = random.Random(0).sample(sorted(paths.values()), min(count, len(paths)))
    start = time.perf_counter()
    ours = [connect_four.score(moves, book=None) for moves in sample]
    seconds = time.perf_counter() - start
    print(
        f"Ours, {len(sample)} of the {len(paths)} positions at ply {depth}: {seconds:.1f} s "
        f"({seconds / len(sample):.2f} s each)"
    )
    ok = True
    book = opening_book.shipped(6, 7)
    if book is not None and book.covers(depth):
        wrong = [m for m, s in zip(sample, ours) if connect_four.score(m) != s]
        print(f"  against the shipped book: {len(sample) - len(wrong)}/{len(sample)} agree")
        ok &= not wrong
    if pons_solver:
        start = time.perf_counter()
        answer = subprocess.run(
            [pons_solver, "-b", "none"],  # no book file by that name: search alone
            input="\n".join(sample) + "\n",
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = time.perf_counter() - start
        scores = [int(line.split()[1]) for line in answer.stdout.splitlines() if line.strip()]
        agree = sum(a == b for a, b in zip(ours, scores))
        print(
            f"Pons' c4solver, the same positions: {theirs:.1f} s, {agree}/{len(sample)} "
            f"scores agree; ours take {seconds / theirs:.2f}x his time"
        )
        ok &= agree == len(sample)
    return ok


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from alphazero_jax.solvers import benchmark_sets, connect_four

    known = list(benchmark_sets.SETS)
    unknown = [name for name in _SETS.value if name not in known]
    if unknown:
        raise app.UsageError(f"--sets: unknown {unknown}; expected some of {known}.")
    start = time.perf_counter()
    connect_four.score("414141")  # compiles, or loads numba's cache (an immediate win)
    print(f"First call (compile or cache load): {time.perf_counter() - start:.2f} s")
    ok = True
    for name in _SETS.value:
        ok &= _check(name, connect_four.score, "score")
        if _MOVE_SCORES.value:
            ok &= _check(name, _best_move_score, "max(move_scores)")
    if _BOOK_SAMPLE.value:
        ok &= _book_sample(_BOOK_SAMPLE.value, _BOOK_DEPTH.value, _PONS_SOLVER.value)
    return 0 if ok else 1


if __name__ == "__main__":
    app.run(main)
