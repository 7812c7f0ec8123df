"""Othello's notation and picture, the usual ones: columns ``a..`` from left to right, rows
``1..`` from top to bottom (``f5`` is row 5, column f), and ``pass``; a move list is
``"f5 d6 c3"``. A cell's action is ``row * size + col``, the pass ``size * size``."""

from __future__ import annotations

from collections.abc import Sequence

from alphazero_jax.games._notation import FILES, file_index, picture, small_int

PASS_TEXT = "pass"


def to_text(size: int, cells: Sequence[Sequence[int]]) -> str:
    """ASCII picture: ``X`` Black, ``O`` White, ``.`` empty; rows numbered from the top."""
    return picture(cells, " ".join(FILES[:size]), ranks=range(1, size + 1))


def action_to_text(size: int, action: int) -> str:
    if not 0 <= int(action) <= size * size:
        raise ValueError(
            f"Othello action must be a cell in [0, {size * size}) or the pass {size * size}, "
            f"got {action}."
        )
    if int(action) == size * size:
        return PASS_TEXT
    row, col = divmod(int(action), size)
    return f"{FILES[col]}{row + 1}"


def actions_to_text(size: int, actions: Sequence[int]) -> str:
    return " ".join(action_to_text(size, a) for a in actions)


def actions_from_text(size: int, text: str) -> list[int]:
    """Parses ``"f5 d6 c3 pass"`` (spaces or commas between moves, any case)."""
    actions = []
    for index, token in enumerate(text.replace(",", " ").split()):
        token = token.lower()
        if token == PASS_TEXT:
            actions.append(size * size)
            continue
        col, row = file_index(token[:1], FILES[:size]), small_int(token[1:], 1, size)
        if col is None or row is None:
            raise ValueError(
                f"Move {token!r} at index {index} of {text!r} is not a cell or a pass: expected "
                f"a column a..{FILES[size - 1]} and a row 1..{size} (top to bottom), e.g. "
                f"'f5', or 'pass'."
            )
        actions.append((row - 1) * size + col)
    return actions
