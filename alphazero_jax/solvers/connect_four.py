"""Exact Connect Four scores: a bitboard negamax with alpha-beta, compiled by numba.

Scores follow Pascal Pons' convention (see ``alphazero_jax.solvers.pons``): from the side to move
under perfect play, a win scores ``(rows * cols + 1 - plies) // 2``, where ``plies`` is the
number of stones on the board just before the winning stone (on 6x7: 22 minus the winner's
stones at the end); a draw scores 0, a loss minus the opponent's win.

A board is two ``uint64`` words, column-major with ``rows + 1`` bits per column (bit
``col * (rows + 1) + row``, row 0 at the bottom; the top bit of each column is a sentinel
that stays empty, so that shifted lines never wrap from one column into the next): ``mask``
holds every stone and ``position`` the stones of the side to move. Playing ``move`` (a
single bit) is ``position ^= mask; mask |= move``.

The search (``_search``): immediate wins first, moves that hand the opponent an immediate
win dropped, the move that was best here before, then moves making more threats, then
centre columns searched first, and at the root a binary search on the score with null
windows (confined to [-1, 1] when only win, draw or loss is asked for: ``weak=True``).
Bounds and best moves are remembered in a transposition table (``_table``: two entries a
bucket, one kept for the largest search that came to it). The table holds true bounds on a
position's score, so it is kept across calls (one per board size and thread). The first call
compiles (numba caches the result on disk; docs/results/connect_four_solved.md gives the
times). The search releases the GIL, so a long solve on one thread holds up no other (a
server's). This module is the host side: reading moves, the book, the tables and budgets,
and the scores of a position and of each of its moves.

A search can be given a budget of nodes (``max_nodes``; ``verdicts`` is the entry point for
it): once the budget is spent the search unwinds at once without writing to the table, so an
aborted search leaves only true bounds behind, and raises ``SearchLimitReached``.
"""

from __future__ import annotations

import threading

import numpy as np

from alphazero_jax.solvers import _search, _table, opening_book
from alphazero_jax.solvers._bits import has_four, moves_of

SHIPPED = "shipped"  # ``book=SHIPPED``: the package's opening book for the board size
_UNLIMITED = 1 << 62  # a node budget no search spends


class SearchLimitReached(RuntimeError):
    """The solver spent its node budget (``max_nodes``) before it settled the answer."""


def check_size(rows: int, cols: int) -> None:
    """Raises unless the solver supports a rows x cols board."""
    if not (4 <= rows and 4 <= cols <= 9 and (rows + 1) * cols <= 64):
        raise ValueError(
            f"Expected a board with rows >= 4, 4 <= cols <= 9 and (rows + 1) * cols <= 64 "
            f"(one uint64 bitboard), got rows={rows}, cols={cols}."
        )


def _replay(moves: str, rows: int, cols: int) -> tuple[int, int, bool]:
    """(position, mask, won) after ``moves``; ``won``: the last stone made four in a line."""
    check_size(rows, cols)
    position = mask = 0
    won_at = None
    for index, char in enumerate(moves):
        if not ("1" <= char <= "9"):
            raise ValueError(
                f"Character {char!r} at index {index} of {moves!r} is not a column; expected "
                f"digits 1..{cols}."
            )
        column = int(char) - 1
        if column >= cols:
            raise ValueError(
                f"Column {char} at index {index} of {moves!r} is out of range; expected 1..{cols}."
            )
        if won_at is not None:
            raise ValueError(
                f"Move {char} at index {index} of {moves!r} comes after the game was won by the "
                f"move at index {won_at}; expected the string to stop there."
            )
        top = 1 << (column * (rows + 1) + rows - 1)
        if mask & top:
            raise ValueError(
                f"Column {char} at index {index} of {moves!r} is full ({rows} rows); expected "
                f"a column with room."
            )
        position ^= mask
        mask |= mask + (1 << (column * (rows + 1)))
        if has_four(position ^ mask, rows):  # the stones of the player who just moved
            won_at = index
    return position, mask, won_at is not None


_PER_THREAD = threading.local()


def _tables(rows: int, cols: int) -> tuple[tuple, np.ndarray, np.ndarray]:
    """(geometry, column order, transposition table) for one board size, made once per
    thread: the search releases the GIL, and two searches writing one table at once (a
    server's verdicts and its solver agent) could read an entry half written by the other."""
    made = _PER_THREAD.__dict__.setdefault("tables", {})
    if (rows, cols) not in made:
        geometry, order = _search.make_geometry(rows, cols), _search.make_order(rows, cols)
        made[rows, cols] = geometry, order, _table.empty()
    return made[rows, cols]


def _scratch(rows: int, cols: int, max_nodes: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(moves, scores): the searches' working rows, one per ply, for one or more searches.

    The last row of ``scores`` holds the node budget, [nodes left, max_nodes, 0, ...]:
    searches sharing these arrays share the budget. (A row here rather than an argument of
    its own: one more array passed through the recursion costs about 5% in speed.)
    """
    if max_nodes is None:
        max_nodes = _UNLIMITED
    elif not 0 <= max_nodes < _UNLIMITED:
        raise ValueError(f"Expected max_nodes in [0, 2**62) or None, got {max_nodes}.")
    cells = rows * cols
    moves = np.zeros((cells + 1, cols), np.uint64)
    scores = np.zeros((cells + 2, cols), np.int64)
    scores[cells + 1, :2] = max_nodes
    return moves, scores


def _solve_bits(
    position: int,
    mask: int,
    rows: int,
    cols: int,
    floor: int = -_table.UNKNOWN,
    ceiling: int = _table.UNKNOWN,
    scratch: tuple[np.ndarray, np.ndarray] | None = None,
    book: opening_book.Book | None = None,
) -> int:
    """The score of a position that is not won, if it lies in [floor, ceiling]; else a
    bound beyond the side it lies on (the exact score where ``book`` covers the position).
    Spends the budget in ``scratch`` (``_scratch``; None: unlimited) and raises
    ``SearchLimitReached`` when it runs out."""
    plies = mask.bit_count()
    if book is not None and book.covers(plies):
        return book.score(position, mask)
    moves, scores = _scratch(rows, cols, None) if scratch is None else scratch
    geometry, order, table = _tables(rows, cols)
    result = int(
        _search.solve(
            np.uint64(position),
            np.uint64(mask),
            plies,
            floor,
            ceiling,
            geometry,
            order,
            table,
            moves,
            scores,
        )
    )
    nodes_left, max_nodes = scores[-1, :2]
    if nodes_left < 0:
        raise SearchLimitReached(
            f"The solver searched max_nodes={int(max_nodes):,} positions without settling the "
            f"answer; expected a larger max_nodes, or None for no limit (which can take minutes "
            f"near the start of a 6x7 game)."
        )
    return result


def _sign(
    position: int,
    mask: int,
    rows: int,
    cols: int,
    floor: int = -1,
    scratch: tuple[np.ndarray, np.ndarray] | None = None,
    book: opening_book.Book | None = None,
) -> int:
    """1, 0 or -1: win, draw or loss for the side to move (a score >= floor is known)."""
    return int(np.sign(_solve_bits(position, mask, rows, cols, floor, 1, scratch, book)))


def _book(rows: int, cols: int, book: opening_book.Book | str | None) -> opening_book.Book | None:
    """The book to read: ``"shipped"``: the package's for this size (or None); a ``Book``
    must be of this size."""
    if isinstance(book, str):
        if book != SHIPPED:
            raise ValueError(f"book: expected {SHIPPED!r}, a Book or None, got {book!r}.")
        return opening_book.shipped(rows, cols)
    if book is not None and (book.rows, book.cols) != (rows, cols):
        raise ValueError(
            f"book: expected a book of {rows}x{cols}, got one of {book.rows}x{book.cols}."
        )
    return book


def search_score(position: int, mask: int, rows: int, cols: int) -> int:
    """Pons' score of a bitboard position (this module's layout, not won) by search alone,
    without any book: what makes a book."""
    return _solve_bits(position, mask, rows, cols)


def score(
    moves: str,
    *,
    rows: int = 6,
    cols: int = 7,
    weak: bool = False,
    book: opening_book.Book | str | None = SHIPPED,
) -> int:
    """Pons' score of the position after ``moves``, for the side to move.

    Args:
        moves: the columns played, 1-based digits, first player first (e.g. "4453").
        rows: board height.
        cols: board width (at most 9: one digit per column).
        weak: only win, draw or loss: returns 1, 0 or -1 (the sign of the score), which
            is found much faster than the exact score near the start of a game.
        book: the opening book read first: ``"shipped"`` (the package's for this size,
            if any), a ``opening_book.Book``, or None (search only).

    Returns:
        Positive: the side to move wins, ``(rows * cols + 1 - len(moves)) // 2`` when its
        winning stone is the next one and one less for each pair of stones later; 0: draw;
        negative: it loses. A full board without four in a line scores 0.

    Raises:
        ValueError: a bad character, column out of range, full column, a move after the
            game was won, or a position that is already won.
    """
    position, mask, won = _replay(moves, rows, cols)
    if won:
        raise ValueError(f"The position {moves!r} is over (four in a line): nothing to score.")
    book = _book(rows, cols, book)
    if weak:
        return _sign(position, mask, rows, cols, book=book)
    return _solve_bits(position, mask, rows, cols, book=book)


def move_scores(
    moves: str,
    *,
    rows: int = 6,
    cols: int = 7,
    weak: bool = False,
    max_nodes: int | None = None,
    book: opening_book.Book | str | None = SHIPPED,
) -> list[int | None]:
    """The score of playing each column, for the side to move now.

    Args:
        moves: the columns played, 1-based digits, first player first (e.g. "4453").
        rows: board height.
        cols: board width (at most 9).
        weak: only the sign of each score (1, 0 or -1), as in ``score``.
        max_nodes: the most positions searched, over all columns together (some 5 million
            a second); None: no limit. Positions the book covers cost none.
        book: as in ``score``; with the shipped 6x7 book every position above its depth
            is answered from it alone.

    Returns:
        [cols] scores, index c for column c + 1, None for a full column; the best equals
        ``score(moves, weak=weak)``. A winning stone scores
        ``(rows * cols + 1 - len(moves)) // 2`` (1 if ``weak``).

    Raises:
        ValueError: as ``score``, and for a full board: the position is over.
        SearchLimitReached: ``max_nodes`` were searched before every score was known.
    """
    position, mask, won = _replay(moves, rows, cols)
    if won or mask.bit_count() == rows * cols:
        raise ValueError(f"The position {moves!r} is over (won or full): it has no moves.")
    return move_scores_bits(
        position, mask, rows, cols, weak=weak, max_nodes=max_nodes, book=_book(rows, cols, book)
    )


def verdicts(
    moves: str,
    *,
    rows: int = 6,
    cols: int = 7,
    max_nodes: int | None = None,
    book: opening_book.Book | str | None = SHIPPED,
) -> list[int | None]:
    """Whether playing each column wins, draws or loses, within a budget of nodes.

    ``move_scores(moves, weak=True, max_nodes=max_nodes)``: meant for callers that must
    answer quickly (a web page), which treat ``SearchLimitReached`` as "unknown".

    Args:
        moves: the columns played, 1-based digits, first player first (e.g. "4453").
        rows: board height.
        cols: board width (at most 9).
        max_nodes: the most positions searched, over all columns together (some 5 million
            a second); None: no limit (minutes near the start of a 6x7 game without a book).
        book: as in ``score``.

    Returns:
        [cols] verdicts for the side to move, index c for column c + 1: 1 (playing it
        wins), 0 (draws) or -1 (loses) under perfect play after it; None for a full column.

    Raises:
        ValueError: as ``move_scores``.
        SearchLimitReached: ``max_nodes`` were searched before every verdict was known.
    """
    return move_scores(moves, rows=rows, cols=cols, weak=True, max_nodes=max_nodes, book=book)


def move_scores_bits(
    position: int,
    mask: int,
    rows: int,
    cols: int,
    *,
    weak: bool = False,
    max_nodes: int | None = None,
    book: opening_book.Book | None = None,
) -> list[int | None]:
    """``move_scores`` of a bitboard (this module's layout) that is not won and not full,
    reading ``book`` (None: search only)."""
    scratch = _scratch(rows, cols, max_nodes)  # one budget for all the searches
    win = (rows * cols + 1 - mask.bit_count()) // 2
    # Weak: the position's own sign first bounds its moves' (and warms the table for them).
    best = _sign(position, mask, rows, cols, scratch=scratch, book=book) if weak else None
    playable = dict(moves_of(mask, rows, cols))
    result: list[int | None] = []
    for column in range(cols):
        move = playable.get(column, 0)
        child = (position ^ mask, mask | move)
        if not move:
            result.append(None)
        elif has_four(position | move, rows):
            result.append(1 if weak else win)
        elif not weak:
            result.append(-_solve_bits(*child, rows, cols, scratch=scratch, book=book))
        elif best == -1:  # every move loses
            result.append(-1)
        else:  # after any move of a drawn position the opponent's score is >= 0
            floor = 0 if best == 0 else -1
            result.append(-_sign(*child, rows, cols, floor, scratch, book))
    return result
