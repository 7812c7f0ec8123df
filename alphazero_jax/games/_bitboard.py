"""Multi-word uint32 bitboards for k-in-a-row games on a rows x cols grid.

Layout (Pascal Pons' Connect Four layout, generalised): cells are numbered column-major
with one padding bit on top of every column, ``bit(row, col) = col * (rows + 1) + row``
with row 0 at the bottom. The padding row is always empty, so shifting a board right by
``1`` (up a column), ``rows + 1`` (along a row), ``rows`` (down-right diagonal) or
``rows + 2`` (up-right diagonal) never wraps a line from one column into the next.

A board of ``(rows + 1) * cols`` bits is stored in ``W = ceil(bits / 32)`` uint32 words,
least significant word first, so that the library never needs ``jax_enable_x64``. Inside
the functions below a board is a Python list of ``W`` uint32 scalars: every operation is
then a plain elementwise op, which vmaps into long contiguous vectors.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from alphazero_jax.types import Array

Words = list  # list[Array] of uint32 scalars (or None for a word known to be zero)

_ZERO = np.uint32(0)


class Layout(NamedTuple):
    """Static geometry of a padded grid bitboard."""

    rows: int
    cols: int
    connect: int

    @property
    def num_bits(self) -> int:
        return (self.rows + 1) * self.cols

    @property
    def num_words(self) -> int:
        return -(-self.num_bits // 32)

    @property
    def directions(self) -> tuple[int, ...]:
        """Bit distances between neighbours: vertical, horizontal and both diagonals."""
        return (1, self.rows + 1, self.rows, self.rows + 2)

    def bit(self, row: int, col: int) -> int:
        """Bit index of a cell; ``row`` 0 is the bottom row."""
        return col * (self.rows + 1) + row

    def mask(self, cells) -> np.ndarray:
        """uint32[W] with the bits of the given ``(row, col)`` cells set."""
        value = 0
        for row, col in cells:
            value |= 1 << self.bit(row, col)
        return split_words(value, self.num_words)


def split_words(value: int, num_words: int) -> np.ndarray:
    """A Python int as uint32[num_words], least significant word first."""
    return np.array([(value >> (32 * i)) & 0xFFFFFFFF for i in range(num_words)], np.uint32)


def unpack(board_row: Array) -> Words:
    return [board_row[i] for i in range(board_row.shape[-1])]


def pack(words: Words) -> Array:
    return jnp.stack([_ZERO if w is None else w for w in words]).astype(jnp.uint32)


def _and(a, b):
    return None if a is None or b is None else a & b


def _or(a, b):
    if a is None:
        return b
    return a if b is None else a | b


def shift_right(words: Words, shift: int) -> Words:
    """Logical right shift of a multi-word board by a static ``shift``."""
    whole, part = divmod(shift, 32)
    src = list(words[whole:]) + [None] * whole
    if part == 0:
        return src
    out = []
    for i, word in enumerate(src):
        low = None if word is None else word >> np.uint32(part)
        above = src[i + 1] if i + 1 < len(src) else None
        high = None if above is None else above << np.uint32(32 - part)
        out.append(_or(low, high))
    return out


def runs(words: Words, length: int, shift: int) -> Words:
    """Bit ``p`` is set iff bits ``p, p+shift, ..., p+(length-1)*shift`` are all set."""
    result, span = list(words), 1
    while 2 * span <= length:
        result = [_and(a, b) for a, b in zip(result, shift_right(result, span * shift))]
        span *= 2
    if span < length:  # Overlap two runs of `span` to cover `length` (span >= length / 2).
        result = [_and(a, b) for a, b in zip(result, shift_right(result, (length - span) * shift))]
    return result


def has_line(layout: Layout, words: Words) -> Array:
    """bool[]: the stones in ``words`` contain ``connect`` in a row in any direction."""
    found = None
    for shift in layout.directions:
        for word in runs(words, layout.connect, shift):
            found = _or(found, word)
    return found != 0


def add(a: Words, b: Words) -> Words:
    """Multi-word unsigned addition, carrying between words."""
    out, carry = [], None
    for x, y in zip(a, b):
        total = x + y
        overflow = total < x
        if carry is not None:
            with_carry = total + carry
            overflow = overflow | (with_carry < total)
            total = with_carry
        out.append(total)
        carry = overflow.astype(jnp.uint32)
    return out


def single_bit(index: Array, num_words: int) -> Words:
    """The board with only bit ``index`` (traced int32) set; empty if out of range."""
    word, offset = index // 32, (index % 32).astype(jnp.uint32)
    one = jnp.uint32(1) << offset
    return [jnp.where(word == i, one, _ZERO) for i in range(num_words)]


def _cell_bits(layout: Layout) -> np.ndarray:
    """int[rows, cols]: the bit of each cell, in picture order (row 0 = top)."""
    return np.array(
        [
            [layout.bit(layout.rows - 1 - r, c) for c in range(layout.cols)]
            for r in range(layout.rows)
        ]
    )


def _extract(layout: Layout, words: list, owner: np.ndarray, bits: np.ndarray) -> Array:
    """float32 array of ``bits``' shape: bit ``bits[i]`` of board ``owner[i]`` in ``words``.

    ``words[k]`` is board ``k`` as uint32[W]. Each output element picks its word through
    static selects rather than a gather, so that the batched version stays one
    elementwise loop.
    """
    slot = owner * layout.num_words + bits // 32
    flat = [row[i] for row in words for i in range(layout.num_words)]
    selected = jnp.broadcast_to(flat[0], bits.shape)
    for index in range(1, len(flat)):
        selected = jnp.where(slot == index, flat[index], selected)
    return ((selected >> (bits % 32).astype(np.uint32)) & 1).astype(jnp.float32)


def cell_planes(layout: Layout, board_row: Array) -> Array:
    """float32[rows, cols]: 1 where ``board_row`` (uint32[W]) has a stone; row 0 = top."""
    bits = _cell_bits(layout)
    return _extract(layout, [board_row], np.zeros_like(bits), bits)


def stacked_planes(layout: Layout, boards: list) -> Array:
    """float32[rows, cols, K]: plane ``k`` marks the stones of ``boards[k]`` (uint32[W])."""
    bits = _cell_bits(layout)[..., None].repeat(len(boards), -1)
    owner = np.broadcast_to(np.arange(len(boards)), bits.shape)
    return _extract(layout, boards, owner, bits)
