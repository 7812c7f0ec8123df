r"""Checks the Connect Four solver against Pascal Pons' benchmark sets, and times it.

    python -m experiments.data.solver_check --sets=Test_L3_R1,Test_L2_R2 --move_scores

For each set, scores every position and compares with the shipped exact score; prints the
number correct, the total seconds and the mean milliseconds per position. With
``--move_scores`` also times ``move_scores`` over the set and checks that its best entry
equals the score. Exits with status 1 on any mismatch.

Any set of ``benchmark_sets.SETS`` can be named. Pons' scores are published, so his sets
check the solver against an independent source; Random-Play's scores were computed by
this solver (``experiments/data/random_play_set.py``), so on it the check is a regression test
and a timing, marked "(our own scores)".
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
    return 0 if ok else 1


if __name__ == "__main__":
    app.run(main)
