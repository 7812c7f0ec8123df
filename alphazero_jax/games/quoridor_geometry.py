"""Quoridor's board geometry: open edges, flood fills, shortest-path distances and the path
check of a wall, over walls kept as rows of bits (pure functions, traced once per size).

Walls are int32 bit rows, ``[size - 1]`` per kind: bit ``c`` of row ``r`` set is a wall in
groove ``(r, c)``, the corner between squares ``(r, c)`` and ``(r + 1, c + 1)``. A
horizontal wall there separates rows ``r`` and ``r + 1`` in columns ``c`` and ``c + 1``; a
vertical one separates columns ``c`` and ``c + 1`` in rows ``r`` and ``r + 1``. Sets of
squares are bit rows too, ``[size]``, so a breadth-first flood fill spreads the reached
set one square in the four directions with a few shifts and masks per round.

Most walls need no fill (``reach_goals``): a wall can cut a pawn off only if it touches
the edge or other walls at two of its three points and blocks an edge of one of the
pawn's shortest paths, which two distance fields per pawn find. The few walls left are
filled from both ends, starting from the squares the wall cannot have cut off; under
``vmap`` those of the whole batch are filled together (``jax.custom_batching``), about one
a position, rather than a position's worst case times the batch.

Every fill is a loop of rounds of the same shape (``fill_loop``). On the CPU a
``while_loop`` runs 4 rounds between tests of whether any fill still grows, so a batch
stops at its longest fill. On an accelerator each fill runs its bound (a shortest path
has at most ``size^2 - 1`` steps) in a ``fori_loop`` of 9 rounds an iteration: a fixed
amount of work with no test to send back to the host between rounds, which on a GPU costs
a round trip each (an H100 ran the tested loops no faster than 2 CPU cores).
Only the batch's fills in doubt past the first ``_fills_per_call`` wait on a test.

Everything here is in one frame, heading up: the goal of the pawn ``own`` is the top row,
that of ``other`` the bottom row (``Tables.goals``); the rules turn the board over for
the second player.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.types import Array

FAR = 1 << 16  # the distance of an unreachable goal
_FILLS = 16  # the path check's fewest flood fills per round (see _fills_per_call)
# How the flood fills loop, by JAX backend: (rounds per loop iteration, whether each
# iteration first tests that some fill still grows); see ``fill_loop``.
FILL_LOOPS = {"cpu": (4, True)}
_UNTESTED = (9, False)  # any other backend: a fixed amount of work


class Tables(NamedTuple):
    """The NumPy tables of a ``size`` x ``size`` board (``tables(size)`` builds them once)."""

    size: int
    grooves: int  # (size - 1)^2, the grooves of each kind of wall
    goals: np.ndarray  # int32[2, size]: bit rows of the goal edges, own (top) then other's
    add_h: np.ndarray  # int32[2 * grooves, size - 1]: each candidate wall alone, horizontal
    add_v: np.ndarray  # int32[2 * grooves, size - 1]: the same, vertical walls' rows
    blocks: np.ndarray  # int32[2 * grooves, 4]: the 2 x 2 squares at each candidate's groove


@functools.cache
def tables(size: int) -> Tables:
    """The tables of a ``size`` x ``size`` board; candidate walls are the horizontal ones
    by groove ``r * (size - 1) + c``, then the vertical ones."""
    grooves = (size - 1) ** 2
    goals = np.zeros((2, size), np.int32)
    goals[0, 0] = goals[1, size - 1] = (1 << size) - 1
    one_hot = np.zeros((grooves, size - 1), np.int32)
    for r in range(size - 1):
        for c in range(size - 1):
            one_hot[r * (size - 1) + c, r] = 1 << c
    empty = np.zeros_like(one_hot)
    corner = np.arange(size * size).reshape(size, size)[:-1, :-1].reshape(-1)
    block = corner[:, None] + np.array([0, 1, size, size + 1])
    return Tables(
        size=size,
        grooves=grooves,
        goals=goals,
        add_h=np.concatenate([one_hot, empty]),
        add_v=np.concatenate([empty, one_hot]),
        blocks=np.concatenate([block, block]).astype(np.int32),
    )


# --- Bit rows ----------------------------------------------------------------------------


def bit(index: Array) -> Array:
    """int32: the bit ``index`` set."""
    return jnp.left_shift(jnp.int32(1), index)


def has_bit(row: Array, col: Array) -> Array:
    """bool: bit ``col`` of the int32 ``row``."""
    return (jnp.right_shift(row, col) & 1) == 1


def any_bit(rows: Array) -> Array:
    """bool[...]: whether any of the bit rows ``[..., n]`` has a bit set."""
    return jnp.any(rows != 0, axis=-1)


def squares(rows: Array, width: int) -> Array:
    """bool[..., width]: the bits of int32 bit rows as squares."""
    return has_bit(rows[..., None], jnp.arange(width))


def to_rows(squares: Array) -> Array:
    """int32[..., size]: bool squares ``[..., size, size]`` as bit rows."""
    return jnp.sum(squares.astype(jnp.int32) << jnp.arange(squares.shape[-1]), axis=-1)


def pawn_rows(size: int, pawn: Array) -> Array:
    """int32[..., size]: the bit rows of the one square ``pawn`` (``(row, col)``, int32[...,
    2])."""
    return jnp.where(jnp.arange(size) == pawn[..., :1], bit(pawn[..., 1:]), 0)


# --- Edges and flood fills -----------------------------------------------------------------


def open_edges(size: int, walls_h: Array, walls_v: Array) -> tuple[Array, Array]:
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


def can_go(size: int, east: Array, south: Array, square: Array, direction: int) -> Array:
    """bool: whether the edge from ``square`` in ``direction`` (0 N, 1 E, 2 S, 3 W) is
    open (on the board and not walled)."""
    row, col = square[0], square[1]
    if direction == 0:
        return (row > 0) & has_bit(south[jnp.maximum(row - 1, 0)], col)
    if direction == 2:
        return (row < size - 1) & has_bit(south[jnp.minimum(row, size - 2)], col)
    if direction == 1:
        return has_bit(east[row], col)
    return (col > 0) & has_bit(east[row], jnp.maximum(col - 1, 0))


def spread(reach: Array, east: Array, south: Array) -> Array:
    """One flood-fill round: ``reach`` (int32[..., size] bit rows) plus every square one
    open edge away from it."""
    zero = jnp.zeros_like(reach[..., :1])
    down = jnp.concatenate([zero, reach[..., :-1] & south], -1)
    up = jnp.concatenate([reach[..., 1:] & south, zero], -1)
    return reach | ((reach & east) << 1) | ((reach >> 1) & east) | down | up


def fill_loop(bound: int) -> tuple[int, bool]:
    """Static: ``(rounds, tested)`` for a flood fill surely done after ``bound`` rounds, by
    backend (``FILL_LOOPS``): ``rounds`` rounds run straight on in each iteration of a
    loop, which is a ``while_loop`` that ends once no fill grows where ``tested``, else a
    ``fori_loop`` of ``ceil(bound / rounds)`` iterations: a fixed amount of work, with no
    test for an accelerator to send back to the host between rounds.
    """
    rounds, tested = FILL_LOOPS.get(jax.default_backend(), _UNTESTED)
    return min(rounds, bound), tested


def _repeat(grow, carry, going, bound: int):
    """``grow`` applied to ``carry`` until ``going(carry)`` is false, or ``bound`` times.

    ``grow`` must leave a finished fill as it is (a fixed point), so the rounds run after a
    fill is done, up to the end of its loop iteration or the bound, change nothing.
    """
    rounds, tested = fill_loop(bound)

    def block(carry):
        for _ in range(rounds):
            carry = grow(carry)
        return carry

    if tested:
        return jax.lax.while_loop(going, block, carry)
    return jax.lax.fori_loop(0, -(-bound // rounds), lambda _, c: block(c), carry)


def race(start: Array, goal: Array, east: Array, south: Array) -> Array:
    """int32[...]: the fewest steps from the squares of ``start`` to any square of ``goal``
    (bit rows, broadcast together with the edges), ignoring pawns; ``FAR`` when no path.

    A breadth-first flood fill; every fill stops counting when it reaches its goal or stops
    growing, and the fills stop when all have stopped (``fill_loop``).
    """
    size = start.shape[-1]
    shape = jnp.broadcast_shapes(start.shape, goal.shape, east.shape[:-1] + start.shape[-1:])
    start = jnp.broadcast_to(start, shape)

    def grow(carry):
        reach, steps, live = carry
        wider = spread(reach, east, south)
        hit, grew = any_bit(wider & goal), any_bit(wider != reach)
        steps = steps + live.astype(jnp.int32)
        steps = jnp.where(live & ~hit & ~grew, FAR, steps)
        return wider, steps, live & ~hit & grew

    steps = jnp.zeros(shape[:-1], jnp.int32)
    live = ~any_bit(start & goal)
    _, steps, _ = _repeat(grow, (start, steps, live), lambda c: jnp.any(c[2]), size * size)
    return steps


def distance_field(
    size: int, goal: Array, east: Array, south: Array, needed: Array | bool = True
) -> Array:
    """int32[..., size, size]: every square's fewest steps to the ``goal`` squares (only
    the goal squares' zeros where ``needed``, broadcast with the edges' leading axes, is
    false: those fills do not grow)."""
    columns = np.arange(size, dtype=np.int32)
    needed = jnp.asarray(needed)[..., None]
    east, south = jnp.where(needed, east, 0), jnp.where(needed, south, 0)

    def as_squares(rows: Array) -> Array:
        return (jnp.right_shift(rows[..., None], columns) & 1) == 1

    def grow(carry):
        reach, field, rounds, _ = carry
        wider = spread(reach, east, south)
        field = jnp.where(as_squares(wider & ~reach), rounds + 1, field)
        return wider, field, rounds + 1, jnp.any(wider != reach)

    goal = jnp.broadcast_to(goal, jnp.broadcast_shapes(goal.shape, east.shape))
    field = jnp.where(as_squares(goal), 0, FAR).astype(jnp.int32)
    carry = (goal, field, jnp.int32(0), jnp.any(needed))
    _, field, _, _ = _repeat(grow, carry, lambda c: c[3], size * size - 1)
    return field


def meet(ahead: Array, behind: Array, east: Array, south: Array) -> Array:
    """bool[...]: whether the squares of ``ahead`` and ``behind`` (bit rows) connect. Both
    grow a round at a time until they overlap or either stops growing (an overlap stays,
    and a fill that stopped is a whole region the other cannot enter)."""
    size = ahead.shape[-1]

    def grow(carry):
        ahead, behind, _ = carry
        wider, wider_behind = spread(ahead, east, south), spread(behind, east, south)
        apart = ~any_bit(wider & wider_behind)
        live = apart & any_bit(wider != ahead) & any_bit(wider_behind != behind)
        return wider, wider_behind, jnp.any(live)

    start = jnp.any(~any_bit(ahead & behind))
    ahead, behind, _ = _repeat(grow, (ahead, behind, start), lambda c: c[2], size * size)
    return any_bit(ahead & behind)


# --- Where a wall may go -----------------------------------------------------------------


def free_grooves(size: int, walls_h: Array, walls_v: Array) -> Array:
    """bool[2 * grooves]: the candidate walls (horizontal, then vertical) that neither
    overlap nor cross a wall on the board."""
    mask = (1 << (size - 1)) - 1
    zero = jnp.zeros_like(walls_v[:1])
    v_above = jnp.concatenate([zero, walls_v[:-1]])
    v_below = jnp.concatenate([walls_v[1:], zero])
    free_h = ~(walls_h | (walls_h << 1) | (walls_h >> 1) | walls_v) & mask
    free_v = ~(walls_v | v_above | v_below | walls_h) & mask
    free = jnp.concatenate([free_h, free_v])  # [2 * (size - 1)] rows
    return has_bit(free[:, None], jnp.arange(size - 1)).reshape(-1)


def touching(size: int, walls_h: Array, walls_v: Array) -> Array:
    """bool[2 * grooves]: the candidate walls (horizontal, then vertical) that would touch
    the board's edge or a wall at two or more of their three points.

    Walls and the edge form a graph on the ``(size + 1)^2`` corners between squares, and a
    new wall cuts the squares into two regions only if it closes a cycle in that graph:
    only if two of its points are already on it (both ends, or an end and the middle,
    where another wall's end lies).
    """
    n = size - 1
    w_h, w_v = squares(walls_h, n), squares(walls_v, n)

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


def shortest_path_grooves(size: int, near: Array, far: Array, east: Array, south: Array):
    """bool[2, 2 * grooves]: per pawn, the candidate walls that would block an edge on one
    of its shortest paths, given its distance fields from the pawn (``near``) and to its goal
    (``far``), ``[2, size, size]``.

    An edge from ``u`` to ``v`` lies on a shortest path when ``near(u) + 1 + far(v)`` is the
    pawn's distance. A wall that blocks none of them leaves a shortest path open.
    """
    length = jnp.min(near + far, axis=(1, 2))[:, None, None]

    def used(a_near, b_far, b_near, a_far):  # either way along an edge from a to b
        return (a_near + 1 + b_far == length) | (b_near + 1 + a_far == length)

    across = squares(east, size - 1) & used(
        near[:, :, :-1], far[:, :, 1:], near[:, :, 1:], far[:, :, :-1]
    )  # [pawn, size, size - 1]
    down = squares(south, size) & used(near[:, :-1], far[:, 1:], near[:, 1:], far[:, :-1])
    blocks_h = down[:, :, :-1] | down[:, :, 1:]  # a horizontal wall cuts two edges down
    blocks_v = across[:, :-1] | across[:, 1:]
    return jnp.concatenate([blocks_h, blocks_v], 1).reshape(2, -1)


def reach_goals(
    size: int, own: Array, other: Array, walls_h: Array, walls_v: Array, needed=True
) -> Array:
    """bool[2 * grooves, 2]: with each candidate wall added, whether the pawn ``own``, then
    the pawn ``other``, still reaches its goal edge; all true, with no work done, where
    ``needed`` is false (a mover without walls).

    Most walls need no flood fill: one that touches fewer than two obstacles
    (``touching``), blocks no shortest path of a pawn (``shortest_path_grooves``) or may not
    go there anyway (``free_grooves``) leaves that pawn's way open. The rest -- under
    ``vmap``, the (position, pawn, groove) triples in doubt of the whole batch, about one a
    position -- are gathered into one list (``_fills_per_call``) and filled together. A
    fill starts from what the wall cannot have cut: the squares nearer the pawn than the
    wall's nearest square, and likewise nearer the goal. It grows both until they meet, so
    it only walks round the wall.
    """
    arrays = [jnp.asarray(x) for x in (own, other, walls_h, walls_v)]
    return _reach_goals_vmappable(size)(*arrays, jnp.asarray(needed, bool))


def _fills_per_call(num_positions: int) -> int:
    """Static: the fills one round of ``_reach_goals_batch`` runs, one a position (the
    triples in doubt average under one a position in random games at 9x9); more are filled
    in further rounds."""
    return max(_FILLS, num_positions)


@functools.cache
def _reach_goals_vmappable(size: int):
    """``reach_goals`` over arrays, for one position; under ``vmap``, for the whole batch at
    once (``_reach_goals_batch``), so that the fills in doubt are gathered across it."""

    @jax.custom_batching.custom_vmap
    def one(own, other, walls_h, walls_v, needed):
        args = (own, other, walls_h, walls_v, needed)
        return _reach_goals_batch(size, *(x[None] for x in args))[0]

    @one.def_vmap
    def batch(axis_size, in_batched, *args):
        args = [
            x if b else jnp.broadcast_to(x, (axis_size, *x.shape)) for x, b in zip(args, in_batched)
        ]
        return _reach_goals_batch(size, *args), True

    return one


def _reach_goals_batch(size: int, own, other, walls_h, walls_v, needed) -> Array:
    """bool[N, 2 * grooves, 2]: ``reach_goals`` for N positions (every argument with a
    leading axis N). Where the fills are tested (the CPU), only the positions that need
    the check are worked on, a quarter of the batch at a time (in random games at 9x9 one
    mover in ten has walls in hand); elsewhere all at once, with no test."""
    num = own.shape[0]
    if not fill_loop(size * size)[1]:
        return _reach_goals_all(size, own, other, walls_h, walls_v, needed)
    width = max(1, num // 4)

    def some(carry):
        left, reach = carry
        (at,) = jnp.nonzero(left, size=width, fill_value=num)
        real = at < num
        part = (x[jnp.minimum(at, num - 1)] for x in (own, other, walls_h, walls_v))
        found = _reach_goals_all(size, *part, real)
        done = jnp.where(real, at, num)
        return left.at[done].set(False, mode="drop"), reach.at[done].set(found, mode="drop")

    reach = jnp.ones((num, 2 * tables(size).grooves, 2), bool)
    return jax.lax.while_loop(lambda c: jnp.any(c[0]), some, (needed, reach))[1]


def _reach_goals_all(size: int, own, other, walls_h, walls_v, needed) -> Array:
    """``_reach_goals_batch`` worked out for every one of the N positions."""
    board = tables(size)
    num, grooves = own.shape[0], 2 * board.grooves
    east, south = open_edges(size, walls_h, walls_v)  # [N, size], [N, size - 1]
    pawns = jnp.stack([pawn_rows(size, own), pawn_rows(size, other)], 1)  # [N, 2, size]
    starts = jnp.concatenate([pawns, jnp.broadcast_to(board.goals, (num, 2, size))], 1)
    field = distance_field(size, starts, east[:, None], south[:, None], needed[:, None])
    near, far = field[:, :2], field[:, 2:]  # [N, pawn, row, col]: from the pawn; to its goal
    on_path = jax.vmap(functools.partial(shortest_path_grooves, size))(near, far, east, south)
    touch = jax.vmap(functools.partial(touching, size))(walls_h, walls_v)
    free = jax.vmap(functools.partial(free_grooves, size))(walls_h, walls_v)
    doubt = (touch & free & needed[:, None])[:, None] & on_path  # [N, pawn, groove]
    add_h, add_v, block = (jnp.asarray(x) for x in (board.add_h, board.add_v, board.blocks))
    width = _fills_per_call(num)

    def fill(carry):
        doubt, reach = carry  # flat (position, pawn, groove)
        (triple,) = jnp.nonzero(doubt, size=width, fill_value=doubt.size)
        real = triple < doubt.size
        triple = jnp.minimum(triple, doubt.size - 1)
        at, pawn, groove = triple // (2 * grooves), triple // grooves % 2, triple % grooves
        east, south = open_edges(size, walls_h[at] | add_h[groove], walls_v[at] | add_v[groove])
        ends = block[groove]  # [F, 4]: the squares beside the wall
        near_f, far_f = near[at, pawn], far[at, pawn]  # [F, size, size]
        safe_near = jnp.take_along_axis(near_f.reshape(width, -1), ends, 1).min(-1)
        safe_far = jnp.take_along_axis(far_f.reshape(width, -1), ends, 1).min(-1)
        # The padding's fills start met, so they hold no loop up.
        ahead = to_rows((near_f <= safe_near[:, None, None]) | ~real[:, None, None])
        behind = to_rows((far_f <= safe_far[:, None, None]) | ~real[:, None, None])
        cut = real & ~meet(ahead, behind, east, south)
        done = jnp.where(real, triple, doubt.size)
        doubt = doubt.at[done].set(False, mode="drop")
        return doubt, reach.at[done].set(~cut, mode="drop")

    carry = (doubt.reshape(-1), jnp.ones(doubt.size, bool))
    if not fill_loop(size * size)[1]:  # untested fills: the first round without a test
        carry = fill(carry)
    _, reach = jax.lax.while_loop(lambda c: jnp.any(c[0]), fill, carry)
    return reach.reshape(num, 2, grooves).transpose(0, 2, 1)
