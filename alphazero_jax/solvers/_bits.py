"""Python-int helpers over the solver's bitboards (``connect_four``'s layout: ``rows + 1``
bits a column, bit ``col * (rows + 1) + row``, ``position`` the side to move's stones and
``mask`` every stone), shared by the solver and its opening book. Host-side, not jitted."""

from __future__ import annotations

from collections.abc import Iterator


def mirror(bits: int, rows: int, cols: int) -> int:
    """A bitboard (``rows + 1`` bits a column) with its columns in reverse order."""
    height = rows + 1
    column = (1 << height) - 1
    result = 0
    for c in range(cols):
        result |= ((bits >> (c * height)) & column) << ((cols - 1 - c) * height)
    return result


def moves_of(mask: int, rows: int, cols: int) -> Iterator[tuple[int, int]]:
    """``(column, move bit)`` of each column with room, left to right."""
    height = rows + 1
    for column in range(cols):
        bottom = 1 << (column * height)
        move = (mask + bottom) & (((1 << rows) - 1) * bottom)
        if move:
            yield column, move


def has_four(stones: int, rows: int) -> bool:
    """Whether ``stones`` hold four in a line."""
    for step in (1, rows, rows + 1, rows + 2):
        pairs = stones & (stones >> step)
        if pairs & (pairs >> (2 * step)):
            return True
    return False
