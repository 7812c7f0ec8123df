r"""Makes the Connect Four opening book: every position up to ``--depth`` plies, solved.

    python -m experiments.data.opening_book --depth=8 [--rows=6 --cols=7] \
        [--workdir=runs/opening_book] [--workers=2] [--output=alphazero_jax/data/book]

Solves every position at ``--depth`` plies that is not over (one of each mirror pair)
with the library's solver, ``--workers`` processes at once, each with its own
transposition table; then scores every position above by negamax over its children
(``solvers.opening_book.complete``) and writes the book. Resumable: each solved position
is appended to ``<workdir>/frontier.txt`` as it comes (with the seconds it took), and a new
run skips those; ``<workdir>/progress.json`` adds up the time. Ctrl-C (or a kill) stops it;
run it again to go on.
"""

from __future__ import annotations

import datetime
import json
import multiprocessing
import os
import pathlib
import sys
import time

from absl import app, flags

_ROWS = flags.DEFINE_integer("rows", 6, "Board height.")
_COLS = flags.DEFINE_integer("cols", 7, "Board width.")
_DEPTH = flags.DEFINE_integer("depth", 8, "Plies of the deepest level, solved by search.")
_WORKDIR = flags.DEFINE_string("workdir", "runs/opening_book", "Progress (resumable).")
_WORKERS = flags.DEFINE_integer("workers", os.cpu_count() or 1, "Solver processes.")
_OUTPUT = flags.DEFINE_string("output", None, "Where the book goes (default: the package's).")
_CHUNK = 16  # positions a worker solves per task: its table carries over within and across


def _solve(task: tuple[int, int, list[tuple[int, int, int]]]) -> list[tuple[int, int, float]]:
    """``(key, score, seconds)`` of each ``(key, position, mask)`` of a task."""
    from alphazero_jax.solvers import connect_four

    rows, cols, positions = task
    solved = []
    for key, position, mask in positions:
        start = time.perf_counter()
        score = connect_four.search_score(position, mask, rows, cols)
        solved.append((key, score, time.perf_counter() - start))
    return solved


def _read_progress(path: pathlib.Path) -> tuple[dict[int, int], float]:
    """The frontier scores written so far and the solver's seconds on them (a torn last
    line, from a kill, is skipped)."""
    done, seconds = {}, 0.0
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3:
                done[int(parts[0])] = int(parts[1])
                seconds += float(parts[2])
    return done, seconds


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from alphazero_jax.solvers import connect_four, opening_book

    rows, cols, depth = _ROWS.value, _COLS.value, _DEPTH.value
    connect_four.check_size(rows, cols)
    if not 0 <= depth < rows * cols:
        raise app.UsageError(f"--depth: expected 0 <= depth < {rows * cols}, got {depth}.")
    workdir = pathlib.Path(_WORKDIR.value)
    workdir.mkdir(parents=True, exist_ok=True)
    progress_file = workdir / "frontier.txt"
    meta_file = workdir / "progress.json"
    meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    if meta and (meta["rows"], meta["cols"], meta["depth"]) != (rows, cols, depth):
        raise app.UsageError(
            f"{workdir} holds a book of {meta['rows']}x{meta['cols']} to depth "
            f"{meta['depth']}, not {rows}x{cols} to depth {depth}: choose another --workdir."
        )
    meta = {"rows": rows, "cols": cols, "depth": depth, "seconds": 0.0} | meta

    start, seconds_before = time.perf_counter(), meta["seconds"]
    found = opening_book.levels(rows, cols, depth)
    counts = [len(level) for level in found]
    print(f"Positions per ply (one per mirror pair): {counts}", flush=True)
    done, meta["cpu_seconds"] = _read_progress(progress_file)
    frontier = found[depth]
    todo = sorted(key for key in frontier if key not in done)
    print(f"{len(done)} of {len(frontier)} at ply {depth} solved before; {len(todo)} to go.")
    tasks = [
        (rows, cols, [(key, *frontier[key]) for key in todo[i : i + _CHUNK]])
        for i in range(0, len(todo), _CHUNK)
    ]
    solved_now, shown = 0, 0.0
    try:
        with (
            multiprocessing.get_context("spawn").Pool(_WORKERS.value) as pool,
            progress_file.open("a") as out,
        ):
            for solved in pool.imap_unordered(_solve, tasks):
                for key, score, seconds in solved:
                    out.write(f"{key} {score} {seconds:.3f}\n")
                    done[key] = score
                    meta["cpu_seconds"] += seconds
                out.flush()
                meta["seconds"] = seconds_before + time.perf_counter() - start
                meta_file.write_text(json.dumps(meta, indent=1) + "\n")
                solved_now += len(solved)
                elapsed = time.perf_counter() - start
                if elapsed - shown >= 60 or solved_now == len(todo):
                    shown = elapsed
                    left = elapsed / solved_now * (len(todo) - solved_now)
                    print(
                        f"{len(done)}/{len(frontier)} solved, {elapsed:.0f} s, about "
                        f"{left:.0f} s to go",
                        flush=True,
                    )
    finally:
        meta["seconds"] = seconds_before + time.perf_counter() - start
        meta_file.write_text(json.dumps(meta, indent=1) + "\n")

    scores = opening_book.complete(rows, cols, found, done)
    about = {
        "positions_per_ply": counts,
        "entries": len(scores),
        "made_by": "python -m experiments.data.opening_book " + " ".join(sys.argv[1:]),
        "solver": "alphazero_jax.solvers.connect_four (search, no book)",
        "wall_seconds": round(meta["seconds"], 1),
        "solver_cpu_seconds": round(meta["cpu_seconds"], 1),
        "workers": _WORKERS.value,
        "machine": f"{os.cpu_count()} CPU cores",
        "date": datetime.date.today().isoformat(),
    }
    book = opening_book.make_book(rows, cols, depth, scores, about)
    output = pathlib.Path(_OUTPUT.value) if _OUTPUT.value else opening_book.FOLDER
    opening_book.save(book, output)
    print(f"Wrote the book ({len(scores)} positions) to {output}; the start scores ", end="")
    print(connect_four.move_scores("", rows=rows, cols=cols, book=book))


if __name__ == "__main__":
    app.run(main)
