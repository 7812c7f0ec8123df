"""Othello's rules, as pure functions over ``OthelloState`` and static ``Settings``.

Rules: four discs in the centre (on 8x8 White on d4 and e5, Black on e4 and d5), Black
moves first. A placement must bracket at least one straight line of opponent discs
between the new disc and another of the mover's, in any of the 8 directions, and flips
every line it brackets. A player with no placement must **pass**, and a pass is an action
(``size * size``) that is legal only then, so turns always alternate. The game ends as soon
as neither player can place (a full board included): there is never a pass into a finished
game. Most discs wins; equal counts draw.

Actions are cells in reading order from the top-left, ``row * size + col``, then the pass.
The notation is in ``othello_text.py``.

A position is two bitboards, one per colour, with bit ``row * size + col`` in
``ceil(size^2 / 32)`` uint32 words (no x64), plus the mover's legal placements. Legal
moves and flips are shift-and-mask fills along the 8 directions over all cells at once:
a shift by ``+-1`` (east, west), ``+-size`` (south, north) or the diagonal sums, masked so
that no line wraps from one edge to the other.
"""

from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.games import _bitboard as bb
from alphazero_jax.games import _board
from alphazero_jax.games._board import HEURISTIC_BOUND
from alphazero_jax.types import Array, Symmetry

# Heuristic weights (each feature a normalised difference in [-1, 1] from the mover's
# view). Corners can never be lost and stable discs never flip, so they dominate;
# mobility (placements now) and potential mobility (empty cells next to the opponent's
# discs, i.e. placements to come) steer the middle game; the disc count itself matters
# least until the end, where the heuristic is the exact outcome.
WEIGHTS = {"corners": 30.0, "stability": 25.0, "mobility": 5.0, "potential": 5.0, "parity": 1.0}
# The 8 directions as (row, col) steps, ordered so that direction i + 4 is the opposite of
# i: east, south, south-east, south-west, then west, north, north-west, north-east.
_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))


class Settings(NamedTuple):
    """A game's static settings (``othello.make`` checks them): plain ints, hashable."""

    size: int  # the board's side, even
    legal_plane: int  # 1: a third observation plane of the mover's legal placements

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1  # the cells, then the pass

    @property
    def max_num_moves(self) -> int:
        """Every pass is followed by a placement, and a game ends after a placement."""
        return 2 * (self.size * self.size - 4) - 1

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return self.size, self.size, 2 + self.legal_plane


@struct.dataclass
class OthelloState:
    """An Othello position: 24 bytes on 8x8 besides the scalars (three 2-word bitboards)."""

    board: Array  # uint32[2, W]: discs of Black (player 0) and of White (player 1).
    legal: Array  # uint32[W]: the mover's legal placements (empty: pass, or game over).
    current_player: Array  # int32[]: 0 = Black.
    num_moves: Array  # int32[]: placements and passes so far.
    terminal: Array  # bool[]
    winner: Array  # int8[]: the winning player, or -1 (game on, or a draw).

    @property
    def rewards(self) -> Array:
        """float32[..., 2]: +1 for the winner and -1 for the loser; zeros otherwise."""
        return _board.rewards_of(self.winner)


# --- Bitboard geometry -------------------------------------------------------------------


class Geometry(NamedTuple):
    """Static masks of a ``size`` x ``size`` row-major bitboard (``geometry(size)``)."""

    size: int
    num_cells: int
    num_words: int  # W
    amount: np.ndarray  # uint32[8, 1]: each direction's shift
    upward: np.ndarray  # bool[8, 1]: whether it shifts towards higher bits
    landing: np.ndarray  # uint32[8, W]: the cells a step in direction i may land on
    edge: np.ndarray  # uint32[8, W]: the cells whose neighbour in direction i is off the board
    corners: np.ndarray  # uint32[W]
    all_cells: np.ndarray  # uint32[W]


def mask(size: int, cells) -> np.ndarray:
    """uint32[W] with the bits of the given ``(row, col)`` cells set."""
    value = 0
    for row, col in cells:
        value |= 1 << (row * size + col)
    return bb.split_words(value, -(-size * size // 32))


@functools.cache
def geometry(size: int) -> Geometry:
    """The masks of a ``size`` x ``size`` board, built once per size."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    offsets = np.array([dr * size + dc for dr, dc in _STEPS])

    def on_board(r, c):
        return 0 <= r < size and 0 <= c < size

    last = size - 1
    return Geometry(
        size=size,
        num_cells=size * size,
        num_words=-(-size * size // 32),
        amount=np.abs(offsets).astype(np.uint32)[:, None],
        upward=(offsets > 0)[:, None],
        landing=np.stack(
            [
                mask(size, [(r, c) for r, c in cells if on_board(r - dr, c - dc)])
                for dr, dc in _STEPS
            ]
        ),
        edge=np.stack(
            [
                mask(size, [(r, c) for r, c in cells if not on_board(r + dr, c + dc)])
                for dr, dc in _STEPS
            ]
        ),
        corners=mask(size, [(0, 0), (0, last), (last, 0), (last, last)]),
        all_cells=mask(size, cells),
    )


def _shift(geo: Geometry, boards: Array) -> Array:
    """uint32[..., 8, W]: board ``i`` moved one step in direction ``i``, every bit that
    would wrap around an edge or leave the board dropped."""
    zero = jnp.zeros_like(boards[..., :1])
    below = jnp.concatenate([zero, boards[..., :-1]], axis=-1)  # word w - 1 at w
    above = jnp.concatenate([boards[..., 1:], zero], axis=-1)  # word w + 1 at w
    carry = np.uint32(32) - geo.amount
    up = (boards << geo.amount) | (below >> carry)
    down = (boards >> geo.amount) | (above << carry)
    return jnp.where(geo.upward, up, down) & geo.landing


def _runs(geo: Geometry, start: Array, through: Array) -> Array:
    """uint32[..., 8, W]: from ``start`` (each direction's seeds), the cells of
    ``through`` reached one step at a time along each direction, seeds excluded.

    Each round's result is materialised (an optimisation barrier): left to itself, XLA
    fuses the rounds into one expression and recomputes each earlier round for every
    later use (docs/benchmarks.md).
    """
    run = _shift(geo, start) & through
    for _ in range(geo.size - 3):  # a run is at most size - 2 discs long
        run = jax.lax.optimization_barrier(run | (_shift(geo, run) & through))
    return run


def _spread(board: Array) -> Array:
    """uint32[..., W] -> uint32[..., 8, W]: the same board for each direction."""
    return jnp.broadcast_to(board[..., None, :], (*board.shape[:-1], 8, board.shape[-1]))


def _union(boards: Array) -> Array:
    """uint32[..., 8, W] -> uint32[..., W]: the union over the directions."""
    return jnp.bitwise_or.reduce(boards, axis=-2)


def _nonzero(board: Array) -> Array:
    """bool[...]: whether ``board`` (uint32[..., W]) has any bit set."""
    return functools.reduce(operator.or_, [board[..., i] for i in range(board.shape[-1])]) != 0


def _count(board: Array) -> Array:
    """int32[...]: the bits set in ``board`` (uint32[..., W])."""
    counts = jax.lax.population_count(board).astype(jnp.int32)
    return functools.reduce(operator.add, [counts[..., i] for i in range(board.shape[-1])])


def _cells(geo: Geometry, board: Array) -> Array:
    """bool[..., size * size]: the bits of ``board`` (uint32[..., W]) in cell order."""
    bits = (board[..., None] >> np.arange(32, dtype=np.uint32)) & 1  # [..., W, 32]
    return bits.reshape(*board.shape[:-1], -1)[..., : geo.num_cells].astype(jnp.bool_)


# --- Moves -------------------------------------------------------------------------------


def placements(geo: Geometry, own: Array, other: Array) -> Array:
    """uint32[W]: cells where the owner of ``own`` may place. In each direction, the runs
    of ``other`` that start next to an own disc; an empty cell just past one is a
    placement."""
    empty = ~(own | other) & geo.all_cells
    run = _runs(geo, _spread(own), _spread(other))
    return _union(_shift(geo, run) & empty)


def _flips(geo: Geometry, disc: Array, own: Array, other: Array) -> Array:
    """uint32[W]: the discs of ``other`` flipped when ``own``'s player places ``disc``."""
    run = _runs(geo, _spread(disc), _spread(other))
    bracketed = _nonzero(_shift(geo, run) & own[..., None, :])[..., None]
    return _union(jnp.where(bracketed, run, np.uint32(0)))


def _mover_first(state: OthelloState) -> tuple[Array, Array]:
    mover_is_first = state.current_player == 0
    own = jnp.where(mover_is_first, state.board[0], state.board[1])
    other = jnp.where(mover_is_first, state.board[1], state.board[0])
    return own, other


def start(size: int) -> np.ndarray:
    """uint32[2, W]: the four centre discs (Black on the anti-diagonal pair)."""
    low, high = size // 2 - 1, size // 2
    return np.stack(
        [mask(size, [(low, high), (high, low)]), mask(size, [(low, low), (high, high)])]
    )


@functools.cache
def _first_moves(size: int) -> np.ndarray:
    """uint32[W]: Black's placements at the start, worked out once per size."""
    discs = start(size)
    with jax.ensure_compile_time_eval():  # eager, even when ``init`` is being traced
        moves = placements(geometry(size), jnp.asarray(discs[0]), jnp.asarray(discs[1]))
    return np.asarray(moves)


def init(settings: Settings, key: Array) -> OthelloState:
    """The starting position (always the same four discs: ``key`` is unused)."""
    del key
    return OthelloState(
        board=jnp.asarray(start(settings.size)),
        legal=jnp.asarray(_first_moves(settings.size)),
        current_player=jnp.int32(0),
        num_moves=jnp.int32(0),
        terminal=jnp.bool_(False),
        winner=jnp.int8(-1),
    )


def step(settings: Settings, state: OthelloState, action: Array) -> OthelloState:
    """The position after ``action`` (a terminal state is returned unchanged; an illegal
    action ends the game as a loss for the mover)."""
    geo = geometry(settings.size)
    action = jnp.asarray(action, jnp.int32)
    own, other = _mover_first(state)
    on_board = (action >= 0) & (action < geo.num_cells)  # the pass places nothing
    disc = bb.pack(bb.single_bit(jnp.where(on_board, action, -1), geo.num_words))
    placing = _nonzero(disc & state.legal)
    passing = (action == geo.num_cells) & ~_nonzero(state.legal)
    flipped = jnp.where(placing, _flips(geo, disc, own, other), np.uint32(0))
    own = jnp.where(placing, own | disc | flipped, own)
    other = other & ~flipped
    # The opponent moves next; the game ends as soon as neither side can place.
    next_moves = placements(geo, other, own)
    over = ~_nonzero(next_moves) & ~_nonzero(placements(geo, own, other))
    mover = state.current_player
    lead = _count(own) - _count(other)
    on_points = jnp.where(lead > 0, mover, jnp.where(lead < 0, 1 - mover, -1))
    legal_move = placing | passing
    moved = OthelloState(
        board=jnp.where(mover == 0, jnp.stack([own, other]), jnp.stack([other, own])),
        legal=jnp.where(legal_move & ~over, next_moves, np.uint32(0)),
        current_player=1 - mover,
        num_moves=state.num_moves + 1,
        terminal=over | ~legal_move,
        winner=jnp.where(legal_move, jnp.where(over, on_points, -1), 1 - mover).astype(jnp.int8),
    )
    return jax.tree.map(lambda old, new: jnp.where(state.terminal, old, new), state, moved)


def legal_action_mask(settings: Settings, state: OthelloState) -> Array:
    """bool[A]: the mover's placements, then the pass (legal only without one)."""
    cells = _cells(geometry(settings.size), state.legal)
    can_pass = ~jnp.any(cells) & ~state.terminal
    return jnp.concatenate([cells, can_pass[None]])


def observe(settings: Settings, state: OthelloState) -> Array:
    """float32[size, size, C]: the mover's discs, the opponent's and (with
    ``legal_plane``) the mover's placements."""
    size = settings.size
    own, other = _mover_first(state)
    planes = [own, other, state.legal][: 2 + settings.legal_plane]
    cells = jnp.stack([_cells(geometry(size), plane) for plane in planes], axis=-1)
    return cells.reshape(size, size, len(planes)).astype(jnp.float32)


# --- The heuristic -----------------------------------------------------------------------


def _stable(geo: Geometry, own: Array, occupied: Array) -> Array:
    """uint32[W]: discs of ``own`` that can never flip (a sound lower bound).

    A disc can only flip along a line through it. Along each of the 4 axes it is safe when
    the line is full, when it touches the edge, or when a neighbour on the axis is a stable
    disc of its colour (a line closed by a disc that never flips cannot be bracketed).
    Safe along all 4 axes is stable; the set grows from the edges to its fixed point.
    """
    # full[i]: occupied cells with every cell up to the edge in direction i occupied too.
    full = _spread(occupied) & geo.edge
    for _ in range(geo.size - 1):
        backwards = jnp.roll(_shift(geo, jnp.roll(full, 4, axis=-2)), 4, axis=-2)
        full = jax.lax.optimization_barrier(full | (backwards & occupied[..., None, :]))
    always = geo.edge[:4] | geo.edge[4:] | (full[..., :4, :] & full[..., 4:, :])  # [4, W]

    def grow(carry):
        stable, _ = carry
        near = _shift(geo, _spread(stable))
        safe = always | near[..., :4, :] | near[..., 4:, :]
        grown = own & jnp.bitwise_and.reduce(safe, axis=-2)
        return grown, jnp.any(grown != stable)

    begin = own & jnp.bitwise_and.reduce(always, axis=-2)
    stable, _ = jax.lax.while_loop(lambda carry: carry[1], grow, (begin, jnp.bool_(True)))
    return stable


def _normalised(own: Array, other: Array) -> Array:
    total = own + other
    return jnp.where(total > 0, (own - other) / jnp.maximum(total, 1), 0.0)


def _frontier(geo: Geometry, discs: Array, empty: Array) -> Array:
    """Empty cells next to ``discs``: where placements against them may come."""
    return _count(_union(_shift(geo, _spread(discs))) & empty)


def heuristic(settings: Settings, state: OthelloState) -> Array:
    """float32[]: corners, stable discs, mobility, potential mobility and discs, from the
    mover's view (``WEIGHTS``), inside the exact values (which it takes at the end)."""
    geo = geometry(settings.size)
    own, other = _mover_first(state)
    occupied = own | other
    empty = ~occupied & geo.all_cells
    features = {
        "corners": _normalised(_count(own & geo.corners), _count(other & geo.corners)),
        "stability": _normalised(
            _count(_stable(geo, own, occupied)), _count(_stable(geo, other, occupied))
        ),
        "mobility": _normalised(_count(state.legal), _count(placements(geo, other, own))),
        # The mover's potential placements are the empty cells next to the opponent.
        "potential": _normalised(_frontier(geo, other, empty), _frontier(geo, own, empty)),
        "parity": _normalised(_count(own), _count(other)),
    }
    value = sum(WEIGHTS[name] * feature for name, feature in features.items())
    value = HEURISTIC_BOUND * value / sum(WEIGHTS.values())
    exact = state.rewards[state.current_player]
    return jnp.where(state.terminal, exact, value).astype(jnp.float32)


def symmetries(size: int) -> tuple[Symmetry, ...]:
    """The 8 symmetries of the square; the pass maps to itself."""
    names = _board.symmetry_names(square=True, vertical=True)
    cells = _board.symmetries(np.arange(size * size).reshape(size, size), names)
    pass_action = np.array([size * size], np.int32)
    return tuple(
        Symmetry(
            s.name, s.transform_observation, np.concatenate([s.action_permutation, pass_action])
        )
        for s in cells
    )


# --- Positions on the host ---------------------------------------------------------------


def count_discs(state: OthelloState) -> Array:
    """int32[..., 2]: the discs of Black and of White (any leading batch axes)."""
    return jax.lax.population_count(state.board).astype(jnp.int32).sum(-1)


def grid(size: int, state: OthelloState) -> list[list[int]]:
    """``[size][size]`` cells, top row first: 0 empty, 1 Black, 2 White."""
    board = np.asarray(state.board)
    cells = []
    for row in range(size):
        line = []
        for col in range(size):
            word, offset = divmod(row * size + col, 32)
            owners = [p + 1 for p in (0, 1) if (int(board[p, word]) >> offset) & 1]
            line.append(owners[0] if owners else 0)
        cells.append(line)
    return cells


def from_grid(size: int, cells, player: int) -> OthelloState:
    """The position of ``cells[row][col]`` (0 empty, 1 Black, 2 White; the inverse of
    ``grid``) with ``player`` to move, settled as ``step`` would leave it: if the mover
    cannot place it must pass, and if neither side can place the game is over.
    ``num_moves`` is set to the discs beyond the starting four.
    """
    geo = geometry(size)
    discs = [
        [(r, c) for r in range(size) for c in range(size) if cells[r][c] == p + 1] for p in (0, 1)
    ]
    board = np.stack([mask(size, discs[0]), mask(size, discs[1])])
    own, other = jnp.asarray(board[player]), jnp.asarray(board[1 - player])
    moves = placements(geo, own, other)
    over = not np.asarray(moves).any() and not np.asarray(placements(geo, other, own)).any()
    counts = [len(discs[0]), len(discs[1])]
    winner = -1 if not over or counts[0] == counts[1] else int(counts[1] > counts[0])
    return OthelloState(
        board=jnp.asarray(board),
        legal=jnp.where(over, jnp.uint32(0), moves),
        current_player=jnp.int32(player),
        num_moves=jnp.int32(max(sum(counts) - 4, 0)),
        terminal=jnp.bool_(over),
        winner=jnp.int8(winner),
    )
