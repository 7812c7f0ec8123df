"""Quoridor's rules, as pure functions over ``QuoridorState`` and static ``Settings``.

Rules: each pawn starts in the middle of its own edge -- the first player's on the bottom
row, the second's on the top row -- and wins on reaching any square of the far edge. A
move either steps the pawn or places a wall. A step goes to an orthogonally adjacent
square that no wall separates from it. When that square holds the other pawn, the pawn
jumps straight over it; if a wall or the board's edge blocks that jump, it steps instead
diagonally to either side of the other pawn (where no wall blocks the way from it). A wall
is two squares long and lies in one of the ``(size - 1)^2`` grooves, horizontal or
vertical; it may not overlap another wall, cross one at its middle, or cut either pawn
off every square of its goal edge. Each player has ``walls`` walls. A game that reaches
the move cap, ``4 * size^2`` plies (OpenSpiel's), is a draw unless its last move won.

There is no pass: a pawn always has a move. Were a pawn without one, its only open
neighbour would be the other pawn's square, whose only open neighbour would be its own
(else a jump or a diagonal step would be legal), so the two squares would form a region
of their own that holds both goal edges -- impossible on a board of more than two rows,
since no wall may cut a pawn off its goal.

Coordinates: ``(row, col)`` with row 0 at the top; the notation is in
``quoridor_text.py``, the paths and the path check of a wall in ``quoridor_geometry.py``.

Actions are in the **mover's frame**: the board as the mover sees it, heading up (the
second player's view turns the rows over). Actions 0..11 move the pawn: steps north, east,
south, west, straight jumps in the same order, then the diagonals NE, SE, SW, NW. Then the
horizontal walls by groove, ``12 + r * (size - 1) + c``, then the vertical walls.
Mirroring left to right maps this action space onto itself.

The mover's legal actions are computed once, by the move that makes the position, and
kept in the state.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.games import _board
from alphazero_jax.games import quoridor_geometry as geometry
from alphazero_jax.games._board import HEURISTIC_BOUND
from alphazero_jax.types import Array, Symmetry

NUM_PAWN_ACTIONS = 12
# (row, col) offsets of the pawn actions in the mover's frame (north is row - 1).
PAWN_OFFSETS = np.array(
    [
        (-1, 0), (0, 1), (1, 0), (0, -1),  # steps N, E, S, W
        (-2, 0), (0, 2), (2, 0), (0, -2),  # straight jumps
        (-1, 1), (1, 1), (1, -1), (-1, -1),  # diagonals NE, SE, SW, NW
    ],
    np.int32,
)  # fmt: skip
_MIRROR_PAWN = np.array([0, 3, 2, 1, 4, 7, 6, 5, 11, 10, 9, 8], np.int32)
# The diagonal action for (the direction towards the other pawn, the side stepped to).
_DIAGONAL = {
    (0, 1): 8,
    (0, 3): 11,
    (2, 1): 9,
    (2, 3): 10,
    (1, 0): 8,
    (1, 2): 9,
    (3, 0): 11,
    (3, 2): 10,
}
# Heuristic weights: the shortest-path race (the opponent's distance
# to its goal minus the mover's, in squares) and the walls in hand (the mover's minus the
# opponent's). The sum is squashed into +-0.99, so the heuristic stays strictly inside the
# exact win and loss values it takes at the end.
WEIGHTS = {"distance": 1.0, "walls": 0.5}
FAR = geometry.FAR  # the distance of an unreachable goal


class Settings(NamedTuple):
    """A game's static settings (``quoridor.make`` checks them): plain ints, hashable."""

    size: int  # the board's side, odd
    walls: int  # walls each player starts with
    distance_planes: int  # 1: two observation planes of shortest-path distances

    @property
    def num_actions(self) -> int:
        return NUM_PAWN_ACTIONS + 2 * (self.size - 1) ** 2

    @property
    def max_num_moves(self) -> int:
        """The move cap, OpenSpiel's."""
        return 4 * self.size * self.size

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return self.size, self.size, 6 + 2 * self.distance_planes


@struct.dataclass
class QuoridorState:
    """A Quoridor position in absolute coordinates (the first player's frame)."""

    pawns: Array  # int32[2, 2]: (row, col) of the first and of the second player's pawn.
    walls_h: Array  # int32[size - 1]: bit c of row r set = a horizontal wall in groove (r, c).
    walls_v: Array  # int32[size - 1]: the same for vertical walls.
    walls_left: Array  # int32[2]: walls in hand, per player.
    legal: Array  # bool[A]: the mover's legal actions (mover's frame); all False at the end.
    current_player: Array  # int32[]
    num_moves: Array  # int32[]
    terminal: Array  # bool[]
    winner: Array  # int8[]: the winning player, or -1 (game on, or a draw).

    @property
    def rewards(self) -> Array:
        """float32[..., 2]: +1 for the winner and -1 for the loser; zeros otherwise."""
        return _board.rewards_of(self.winner)


# --- The mover's frame -------------------------------------------------------------------


def mover_view(size: int, state: QuoridorState):
    """The position as the mover sees it: (own pawn, other pawn, walls_h, walls_v, own
    walls, other's walls), rows turned over when the second player moves."""
    second = state.current_player == 1
    pawns = jnp.where(second, state.pawns[::-1], state.pawns)
    pawns = jnp.where(second, pawns.at[:, 0].set(size - 1 - pawns[:, 0]), pawns)
    walls_h = jnp.where(second, state.walls_h[..., ::-1], state.walls_h)
    walls_v = jnp.where(second, state.walls_v[..., ::-1], state.walls_v)
    walls_left = jnp.where(second, state.walls_left[::-1], state.walls_left)
    return pawns[0], pawns[1], walls_h, walls_v, walls_left[0], walls_left[1]


def _turned(size: int, square: Array) -> Array:
    """int32[2]: ``square`` in the other player's frame (rows turned over)."""
    return jnp.stack([size - 1 - square[0], square[1]])


# --- Legal actions -----------------------------------------------------------------------


def _pawn_moves(size: int, own: Array, other: Array, east: Array, south: Array) -> Array:
    """bool[12]: the legal pawn actions (mover's frame)."""
    legal = [jnp.bool_(False)] * NUM_PAWN_ACTIONS
    for direction in range(4):
        offset = PAWN_OFFSETS[direction]
        can = geometry.can_go(size, east, south, own, direction)
        facing = can & jnp.all(own + offset == other)
        legal[direction] = can & ~facing
        over = geometry.can_go(size, east, south, other, direction)
        legal[4 + direction] = facing & over
        for side in ((direction + 1) % 4, (direction + 3) % 4):
            action = _DIAGONAL[(direction, side)]
            beside = facing & ~over & geometry.can_go(size, east, south, other, side)
            legal[action] = legal[action] | beside
    return jnp.stack(legal)


def wall_moves(size: int, own, other, walls_h, walls_v, walls_in_hand) -> Array:
    """bool[2 * grooves]: the grooves where a horizontal, then a vertical, wall may go
    (mover's frame)."""
    needed = walls_in_hand > 0
    reach = geometry.reach_goals(size, own, other, walls_h, walls_v, needed)
    return geometry.free_grooves(size, walls_h, walls_v) & jnp.all(reach, axis=-1) & needed


def _legal_actions(size: int, own, other, walls_h, walls_v, walls_in_hand) -> Array:
    """bool[A]: the mover's legal actions (mover's frame)."""
    east, south = geometry.open_edges(size, walls_h, walls_v)
    pawn = _pawn_moves(size, own, other, east, south)
    walls = wall_moves(size, own, other, walls_h, walls_v, walls_in_hand)
    return jnp.concatenate([pawn, walls])


def legal_actions(state: QuoridorState) -> Array:
    """bool[A]: the mover's legal actions computed afresh (``step`` keeps them in
    ``state.legal``; this is for positions set up by hand and for timing the path check)."""
    size = state.walls_h.shape[-1] + 1
    own, other, walls_h, walls_v, own_walls, _ = mover_view(size, state)
    return _legal_actions(size, own, other, walls_h, walls_v, own_walls)


def illegal_reasons(state: QuoridorState, action: int) -> tuple[str, ...]:
    """Why ``action`` is not legal in ``state`` (host-side): ``()`` when it is legal (or no
    action), else ``("game_over",)``, ``("pawn",)``, ``("no_walls",)``, ``("overlap",)``,
    or the pawns a wall would cut off their goal, ``"cuts_own"`` and/or ``"cuts_other"``."""
    if bool(state.terminal):
        return ("game_over",)
    if not 0 <= action < state.legal.shape[-1] or bool(state.legal[action]):
        return ()
    if action < NUM_PAWN_ACTIONS:
        return ("pawn",)
    size = state.walls_h.shape[-1] + 1
    own, other, walls_h, walls_v, own_walls, _ = mover_view(size, state)
    groove = action - NUM_PAWN_ACTIONS
    if int(own_walls) == 0:
        return ("no_walls",)
    if not bool(geometry.free_grooves(size, walls_h, walls_v)[groove]):
        return ("overlap",)
    mine, theirs = np.asarray(geometry.reach_goals(size, own, other, walls_h, walls_v))[groove]
    return tuple(
        reason for reason, reaches in (("cuts_own", mine), ("cuts_other", theirs)) if not reaches
    )


# --- The game's functions ----------------------------------------------------------------


def start_pawns(size: int) -> np.ndarray:
    """int32[2, 2]: the pawns' squares at the start, the first player's on the bottom row."""
    return np.array([[size - 1, size // 2], [0, size // 2]], np.int32)


@functools.cache
def _first_legal(size: int, walls: int) -> np.ndarray:
    """bool[A]: the first mover's legal actions, worked out once per setting."""
    with jax.ensure_compile_time_eval():  # eager, even when ``init`` is being traced
        pawns, no_walls = jnp.asarray(start_pawns(size)), jnp.zeros(size - 1, jnp.int32)
        legal = _legal_actions(size, *pawns, no_walls, no_walls, jnp.int32(walls))
    return np.asarray(legal)


def init(settings: Settings, key: Array) -> QuoridorState:
    """The starting position (always the same: ``key`` is unused)."""
    del key
    size = settings.size
    no_walls = np.zeros(size - 1, np.int32)
    return QuoridorState(
        pawns=jnp.asarray(start_pawns(size)),
        walls_h=jnp.asarray(no_walls),
        walls_v=jnp.asarray(no_walls),
        walls_left=jnp.asarray(np.array([settings.walls] * 2, np.int32)),
        legal=jnp.asarray(_first_legal(size, settings.walls)),
        current_player=jnp.int32(0),
        num_moves=jnp.int32(0),
        terminal=jnp.bool_(False),
        winner=jnp.int8(-1),
    )


def _place_wall(size: int, walls_h: Array, walls_v: Array, groove: Array, placing: Array):
    """``walls_h, walls_v`` with the wall of ``groove`` added where ``placing``."""
    grooves = (size - 1) ** 2
    row_bit = geometry.bit(groove % (size - 1)) * placing
    rows = jnp.arange(size - 1) == (groove % grooves) // (size - 1)
    horizontal = groove < grooves
    walls_h = walls_h | jnp.where(rows & horizontal, row_bit, 0)
    walls_v = walls_v | jnp.where(rows & ~horizontal, row_bit, 0)
    return walls_h, walls_v


def step(settings: Settings, state: QuoridorState, action: Array) -> QuoridorState:
    """The position after ``action`` (a terminal state is returned unchanged; an illegal
    action ends the game as a loss for the mover)."""
    size, num_actions = settings.size, settings.num_actions
    action = jnp.asarray(action, jnp.int32)
    own, other, walls_h, walls_v, own_walls, other_walls = mover_view(size, state)
    legal_move = state.legal[jnp.clip(action, 0, num_actions - 1)]
    legal_move = legal_move & (action >= 0) & (action < num_actions)
    moving = action < NUM_PAWN_ACTIONS  # a pawn move
    target = own + jnp.asarray(PAWN_OFFSETS)[jnp.clip(action, 0, NUM_PAWN_ACTIONS - 1)]
    own = jnp.where(moving & legal_move, target, own)
    groove = action - NUM_PAWN_ACTIONS  # a wall
    placing = (groove >= 0) & (groove < num_actions - NUM_PAWN_ACTIONS) & legal_move
    walls_h, walls_v = _place_wall(size, walls_h, walls_v, groove, placing)
    own_walls = own_walls - placing.astype(jnp.int32)
    # The other player moves next: its frame is this one turned over.
    won = moving & (own[0] == 0)
    capped = state.num_moves + 1 >= settings.max_num_moves
    mover = state.current_player
    next_legal = _legal_actions(
        size, _turned(size, other), _turned(size, own), walls_h[::-1], walls_v[::-1], other_walls
    )
    over = won | capped | ~legal_move
    second = mover == 1  # the mover's frame back to absolute coordinates
    pawns = jnp.stack([own, other])
    moved = QuoridorState(
        pawns=jnp.where(second, jnp.stack([_turned(size, other), _turned(size, own)]), pawns),
        walls_h=jnp.where(second, walls_h[::-1], walls_h),
        walls_v=jnp.where(second, walls_v[::-1], walls_v),
        walls_left=jnp.where(
            second, jnp.stack([other_walls, own_walls]), jnp.stack([own_walls, other_walls])
        ),
        legal=next_legal & ~over,
        current_player=1 - mover,
        num_moves=state.num_moves + 1,
        terminal=over,
        winner=jnp.where(legal_move, jnp.where(won, mover, -1), 1 - mover).astype(jnp.int8),
    )
    return jax.tree.map(lambda old, new: jnp.where(state.terminal, old, new), state, moved)


def legal_action_mask(state: QuoridorState) -> Array:
    """bool[A]: the mover's legal actions (kept in the state by ``step``)."""
    return state.legal


def observe(settings: Settings, state: QuoridorState) -> Array:
    """float32[size, size, C]: the pawns, the walls by groove, the walls in hand and (with
    ``distance_planes``) each square's distance to either goal, in the mover's frame."""
    size = settings.size
    own, other, walls_h, walls_v, own_walls, other_walls = mover_view(size, state)
    cells = np.arange(size)

    def square(pawn):
        return (cells[:, None] == pawn[0]) & (cells[None, :] == pawn[1])

    def grooves(rows):  # the groove (r, c) at square (r, c); the last row and column empty
        bits = geometry.has_bit(rows[:, None], cells[None, :-1])
        return jnp.pad(bits, ((0, 1), (0, 1)))

    share = max(settings.walls, 1)
    planes = [
        square(own),
        square(other),
        grooves(walls_h),
        grooves(walls_v),
        jnp.full((size, size), own_walls / share),
        jnp.full((size, size), other_walls / share),
    ]
    if settings.distance_planes:
        east, south = geometry.open_edges(size, walls_h, walls_v)
        goals = jnp.asarray(geometry.tables(size).goals)
        field = geometry.distance_field(size, goals, east, south)
        planes += [jnp.minimum(field[0], size * size) / (size * size)]
        planes += [jnp.minimum(field[1], size * size) / (size * size)]
    return jnp.stack([p.astype(jnp.float32) for p in planes], axis=-1)


def heuristic(settings: Settings, state: QuoridorState) -> Array:
    """float32[]: the shortest-path race and the walls in hand, from the mover's view,
    squashed inside the exact values (which it takes at the end)."""
    size = settings.size
    own, other, walls_h, walls_v, own_walls, other_walls = mover_view(size, state)
    east, south = geometry.open_edges(size, walls_h, walls_v)
    pawns = jnp.stack([geometry.pawn_rows(size, own), geometry.pawn_rows(size, other)])
    steps = geometry.race(pawns, jnp.asarray(geometry.tables(size).goals), east, south)
    score = WEIGHTS["distance"] * (steps[1] - steps[0]) + WEIGHTS["walls"] * (
        own_walls - other_walls
    )
    value = HEURISTIC_BOUND * jnp.tanh(score / size)
    exact = state.rewards[state.current_player]
    return jnp.where(state.terminal, exact, value).astype(jnp.float32)


def symmetries(size: int) -> tuple[Symmetry, ...]:
    """The identity and the left-right mirror (the only symmetry that keeps both goals)."""
    num_grooves = (size - 1) ** 2
    grooves = np.arange(num_grooves).reshape(size - 1, size - 1)[:, ::-1].reshape(-1)
    permutation = np.concatenate(
        [_MIRROR_PAWN, NUM_PAWN_ACTIONS + grooves, NUM_PAWN_ACTIONS + num_grooves + grooves]
    ).astype(np.int32)

    def mirror(observation: Array) -> Array:
        flipped = observation[..., ::-1, :]
        # A groove (r, c) is drawn at square (r, c): it mirrors to column size - 2 - c.
        shifted = jnp.roll(flipped, -1, axis=-2)
        is_groove = np.zeros(observation.shape[-1], bool)
        is_groove[2:4] = True
        return jnp.where(is_groove, shifted, flipped)

    identity = np.arange(NUM_PAWN_ACTIONS + 2 * num_grooves, dtype=np.int32)
    return Symmetry("identity", lambda obs: obs, identity), Symmetry("mirror", mirror, permutation)


# --- Shortest paths, for players ---------------------------------------------------------


def pawn_distances(state: QuoridorState) -> Array:
    """int32[12]: the mover's fewest steps to its goal edge from the square each pawn action
    lands on (mover's frame, pawns ignored; ``FAR`` when walled off). An action that would
    leave the board reads the nearest square on it; mask with ``state.legal``."""
    size = state.walls_h.shape[-1] + 1
    own, _, walls_h, walls_v, _, _ = mover_view(size, state)
    east, south = geometry.open_edges(size, walls_h, walls_v)
    field = geometry.distance_field(size, jnp.asarray(geometry.tables(size).goals[0]), east, south)
    targets = jnp.clip(own + jnp.asarray(PAWN_OFFSETS), 0, size - 1)
    return field[targets[:, 0], targets[:, 1]]


def opponent_distances(state: QuoridorState) -> tuple[Array, Array]:
    """The opponent's fewest steps to its goal edge, pawns ignored (``FAR`` when walled off):
    now (int32[]) and with each candidate wall added (int32[2 * grooves], horizontal walls
    then vertical, by groove in the mover's frame; mask with ``state.legal``)."""
    size = state.walls_h.shape[-1] + 1
    board = geometry.tables(size)
    _, other, walls_h, walls_v, _, _ = mover_view(size, state)
    east, south = geometry.open_edges(size, walls_h, walls_v)
    add_east, add_south = geometry.open_edges(size, walls_h | board.add_h, walls_v | board.add_v)
    pawn, goal = geometry.pawn_rows(size, other), jnp.asarray(board.goals[1])
    return geometry.race(pawn, goal, east, south), geometry.race(pawn, goal, add_east, add_south)
