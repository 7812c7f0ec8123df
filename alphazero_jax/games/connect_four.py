"""Connect Four on any rows x cols board (4..10 each), ``connect`` (3..min(rows, cols)) in a row.

Actions are columns, 0-based inside the library; the notation (Pascal Pons', 1-based) is
in ``connect_four_text.py``.

A move is one multi-word addition (Pons' trick): adding a column's bottom bit to the
occupancy mask carries up to the lowest empty cell of that column, or into the column's
padding bit when the column is full.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alphazero_jax.games import _bitboard as bb
from alphazero_jax.games import _board, _kinarow
from alphazero_jax.games import connect_four_text as text
from alphazero_jax.games._notation import board_json
from alphazero_jax.games._validate import check_int
from alphazero_jax.types import Array, Game

NAME = "connect_four"
# Each setting's bounds; connect is at most min(rows, cols) as well.
LIMITS = {"rows": (4, 10), "cols": (4, 10), "connect": (3, 10)}


def make(*, rows: int = 6, cols: int = 7, connect: int = 4) -> Game:
    """Connect Four with ``rows`` x ``cols`` cells and ``connect`` stones in a row to win.

    Args:
      rows: board height, 4..10.
      cols: board width (and the number of actions), 4..10.
      connect: stones in a row that win, 3..min(rows, cols).

    Returns:
      The game as pure functions; its states are ``_kinarow.GridState``.
    """
    check_int(NAME, "rows", rows, *LIMITS["rows"])
    check_int(NAME, "cols", cols, *LIMITS["cols"])
    check_int(NAME, "connect", connect, LIMITS["connect"][0], min(rows, cols))
    layout = bb.Layout(rows, cols, connect)
    padding = layout.mask([(rows, col) for col in range(cols)])  # the always-empty row
    top_bits = [divmod(layout.bit(rows - 1, col), 32) for col in range(cols)]

    def init(key: Array) -> _kinarow.GridState:
        del key  # Connect Four always starts from the empty board.
        return _kinarow.initial_state(layout)

    def step(state: _kinarow.GridState, action: Array) -> _kinarow.GridState:
        action = jnp.asarray(action, jnp.int32)
        mask = _kinarow.occupied(state)
        bottom = bb.single_bit(action * (rows + 1), layout.num_words)
        carried = bb.add(mask, bottom)
        stone = [c & ~m for c, m in zip(carried, mask)]
        not_full = bb.pack(stone) & padding
        legal = (action >= 0) & (action < cols) & ~jnp.any(not_full != 0)
        return _kinarow.place(layout, state, stone, legal)

    def legal_action_mask(state: _kinarow.GridState) -> Array:
        mask = _kinarow.occupied(state)
        free = [(mask[word] >> np.uint32(offset)) & 1 == 0 for word, offset in top_bits]
        return jnp.stack(free) & ~state.terminal

    def observe(state: _kinarow.GridState) -> Array:
        return _kinarow.observe(layout, state)

    names = _board.symmetry_names(square=rows == cols, vertical=False)
    return Game(
        name=NAME,
        num_actions=cols,
        observation_shape=(rows, cols, 2),
        max_num_moves=rows * cols,
        settings=(("rows", rows), ("cols", cols), ("connect", connect)),
        init=init,
        step=step,
        observe=observe,
        legal_action_mask=legal_action_mask,
        heuristic=_kinarow.make_heuristic(layout),
        symmetries=_board.symmetries(np.arange(cols)[None, :], names),
        to_text=lambda state: text.to_text(cols, _kinarow.grid(layout, state)),
        action_to_text=lambda action, state=None: text.action_to_text(cols, action),
        actions_from_text=lambda moves, state=None: text.actions_from_text(cols, moves),
        actions_to_text=lambda actions, state=None: text.actions_to_text(cols, actions),
        to_json=lambda state: board_json(_kinarow.grid(layout, state)),
    )
