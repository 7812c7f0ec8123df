"""The Connect Four solver's search (``connect_four``): a bitboard negamax with alpha-beta
and, at the root, a binary search on the score by null windows, compiled by numba.

Boards are ``connect_four``'s: two ``uint64`` words, ``mask`` every stone and ``position``
the side to move's, ``rows + 1`` bits a column (the top one an empty sentinel). The order
of moves: immediate wins first, moves that hand the opponent an immediate win dropped,
the move that was best here before (from the table, ``_table``), then moves making more
threats, then centre columns first. Bounds and best moves are remembered in the
transposition table. The search releases the GIL.

A search is given the board size's ``geometry`` and column ``order`` (``make_geometry``,
``make_order``), a table (``_table.empty``) and working rows with a node budget
(``connect_four._scratch``); once the budget is spent it unwinds at once without writing
to the table, so an aborted search leaves only true bounds behind.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from alphazero_jax.solvers._table import SHIFT, TAG_MASK, UNKNOWN, probe, store

_U0, _U1, _U2, _U3, _U56 = (np.uint64(n) for n in (0, 1, 2, 3, 56))
_RANKS = 16  # more than the columns of any board: a move's promise holds its rank below it
_FIRST = 1 << 20  # the promise of the table's best move: above any count of threats
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


def make_geometry(rows: int, cols: int) -> tuple:
    """``(rows, bottom, full, cells, shift, tag_mask)``: the search's facts of a board size
    (``bottom`` the bottom cell of every column, ``full`` every cell, ``shift`` and
    ``tag_mask`` the table's hashing, ``_table``'s ``SHIFT`` and ``TAG_MASK``)."""
    bottom = sum(1 << (c * (rows + 1)) for c in range(cols))
    full = bottom * ((1 << rows) - 1)
    cells = rows * cols
    return (np.uint64(rows), np.uint64(bottom), np.uint64(full), cells, SHIFT, TAG_MASK)


def make_order(rows: int, cols: int) -> np.ndarray:
    """uint64[cols]: each column's cells, centre columns first (ties: the right one)."""
    column_bits = (1 << rows) - 1
    centre_first = sorted(range(cols), key=lambda c: (abs(2 * c - (cols - 1)), -c))
    return np.array([column_bits << (c * (rows + 1)) for c in centre_first], np.uint64)


@njit(cache=True, nogil=True)
def popcount(x):
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> _U2) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> _U56)


@njit(cache=True, nogil=True)
def winning_cells(stones, mask, rows, full):
    """The empty cells where ``stones`` would complete four in a line (playable or not)."""
    result = (stones << _U1) & (stones << _U2) & (stones << _U3)  # vertical: only upwards
    for step in (rows, rows + _U1, rows + _U2):  # diagonal down, horizontal, diagonal up
        pair = (stones << step) & (stones << (_U2 * step))
        result |= pair & (stones << (_U3 * step))
        result |= pair & (stones >> step)
        pair = (stones >> step) & (stones >> (_U2 * step))
        result |= pair & (stones << step)
        result |= pair & (stones >> (_U3 * step))
    return result & (full ^ mask)


@njit(cache=True, nogil=True)
def negamax(position, mask, plies, alpha, beta, geometry, order, table, moves, scores):
    """Pons' score if it lies in (alpha, beta), else a bound beyond the window.

    Each call spends one node of the budget ``scores[cells + 1, 0]`` (see
    ``connect_four._scratch``); once it is below zero every call returns a meaningless 0 at
    once and stores nothing.
    Precondition: the side to move cannot win with its next stone.
    """
    rows, bottom, full, cells, shift, tag_mask = geometry
    scores[cells + 1, 0] -= 1
    if scores[cells + 1, 0] < 0:
        return 0
    possible = (mask + bottom) & full
    opponent_wins = winning_cells(position ^ mask, mask, rows, full)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - _U1):  # two threats to block at once: lost next move
            return -((cells - plies) // 2)
        possible = forced
    possible &= ~(opponent_wins >> _U1)  # never play just below an opponent's threat
    if possible == _U0:
        return -((cells - plies) // 2)
    if plies >= cells - 2:  # neither side can win in the last two stones
        return 0
    alpha = max(alpha, -((cells - 2 - plies) // 2))  # the opponent cannot win next move
    if alpha >= beta:
        return alpha
    key = position + mask
    lower, upper, best = probe(table, key, shift, tag_mask)
    if lower >= beta:
        return lower
    upper = min(upper, (cells - 1 - plies) // 2)  # we cannot win with this stone
    if upper <= alpha:
        return upper
    beta = min(beta, upper)
    # moves[plies, :count] sorted by ascending promise, best last. A move's promise: the
    # table's best move above all, then the threats it makes, then the centre; its rank in
    # ``order`` is kept in the low bits, ``_RANKS - 1 - rank``.
    count = 0
    for rank in range(len(order) - 1, -1, -1):
        move = possible & order[rank]
        if move:
            # Enhanced transposition cutoff: a child's stored upper bound may refute us.
            _, child_upper, _ = probe(table, (position ^ mask) + (mask | move), shift, tag_mask)
            if -child_upper >= beta:
                store(table, key, shift, tag_mask, plies, -child_upper, UNKNOWN, rank + 1)
                return -child_upper
            if rank + 1 == best:
                promise = _FIRST
            else:
                promise = popcount(winning_cells(position | move, mask, rows, full)) * _RANKS
            promise += _RANKS - 1 - rank
            slot = count
            while slot > 0 and scores[plies, slot - 1] > promise:
                moves[plies, slot] = moves[plies, slot - 1]
                scores[plies, slot] = scores[plies, slot - 1]
                slot -= 1
            moves[plies, slot] = move
            scores[plies, slot] = promise
            count += 1
    best = 0
    for slot in range(count - 1, -1, -1):
        move = moves[plies, slot]
        child = position ^ mask
        score = -negamax(
            child, mask | move, plies + 1, -beta, -alpha, geometry, order, table, moves, scores
        )
        if scores[cells + 1, 0] < 0:  # aborted: the score means nothing, keep it out of table
            return 0
        if score >= beta:
            rank = _RANKS - 1 - scores[plies, slot] % _RANKS
            store(table, key, shift, tag_mask, plies, score, UNKNOWN, rank + 1)
            return score
        if score > alpha:
            alpha, best = score, _RANKS - scores[plies, slot] % _RANKS
    store(table, key, shift, tag_mask, plies, -UNKNOWN if best == 0 else alpha, alpha, best)
    return alpha


@njit(cache=True, nogil=True)
def solve(position, mask, plies, floor, ceiling, geometry, order, table, moves, scores):
    """Pons' score of a position that is not won, by null-window searches.

    The search looks for the score in [floor, ceiling] only: a score outside comes back
    as some bound beyond that side (with floor -1 and ceiling 1, just its sign is exact).
    It stops, returning a meaningless 0, as soon as the budget (nodes left) is below zero.
    """
    rows, bottom, full, cells, _, _ = geometry
    possible = (mask + bottom) & full
    if winning_cells(position, mask, rows, full) & possible:
        return (cells + 1 - plies) // 2
    low, high = -((cells - plies) // 2), (cells + 1 - plies) // 2
    low, high = max(low, floor), min(high, ceiling)
    while low < high:  # the score is in [low, high]
        guess = low + (high - low) // 2
        half_low = -((-low) // 2) if low < 0 else low // 2  # halves toward zero
        if guess <= 0 and half_low < guess:
            guess = half_low
        elif guess >= 0 and high // 2 > guess:
            guess = high // 2
        result = negamax(
            position, mask, plies, guess, guess + 1, geometry, order, table, moves, scores
        )
        if scores[cells + 1, 0] < 0:
            return 0
        if result <= guess:
            high = result
        else:
            low = result
    return low
