"""Connect Four's notation and picture. The notation is Pascal Pons': a move list is the
string of 1-based columns, ``"4453"`` = columns 4, 4, 5, 3; boards wider than nine
columns write column 10 as ``a``."""

from __future__ import annotations

from collections.abc import Sequence

from alphazero_jax.games._notation import picture

_COLUMN_CHARS = "123456789a"


def to_text(cols: int, cells: Sequence[Sequence[int]]) -> str:
    """ASCII picture of ``cells`` (top row first): ``X``, ``O``, ``.``; columns under it."""
    return picture(cells, " ".join(_COLUMN_CHARS[:cols]))


def action_to_text(cols: int, action: int) -> str:
    if not 0 <= int(action) < cols:
        raise ValueError(f"Connect Four action must be a column in [0, {cols}), got {action}.")
    return _COLUMN_CHARS[int(action)]


def actions_to_text(cols: int, actions: Sequence[int]) -> str:
    return "".join(action_to_text(cols, a) for a in actions)


def actions_from_text(cols: int, text: str) -> list[int]:
    """Parses Pons' 1-based column string (whitespace ignored) into 0-based columns."""
    valid = _COLUMN_CHARS[:cols]
    actions = []
    for char in "".join(text.split()):
        column = valid.find(char.lower())
        if column < 0:
            raise ValueError(
                f"Move {char!r} at index {len(actions)} of {text!r} is not a column: expected "
                f"one of {' '.join(valid)} (1-based columns)."
            )
        actions.append(column)
    return actions
