"""Tic-Tac-Toe's notation and picture: cells by file letter and rank number from the
bottom-left, as in chess (on 3x3, ``a3`` is the top-left cell, action 0, and ``b2`` the
centre); a move list is written ``"b2 a1 c3"``."""

from __future__ import annotations

from collections.abc import Sequence

from alphazero_jax.games._notation import FILES, file_index, picture, small_int


def to_text(rows: int, cols: int, cells: Sequence[Sequence[int]]) -> str:
    """ASCII picture of ``cells`` (top row first): ``X``, ``O``, ``.``; ranks and files."""
    return picture(cells, " ".join(FILES[:cols]), ranks=range(rows, 0, -1))


def action_to_text(rows: int, cols: int, action: int) -> str:
    if not 0 <= int(action) < rows * cols:
        raise ValueError(f"Tic-Tac-Toe action must be a cell in [0, {rows * cols}), got {action}.")
    row_from_top, col = divmod(int(action), cols)
    return f"{FILES[col]}{rows - row_from_top}"


def actions_to_text(rows: int, cols: int, actions: Sequence[int]) -> str:
    return " ".join(action_to_text(rows, cols, a) for a in actions)


def actions_from_text(rows: int, cols: int, text: str) -> list[int]:
    """Parses cells such as ``"b2 a1 c3"`` (spaces or commas between them)."""
    actions = []
    for index, token in enumerate(text.replace(",", " ").split()):
        col, rank = file_index(token[:1], FILES[:cols]), small_int(token[1:], 1, rows)
        if col is None or rank is None:
            raise ValueError(
                f"Move {token!r} at index {index} of {text!r} is not a cell: expected a file "
                f"a..{FILES[cols - 1]} and a rank 1..{rows}, e.g. 'b2'."
            )
        actions.append((rows - rank) * cols + col)
    return actions
