"""A search rule of one's own: forced playouts and policy target pruning (Wu, 2019), on
``mctx.search``, registered as the search policy ``"forced_playouts"``.

At the root, a child whose visits are below ``sqrt(k * P(c) * N)`` (``N`` the root's
visits so far, ``P`` the noisy prior) is searched next, so that the root noise's picks get
some playouts; elsewhere the search is AlphaZero's PUCT. The forced playouts would teach
the policy to play moves the search found bad, so the policy target prunes them: each child
but the most visited one loses up to its forced playouts, as long as its PUCT score stays
below the best child's, and a child left with a single visit is dropped.
"""

import functools

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax import search


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
):
    """``search(variables, key, states) -> mctx.PolicyOutput`` with forced playouts at the
    root and the pruned visit counts as ``action_weights`` (the policy target)."""
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
        visits = tree.children_visits[node_index]
        prior = jax.nn.softmax(tree.children_prior_logits[node_index])
        forced = jnp.sqrt(forced_k * prior * visits.sum())
        lacking = (visits < forced) & ~tree.root_invalid_actions
        most_lacking = jnp.argmax(jnp.where(lacking, forced - visits, -jnp.inf))
        return jnp.where(lacking.any(), most_lacking, puct(key, tree, node_index, 0))

    def pruned_weights(tree):  # float32[B, A]: Wu's policy target pruning
        root = mctx.Tree.ROOT_INDEX
        visits = tree.children_visits[:, root].astype(jnp.float32)
        prior = jax.nn.softmax(tree.children_prior_logits[:, root])
        total = tree.node_visits[:, root, None].astype(jnp.float32)
        q = jax.vmap(search.qtransform_alphazero, in_axes=(0, None))(tree, root)
        scale = jnp.sqrt(total) * (c_puct + jnp.log((total + c_puct_base + 1) / c_puct_base))
        score = q + scale * prior / (visits + 1)
        best = jnp.argmax(visits, axis=-1)[:, None]
        best_score = jnp.take_along_axis(score, best, axis=-1)
        # The fewest visits n that keep q + scale * prior / (n + 1) below the best score.
        gap = best_score - q
        floor = jnp.where(gap > 0, jnp.floor(scale * prior / jnp.maximum(gap, 1e-9)), visits)
        forced = jnp.sqrt(forced_k * prior * visits.sum(-1, keepdims=True))
        kept = jnp.clip(jnp.maximum(jnp.ceil(visits - forced), floor), 0, visits)
        kept = jnp.where(kept <= 1, 0.0, kept)
        kept = jnp.where(jnp.arange(visits.shape[-1]) == best, visits, kept)
        return kept / jnp.maximum(kept.sum(-1, keepdims=True), 1)

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
        weights = pruned_weights(tree)
        logits = jnp.where(weights > 0, jnp.log(jnp.maximum(weights, 1e-30)), -jnp.inf)
        action = jax.random.categorical(action_key, logits).astype(jnp.int32)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=tree)

    return run


# The move rule: mctx's ``action`` (sampled from the pruned target) in the opening plies,
# the most weighted move after: ``search.policies.choose_by_visits``, the default.
search.register("forced_playouts", make_forced_playouts)
