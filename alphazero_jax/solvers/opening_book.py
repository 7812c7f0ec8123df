"""Connect Four's opening book: the exact score of every position up to a ply.

A book holds, for one board size, Pons' exact score (``solvers.connect_four``) of every
position that is not over, from the empty board down to ``depth`` plies: every position at
``depth`` solved by the search, every one above it by negamax over its children. A position
and its mirror image share one entry. The solver reads it first
(``connect_four.move_scores`` answers any position above ``depth`` from it alone).

On disk: ``<name>.npz`` with ``keys`` (uint64[N], ascending) and ``scores`` (int8[N]),
and ``<name>.json`` saying how it was made. A key is Pons' ``position + mask`` (the
solver's bitboards) of the position or of its mirror image, whichever is smaller.
``experiments.data.opening_book`` makes one.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib

import numpy as np

from alphazero_jax.solvers._bits import has_four, mirror, moves_of

FOLDER = pathlib.Path(__file__).parent.parent / "data" / "book"


def name_of(rows: int, cols: int) -> str:
    """The file name (without suffix) of the book of a rows x cols board."""
    return f"connect_four-{rows}x{cols}"


def key_of(position: int, mask: int, rows: int, cols: int) -> int:
    """The book's key of a position: the smaller of its and its mirror image's Pons key.

    ``position + mask`` never carries from one column into the next (a column's sum stays
    below ``2 ** (rows + 1)``), so the mirror of the key is the key of the mirror."""
    key = position + mask
    return min(key, mirror(key, rows, cols))


@dataclasses.dataclass(frozen=True)
class Book:
    """A book in memory: ``keys`` (uint64[N], ascending), ``scores`` (int8[N])."""

    rows: int
    cols: int
    depth: int  # every position that is not over with at most ``depth`` stones is here
    keys: np.ndarray
    scores: np.ndarray
    about: dict  # how it was made (the ``.json``)

    def covers(self, plies: int) -> bool:
        """Whether every position with ``plies`` stones is in the book."""
        return plies <= self.depth

    def score(self, position: int, mask: int) -> int:
        """The exact score of a position the book covers (not over).

        Raises:
          KeyError: the position is not in the book (over, or deeper than ``depth``).
        """
        key = np.uint64(key_of(position, mask, self.rows, self.cols))
        index = int(np.searchsorted(self.keys, key))
        if index == len(self.keys) or self.keys[index] != key:
            raise KeyError(
                f"Position (mask {mask:#x}) is not in the {self.rows}x{self.cols} book "
                f"(depth {self.depth}): expected a position that is not over, with at most "
                f"{self.depth} stones."
            )
        return int(self.scores[index])


def _walk(rows: int, cols: int, depth: int) -> list[dict[int, tuple[int, int, str]]]:
    """``[p]``: ``{key: (position, mask, moves)}`` of every position with ``p`` stones that
    is not over, one per mirror pair, each with the first move sequence found to it."""
    found = [{key_of(0, 0, rows, cols): (0, 0, "")}]
    for plies in range(depth):
        following = {}
        if plies + 1 < rows * cols:  # a full board is over
            for position, mask, moves in found[-1].values():
                for column, move in moves_of(mask, rows, cols):
                    if not has_four(position | move, rows):
                        child = (position ^ mask, mask | move)
                        step = (*child, moves + str(column + 1))
                        following.setdefault(key_of(*child, rows, cols), step)
        found.append(following)
    return found


def levels(rows: int, cols: int, depth: int) -> list[dict[int, tuple[int, int]]]:
    """``levels[p]``: ``{key: (position, mask)}`` of every position with ``p`` stones that
    is not over (a full board is over), one entry per mirror pair, for p = 0..depth."""
    return [{key: (p, m) for key, (p, m, _) in level.items()} for level in _walk(rows, cols, depth)]


def sequences(rows: int, cols: int, depth: int) -> dict[int, str]:
    """``{key: moves}``: one move sequence (Pons' notation, 1-based columns) to each
    position of ``levels(rows, cols, depth)[depth]``, or to its mirror image (same key)."""
    return {key: moves for key, (_, _, moves) in _walk(rows, cols, depth)[depth].items()}


def complete(
    rows: int, cols: int, found: list[dict[int, tuple[int, int]]], frontier: dict[int, int]
) -> dict[int, int]:
    """``{key: score}`` of every position of ``found`` (``levels``), given the scores of
    its deepest level (``frontier``), by negamax over the children of each level above."""
    scores = dict(frontier)
    for plies in range(len(found) - 2, -1, -1):
        win = (rows * cols + 1 - plies) // 2
        for key, (position, mask) in found[plies].items():
            best = -128  # below every score
            for _, move in moves_of(mask, rows, cols):
                if has_four(position | move, rows):
                    best = max(best, win)
                else:
                    best = max(best, -scores[key_of(position ^ mask, mask | move, rows, cols)])
            scores[key] = best
    return scores


def make_book(rows: int, cols: int, depth: int, scores: dict[int, int], about: dict) -> Book:
    """The ``Book`` of ``{key: score}`` (``complete``)."""
    keys = np.array(sorted(scores), np.uint64)
    values = np.array([scores[int(key)] for key in keys], np.int8)
    return Book(rows, cols, depth, keys, values, about)


def save(book: Book, folder: pathlib.Path) -> None:
    """Writes ``book`` as ``<name>.npz`` and ``<name>.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    name = name_of(book.rows, book.cols)
    np.savez_compressed(folder / f"{name}.npz", keys=book.keys, scores=book.scores)
    about = {"rows": book.rows, "cols": book.cols, "depth": book.depth} | book.about
    (folder / f"{name}.json").write_text(json.dumps(about, indent=1) + "\n")


def load(rows: int, cols: int, folder: pathlib.Path = FOLDER) -> Book | None:
    """The book of a rows x cols board in ``folder``, or None when there is none."""
    name = name_of(rows, cols)
    if not (folder / f"{name}.npz").is_file():
        return None
    about = json.loads((folder / f"{name}.json").read_text())
    with np.load(folder / f"{name}.npz") as arrays:
        keys, scores = arrays["keys"], arrays["scores"]
    if keys.dtype != np.uint64 or scores.dtype != np.int8 or keys.shape != scores.shape:
        raise ValueError(
            f"{folder / name}.npz: expected keys uint64[N] and scores int8[N], got "
            f"{keys.dtype}{list(keys.shape)} and {scores.dtype}{list(scores.shape)}."
        )
    return Book(rows, cols, int(about["depth"]), keys, scores, about)


def shipped_sizes(folder: pathlib.Path = FOLDER) -> list[tuple[int, int]]:
    """``(rows, cols)`` of each book in ``folder`` (the package's by default)."""
    sizes = []
    for path in sorted(folder.glob("connect_four-*.json")):
        about = json.loads(path.read_text())
        sizes.append((int(about["rows"]), int(about["cols"])))
    return sizes


@functools.cache
def shipped(rows: int, cols: int) -> Book | None:
    """The book shipped in the package for a rows x cols board (read once), or None."""
    return load(rows, cols)
