"""Move choice: the move to play after a search, and a uniform draw among equal moves."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax.search.mctx_search import POLICIES
from alphazero_jax.types import Array, PRNGKey


def uniform_choice(key: PRNGKey, candidates: Array) -> Array:
    """int32[B]: a uniformly random True entry of each row (0 for an all-False row)."""
    candidates = candidates | ~candidates.any(axis=-1, keepdims=True)
    logits = jnp.where(candidates, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def choose_action(output: mctx.PolicyOutput, key: Array, *, policy: str, sample: Array) -> Array:
    """int32[B]: the move to play after a search, sampled where ``sample`` (bool[B]) is set.

    PUCT samples from the visit counts (mctx's own ``action``) or takes the most visited
    move. Gumbel samples from the improved policy (``action_weights``) or takes sequential
    halving's choice (mctx's ``action``): under Gumbel, moves dropped early keep few visits
    and untested values, so the improved policy's argmax is no choice of the search.
    """
    weights = output.action_weights
    if policy == "puct":
        sampled = output.action
        greedy = jnp.argmax(weights, axis=-1)
    elif policy == "gumbel":
        logits = jnp.where(weights > 0, jnp.log(jnp.maximum(weights, 1e-30)), -jnp.inf)
        sampled = jax.random.categorical(key, logits, axis=-1)
        greedy = output.action
    else:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}.")
    return jnp.where(sample, sampled, greedy).astype(jnp.int32)
