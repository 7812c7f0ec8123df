"""Tic-Tac-Toe and its m,n,k generalisation: ``connect`` in a row on a rows x cols board.

An action is a cell, numbered in reading order from the top-left (0..rows*cols-1). The
notation is in ``tic_tac_toe_text.py``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alphazero_jax.games import _bitboard as bb
from alphazero_jax.games import _board, _kinarow
from alphazero_jax.games import tic_tac_toe_text as text
from alphazero_jax.games._notation import board_json
from alphazero_jax.games._validate import check_int
from alphazero_jax.types import Array, Game

NAME = "tic_tac_toe"
# Each setting's bounds; connect is at most max(rows, cols) as well.
LIMITS = {"rows": (3, 10), "cols": (3, 10), "connect": (3, 10)}


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

    names = _board.symmetry_names(square=rows == cols, vertical=True)
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
        symmetries=_board.symmetries(np.arange(num_cells).reshape(rows, cols), names),
        to_text=lambda state: text.to_text(rows, cols, _kinarow.grid(layout, state)),
        action_to_text=lambda action, state=None: text.action_to_text(rows, cols, action),
        actions_from_text=lambda moves, state=None: text.actions_from_text(rows, cols, moves),
        actions_to_text=lambda actions, state=None: text.actions_to_text(rows, cols, actions),
        to_json=lambda state: board_json(_kinarow.grid(layout, state)),
    )
