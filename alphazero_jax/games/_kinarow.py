"""What Tic-Tac-Toe (m,n,k) and Connect Four share: k in a row on a bitboard grid.

The two games differ only in how an action becomes a stone (any empty cell, or the lowest
empty cell of a column), in their notation and in their symmetries. The state, the
outcome of a move, the observation, the heuristic and the cells of a position live here.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.games import _bitboard as bb
from alphazero_jax.games._board import HEURISTIC_BOUND, rewards_of
from alphazero_jax.types import Array

# Heuristic weights (from the mover's view): a line of `connect` cells that holds only one
# player's stones scores by how many it holds; each stone also scores by the number of
# lines through its cell, which prefers the centre.
_LINE_WEIGHT_ONE_SHORT = 5.0  # e.g. an open three in Connect Four
_LINE_WEIGHT_TWO_SHORT = 2.0  # e.g. an open two
_CELL_WEIGHT = 0.2
_HEURISTIC_SCALE = 32.0


@struct.dataclass
class GridState:
    """A k-in-a-row position: 26 bytes for Connect Four 6x7 (two 2-word bitboards).

    ``rewards`` is derived from ``winner`` so that each mctx tree node stays small.
    """

    board: Array  # uint32[2, W]: stones of player 0 and of player 1.
    current_player: Array  # int32[]: 0 = first player.
    num_moves: Array  # int32[]
    terminal: Array  # bool[]
    winner: Array  # int8[]: the winning player, or -1 (game on, or a draw).

    @property
    def rewards(self) -> Array:
        """float32[..., 2]: +1 for the winner and -1 for the loser; zeros otherwise.

        Works on batched states too (any leading axes).
        """
        return rewards_of(self.winner)


def initial_state(layout: bb.Layout) -> GridState:
    return GridState(
        board=jnp.zeros((2, layout.num_words), jnp.uint32),
        current_player=jnp.int32(0),
        num_moves=jnp.int32(0),
        terminal=jnp.bool_(False),
        winner=jnp.int8(-1),
    )


def occupied(state: GridState) -> bb.Words:
    return [a | b for a, b in zip(bb.unpack(state.board[0]), bb.unpack(state.board[1]))]


def _mover_first(state: GridState) -> tuple[Array, Array]:
    mover_is_first = state.current_player == 0
    own = jnp.where(mover_is_first, state.board[0], state.board[1])
    other = jnp.where(mover_is_first, state.board[1], state.board[0])
    return own, other


def place(layout: bb.Layout, state: GridState, stone: bb.Words, legal: Array) -> GridState:
    """Puts the mover's ``stone`` (a one-bit board) down and settles the outcome.

    An illegal move leaves the board as it is and ends the game as a loss for the mover.
    A terminal ``state`` is returned unchanged.
    """
    mover = state.current_player
    own_row, _ = _mover_first(state)
    own = [a | b for a, b in zip(bb.unpack(own_row), stone)]
    won = legal & bb.has_line(layout, own)
    num_moves = state.num_moves + 1
    new_own = jnp.where(legal, bb.pack(own), own_row)
    board = jnp.where(
        mover == 0,
        jnp.stack([new_own, state.board[1]]),
        jnp.stack([state.board[0], new_own]),
    )
    moved = GridState(
        board=board,
        current_player=1 - mover,
        num_moves=num_moves,
        terminal=won | ~legal | (num_moves >= layout.rows * layout.cols),
        winner=jnp.where(won, mover, jnp.where(legal, -1, 1 - mover)).astype(jnp.int8),
    )
    return jax.tree.map(lambda old, new: jnp.where(state.terminal, old, new), state, moved)


def observe(layout: bb.Layout, state: GridState) -> Array:
    """float32[rows, cols, 2]: the mover's stones, then the opponent's; row 0 = top."""
    own, other = _mover_first(state)
    return bb.stacked_planes(layout, [own, other])


def lines(layout: bb.Layout) -> list[list[tuple[int, int]]]:
    """Every line of ``connect`` cells on the board, as ``(row, col)`` lists (row 0 = bottom)."""
    found = []
    steps = ((1, 0), (0, 1), (1, 1), (-1, 1))
    for row in range(layout.rows):
        for col in range(layout.cols):
            for dr, dc in steps:
                cells = [(row + i * dr, col + i * dc) for i in range(layout.connect)]
                if all(0 <= r < layout.rows and 0 <= c < layout.cols for r, c in cells):
                    found.append(cells)
    return found


def make_heuristic(layout: bb.Layout) -> Callable[[GridState], Array]:
    """Open lines one and two stones short of ``connect``, plus a centre preference."""
    all_lines = lines(layout)
    line_masks = np.stack([layout.mask(cells) for cells in all_lines])  # uint32[L, W]
    cell_weight = np.zeros((layout.rows, layout.cols), np.float32)
    for cells in all_lines:
        for row, col in cells:
            cell_weight[layout.rows - 1 - row, col] += _CELL_WEIGHT
    k = layout.connect

    def line_score(count: Array) -> Array:
        return jnp.where(
            count == k - 1,
            _LINE_WEIGHT_ONE_SHORT,
            jnp.where((count == k - 2) & (count > 0), _LINE_WEIGHT_TWO_SHORT, 0.0),
        )

    def heuristic(state: GridState) -> Array:
        own, other = _mover_first(state)
        own_count = jax.lax.population_count(own[None, :] & line_masks).sum(-1)
        other_count = jax.lax.population_count(other[None, :] & line_masks).sum(-1)
        threats = jnp.where(other_count == 0, line_score(own_count), 0.0) - jnp.where(
            own_count == 0, line_score(other_count), 0.0
        )
        centre = jnp.sum(
            (bb.cell_planes(layout, own) - bb.cell_planes(layout, other)) * cell_weight
        )
        value = HEURISTIC_BOUND * jnp.tanh((threats.sum() + centre) / _HEURISTIC_SCALE)
        exact = state.rewards[state.current_player]
        return jnp.where(state.terminal, exact, value).astype(jnp.float32)

    return heuristic


def grid(layout: bb.Layout, state: GridState) -> list[list[int]]:
    """``[rows][cols]`` cells, top row first: 0 empty, 1 first player's, 2 second's."""
    board = np.asarray(state.board)
    cells = []
    for row in reversed(range(layout.rows)):
        line = []
        for col in range(layout.cols):
            word, offset = divmod(layout.bit(row, col), 32)
            owners = [p + 1 for p in (0, 1) if (int(board[p, word]) >> offset) & 1]
            line.append(owners[0] if owners else 0)
        cells.append(line)
    return cells


def score(game) -> Callable[[GridState], Array]:
    """A k-in-a-row game's final score, from the first player's view: the outcome times the
    share of the board left empty at the end, plus one, ``outcome * (empty + 1) / (cells +
    1)``: the sooner a win, the larger, as a solver scores a position (Connect Four's
    perfect-play sets) and as the plies to the end tell."""
    height, width = game.observation_shape[:2]
    cells = height * width

    def final_score(state: GridState) -> Array:
        empty = cells - state.num_moves.astype(jnp.float32)
        return state.rewards[0] * (empty + 1) / (cells + 1)

    return final_score
