"""A search rule of one's own, registered as the search policy ``"forced_playouts"``: forced
playouts and policy target pruning (Wu, 2019) on ``mctx.search``, with a switch of its own.

The package ships the rule as the policy ``puct_forced``
(``alphazero_jax.search.forced_playouts``); this module assembles a policy from the same
parts, as a variant would: the root noise and ``mctx.search`` are written out, the forced
child (``forced_child``) and the pruned target (``pruned_target``) are the package's, and
``prune=False`` keeps the raw visit counts as the policy target, to measure what the
pruning buys.
"""

import functools

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax import search
from alphazero_jax.search.forced_playouts import forced_child, pruned_target


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
    puct = functools.partial(
        mctx.muzero_action_selection,
        pb_c_init=c_puct,
        pb_c_base=c_puct_base,
        qtransform=search.qtransform_alphazero,
    )

    def root_action(key, tree, node_index):  # one position's tree (mctx vmaps it)
        prior = jax.nn.softmax(tree.children_prior_logits[node_index])
        valid = ~tree.root_invalid_actions
        visits = tree.children_visits[node_index]
        lacking, child = forced_child(visits, prior, valid, forced_k=forced_k)
        return jnp.where(lacking, child, puct(key, tree, node_index, 0))

    def target(tree):  # float32[B, A]: the policy target
        root = mctx.Tree.ROOT_INDEX
        visits = tree.children_visits[:, root]
        if not prune:
            return visits / jnp.maximum(visits.sum(-1, keepdims=True), 1)
        return pruned_target(
            visits,
            jax.nn.softmax(tree.children_prior_logits[:, root]),
            jax.vmap(search.qtransform_alphazero, in_axes=(0, None))(tree, root),
            tree.node_visits[:, root],
            c_puct=c_puct,
            c_puct_base=c_puct_base,
            forced_k=forced_k,
        )

    def run(variables, key, states):
        noise_key, search_key, action_key = jax.random.split(key, 3)
        root = root_fn(variables, states)
        legal = jax.vmap(game.legal_action_mask)(states)
        invalid = ~legal & legal.any(axis=-1, keepdims=True)
        noise = jax.random.dirichlet(
            noise_key, jnp.full(legal.shape[-1], dirichlet_alpha), (legal.shape[0],)
        )
        prior = (1 - dirichlet_fraction) * jax.nn.softmax(root.prior_logits) + (
            dirichlet_fraction * noise
        )
        root = root.replace(prior_logits=search.mask_logits(jnp.log(prior), ~invalid))
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
