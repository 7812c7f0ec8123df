"""Tic-Tac-Toe and its m,n,k generalisation: ``connect`` in a row on a rows x cols board.

An action is a cell, numbered in reading order from the top-left (0..rows*cols-1). The text
notation names cells by file letter and rank number from the bottom-left, as in chess:
on 3x3, ``a3`` is the top-left cell (action 0) and ``b2`` the centre; a move list is
written ``"b2 a1 c3"``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alphazero_jax.games import _bitboard as bb
from alphazero_jax.games import _kinarow
from alphazero_jax.games._validate import check_int, file_index, small_int
from alphazero_jax.types import Array, Game

NAME = "tic_tac_toe"
# Each setting's bounds; connect is at most max(rows, cols) as well.
LIMITS = {"rows": (3, 10), "cols": (3, 10), "connect": (3, 10)}
_FILES = "abcdefghij"


def make(*, rows: int = 3, cols: int = 3, connect: int = 3) -> Game:
    """Tic-Tac-Toe (the default) or an m,n,k-game.

    Args:
      rows: board height, 3..10.
      cols: board width, 3..10.
      connect: stones in a row that win, 3..max(rows, cols).

    Returns:
      The game as pure functions; its states are ``_kinarow.GridState``.
    """
    check_int(NAME, "rows", rows, *LIMITS["rows"])
    check_int(NAME, "cols", cols, *LIMITS["cols"])
    check_int(NAME, "connect", connect, LIMITS["connect"][0], max(rows, cols))
    layout = bb.Layout(rows, cols, connect)
    num_cells = rows * cols

    def init(key: Array) -> _kinarow.GridState:
        del key  # The board always starts empty.
        return _kinarow.initial_state(layout)

    def step(state: _kinarow.GridState, action: Array) -> _kinarow.GridState:
        action = jnp.asarray(action, jnp.int32)
        row_from_top, col = action // cols, action % cols
        stone = bb.single_bit(col * (rows + 1) + (rows - 1 - row_from_top), layout.num_words)
        mask = _kinarow.occupied(state)
        clash = jnp.any(bb.pack([s & m for s, m in zip(stone, mask)]) != 0)
        legal = (action >= 0) & (action < num_cells) & ~clash
        return _kinarow.place(layout, state, stone, legal)

    def legal_action_mask(state: _kinarow.GridState) -> Array:
        taken = bb.cell_planes(layout, bb.pack(_kinarow.occupied(state)))
        return (taken == 0).reshape(-1) & ~state.terminal

    def observe(state: _kinarow.GridState) -> Array:
        return _kinarow.observe(layout, state)

    names = _kinarow.symmetry_names(square=rows == cols, vertical=True)
    footer = " ".join(_FILES[:cols])
    return Game(
        name=NAME,
        num_actions=num_cells,
        observation_shape=(rows, cols, 2),
        max_num_moves=num_cells,
        settings=(("rows", rows), ("cols", cols), ("connect", connect)),
        init=init,
        step=step,
        observe=observe,
        legal_action_mask=legal_action_mask,
        heuristic=_kinarow.make_heuristic(layout),
        symmetries=_kinarow.symmetries(np.arange(num_cells).reshape(rows, cols), names),
        to_text=lambda state: _with_ranks(rows, _kinarow.to_text(layout, state, footer)),
        action_to_text=lambda action, state=None: _action_to_text(rows, cols, action),
        actions_from_text=lambda text, state=None: _actions_from_text(rows, cols, text),
        actions_to_text=lambda actions, state=None: " ".join(
            _action_to_text(rows, cols, a) for a in actions
        ),
        to_json=lambda state: _kinarow.to_json(layout, state),
    )


def _with_ranks(rows: int, picture: str) -> str:
    """Prefixes each board row of the picture with its rank number, as in chess."""
    width = len(str(rows))
    lines = picture.split("\n")
    ranked = [f"{rows - i:>{width}} {line}" for i, line in enumerate(lines[:rows])]
    return "\n".join([*ranked, " " * (width + 1) + lines[rows]])


def _action_to_text(rows: int, cols: int, action: int) -> str:
    if not 0 <= int(action) < rows * cols:
        raise ValueError(f"Tic-Tac-Toe action must be a cell in [0, {rows * cols}), got {action}.")
    row_from_top, col = divmod(int(action), cols)
    return f"{_FILES[col]}{rows - row_from_top}"


def _actions_from_text(rows: int, cols: int, text: str) -> list[int]:
    """Parses cells such as ``"b2 a1 c3"`` (spaces or commas between them)."""
    actions = []
    for index, token in enumerate(text.replace(",", " ").split()):
        col, rank = file_index(token[:1], _FILES[:cols]), small_int(token[1:], 1, rows)
        if col is None or rank is None:
            raise ValueError(
                f"Move {token!r} at index {index} of {text!r} is not a cell: expected a file "
                f"a..{_FILES[cols - 1]} and a rank 1..{rows}, e.g. 'b2'."
            )
        actions.append((rows - rank) * cols + col)
    return actions
