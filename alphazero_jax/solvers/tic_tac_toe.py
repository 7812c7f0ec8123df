"""Perfect play for Tic-Tac-Toe (3x3), by memoised negamax in plain Python.

Independent of the JAX game on purpose, so that it can judge it. Cells are numbered as the
game's actions: 0..8 in reading order from the top-left.
"""

from __future__ import annotations

import functools

_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip


def _winner(board: tuple[int, ...]) -> int:
    """The player (0 or 1) with three in a line, or -1."""
    for a, b, c in _LINES:
        if board[a] >= 0 and board[a] == board[b] == board[c]:
            return board[a]
    return -1


def board_after(moves: list[int]) -> tuple[int, ...]:
    """The board (-1 empty, else the player) after ``moves``, first player first."""
    board = [-1] * 9
    for index, cell in enumerate(moves):
        if board[cell] >= 0:
            raise ValueError(f"Cell {cell} at index {index} of {moves} is already taken.")
        board[cell] = index % 2
    return tuple(board)


def is_over(board: tuple[int, ...]) -> bool:
    return _winner(board) >= 0 or all(cell >= 0 for cell in board)


@functools.cache
def value(board: tuple[int, ...]) -> int:
    """The game-theoretic value for the player to move: +1 win, 0 draw, -1 loss."""
    mover = sum(cell >= 0 for cell in board) % 2
    if _winner(board) >= 0:
        return 1 if _winner(board) == mover else -1
    if all(cell >= 0 for cell in board):
        return 0
    return max(-value(_play(board, cell, mover)) for cell in range(9) if board[cell] < 0)


def _play(board, cell, player):
    return (*board[:cell], player, *board[cell + 1 :])


def move_values(board: tuple[int, ...]) -> dict[int, int]:
    """The value (for the mover) of each legal move of a position that is not over."""
    if is_over(board):
        raise ValueError(f"The position {board} is over: it has no moves to value.")
    mover = sum(cell >= 0 for cell in board) % 2
    return {c: -value(_play(board, c, mover)) for c in range(9) if board[c] < 0}


def optimal_moves(board: tuple[int, ...]) -> set[int]:
    """The moves that keep the position's value."""
    values = move_values(board)
    best = max(values.values())
    return {cell for cell, v in values.items() if v == best}


def reachable_positions() -> list[tuple[int, ...]]:
    """Every position reachable from the empty board, each once (5,478 of them)."""
    seen, frontier = {(-1,) * 9}, [(-1,) * 9]
    while frontier:
        board = frontier.pop()
        if is_over(board):
            continue
        mover = sum(cell >= 0 for cell in board) % 2
        for cell in range(9):
            if board[cell] < 0:
                child = _play(board, cell, mover)
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return sorted(seen)


def moves_to(board: tuple[int, ...]) -> list[int]:
    """A move list that reaches ``board`` (the first player's stones first in each pair)."""
    first = [c for c in range(9) if board[c] == 0]
    second = [c for c in range(9) if board[c] == 1]
    moves = [c for pair in zip(first, second) for c in pair]
    return moves + first[len(second) :]
