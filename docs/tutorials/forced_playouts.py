"""A search rule of one's own, registered as the search policy ``"forced_playouts"``: forced
playouts and policy target pruning (Wu, 2019) on ``mctx.search``, with a switch of its own.

The package ships the rule as the policy ``puct_forced``
(``alphazero_jax.search.forced_playouts``); this module assembles a policy from the same
parts, as a variant would: ``mctx.search`` is written out, the root noise (``noisy_root``), the
root's rule (``forced_root_selection``) and the pruned target (``tree_target``) are the package's,
and ``prune=False`` keeps the raw visit counts as the policy target, to measure what the
pruning buys.
"""

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax import search
from alphazero_jax.search import forced_playouts


def make_forced_playouts(
    game,
    apply_fn,
    *,
    num_simulations: int = 64,
    discount: float = 1.0,
    heuristic_weight: float = 0.0,
    c_puct: float = 1.25,
    c_puct_base: float = 19652.0,
    dirichlet_alpha: float = 0.3,
    dirichlet_fraction: float = 0.25,
    forced_k: float = 2.0,
    prune: bool = True,
):
    """``search(variables, key, states) -> mctx.PolicyOutput`` with forced playouts at the
    root and, if ``prune``, the pruned visit counts as ``action_weights`` (the policy
    target), else the visit counts."""
    root_fn = search.make_root_fn(game, apply_fn, heuristic_weight=heuristic_weight)
    recurrent_fn = search.make_recurrent_fn(
        game, apply_fn, discount=discount, heuristic_weight=heuristic_weight
    )
    puct = forced_playouts.puct_selection(c_puct=c_puct, c_puct_base=c_puct_base)
    root_action = forced_playouts.forced_root_selection(puct, forced_k=forced_k)

    def target(tree):  # float32[B, A]: the policy target
        if prune:
            return forced_playouts.tree_target(
                tree, c_puct=c_puct, c_puct_base=c_puct_base, forced_k=forced_k
            )
        visits = tree.children_visits[:, mctx.Tree.ROOT_INDEX]
        return visits / jnp.maximum(visits.sum(-1, keepdims=True), 1)

    def run(variables, key, states):
        noise_key, search_key, action_key = jax.random.split(key, 3)
        root = root_fn(variables, states)
        legal = jax.vmap(game.legal_action_mask)(states)
        invalid = ~legal & legal.any(axis=-1, keepdims=True)
        root = forced_playouts.noisy_root(
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
        weights = target(tree)
        logits = jnp.where(weights > 0, jnp.log(jnp.maximum(weights, 1e-30)), -jnp.inf)
        action = jax.random.categorical(action_key, logits).astype(jnp.int32)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=tree)

    return run


# The move rule: mctx's ``action`` (sampled from the target) in the opening plies, the most
# weighted move after: ``search.policies.choose_by_visits``, the default.
search.register("forced_playouts", make_forced_playouts)
