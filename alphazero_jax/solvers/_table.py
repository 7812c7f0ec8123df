"""The Connect Four solver's transposition table (``connect_four``), compiled by numba.

The table holds true bounds on positions' scores and each position's best move, found by
earlier searches, so it is kept across calls (one per board size and thread: see
``connect_four._tables``). A position's key is ``position + mask`` (unique per position),
hashed by a multiplication: the top ``BUCKET_BITS`` bits pick a bucket, the rest (plus
one, so that 0 means empty) are the entry's tag.

A bucket is four words: two entries (tag, lower, upper), then the stones of the first
entry's position (bits 0-7) and each entry's best move (bits 8-11, 12-15). The first entry
keeps the position with the fewest stones (the largest search) that came to the bucket,
the second the latest other one; a position that displaces the first moves its old entry
to the second.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BUCKET_BITS = 18  # 2**18 buckets of 32 bytes (8 MiB) per board size: docs/benchmarks.md
SHIFT = np.uint64(64 - BUCKET_BITS)  # hashed >> SHIFT: the bucket
TAG_MASK = np.uint64((1 << (64 - BUCKET_BITS)) - 1)  # hashed & TAG_MASK: the tag, less one
UNKNOWN = 64  # a bound that says nothing: |score| <= 32 on every supported board
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd, so key * _MIX (mod 2**64) is a bijection
_U0, _U1, _U8, _U16 = np.uint64(0), np.uint64(1), np.uint64(8), np.uint64(16)
_BYTE, _NIBBLE = np.uint64(0xFF), np.uint64(0xF)
_FIRST_BEST, _SECOND_BEST = np.uint64(0xF00), np.uint64(0xF000)


def empty() -> np.ndarray:
    """A table that knows nothing: uint64[2**BUCKET_BITS, 4] of zeros."""
    return np.zeros((1 << BUCKET_BITS, 4), np.uint64)


@njit(cache=True, nogil=True)
def _bounds(entry):
    """(lower, upper) packed in the low 16 bits of a table entry."""
    return np.int64((entry >> _U8) & _BYTE) - 128, np.int64(entry & _BYTE) - 128


@njit(cache=True, nogil=True)
def probe(table, key, shift, tag_mask):
    """``(lower, upper, best)`` stored for ``key``: its bounds and its best move's rank in
    the column order plus one (0: none), or ``(-UNKNOWN, UNKNOWN, 0)``."""
    hashed = key * _MIX
    bucket = hashed >> shift
    tag = (hashed & tag_mask) + _U1
    for slot in range(2):
        entry = table[bucket, slot]
        if (entry >> _U16) == tag:
            best = np.int64((table[bucket, 2] >> np.uint64(8 + 4 * slot)) & _NIBBLE)
            lower, upper = _bounds(entry)
            return lower, upper, best
    return -UNKNOWN, UNKNOWN, 0


@njit(cache=True, nogil=True)
def store(table, key, shift, tag_mask, plies, lower, upper, best):
    """Remembers ``lower <= score <= upper`` for ``key`` (``plies`` stones), merged with
    what is there, and its best move (``best``, as ``probe`` gives it; 0 keeps the old),
    in the bucket's first or second entry as the module's docstring says."""
    hashed = key * _MIX
    bucket = hashed >> shift
    tag = (hashed & tag_mask) + _U1
    first, second, info = table[bucket, 0], table[bucket, 1], table[bucket, 2]
    slot = 0 if (first >> _U16) == tag else 1 if (second >> _U16) == tag else -1
    if slot >= 0:
        old_lower, old_upper = _bounds(table[bucket, slot])
        lower, upper = max(lower, old_lower), min(upper, old_upper)
        if best == 0:
            best = np.int64((info >> np.uint64(8 + 4 * slot)) & _NIBBLE)
    else:
        if first == _U0 or plies <= np.int64(info & _BYTE):
            if first != _U0:
                table[bucket, 1] = first
                info = (info & ~_SECOND_BEST) | ((info & _FIRST_BEST) << np.uint64(4))
            info = (info & ~_BYTE) | np.uint64(plies)
            slot = 0
        else:
            slot = 1
    offset = np.uint64(8 + 4 * slot)
    table[bucket, 2] = (info & ~(_NIBBLE << offset)) | (np.uint64(best) << offset)
    table[bucket, slot] = (tag << _U16) | (np.uint64(lower + 128) << _U8) | np.uint64(upper + 128)
