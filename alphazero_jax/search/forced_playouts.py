"""Forced playouts and policy target pruning (Wu (2019), KataGo), the search policy
``puct_forced``: AlphaZero's PUCT on ``mctx.search`` with two changes at the root.

- Forced playouts: in self-play (root noise on), a root child ``c`` whose visits are below
  ``sqrt(k * P(c) * N)`` (``P`` the noisy prior, ``N`` the root's children's visits so
  far, ``k = forced_k``) is searched next, so that a move the noise favours gets enough
  playouts to show whether it is good; the rest of the search is PUCT.
- Policy target pruning: the forced playouts would teach the policy moves the search
  found bad, so the policy target (``action_weights``) takes them back: every child but
  the most visited one ``c*`` loses up to its forced playouts, as long as its PUCT score
  with fewer visits stays below ``c*``'s, and a child left with a single visit is dropped.

Wu (2019) measures the two together worth 1.25x less self-play to the same strength in Go.
With the root noise off (``dirichlet_fraction = 0``: agents and evaluations play) nothing
is forced and the search is ``puct``'s, its target the pruned visits. The move rule is
PUCT's (``choose_by_visits``): sampled from the target in the opening plies, else the
most weighted move. So a trained network plays under it move for move as under ``puct``
(pruning never lowers the most visited move), and the offline page plays its runs with its
PUCT search (``page="puct"``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax.search import mctx_search, policies
from alphazero_jax.search.policies import SearchFn
from alphazero_jax.types import Array, Game, State


def forced_visits(visits: Array, prior: Array, *, forced_k: float) -> Array:
    """float32[..., A]: each root child's forced playouts ``sqrt(k * P(c) * sum(N))``."""
    total = jnp.sum(visits, axis=-1, keepdims=True).astype(jnp.float32)
    return jnp.sqrt(forced_k * prior * total)


def forced_child(visits: Array, prior: Array, valid: Array, *, forced_k: float):
    """``(any, child)``: whether a valid root child has fewer visits than its forced
    playouts, and the one that lacks the most (one position: [A] arrays)."""
    forced = forced_visits(visits, prior, forced_k=forced_k)
    lacking = (visits < forced) & valid
    return lacking.any(), jnp.argmax(jnp.where(lacking, forced - visits, -jnp.inf))


def pruned_target(
    visits: Array,
    prior: Array,
    q: Array,
    node_visits: Array,
    *,
    c_puct: float,
    c_puct_base: float,
    forced_k: float,
) -> Array:
    """float32[B, A]: Wu's pruned policy target from the root's statistics.

    Args:
      visits: [B, A] the root children's visits.
      prior: float32[B, A] the root's (noisy) prior, as PUCT used it.
      q: float32[B, A] the children's values as PUCT scores them (unvisited: the root's).
      node_visits: [B] the root's visits (mctx's ``node_visits``, PUCT's ``N``).
      c_puct, c_puct_base, forced_k: the search's constants.

    Returns:
      The pruned visits, normalised (all zero only where no child was visited). Child
      ``c`` keeps ``max(N(c) - floor(forced(c)), n_min)`` visits, ``n_min`` the fewest with
      which its PUCT score ``q + u * P / (n + 1)`` stays below the most visited child's,
      zero if that leaves one visit; the most visited child keeps all of its own.
    """
    visits = visits.astype(jnp.float32)
    total = node_visits.astype(jnp.float32)[:, None]
    u = jnp.sqrt(total) * (c_puct + jnp.log((total + c_puct_base + 1) / c_puct_base))
    score = q + u * prior / (visits + 1)
    best = jnp.argmax(visits, axis=-1)[:, None]
    gap = jnp.take_along_axis(score, best, axis=-1) - q
    # q + u * P / (n + 1) < best  <=>  n + 1 > u * P / gap  <=>  n >= floor(u * P / gap).
    fewest = jnp.where(gap > 0, jnp.floor(u * prior / jnp.maximum(gap, 1e-9)), visits)
    forced = jnp.floor(forced_visits(visits, prior, forced_k=forced_k))
    kept = jnp.clip(jnp.maximum(visits - forced, fewest), 0.0, visits)
    kept = jnp.where(kept <= 1, 0.0, kept)
    kept = jnp.where(jnp.arange(visits.shape[-1]) == best, visits, kept)
    return kept / jnp.maximum(kept.sum(-1, keepdims=True), 1.0)


def puct_selection(*, c_puct: float, c_puct_base: float) -> Callable:
    """mctx's action selection by AlphaZero's PUCT with these constants (``qtransform_alphazero``):
    ``select(key, tree, node_index, depth) -> action``, the rule below the root."""
    return functools.partial(
        mctx.muzero_action_selection,
        pb_c_init=c_puct,
        pb_c_base=c_puct_base,
        qtransform=mctx_search.qtransform_alphazero,
    )


def forced_root_selection(puct: Callable, *, forced_k: float, forced: bool = True) -> Callable:
    """mctx's root action selection, ``select(key, tree, node_index) -> action`` for one
    position's tree (mctx vmaps it): the child that lacks the most of its forced playouts
    (``forced_child``), else ``puct``'s choice; only ``puct``'s if not ``forced``."""

    def root_action(key: Array, tree: mctx.Tree, node_index: Array) -> Array:
        chosen = puct(key, tree, node_index, 0)
        if not forced:
            return chosen
        prior = jax.nn.softmax(tree.children_prior_logits[node_index])
        valid = ~tree.root_invalid_actions.astype(bool)
        lacking, child = forced_child(
            tree.children_visits[node_index], prior, valid, forced_k=forced_k
        )
        return jnp.where(lacking, child, chosen).astype(jnp.int32)

    return root_action


def tree_target(tree: mctx.Tree, *, c_puct: float, c_puct_base: float, forced_k: float) -> Array:
    """float32[B, A]: ``pruned_target`` of a searched tree's root statistics (its visits,
    its prior and its children's values as PUCT scores them)."""
    index = mctx.Tree.ROOT_INDEX
    q = jax.vmap(mctx_search.qtransform_alphazero, in_axes=(0, None))(tree, index)
    return pruned_target(
        tree.children_visits[:, index],
        jax.nn.softmax(tree.children_prior_logits[:, index]),
        q,
        tree.node_visits[:, index],
        c_puct=c_puct,
        c_puct_base=c_puct_base,
        forced_k=forced_k,
    )


def noisy_root(
    root: mctx.RootFnOutput, invalid: Array, key: Array, *, alpha: float, fraction: float
) -> mctx.RootFnOutput:
    """``root`` with AlphaZero's Dirichlet noise mixed into its legal moves' prior
    (Silver et al., 2018): ``(1 - fraction) P + fraction Dir(alpha)``; unchanged for
    ``fraction`` 0. ``invalid``: bool[B, A], mctx's illegal moves."""
    if not fraction:
        return root
    noise = jax.random.dirichlet(key, jnp.full(invalid.shape[-1], alpha), (invalid.shape[0],))
    mixed = (1 - fraction) * jax.nn.softmax(root.prior_logits) + fraction * noise
    logits = mctx_search.mask_logits(jnp.log(jnp.maximum(mixed, 1e-30)), ~invalid)
    return root.replace(prior_logits=logits)


def make_puct_forced(
    game: Game,
    apply_fn: Callable,
    *,
    num_simulations: int = 64,
    dirichlet_alpha: float = 0.3,
    dirichlet_fraction: float = 0.25,
    c_puct: float = 1.25,
    c_puct_base: float = 19652.0,
    forced_k: float = 2.0,
    discount: float = 1.0,
    heuristic_weight: float = 0.0,
) -> SearchFn:
    """The ``"puct_forced"`` search policy (arguments as ``search.make_search``'s;
    ``forced_k``: the forced playouts' constant ``k``, KataGo's 2)."""
    if not forced_k > 0:
        raise ValueError(f"forced_k must be > 0, got {forced_k!r}.")
    root_fn = mctx_search.make_root_fn(game, apply_fn, heuristic_weight=heuristic_weight)
    recurrent_fn = mctx_search.make_recurrent_fn(
        game, apply_fn, discount=discount, heuristic_weight=heuristic_weight
    )
    puct = puct_selection(c_puct=c_puct, c_puct_base=c_puct_base)
    root_action = forced_root_selection(puct, forced_k=forced_k, forced=bool(dirichlet_fraction))

    def run(variables: dict, key: Array, states: State) -> mctx.PolicyOutput:
        noise_key, search_key, action_key = jax.random.split(key, 3)
        root = root_fn(variables, states)
        invalid = mctx_search._invalid_actions(game, states)
        root = noisy_root(
            root, invalid, noise_key, alpha=dirichlet_alpha, fraction=dirichlet_fraction
        )
        tree = mctx.search(
            params=variables,
            rng_key=search_key,
            root=root,
            recurrent_fn=recurrent_fn,
            root_action_selection_fn=root_action,
            interior_action_selection_fn=puct,
            num_simulations=num_simulations,
            invalid_actions=invalid,
        )
        weights = tree_target(tree, c_puct=c_puct, c_puct_base=c_puct_base, forced_k=forced_k)
        logits = jnp.where(weights > 0, jnp.log(jnp.maximum(weights, 1e-30)), -jnp.inf)
        action = jax.random.categorical(action_key, logits).astype(jnp.int32)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=tree)

    return run


policies.register("puct_forced", make_puct_forced, choose=policies.choose_by_visits, page="puct")
