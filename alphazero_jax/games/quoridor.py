"""Quoridor for two players on an odd ``size`` x ``size`` board, 5..9 (9 is the standard game).

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
``quoridor_text.py``.

Actions are in the **mover's frame**: the board as the mover sees it, heading up (the
second player's view turns the rows over). Actions 0..11 move the pawn: steps north, east,
south, west, straight jumps in the same order, then the diagonals NE, SE, SW, NW. Then the
horizontal walls by groove, ``12 + r * (size - 1) + c``, then the vertical walls.
Mirroring left to right maps this action space onto itself.

A position keeps walls as rows of bits (bit ``c`` of row ``r`` is groove ``(r, c)``), so
the path check is a breadth-first flood fill over bit rows: a round spreads the reached
set one square in the four directions through the open edges with a few shifts and masks.
Most walls need no fill (``_reach_goals``): a wall can cut a pawn off only if it touches
the edge or other walls at two of its three points and blocks an edge of one of the
pawn's shortest paths, which two distance fields per pawn find. The few walls left are
filled from both ends, starting from the squares the wall cannot have cut off. The
mover's legal actions are computed once, by the move that makes the position, and kept
in the state.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.games import _board
from alphazero_jax.games import quoridor_text as text
from alphazero_jax.games._board import HEURISTIC_BOUND
from alphazero_jax.games._validate import check_int
from alphazero_jax.types import Array, Game, Symmetry

NAME = "quoridor"
LIMITS = {"size": (5, 9, 2), "walls": (0, 20), "distance_planes": (0, 1)}
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
FAR = 1 << 16  # the distance of an unreachable goal
_FILLS = 16  # the path check's flood fills per round (see _reach_goals)


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


# --- Bit-row geometry --------------------------------------------------------------------


def _bit(index: Array) -> Array:
    return jnp.left_shift(jnp.int32(1), index)


def _test(row: Array, col: Array) -> Array:
    """bool: bit ``col`` of the int32 ``row``."""
    return (jnp.right_shift(row, col) & 1) == 1


def _open_edges(size: int, walls_h: Array, walls_v: Array) -> tuple[Array, Array]:
    """The edges no wall blocks, as bit rows (any leading axes).

    Returns:
      east: int32[..., size]: bit c of row r set = (r, c) and (r, c + 1) are connected.
      south: int32[..., size - 1]: bit c of row r set = (r, c) and (r + 1, c) connected.
    """
    zero = jnp.zeros_like(walls_v[..., :1])
    # A vertical wall in groove (r, c) separates columns c and c + 1 in rows r and r + 1.
    blocked_east = jnp.concatenate([walls_v, zero], -1) | jnp.concatenate([zero, walls_v], -1)
    east = ~blocked_east & ((1 << (size - 1)) - 1)
    # A horizontal wall in groove (r, c) separates rows r and r + 1 in columns c and c + 1.
    south = ~(walls_h | (walls_h << 1)) & ((1 << size) - 1)
    return east, south


def _spread(reach: Array, east: Array, south: Array) -> Array:
    """One flood-fill round: ``reach`` (int32[..., size] bit rows) plus every square one
    open edge away from it."""
    zero = jnp.zeros_like(reach[..., :1])
    down = jnp.concatenate([zero, reach[..., :-1] & south], -1)
    up = jnp.concatenate([reach[..., 1:] & south, zero], -1)
    return reach | ((reach & east) << 1) | ((reach >> 1) & east) | down | up


def _any_bit(rows: Array) -> Array:
    return jnp.any(rows != 0, axis=-1)


def _race(start: Array, goal: Array, east: Array, south: Array) -> Array:
    """int32[...]: the fewest steps from the squares of ``start`` to any square of ``goal``
    (bit rows, broadcast together with the edges), ignoring pawns; ``FAR`` when no path.

    A breadth-first flood fill; every fill stops when it reaches its goal or stops growing,
    and the loop when all have stopped.
    """
    shape = jnp.broadcast_shapes(start.shape, goal.shape, east.shape[:-1] + start.shape[-1:])
    start = jnp.broadcast_to(start, shape)

    def grow(carry):
        reach, steps, live = carry
        wider = _spread(reach, east, south)
        hit, grew = _any_bit(wider & goal), _any_bit(wider != reach)
        steps = steps + live.astype(jnp.int32)
        steps = jnp.where(live & ~hit & ~grew, FAR, steps)
        return wider, steps, live & ~hit & grew

    steps = jnp.zeros(shape[:-1], jnp.int32)
    live = ~_any_bit(start & goal)
    _, steps, _ = jax.lax.while_loop(lambda c: jnp.any(c[2]), grow, (start, steps, live))
    return steps


def _distance_field(
    size: int, goal: Array, east: Array, south: Array, needed: Array | bool = True
) -> Array:
    """int32[..., size, size]: every square's fewest steps to the ``goal`` squares (only
    the goal squares' zeros where ``needed`` is false: the loop does not run)."""
    columns = np.arange(size, dtype=np.int32)

    def squares(rows: Array) -> Array:
        return (jnp.right_shift(rows[..., None], columns) & 1) == 1

    def grow(carry):
        reach, field, rounds, _ = carry
        wider = _spread(reach, east, south)
        field = jnp.where(squares(wider & ~reach), rounds + 1, field)
        return wider, field, rounds + 1, jnp.any(wider != reach)

    goal = jnp.broadcast_to(goal, jnp.broadcast_shapes(goal.shape, east.shape))
    field = jnp.where(squares(goal), 0, FAR).astype(jnp.int32)
    _, field, _, _ = jax.lax.while_loop(
        lambda c: c[3], grow, (goal, field, jnp.int32(0), jnp.asarray(needed))
    )
    return field


class _Board:
    """The static tables of a ``size`` x ``size`` board."""

    def __init__(self, size: int, walls: int):
        self.size = size
        self.walls = walls
        self.grooves = (size - 1) ** 2
        self.num_actions = NUM_PAWN_ACTIONS + 2 * self.grooves
        goal = np.zeros((2, size), np.int32)
        goal[0, 0] = goal[1, size - 1] = (1 << size) - 1  # mover: top row; other: bottom row
        self.goals = goal  # in the mover's frame
        # Each candidate wall added alone, as bit rows: [2 * grooves, size - 1] per kind.
        one_hot = np.zeros((self.grooves, size - 1), np.int32)
        for r in range(size - 1):
            for c in range(size - 1):
                one_hot[r * (size - 1) + c, r] = 1 << c
        empty = np.zeros_like(one_hot)
        self.add_h = np.concatenate([one_hot, empty])
        self.add_v = np.concatenate([empty, one_hot])
        # The four squares beside each candidate wall: the 2 x 2 block at its groove.
        corner = np.arange(size * size).reshape(size, size)[:-1, :-1].reshape(-1)
        block = corner[:, None] + np.array([0, 1, size, size + 1])
        self.blocks = np.concatenate([block, block]).astype(np.int32)  # [2 * grooves, 4]

    def start(self) -> tuple[np.ndarray, np.ndarray]:
        middle = self.size // 2
        return np.array([[self.size - 1, middle], [0, middle]], np.int32), np.array(
            [self.walls, self.walls], np.int32
        )


def _flip_rows(rows: Array) -> Array:
    return rows[..., ::-1]


def _mover_view(size: int, state: QuoridorState):
    """The position as the mover sees it: (own pawn, other pawn, walls_h, walls_v, own
    walls, other's walls), rows turned over when the second player moves."""
    second = state.current_player == 1
    pawns = jnp.where(second, state.pawns[::-1], state.pawns)
    pawns = jnp.where(second, pawns.at[:, 0].set(size - 1 - pawns[:, 0]), pawns)
    walls_h = jnp.where(second, _flip_rows(state.walls_h), state.walls_h)
    walls_v = jnp.where(second, _flip_rows(state.walls_v), state.walls_v)
    walls_left = jnp.where(second, state.walls_left[::-1], state.walls_left)
    return pawns[0], pawns[1], walls_h, walls_v, walls_left[0], walls_left[1]


def _pawn_rows(size: int, pawn: Array) -> Array:
    """int32[size]: the bit rows of one square."""
    return jnp.where(jnp.arange(size) == pawn[0], _bit(pawn[1]), 0)


def _can_go(size: int, east: Array, south: Array, square: Array, direction: int) -> Array:
    """bool: whether the edge from ``square`` in ``direction`` (0 N, 1 E, 2 S, 3 W) is
    open (on the board and not walled)."""
    row, col = square[0], square[1]
    if direction == 0:
        return (row > 0) & _test(south[jnp.maximum(row - 1, 0)], col)
    if direction == 2:
        return (row < size - 1) & _test(south[jnp.minimum(row, size - 2)], col)
    if direction == 1:
        return _test(east[row], col)
    return (col > 0) & _test(east[row], jnp.maximum(col - 1, 0))


def _pawn_moves(size: int, own: Array, other: Array, east: Array, south: Array) -> Array:
    """bool[12]: the legal pawn actions (mover's frame)."""
    legal = [jnp.bool_(False)] * NUM_PAWN_ACTIONS
    for direction in range(4):
        offset = PAWN_OFFSETS[direction]
        can = _can_go(size, east, south, own, direction)
        facing = can & jnp.all(own + offset == other)
        legal[direction] = can & ~facing
        over = _can_go(size, east, south, other, direction)
        legal[4 + direction] = facing & over
        for side in ((direction + 1) % 4, (direction + 3) % 4):
            action = _DIAGONAL[(direction, side)]
            beside = facing & ~over & _can_go(size, east, south, other, side)
            legal[action] = legal[action] | beside
    return jnp.stack(legal)


def _free_grooves(size: int, walls_h: Array, walls_v: Array) -> Array:
    """bool[2 * grooves]: the candidate walls (horizontal, then vertical) that neither
    overlap nor cross a wall on the board."""
    mask = (1 << (size - 1)) - 1
    zero = jnp.zeros_like(walls_v[:1])
    v_above = jnp.concatenate([zero, walls_v[:-1]])
    v_below = jnp.concatenate([walls_v[1:], zero])
    free_h = ~(walls_h | (walls_h << 1) | (walls_h >> 1) | walls_v) & mask
    free_v = ~(walls_v | v_above | v_below | walls_h) & mask
    free = jnp.concatenate([free_h, free_v])  # [2 * (size - 1)] rows
    return _test(free[:, None], jnp.arange(size - 1)).reshape(-1)


def _squares(rows: Array, width: int) -> Array:
    """bool[..., width]: the bits of int32 bit rows as squares."""
    return _test(rows[..., None], jnp.arange(width))


def _touching(size: int, walls_h: Array, walls_v: Array) -> Array:
    """bool[2 * grooves]: the candidate walls (horizontal, then vertical) that would touch
    the board's edge or a wall at two or more of their three points.

    Walls and the edge form a graph on the ``(size + 1)^2`` corners between squares, and a
    new wall cuts the squares into two regions only if it closes a cycle in that graph:
    only if two of its points are already on it (both ends, or an end and the middle,
    where another wall's end lies).
    """
    n = size - 1
    w_h, w_v = _squares(walls_h, n), _squares(walls_v, n)

    def placed(bits, row, col):  # [n, n] shifted onto the [size + 1, size + 1] corners
        return jnp.pad(bits, ((row, 2 - row), (col, 2 - col)))

    edge = np.ones((size + 1, size + 1), bool)
    edge[1:-1, 1:-1] = False
    corners = edge | placed(w_v, 0, 1) | placed(w_v, 2, 1) | placed(w_h | w_v, 1, 1)
    corners = (corners | placed(w_h, 1, 0) | placed(w_h, 1, 2)).astype(jnp.int32)
    middle = corners[1:size, 1:size]
    touch_h = corners[1:size, :n] + middle + corners[1:size, 2:]  # groove (r, c): corners
    touch_v = corners[:n, 1:size] + middle + corners[2:, 1:size]  # (r + 1, c..c + 2), etc.
    return jnp.stack([touch_h, touch_v]).reshape(-1) >= 2


def _rows(squares: Array) -> Array:
    """int32[..., size]: bool squares ``[..., size, size]`` as bit rows."""
    return jnp.sum(squares.astype(jnp.int32) << jnp.arange(squares.shape[-1]), axis=-1)


def _shortest_path_grooves(size: int, near: Array, far: Array, east: Array, south: Array):
    """bool[2, 2 * grooves]: per pawn, the candidate walls that would block an edge on one
    of its shortest paths, given its distance fields from the pawn (``near``) and to its goal
    (``far``), ``[2, size, size]``.

    An edge from ``u`` to ``v`` lies on a shortest path when ``near(u) + 1 + far(v)`` is the
    pawn's distance. A wall that blocks none of them leaves a shortest path open.
    """
    length = jnp.min(near + far, axis=(1, 2))[:, None, None]

    def used(a_near, b_far, b_near, a_far):  # either way along an edge from a to b
        return (a_near + 1 + b_far == length) | (b_near + 1 + a_far == length)

    across = _squares(east, size - 1) & used(
        near[:, :, :-1], far[:, :, 1:], near[:, :, 1:], far[:, :, :-1]
    )  # [pawn, size, size - 1]
    down = _squares(south, size) & used(near[:, :-1], far[:, 1:], near[:, 1:], far[:, :-1])
    blocks_h = down[:, :, :-1] | down[:, :, 1:]  # a horizontal wall cuts two edges down
    blocks_v = across[:, :-1] | across[:, 1:]
    return jnp.concatenate([blocks_h, blocks_v], 1).reshape(2, -1)


def _meet(ahead: Array, behind: Array, east: Array, south: Array) -> Array:
    """bool[...]: whether the squares of ``ahead`` and ``behind`` (bit rows) connect. Both
    grow a round at a time until they overlap or either stops growing."""

    def grow(carry):
        ahead, behind, _ = carry
        wider, wider_behind = _spread(ahead, east, south), _spread(behind, east, south)
        apart = ~_any_bit(wider & wider_behind)
        live = apart & _any_bit(wider != ahead) & _any_bit(wider_behind != behind)
        return wider, wider_behind, jnp.any(live)

    start = jnp.any(~_any_bit(ahead & behind))
    ahead, behind, _ = jax.lax.while_loop(lambda c: c[2], grow, (ahead, behind, start))
    return _any_bit(ahead & behind)


def _reach_goals(
    board: _Board, own: Array, other: Array, walls_h: Array, walls_v: Array, needed=True
):
    """bool[2 * grooves, 2]: with each candidate wall added, whether the mover's pawn, then
    the other pawn, still reaches its goal edge (mover's frame); all true, with no work
    done, where ``needed`` is false (a mover without walls).

    Most walls need no flood fill: one that touches fewer than two obstacles
    (``_touching``) or blocks no shortest path of a pawn (``_shortest_path_grooves``) leaves
    that pawn's way open. The rest -- a few (groove, pawn) pairs of the ``2 * grooves * 2``
    -- are filled ``_FILLS`` at a time, in as many rounds as needed (under ``vmap``, as the
    batch's most). A fill starts from what the wall cannot have cut: the squares nearer the
    pawn than the wall's nearest square, and likewise nearer the goal. It grows both until
    they meet, so it only walks round the wall.
    """
    size = board.size
    east, south = _open_edges(size, walls_h, walls_v)
    pawns = jnp.stack([_pawn_rows(size, own), _pawn_rows(size, other)])  # [2, size]
    starts = jnp.concatenate([pawns, board.goals])
    field = _distance_field(size, starts, east, south, needed)
    near, far = field[:2], field[2:]  # [pawn, row, col]: from the pawn; to its goal
    doubt = _touching(size, walls_h, walls_v) & _shortest_path_grooves(size, near, far, east, south)
    doubt = doubt & needed
    add_h, add_v, block = (jnp.asarray(x) for x in (board.add_h, board.add_v, board.blocks))

    def fill(carry):
        doubt, reach = carry
        (pair,) = jnp.nonzero(doubt, size=_FILLS, fill_value=0)  # flat (pawn, groove)
        real = doubt[pair]
        pawn, groove = pair // (2 * board.grooves), pair % (2 * board.grooves)
        east, south = _open_edges(size, walls_h | add_h[groove], walls_v | add_v[groove])
        ends = block[groove]  # [F, 4]: the squares beside the wall
        safe_near = near.reshape(2, -1)[pawn[:, None], ends].min(-1)[:, None, None]
        safe_far = far.reshape(2, -1)[pawn[:, None], ends].min(-1)[:, None, None]
        ahead, behind = _rows(near[pawn] <= safe_near), _rows(far[pawn] <= safe_far)
        cut = real & ~_meet(ahead, behind, east, south)
        hit = pair[:, None] == jnp.arange(doubt.size)  # [F, pairs]
        return doubt & ~jnp.any(hit, 0), reach & ~jnp.any(hit & cut[:, None], 0)

    doubt, reach = doubt.reshape(-1), jnp.ones(doubt.size, bool)
    _, reach = jax.lax.while_loop(lambda c: jnp.any(c[0]), fill, (doubt, reach))
    return reach.reshape(2, -1).T


def _wall_moves(board: _Board, own, other, walls_h, walls_v, walls_in_hand) -> Array:
    """bool[2 * grooves]: the grooves where a horizontal, then a vertical, wall may go
    (mover's frame)."""
    needed = walls_in_hand > 0
    reach = _reach_goals(board, own, other, walls_h, walls_v, needed)
    return _free_grooves(board.size, walls_h, walls_v) & jnp.all(reach, axis=-1) & needed


def _illegal_reasons(board: _Board, state: QuoridorState, action: int) -> tuple[str, ...]:
    """Why ``action`` is not legal in ``state`` (host-side): ``()`` when it is legal (or no
    action), else ``("game_over",)``, ``("pawn",)``, ``("no_walls",)``, ``("overlap",)``,
    or the pawns a wall would cut off their goal, ``"cuts_own"`` and/or ``"cuts_other"``."""
    if bool(state.terminal):
        return ("game_over",)
    if not 0 <= action < board.num_actions or bool(state.legal[action]):
        return ()
    if action < NUM_PAWN_ACTIONS:
        return ("pawn",)
    own, other, walls_h, walls_v, own_walls, _ = _mover_view(board.size, state)
    groove = action - NUM_PAWN_ACTIONS
    if int(own_walls) == 0:
        return ("no_walls",)
    if not bool(_free_grooves(board.size, walls_h, walls_v)[groove]):
        return ("overlap",)
    mine, theirs = np.asarray(_reach_goals(board, own, other, walls_h, walls_v))[groove]
    return tuple(
        reason for reason, reaches in (("cuts_own", mine), ("cuts_other", theirs)) if not reaches
    )


def _legal_actions(board: _Board, own, other, walls_h, walls_v, walls_in_hand) -> Array:
    """bool[A]: the mover's legal actions (mover's frame)."""
    east, south = _open_edges(board.size, walls_h, walls_v)
    pawn = _pawn_moves(board.size, own, other, east, south)
    walls = _wall_moves(board, own, other, walls_h, walls_v, walls_in_hand)
    return jnp.concatenate([pawn, walls])


def make(*, size: int = 9, walls: int = 10, distance_planes: int = 1) -> Game:
    """Quoridor on a ``size`` x ``size`` board with ``walls`` walls per player.

    Args:
      size: the board's side, odd, 5..9 (5 with 3 walls and 7 with 6 suit a CPU).
      walls: walls each player starts with, 0..20.
      distance_planes: 1 to add two observation planes with every square's shortest-path
        distance to the mover's goal and to the opponent's (divided by ``size^2``).

    Returns:
      The game as pure functions; its states are ``QuoridorState``.
    """
    check_int(NAME, "size", size, *LIMITS["size"][:2])
    if size % 2 == 0:
        raise ValueError(f"{NAME}: size must be odd (5, 7 or 9), got {size!r}.")
    check_int(NAME, "walls", walls, *LIMITS["walls"])
    check_int(NAME, "distance_planes", distance_planes, *LIMITS["distance_planes"])
    board = _Board(size, walls)
    start_pawns, start_walls = board.start()
    no_walls = np.zeros(size - 1, np.int32)
    first_legal = np.asarray(
        _legal_actions(
            board,
            jnp.asarray(start_pawns[0]),
            jnp.asarray(start_pawns[1]),
            jnp.asarray(no_walls),
            jnp.asarray(no_walls),
            jnp.int32(walls),
        )
    )
    cap = 4 * size * size

    def init(key: Array) -> QuoridorState:
        del key  # Quoridor always starts from the same position.
        return QuoridorState(
            pawns=jnp.asarray(start_pawns),
            walls_h=jnp.asarray(no_walls),
            walls_v=jnp.asarray(no_walls),
            walls_left=jnp.asarray(start_walls),
            legal=jnp.asarray(first_legal),
            current_player=jnp.int32(0),
            num_moves=jnp.int32(0),
            terminal=jnp.bool_(False),
            winner=jnp.int8(-1),
        )

    def step(state: QuoridorState, action: Array) -> QuoridorState:
        action = jnp.asarray(action, jnp.int32)
        own, other, walls_h, walls_v, own_walls, other_walls = _mover_view(size, state)
        legal_move = state.legal[jnp.clip(action, 0, board.num_actions - 1)]
        legal_move = legal_move & (action >= 0) & (action < board.num_actions)
        # A pawn move.
        moving = action < NUM_PAWN_ACTIONS
        target = own + jnp.asarray(PAWN_OFFSETS)[jnp.clip(action, 0, NUM_PAWN_ACTIONS - 1)]
        own = jnp.where(moving & legal_move, target, own)
        # A wall.
        groove = action - NUM_PAWN_ACTIONS
        placing = (groove >= 0) & (groove < 2 * board.grooves) & legal_move
        row_bit = _bit(groove % (size - 1)) * placing
        rows = jnp.arange(size - 1) == (groove % board.grooves) // (size - 1)
        horizontal = groove < board.grooves
        walls_h = walls_h | jnp.where(rows & horizontal, row_bit, 0)
        walls_v = walls_v | jnp.where(rows & ~horizontal, row_bit, 0)
        own_walls = own_walls - placing.astype(jnp.int32)
        # The other player moves next: its frame is this one turned over.
        won = moving & (own[0] == 0)
        capped = state.num_moves + 1 >= cap
        mover = state.current_player

        def turned(square):
            return jnp.stack([size - 1 - square[0], square[1]])

        next_legal = _legal_actions(
            board, turned(other), turned(own), walls_h[::-1], walls_v[::-1], other_walls
        )
        over = won | capped | ~legal_move
        second = mover == 1  # the mover's frame back to absolute coordinates
        pawns = jnp.stack([own, other])
        moved = QuoridorState(
            pawns=jnp.where(second, jnp.stack([turned(other), turned(own)]), pawns),
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
        return state.legal

    def observe(state: QuoridorState) -> Array:
        own, other, walls_h, walls_v, own_walls, other_walls = _mover_view(size, state)
        cells = np.arange(size)

        def square(pawn):
            return (cells[:, None] == pawn[0]) & (cells[None, :] == pawn[1])

        def grooves(rows):  # the groove (r, c) at square (r, c); the last row and column empty
            bits = _test(rows[:, None], cells[None, :-1])
            return jnp.pad(bits, ((0, 1), (0, 1)))

        share = max(walls, 1)
        planes = [
            square(own),
            square(other),
            grooves(walls_h),
            grooves(walls_v),
            jnp.full((size, size), own_walls / share),
            jnp.full((size, size), other_walls / share),
        ]
        if distance_planes:
            east, south = _open_edges(size, walls_h, walls_v)
            field = _distance_field(size, jnp.asarray(board.goals), east, south)
            planes += [jnp.minimum(field[0], size * size) / (size * size)]
            planes += [jnp.minimum(field[1], size * size) / (size * size)]
        return jnp.stack([p.astype(jnp.float32) for p in planes], axis=-1)

    def notation(state: QuoridorState | None) -> text.Notation:
        return text.Notation(size, PAWN_OFFSETS, start_pawns, state)

    def heuristic(state: QuoridorState) -> Array:
        own, other, walls_h, walls_v, own_walls, other_walls = _mover_view(size, state)
        east, south = _open_edges(size, walls_h, walls_v)
        pawns = jnp.stack([_pawn_rows(size, own), _pawn_rows(size, other)])
        steps = _race(pawns, jnp.asarray(board.goals), east, south)
        score = WEIGHTS["distance"] * (steps[1] - steps[0]) + WEIGHTS["walls"] * (
            own_walls - other_walls
        )
        value = HEURISTIC_BOUND * jnp.tanh(score / size)
        exact = state.rewards[state.current_player]
        return jnp.where(state.terminal, exact, value).astype(jnp.float32)

    return Game(
        name=NAME,
        num_actions=board.num_actions,
        observation_shape=(size, size, 6 + 2 * distance_planes),
        max_num_moves=cap,
        settings=(("size", size), ("walls", walls), ("distance_planes", distance_planes)),
        init=init,
        step=step,
        observe=observe,
        legal_action_mask=legal_action_mask,
        heuristic=heuristic,
        symmetries=_symmetries(board),
        to_text=text.to_text,
        action_to_text=lambda action, state=None: notation(state).name(action),
        actions_from_text=lambda moves, state=None: notation(state).parse(moves),
        actions_to_text=lambda actions, state=None: notation(state).write(actions),
        to_json=text.to_json,
        explain_illegal=lambda state, action: text.refusal(
            _illegal_reasons(board, state, int(action))
        ),
    )


def legal_actions(state: QuoridorState) -> Array:
    """bool[A]: the mover's legal actions computed afresh (``step`` keeps them in
    ``state.legal``; this is for positions set up by hand and for timing the path check)."""
    size = state.walls_h.shape[-1] + 1
    own, other, walls_h, walls_v, own_walls, _ = _mover_view(size, state)
    return _legal_actions(_Board(size, 0), own, other, walls_h, walls_v, own_walls)


# --- Shortest paths, for players ---------------------------------------------------------


def pawn_distances(state: QuoridorState) -> Array:
    """int32[12]: the mover's fewest steps to its goal edge from the square each pawn action
    lands on (mover's frame, pawns ignored; ``FAR`` when walled off). An action that would
    leave the board reads the nearest square on it; mask with ``state.legal``."""
    size = state.walls_h.shape[-1] + 1
    own, _, walls_h, walls_v, _, _ = _mover_view(size, state)
    east, south = _open_edges(size, walls_h, walls_v)
    field = _distance_field(size, jnp.asarray(_Board(size, 0).goals[0]), east, south)
    targets = jnp.clip(own + jnp.asarray(PAWN_OFFSETS), 0, size - 1)
    return field[targets[:, 0], targets[:, 1]]


def opponent_distances(state: QuoridorState) -> tuple[Array, Array]:
    """The opponent's fewest steps to its goal edge, pawns ignored (``FAR`` when walled off):
    now (int32[]) and with each candidate wall added (int32[2 * grooves], horizontal walls
    then vertical, by groove in the mover's frame; mask with ``state.legal``)."""
    size = state.walls_h.shape[-1] + 1
    board = _Board(size, 0)
    _, other, walls_h, walls_v, _, _ = _mover_view(size, state)
    east, south = _open_edges(size, walls_h, walls_v)
    add_east, add_south = _open_edges(size, walls_h | board.add_h, walls_v | board.add_v)
    pawn, goal = _pawn_rows(size, other), jnp.asarray(board.goals[1])
    return _race(pawn, goal, east, south), _race(pawn, goal, add_east, add_south)


# --- Symmetry ----------------------------------------------------------------------------


def _symmetries(board: _Board) -> tuple[Symmetry, ...]:
    """The identity and the left-right mirror (the only symmetry that keeps both goals)."""
    size = board.size
    grooves = np.arange(board.grooves).reshape(size - 1, size - 1)[:, ::-1].reshape(-1)
    permutation = np.concatenate(
        [
            _MIRROR_PAWN,
            NUM_PAWN_ACTIONS + grooves,
            NUM_PAWN_ACTIONS + board.grooves + grooves,
        ]
    ).astype(np.int32)

    def mirror(observation: Array) -> Array:
        flipped = observation[..., ::-1, :]
        # A groove (r, c) is drawn at square (r, c): it mirrors to column size - 2 - c.
        shifted = jnp.roll(flipped, -1, axis=-2)
        is_groove = np.zeros(observation.shape[-1], bool)
        is_groove[2:4] = True
        return jnp.where(is_groove, shifted, flipped)

    identity = Symmetry("identity", lambda obs: obs, np.arange(board.num_actions, dtype=np.int32))
    return identity, Symmetry("mirror", mirror, permutation)
