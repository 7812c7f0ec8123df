"""TD-MCTS: UCT whose node values are learned by temporal-difference backups and kept
across moves and games in a value table (``td_table``); the caller jits.

One search, per game (written for one state, vmapped over the batch):

- The tree holds the positions the search touches, each with ``V`` (from the view of its
  player to move, in [-1, 1]) and its visits, read from the table when it enters the
  tree, (0, 0) for a position the table lacks.
- Selection descends from the root by UCT, ``argmax -V(child) + c sqrt(ln N / n)`` over
  the legal moves, an unvisited child first (ties at random). A child's statistics come
  from the tree, else from the table, so the descent stops at the first position the
  table does not know (or at the end of the game), which is added and valued by one
  uniformly random playout.
- The backup (``td_backup``): the leaf moves towards the playout's outcome for its mover
  times ``gamma ** steps``, each node up the path towards ``-gamma V(child)`` with the
  child's fresh value, by ``alpha = max(1 / visits, floor)`` (visits counted after this
  one; without a floor V is a running mean).
- The move played: the legal root child of best ``-V`` (an unvisited child counts as 0).

Tournament mode (``act_fn``) only reads the table. Training mode (``search_and_learn``)
also merges each tree's values and added visits into the table (``td_table.merge``, once a
move for the whole batch): the games of a batch see each other's updates from the next
move on. A position reached twice within one search has two tree nodes that merge only in
the table. docs/results/tdmcts.md has the measurements.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
from flax import struct

from alphazero_jax.search import td_table
from alphazero_jax.search.mctx_search import check_simulations
from alphazero_jax.search.rollout_mcts import make_final_playout
from alphazero_jax.types import Array, Game, PRNGKey, State

DEFAULT_EXPLORATION = 1.0
DEFAULT_GAMMA = 0.99  # below 1: a quicker win is worth more (docs/results/tdmcts.md)
DEFAULT_FLOOR = 0.0  # no floor: V is the running mean of its targets
MAX_NODES_PER_SIMULATION = 8  # the tree holds 1 + 8 n positions; a fuller one stops early
_UNVISITED = 1e6  # above any UCT score of a visited child


@struct.dataclass
class Tree:
    """One game's search tree: ``N`` positions, ``A`` actions.

    Attributes:
      states: the game's State with leading axis [N].
      keys: uint32[N, 2], each position's table key.
      value: float32[N], V from the view of the position's player to move.
      visits: int32[N], the table's visits plus this search's.
      base_visits: int32[N], the visits the table had when the position entered the tree.
      children: int32[N, A], a child's index, -1 while it is not in the tree.
      num_nodes: int32[], positions in use.
    """

    states: State
    keys: Array
    value: Array
    visits: Array
    base_visits: Array
    children: Array
    num_nodes: Array


def td_backup(
    value: Array, visits: Array, *, length: Array, leaf_return: Array, gamma: float, floor: float
) -> tuple[Array, Array]:
    """The TD backup along one path, leaf first.

    Args:
      value: float32[D], V of the path's positions, root first; entries from ``length`` on
        are ignored and returned unchanged.
      visits: int32[D], their visits before this simulation.
      length: int32[], the positions on the path (the leaf is ``length - 1``).
      leaf_return: float32[], the leaf's target: the playout's outcome for the leaf's
        player to move times ``gamma ** steps``.
      gamma: the discount, in [0, 1].
      floor: the learning-rate floor ``a`` in ``alpha = max(1 / visits, a)``.

    Returns:
      ``(value, visits)`` after the backup: each position on the path visited once more,
      the leaf moved towards ``leaf_return`` and every parent towards ``-gamma V(child)``.
    """
    size = value.shape[0]

    def body(i, carry):
        value, visits, target = carry
        k = size - 1 - i
        active = k < length
        target = jnp.where(k == length - 1, leaf_return, target)
        count = visits[k] + 1
        alpha = jnp.maximum(1.0 / count, floor)
        new = value[k] + alpha * (target - value[k])
        value = value.at[k].set(jnp.where(active, new, value[k]))
        visits = visits.at[k].set(jnp.where(active, count, visits[k]))
        return value, visits, jnp.where(active, -gamma * new, target)

    init = (value.astype(jnp.float32), visits, jnp.float32(0.0))
    value, visits, _ = jax.lax.fori_loop(0, size, body, init)
    return value, visits


def _check(num_simulations, exploration, gamma, floor) -> None:
    def number(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    if not isinstance(num_simulations, int) or isinstance(num_simulations, bool):
        raise ValueError(f"num_simulations must be an int >= 1, got {num_simulations!r}.")
    if num_simulations < 1:
        raise ValueError(f"num_simulations must be an int >= 1, got {num_simulations!r}.")
    if not number(exploration) or not exploration >= 0:
        raise ValueError(f"exploration must be a number >= 0, got {exploration!r}.")
    if not number(gamma) or not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be a number in [0, 1], got {gamma!r}.")
    if not number(floor) or not 0 <= floor <= 1:
        raise ValueError(f"learning_rate_floor must be a number in [0, 1], got {floor!r}.")


class Settings(NamedTuple):
    """The static settings of one TD-MCTS (Python values, never traced)."""

    game: Game
    final_playout: Callable  # rollout_mcts.make_final_playout(game)
    num_simulations: int
    exploration: float
    gamma: float
    floor: float
    size: int  # positions a tree holds


class TDSearch(struct.PyTreeNode):
    """The pure functions of one TD-MCTS configuration (built by ``make_tdmcts``).

    Attributes:
      search: ``(table, key, state) -> Tree``, one search of one (unbatched) state.
      best_action: ``(table, key, tree) -> int32[]``, the tree policy with exploration 0.
      act_fn: ``(table, key, states[B]) -> int32[B]``, tournament mode (reads only).
      search_and_learn: ``(table, key, states[B], learn bool[B]) -> (table, int32[B])``,
        training mode: the moves, and the table with the ``learn`` games' trees merged.
    """

    search: Callable = struct.field(pytree_node=False)
    best_action: Callable = struct.field(pytree_node=False)
    act_fn: Callable = struct.field(pytree_node=False)
    search_and_learn: Callable = struct.field(pytree_node=False)


def make_tdmcts(
    game: Game,
    *,
    num_simulations: int,
    exploration: float = DEFAULT_EXPLORATION,
    gamma: float = DEFAULT_GAMMA,
    learning_rate_floor: float = DEFAULT_FLOOR,
) -> TDSearch:
    """Builds TD-MCTS for ``game``; the caller jits.

    Args:
      game: the game.
      num_simulations: simulations per move (a static int >= 1).
      exploration: UCT's ``c`` (>= 0) on values in [-1, 1], as ``mcts:n``'s.
      gamma: the discount per move, in [0, 1].
      learning_rate_floor: ``a`` in ``alpha = max(1 / visits, a)``, in [0, 1].

    Returns:
      The search's functions (``TDSearch``).

    Raises:
      ValueError: for a setting out of range.
    """
    _check(num_simulations, exploration, gamma, learning_rate_floor)
    check_simulations(game, num_simulations)  # its tree holds about as much as mctx's
    settings = Settings(
        game=game,
        final_playout=make_final_playout(game),
        num_simulations=num_simulations,
        exploration=float(exploration),
        gamma=float(gamma),
        floor=float(learning_rate_floor),
        size=1 + num_simulations * min(game.max_num_moves, MAX_NODES_PER_SIMULATION),
    )
    return TDSearch(
        functools.partial(search, settings),
        functools.partial(best_action, settings),
        functools.partial(act, settings),
        functools.partial(search_and_learn, settings),
    )


def _root_tree(s: Settings, table: td_table.ValueTable, state: State) -> Tree:
    key = td_table.position_key(state)
    value, visits = td_table.lookup(table, key)
    size, num_actions = s.size, s.game.num_actions
    return Tree(
        states=jax.tree.map(lambda x: jnp.broadcast_to(x, (size, *x.shape)), state),
        keys=jnp.zeros((size, 2), jnp.uint32).at[0].set(key),
        value=jnp.zeros((size,), jnp.float32).at[0].set(value),
        visits=jnp.zeros((size,), jnp.int32).at[0].set(visits),
        base_visits=jnp.zeros((size,), jnp.int32).at[0].set(visits),
        children=jnp.full((size, num_actions), -1, jnp.int32),
        num_nodes=jnp.int32(1),
    )


def _children(s: Settings, table: td_table.ValueTable, tree: Tree, node: Array):
    """Each child's (state, key, V, visits) of ``node``: from the tree, else the table."""
    actions = jnp.arange(s.game.num_actions, dtype=jnp.int32)
    state = jax.tree.map(lambda x: x[node], tree.states)
    states = jax.vmap(s.game.step, in_axes=(None, 0))(state, actions)
    keys = jax.vmap(td_table.position_key)(states)
    value, visits = jax.vmap(td_table.lookup, in_axes=(None, 0))(table, keys)
    index = tree.children[node]
    inside, safe = index >= 0, jnp.maximum(index, 0)
    value = jnp.where(inside, tree.value[safe], value)
    visits = jnp.where(inside, tree.visits[safe], visits)
    return state, states, keys, value, visits


def _choose(game: Game, key: PRNGKey, state, value, visits, parent_visits, c) -> Array:
    """UCT (``c > 0``) or the final move (``c = 0``: unvisited children count as 0)."""
    legal = game.legal_action_mask(state)
    bonus = jnp.sqrt(jnp.log(jnp.maximum(parent_visits, 1)) / jnp.maximum(visits, 1))
    unvisited = jnp.where(c > 0, _UNVISITED, 0.0)
    score = jnp.where(visits > 0, -value + c * bonus, unvisited)
    score = score + 1e-6 * jax.random.uniform(key, score.shape)
    return jnp.argmax(jnp.where(legal, score, -jnp.inf)).astype(jnp.int32)


def _descend_step(s: Settings, table: td_table.ValueTable, carry):
    """One step of the selection: the chosen child is added to the tree if new."""
    tree, path, length, _, key = carry
    size, depth = s.size, s.game.max_num_moves + 1
    key, choice_key = jax.random.split(key)
    node = path[length - 1]
    state, states, keys, value, visits = _children(s, table, tree, node)
    action = _choose(s.game, choice_key, state, value, visits, tree.visits[node], s.exploration)
    existing = tree.children[node, action]
    add = (existing < 0) & (tree.num_nodes < size)
    new = jnp.where(add, tree.num_nodes, size)  # ``size`` is dropped by the writes
    child = jnp.where(existing >= 0, existing, new)
    base = jnp.where(existing >= 0, 0, visits[action])
    at = lambda x, y: x.at[new].set(y, mode="drop")  # noqa: E731
    tree = tree.replace(
        states=jax.tree.map(lambda x, y: at(x, y[action]), tree.states, states),
        keys=at(tree.keys, keys[action]),
        value=at(tree.value, value[action]),
        visits=at(tree.visits, base),
        base_visits=at(tree.base_visits, base),
        children=tree.children.at[node, action].set(jnp.where(add, new, existing)),
        num_nodes=tree.num_nodes + add.astype(jnp.int32),
    )
    moved = child < size
    path = path.at[length].set(jnp.where(moved, child, size), mode="drop")
    length = length + moved.astype(jnp.int32)
    over = jax.tree.map(lambda x: x[action], states).terminal
    done = ~moved | (add & (base == 0)) | over | (length >= depth)
    return tree, path, length, done, key


def _descend(s: Settings, table: td_table.ValueTable, tree: Tree, key: PRNGKey):
    """Adds the positions the selection reaches; returns the tree and its path."""
    path = jnp.full((s.game.max_num_moves + 1,), s.size, jnp.int32).at[0].set(0)
    init = (tree, path, jnp.int32(1), tree.states.terminal[0], key)
    step = functools.partial(_descend_step, s, table)
    tree, path, length, _, _ = jax.lax.while_loop(lambda carry: ~carry[3], step, init)
    return tree, path, length


def _simulate(s: Settings, table: td_table.ValueTable, tree: Tree, key: PRNGKey) -> Tree:
    descend_key, playout_key = jax.random.split(key)
    tree, path, length = _descend(s, table, tree, descend_key)
    leaf = jax.tree.map(lambda x: x[path[length - 1]], tree.states)
    final = s.final_playout(playout_key, jax.tree.map(lambda x: x[None], leaf))
    outcome = final.rewards[0, leaf.current_player]
    steps = (final.num_moves[0] - leaf.num_moves).astype(jnp.float32)
    value, visits = td_backup(
        tree.value[path],
        tree.visits[path],
        length=length,
        leaf_return=outcome * s.gamma**steps,
        gamma=s.gamma,
        floor=s.floor,
    )
    return tree.replace(
        value=tree.value.at[path].set(value, mode="drop"),
        visits=tree.visits.at[path].set(visits, mode="drop"),
    )


def search(s: Settings, table: td_table.ValueTable, key: PRNGKey, state: State) -> Tree:
    """``s.num_simulations`` simulations from one (unbatched) ``state``."""
    tree = _root_tree(s, table, state)
    keys = jax.random.split(key, s.num_simulations)
    simulate = lambda i, tree: _simulate(s, table, tree, keys[i])  # noqa: E731
    return jax.lax.fori_loop(0, s.num_simulations, simulate, tree)


def best_action(s: Settings, table: td_table.ValueTable, key: PRNGKey, tree: Tree) -> Array:
    """int32[]: the legal root child of best ``-V``."""
    state, _, _, value, visits = _children(s, table, tree, 0)
    return _choose(s.game, key, state, value, visits, tree.visits[0], 0.0)


def _search_batch(s: Settings, table: td_table.ValueTable, key: PRNGKey, states: State):
    keys = jax.random.split(key, (2, states.terminal.shape[0]))
    one_search, one_move = functools.partial(search, s), functools.partial(best_action, s)
    trees = jax.vmap(one_search, in_axes=(None, 0, 0))(table, keys[0], states)
    moves = jax.vmap(one_move, in_axes=(None, 0, 0))(table, keys[1], trees)
    return trees, moves


def act(s: Settings, table: td_table.ValueTable, key: PRNGKey, states: State) -> Array:
    """int32[B]: tournament mode's moves; the table is only read."""
    return _search_batch(s, table, key, states)[1]


def search_and_learn(
    s: Settings, table: td_table.ValueTable, key: PRNGKey, states: State, learn: Array
) -> tuple[td_table.ValueTable, Array]:
    """``(table, int32[B])``: the moves, and the table with the trees of the ``learn``
    games (bool[B], finished ones left out) merged into it."""
    trees, moves = _search_batch(s, table, key, states)
    learn = learn & ~states.terminal
    used = jnp.arange(s.size)[None, :] < trees.num_nodes[:, None]
    added = jnp.where(learn[:, None] & used, trees.visits - trees.base_visits, 0)
    table = td_table.merge(
        table, trees.keys.reshape(-1, 2), trees.value.reshape(-1), added.reshape(-1)
    )
    return table, moves
