"""Depth-limited alpha-beta (negamax) with the game's heuristic, in JAX.

One search per state, written unbatched and vmapped: an explicit stack of ``depth - 1``
levels inside a ``lax.while_loop``, so shapes stay fixed while whole subtrees are pruned.
Each loop iteration enters one child of the node on top of the stack, or returns from it.

Values are negamax values, from the view of the player to move at a node:

- a finished game is worth its exact outcome, scaled so that an earlier end counts more:
  ``outcome * (2 - ply / (depth + 1))``, which lies in ``[1 + 1 / (depth + 1), 2]`` for a
  win. Faster wins and slower losses are preferred, and any outcome outweighs the
  heuristic, which the game contract bounds inside ``(-1, 1)``;
- a position ``depth`` plies below the root is worth ``game.heuristic``.

A node one ply above the horizon is valued in one vectorised sweep over all its children
(no pruning there, the same result). Children are tried in the order of their heuristic
value, the best-looking first, which makes the cut-offs frequent.

At the root every move that might tie the best one is searched with a window widened by
``_TIE_MARGIN``, so each best move's value is exact and the choice among equal moves is
uniformly random: the result is the move set of a full-width minimax, with alpha-beta's
cost.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from flax import struct

from alphazero_jax.types import Array, Game, State

_INFINITY = 1e9  # finite, so that no window arithmetic can produce NaN
_TIE_MARGIN = 1e-4  # root window widening: moves within this of the best stay exact
_TIE_TOLERANCE = 1e-5  # moves this close to the best one count as equal (float noise)


@struct.dataclass
class _Stack:
    """The search of one root: the path from the root to the node being expanded.

    ``S = max(depth - 1, 1)`` levels; level ``l`` holds a node ``l`` plies below the root.
    """

    states: State  # [S] the nodes on the path
    order: Array  # int32[S, A]: children to try, best-looking first (legal ones first)
    num_legal: Array  # int32[S]
    next: Array  # int32[S]: index into ``order`` of the next child to try
    alpha: Array  # float32[S]
    beta: Array  # float32[S]
    best: Array  # float32[S]: the best child value found so far (fail-soft)
    level: Array  # int32[]: the top of the stack
    root_action: Array  # int32[]: the root move whose subtree is being searched
    root_values: Array  # float32[A]: exact for the best moves, upper bounds for the rest
    done: Array  # bool[]


def _take(tree, index):
    return jax.tree.map(lambda x: x[index], tree)


def _put(tree, index, value):
    return jax.tree.map(lambda x, v: x.at[index].set(v), tree, value)


def make_negamax(game: Game, *, depth: int) -> Callable[[State], tuple[Array, Array]]:
    """Builds ``root_values(state) -> (values float32[A], legal bool[A])``, unbatched.

    ``values[a]`` is the negamax value of move ``a`` from the mover's view, exact for every
    move within ``_TIE_MARGIN`` of the best one and an upper bound (at most the best minus
    the margin) for the others; illegal moves are ``-inf``-like.

    Args:
      game: the game; its ``heuristic`` values positions at the horizon.
      depth: plies to look ahead, an int from 1 to ``game.max_num_moves`` (its search
        stack of ``depth - 1`` positions is allocated; its time grows as the number of
        legal moves to the power ``depth / 2`` or more).
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"depth must be an int >= 1, got {depth!r}.")
    if depth > game.max_num_moves:  # deeper reads nothing more, and its stack is allocated
        raise ValueError(
            f"depth must be at most the game's longest game, {game.max_num_moves} plies, "
            f"got {depth}."
        )
    num_actions = game.num_actions
    actions = jnp.arange(num_actions, dtype=jnp.int32)
    num_levels = max(depth - 1, 1)

    def end_value(state: State, ply: Array) -> Array:
        """The value of ``state``, ``ply`` plies below the root, if it is a leaf."""
        value = game.heuristic(state)
        scale = 2.0 - ply.astype(jnp.float32) / (depth + 1)
        return jnp.where(state.terminal, value * scale, value)

    def look(state: State, ply: Array):
        """One sweep over the children of ``state`` (at ``ply``): its full-width value if
        its children are at the horizon, and the order to try them in."""
        children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
        legal = game.legal_action_mask(state)
        child_values = jax.vmap(end_value, in_axes=(0, None))(children, ply + 1)
        value = jnp.max(jnp.where(legal, -child_values, -_INFINITY))
        order = jnp.argsort(jnp.where(legal, child_values, _INFINITY)).astype(jnp.int32)
        return value, order, legal.sum().astype(jnp.int32)

    def enter(child: State, ply: Array):
        """A node reached at ``ply``: its value, unless it must be pushed and searched."""
        swept, order, num_legal = look(child, ply)
        leaf = child.terminal | (ply >= depth)
        value = jnp.where(leaf, end_value(child, ply), swept)
        push = ~child.terminal & (ply < depth - 1)
        return value, push, order, num_legal

    def body(stack: _Stack) -> _Stack:
        level = stack.level
        node = _take(stack.states, level)
        index = stack.next[level]
        expand = (index < stack.num_legal[level]) & (stack.alpha[level] < stack.beta[level])
        action = stack.order[level, jnp.minimum(index, num_actions - 1)]
        child = game.step(node, action)
        value, push, order, num_legal = enter(child, level + 1)
        # The root searches with its window widened by the tie margin (see module doc).
        window_alpha = stack.alpha[level] - jnp.where(level == 0, _TIE_MARGIN, 0.0)
        root_action = jnp.where(level == 0, action, stack.root_action)

        # Expand: a leaf child folds into this node at once; another is pushed.
        stack = stack.replace(next=jnp.where(expand, stack.next.at[level].add(1), stack.next))
        stack = _fold(stack, level, -value, root_action, expand & ~push)
        pushed = _push(stack, level, child, order, num_legal, window_alpha, root_action)
        # Return: this node's value folds into its parent; at the root the search ends.
        parent = jnp.maximum(level - 1, 0)
        popped = _fold(stack, parent, -stack.best[level], stack.root_action, level > 0)
        popped = popped.replace(level=parent, done=level == 0)
        return jax.tree.map(
            lambda p, q, r: jnp.where(expand, jnp.where(push, p, q), r), pushed, stack, popped
        )

    def root_values(state: State) -> tuple[Array, Array]:
        legal = game.legal_action_mask(state)
        _, order, num_legal = look(state, jnp.int32(0))
        stack = _root_stack(state, order, num_legal, num_levels, num_actions)
        stack = jax.lax.while_loop(lambda s: ~s.done, body, stack)
        return jnp.where(legal, stack.root_values, -_INFINITY), legal

    return root_values


def _fold(stack: _Stack, level: Array, value: Array, root_action: Array, active: Array):
    """A child's value (from ``level``'s view) reaches the node at ``level``."""
    best = jnp.maximum(stack.best[level], value)
    alpha = jnp.maximum(stack.alpha[level], value)
    root_values = jnp.where(
        active & (level == 0), stack.root_values.at[root_action].set(value), stack.root_values
    )
    return stack.replace(
        best=jnp.where(active, stack.best.at[level].set(best), stack.best),
        alpha=jnp.where(active, stack.alpha.at[level].set(alpha), stack.alpha),
        root_values=root_values,
    )


def _push(stack: _Stack, level, child, order, num_legal, window_alpha, root_action) -> _Stack:
    """``child`` of the node at ``level`` pushed as the node to search next, with the
    negated window."""
    return stack.replace(
        states=_put(stack.states, level + 1, child),
        order=stack.order.at[level + 1].set(order),
        num_legal=stack.num_legal.at[level + 1].set(num_legal),
        next=stack.next.at[level + 1].set(0),
        alpha=stack.alpha.at[level + 1].set(-stack.beta[level]),
        beta=stack.beta.at[level + 1].set(-window_alpha),
        best=stack.best.at[level + 1].set(-_INFINITY),
        level=level + 1,
        root_action=root_action,
    )


def _root_stack(state: State, order, num_legal, num_levels: int, num_actions: int) -> _Stack:
    """The search stack with the root ``state`` at level 0, its children in ``order``."""
    states = jax.tree.map(lambda x: jnp.broadcast_to(x, (num_levels, *x.shape)), state)
    return _Stack(
        states=states,
        order=jnp.zeros((num_levels, num_actions), jnp.int32).at[0].set(order),
        num_legal=jnp.zeros(num_levels, jnp.int32).at[0].set(num_legal),
        next=jnp.zeros(num_levels, jnp.int32),
        alpha=jnp.full(num_levels, -_INFINITY),
        beta=jnp.full(num_levels, _INFINITY),
        best=jnp.full(num_levels, -_INFINITY),
        level=jnp.int32(0),
        root_action=jnp.int32(0),
        root_values=jnp.full(num_actions, -_INFINITY),
        done=state.terminal,
    )


def best_moves(values: Array, legal: Array) -> Array:
    """bool[..., A]: the legal moves whose value ties the best one."""
    best = jnp.max(jnp.where(legal, values, -_INFINITY), axis=-1, keepdims=True)
    return legal & (values >= best - _TIE_TOLERANCE)
