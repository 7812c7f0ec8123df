"""Connect Four positions drawn and labelled, with no flags: what ``label_pons``,
``random_play_set`` and ``experiments.strength.perfect_play.play_settings`` share.

- ``random_positions``: distinct 6x7 positions reached by uniformly random play, by the rule
  of ``random_play_set``'s module doc (which holds Random-Play's seed and ply range);
- ``label``: the outcome of each column of a position under perfect play, from our solver;
- ``append_lines``: writes ``<key> <line>`` one flushed line at a time, resuming;
- ``validation_labels``: labelled positions that no shipped set holds, to choose settings on.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pathlib
import time
from collections.abc import Callable, Sequence

import numpy as np

ROWS, COLS = 6, 7
MIN_PLIES, MAX_PLIES = 10, 30  # Random-Play's plies; the play-settings validation shares them


def _makes_four(grid: list[list[int]], row: int, col: int) -> bool:
    """Whether the stone at (row, col) of ``grid`` (rows from the bottom) is in a four."""
    player = grid[row][col]
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * d_row, col + sign * d_col
            while 0 <= r < ROWS and 0 <= c < COLS and grid[r][c] == player:
                count, r, c = count + 1, r + sign * d_row, c + sign * d_col
        if count >= 4:
            return True
    return False


def _random_game(rng: np.random.Generator, num_plies: int) -> tuple[str, tuple] | None:
    """(moves, board) after ``num_plies`` uniformly random moves, or None when the game
    ends on the way or the side to move can then win at once."""
    grid = [[0] * COLS for _ in range(ROWS)]
    heights = [0] * COLS
    moves = ""
    for ply in range(num_plies):
        legal = [c for c in range(COLS) if heights[c] < ROWS]
        col = legal[int(rng.integers(len(legal)))]
        grid[heights[col]][col] = 1 + ply % 2
        heights[col] += 1
        moves += str(col + 1)
        if _makes_four(grid, heights[col] - 1, col):
            return None
    for col in range(COLS):  # the side to move may not win at once
        if heights[col] < ROWS:
            grid[heights[col]][col] = 1 + num_plies % 2
            wins = _makes_four(grid, heights[col], col)
            grid[heights[col]][col] = 0
            if wins:
                return None
    return moves, tuple(map(tuple, grid))


def random_positions(*, seed: int, count: int, min_plies: int, max_plies: int) -> list[str]:
    """The move strings of ``count`` distinct positions drawn by the rule of
    ``random_play_set``'s module doc.

    Args:
      seed: the seed of ``numpy.random.default_rng``.
      count: positions to keep.
      min_plies: the fewest plies played (at least 0).
      max_plies: the most plies played (at most 41 on 6x7).

    Returns:
      [count] move strings in Pons' notation (1-based columns), in the order kept.
    """
    if not 0 <= min_plies <= max_plies < ROWS * COLS:
        raise ValueError(
            f"Expected 0 <= min_plies <= max_plies < {ROWS * COLS}, got {min_plies}, {max_plies}."
        )
    rng = np.random.default_rng(seed)
    positions, boards = [], set()
    while len(positions) < count:
        drawn = _random_game(rng, int(rng.integers(min_plies, max_plies + 1)))
        if drawn is not None and drawn[1] not in boards:
            positions.append(drawn[0])
            boards.add(drawn[1])
    return positions


def label(moves: str) -> str:
    """The label string of one 6x7 position in Pons' notation, e.g. "LLDWDL.": for each
    column the outcome of playing it for the side to move, ``W``, ``D`` or ``L``, or ``.``
    for a full one (the format of ``label_pons``' module doc)."""
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import connect_four

    scores = connect_four.move_scores(moves, weak=True)  # None: a full column
    return perfect_play.label_text([-2 if score is None else score for score in scores])


def existing(path: pathlib.Path) -> list[str]:
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
    done = existing(path)
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


def board_of(moves: str) -> frozenset:
    """The stones of a position in Pons' notation, however they were played: a set of
    ``((row, col), player)``, rows from the bottom, player 0 the first to move."""
    heights, stones = [0] * COLS, {}
    for ply, char in enumerate(moves):
        col = int(char) - 1
        stones[(heights[col], col)] = ply % 2
        heights[col] += 1
    return frozenset(stones.items())


def validation_labels(path: pathlib.Path, *, seed: int, count: int):
    """``perfect_play.Labels`` of ``count`` positions drawn by the Random-Play rule with
    ``seed`` (not Random-Play's 0), less any board of a shipped set, kept where a mistake
    is possible; labelled by ``label`` into ``path`` first where it lacks them, one line at
    a time (resumable: a second call reuses the file); 2,500 took 11 minutes of a shared core."""
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import benchmark_sets

    if seed == 0:
        raise ValueError("seed 0 draws Random-Play itself; expected another seed.")
    shipped = {board_of(p.moves) for name in benchmark_sets.SETS for p in benchmark_sets.load(name)}
    drawn = random_positions(seed=seed, count=count, min_plies=MIN_PLIES, max_plies=MAX_PLIES)
    moves = [m for m in drawn if board_of(m) not in shipped]
    path.parent.mkdir(parents=True, exist_ok=True)
    append_lines(path, moves, label, name=f"{path.name} labels")
    outcomes = {}
    for line in existing(path):
        position, text = line.split()
        outcomes[position] = [perfect_play.OUTCOMES[char] for char in text]
    table = np.array([outcomes[m] for m in moves], np.int8)
    labels = perfect_play.Labels(path.stem, tuple(moves), np.zeros(len(moves), np.int32), table)
    return labels.where(labels.mistake_possible)
