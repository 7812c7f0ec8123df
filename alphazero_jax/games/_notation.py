"""What the games' notations and pictures share: column letters, stone characters, a board
picture and its JSON, and the readers of a square's letter and number (host-side, never
traced)."""

from __future__ import annotations

from collections.abc import Sequence

FILES = "abcdefghijklmnop"  # column letters from the left, enough for a 16-wide board
STONE_CHARS = ("X", "O")  # the first player's stone or pawn, then the second's
EMPTY_CHAR = "."
# Longer digit strings are refused before ``int`` sees them (Python refuses 4,300 digits
# with a message about conversion limits, not about moves or agents). Agent specs' counts
# (``agents/_spec_text.py``) read numbers with the same rule.
MAX_DIGITS = 9


def picture(cells: Sequence[Sequence[int]], footer: str, ranks: Sequence[int] = ()) -> str:
    """ASCII picture of ``cells[row][col]`` (0 empty, 1 first player's, 2 second's), top row
    first, each row prefixed by its number from ``ranks`` (none when empty), then ``footer``
    under the board."""
    chars = (EMPTY_CHAR, *STONE_CHARS)
    rows = [" ".join(chars[cell] for cell in line) for line in cells]
    if not ranks:
        return "\n".join([*rows, footer])
    width = len(str(max(ranks)))
    rows = [f"{rank:>{width}} {line}" for rank, line in zip(ranks, rows)]
    return "\n".join([*rows, " " * (width + 1) + footer])


def board_json(cells: list[list[int]]) -> dict:
    """The position for a front end: ``{"rows", "cols", "cells"}``, ``cells[row][col]`` as
    for ``picture``."""
    return {"rows": len(cells), "cols": len(cells[0]), "cells": cells}


def is_count(text: str) -> bool:
    """Whether ``text`` is a count in ASCII digits, at most ``MAX_DIGITS`` of them (``"²"``
    and ``"١"`` are digits to ``str.isdigit`` but no count here)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def small_int(text: str, low: int, high: int) -> int | None:
    """The number that ``text`` writes in ASCII digits when it lies in ``[low, high]``,
    else None (other digits, such as ``"²"`` or ``"١"``, are no rank or row)."""
    if not is_count(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def file_index(char: str, files: str) -> int | None:
    """The index of the one-letter file ``char`` (any case) in ``files``, else None."""
    lowered = char.lower()
    if len(lowered) != 1 or lowered not in files:
        return None
    return files.index(lowered)
