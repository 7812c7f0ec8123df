"""The rollout MCTS baseline: UCT with uniform priors and random-playout values, no network.

The classic player of the literature (e.g. AlphaZero.jl's "MCTS with 1000 rollouts"), built
on ``mctx.search``. The tree's embedding is the batched game State and ``recurrent_fn``
keeps ``search.make_recurrent_fn``'s conventions: the reward is for the player who moved,
the discount is -1 (a node's value is from the view of its player to move) and 0 once the
game is over, where the value is 0 too. A new non-terminal node is valued by ONE uniformly
random playout from it: +1 / 0 / -1 for a win / draw / loss of its player to move.

Selection is UCB1 at every node: an unvisited legal child first (ties broken at random),
then the legal child maximising ``Q + exploration * sqrt(log(N) / n)``, with ``Q`` from
``tree.qvalues`` (in [-1, 1], the choosing player's view), ``N`` the node's visits and
``n`` the child's. Legal children are those whose prior logit is not masked, so an illegal
move is never chosen. A node with no legal move (a finished game) treats every action as
legal: stepping a finished game leaves it unchanged with zero reward, discount and value,
and the empty nodes mctx adds below it stay a shallow tree. The move played is the most
visited legal root child, ties broken at random (action 0 for a finished game).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax.search.mctx_search import check_simulations, mask_logits
from alphazero_jax.types import Array, Game, PRNGKey, State

ActFn = Callable[[Any, PRNGKey, State], Array]

_LOWEST = jnp.finfo(jnp.float32).min
_UNVISITED_BONUS = 1e6  # Above any UCB score of a visited child (|Q| <= 1, bonus finite).
# UCB1's constant for Q in [-1, 1]. At 200 simulations on Connect Four every c in
# {0.5, 1, 2, 2.83} won 100 of 100 games against random; against c = 1 (100-game matches,
# each side first in half; wins-draws-losses of the other c) 0.5 scored 42-2-56, 0.7
# 44-3-53, 1.4 49-5-46, 2.0 90-5-105 (200 games) and 2.83 (UCB1's sqrt(2) rescaled to
# [-1, 1]) 35-4-61: a broad optimum around 1-1.4.
DEFAULT_EXPLORATION = 1.0


def _uniform_logits(game: Game, states: State) -> Array:
    """float32[B, A]: uniform (zero) prior logits, illegal moves masked."""
    legal = jax.vmap(game.legal_action_mask)(states)
    return mask_logits(jnp.zeros(legal.shape, jnp.float32), legal)


def _pick_legal(game: Game, uniform: Array, states: State) -> Array:
    """int32[B]: the ``floor(uniform * L)``-th of each state's L legal moves (0 when none).

    With ``uniform`` float32[B] in [0, 1) this is a uniformly random legal move, the same
    distribution as ``jax.random.categorical`` over the masked logits for one uniform
    number per state instead of one Gumbel per action (playouts ran ~4x faster).
    """
    legal = jax.vmap(game.legal_action_mask)(states)  # bool[B, A]
    rank = jnp.floor(uniform * legal.sum(axis=-1)).astype(jnp.int32)  # int32[B]
    position = jnp.cumsum(legal, axis=-1) - 1  # int32[B, A]: each legal move's rank
    return jnp.argmax(legal & (position == rank[:, None]), axis=-1).astype(jnp.int32)


def make_final_playout(game: Game) -> Callable[[PRNGKey, State], State]:
    """Builds ``final_playout(key, states[B]) -> State[B]``: the finished games of one
    uniformly random playout from each state (see ``make_playout``)."""

    def final_playout(key: PRNGKey, states: State) -> State:
        uniforms = jax.random.uniform(key, (game.max_num_moves, *states.terminal.shape))

        def unfinished(carry):
            return ~jnp.all(carry[1].terminal)

        def move(carry):
            t, current = carry
            action = _pick_legal(game, uniforms[t], current)
            return t + 1, jax.vmap(game.step)(current, action)

        return jax.lax.while_loop(unfinished, move, (0, states))[1]

    return final_playout


def make_playout(game: Game) -> Callable[[PRNGKey, State], Array]:
    """Builds ``playout(key, states[B]) -> float32[B]``, one uniformly random game each.

    The playout is a ``lax.while_loop`` that runs until every game of the batch is over,
    drawing its random numbers float32[max_num_moves, B] before the loop (~1.7x faster
    than a key split per move). On Connect Four it was as fast as a ``lax.scan`` of
    ``game.max_num_moves`` moves from the opening and faster from later positions. Its
    result is the final outcome from the view of each state's player to move: +1 win,
    0 draw, -1 loss (exact for a finished game).
    """
    final_playout = make_final_playout(game)

    def playout(key: PRNGKey, states: State) -> Array:
        final = final_playout(key, states)
        mover = states.current_player[:, None]
        return jnp.take_along_axis(final.rewards, mover, axis=1)[:, 0].astype(jnp.float32)

    return playout


def make_recurrent_fn(game: Game) -> Callable:
    """mctx's ``recurrent_fn(params, key, action[B], states[B]) -> (output, states)``.

    As ``search.make_recurrent_fn``, with uniform priors and a random playout's outcome as
    the value of a new non-terminal node; ``params`` is ignored.
    """
    playout = make_playout(game)

    def recurrent_fn(params, key: PRNGKey, action: Array, states: State):
        del params
        next_states = jax.vmap(game.step)(states, action)
        mover = states.current_player[:, None]
        reward = jnp.take_along_axis(next_states.rewards, mover, axis=1)[:, 0]
        reward = jnp.where(states.terminal, 0.0, reward)  # Nothing happens after the end.
        over = next_states.terminal
        output = mctx.RecurrentFnOutput(
            reward=reward.astype(jnp.float32),
            discount=jnp.where(over, 0.0, -1.0).astype(jnp.float32),
            prior_logits=_uniform_logits(game, next_states),
            value=jnp.where(over, 0.0, playout(key, next_states)),
        )
        return output, next_states

    return recurrent_fn


def make_ucb_selection(*, exploration: float) -> Callable:
    """Builds mctx's interior selection ``(key, tree, node_index, depth) -> int32[]``.

    UCB1 over the legal children of one node of an unbatched ``tree``: unvisited legal
    children first (in random order), then ``argmax Q + exploration * sqrt(log N / n)``.
    A child is legal when its prior logit is not masked and, at the root, when mctx's
    ``root_invalid_actions`` allows it.
    """

    def select(key: PRNGKey, tree: mctx.Tree, node_index: Array, depth: Array) -> Array:
        legal = tree.children_prior_logits[node_index] > _LOWEST  # bool[A]
        legal = legal & ((depth > 0) | (tree.root_invalid_actions == 0))
        # A finished game's node has no legal move. Treating all its (empty, zero-valued)
        # children as legal keeps the nodes mctx adds below it a shallow balanced tree;
        # always choosing one action would grow a chain that each revisit walks to its
        # end (7.5 s instead of 0.5 s per move, batch 256, from a Connect Four position
        # where wins are in sight).
        legal = legal | ~legal.any()
        visits = tree.children_visits[node_index].astype(jnp.float32)  # float32[A]
        parent_visits = jnp.maximum(tree.node_visits[node_index], 1).astype(jnp.float32)
        bonus = jnp.sqrt(jnp.log(parent_visits) / jnp.maximum(visits, 1.0))
        ucb = tree.qvalues(node_index) + exploration * bonus
        score = jnp.where(visits > 0, ucb, _UNVISITED_BONUS)
        score = score + 1e-6 * jax.random.uniform(key, score.shape)  # Random tie-breaking.
        return jnp.argmax(jnp.where(legal, score, -jnp.inf)).astype(jnp.int32)

    return select


def _most_visited(key: PRNGKey, visits: Array, legal: Array) -> Array:
    """int32[B]: the most visited legal move (ties at random); 0 where none is legal."""
    noisy = visits.astype(jnp.float32) + jax.random.uniform(key, visits.shape, maxval=0.5)
    best = jnp.argmax(jnp.where(legal, noisy, -1.0), axis=-1)
    return jnp.where(legal.any(axis=-1), best, 0).astype(jnp.int32)


def _check_settings(num_simulations: int, exploration: float) -> None:
    """Raises ValueError unless num_simulations is an int >= 1 and exploration a number > 0."""
    is_int = isinstance(num_simulations, int) and not isinstance(num_simulations, bool)
    if not is_int or num_simulations < 1:
        raise ValueError(f"num_simulations must be an int >= 1, got {num_simulations!r}.")
    is_number = isinstance(exploration, (int, float)) and not isinstance(exploration, bool)
    if not is_number or not exploration > 0:  # ``not > 0`` also rejects NaN.
        raise ValueError(f"exploration must be a number > 0, got {exploration!r}.")


def make_search(
    game: Game, *, num_simulations: int, exploration: float = DEFAULT_EXPLORATION
) -> Callable[[PRNGKey, State], mctx.Tree]:
    """Builds ``search(key, states[B]) -> mctx.Tree``, the rollout UCT search itself.

    Args:
      game: the game; its batched State is the tree's embedding.
      num_simulations: simulations per search (a static int, >= 1).
      exploration: UCB1's constant (see ``make_rollout_mcts``).

    Returns:
      The search function; its tree holds ``num_simulations + 1`` nodes per state, root
      visits in ``tree.children_visits[:, 0]`` (int32[B, A]). The caller jits it.

    Raises:
      ValueError: for a bad ``num_simulations`` or ``exploration``.
    """
    _check_settings(num_simulations, exploration)
    check_simulations(game, num_simulations)
    recurrent_fn = make_recurrent_fn(game)
    playout = make_playout(game)
    select = make_ucb_selection(exploration=float(exploration))

    def search(key: PRNGKey, states: State) -> mctx.Tree:
        root_key, search_key = jax.random.split(key)
        legal = jax.vmap(game.legal_action_mask)(states)
        root = mctx.RootFnOutput(
            prior_logits=_uniform_logits(game, states),
            value=playout(root_key, states),
            embedding=states,
        )
        return mctx.search(
            params=None,
            rng_key=search_key,
            root=root,
            recurrent_fn=recurrent_fn,
            root_action_selection_fn=lambda k, tree, i: select(k, tree, i, jnp.int32(0)),
            interior_action_selection_fn=select,
            num_simulations=num_simulations,
            # A finished game has no legal move; its (ignored) search sees all as legal.
            invalid_actions=~legal & legal.any(axis=-1, keepdims=True),
        )

    return search


def make_rollout_mcts(
    game: Game, *, num_simulations: int, exploration: float = DEFAULT_EXPLORATION
) -> ActFn:
    """Builds the rollout MCTS player ``act_fn(params, key, states[B]) -> int32[B]``.

    Args:
      game: the game; its batched State is the tree's embedding.
      num_simulations: simulations per move (a static int, >= 1); each adds one node
        valued by one random playout.
      exploration: UCB1's constant ``c`` in ``Q + c * sqrt(log N / n)``, ``Q`` in [-1, 1]
        (> 0). UCB1's textbook ``sqrt(2)`` is for rewards in [0, 1], i.e. ``2 * sqrt(2)``
        on our [-1, 1] scale; the default 1.0 explores less, which played best at 200
        simulations on Connect Four (see ``DEFAULT_EXPLORATION``).

    Returns:
      ``act_fn`` matching ``types.Agent.act_fn``: ``params`` is ignored (pass ``None``),
      ``key`` is a PRNG key and ``states`` a batch of the game's State. It returns
      int32[B], the most visited legal root move of each state, ties broken at random, and
      0 for a finished game. The caller jits it; new keys do not recompile.

    Raises:
      ValueError: when ``num_simulations`` is not an int >= 1 or ``exploration`` is not a
        number > 0.
    """
    search = make_search(game, num_simulations=num_simulations, exploration=exploration)

    def act_fn(params, key: PRNGKey, states: State) -> Array:
        del params  # No network.
        search_key, choice_key = jax.random.split(key)
        tree = search(search_key, states)
        legal = jax.vmap(game.legal_action_mask)(states)
        return _most_visited(choice_key, tree.children_visits[:, mctx.Tree.ROOT_INDEX], legal)

    return act_fn
