"""Move choice: the move to play after a search (``choose_action``, by the search policy's
registered rule, ``search.policies``), and a uniform draw among equal moves."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alphazero_jax.search.policies import choose_action
from alphazero_jax.types import Array, PRNGKey

__all__ = ["choose_action", "uniform_choice"]


def uniform_choice(key: PRNGKey, candidates: Array) -> Array:
    """int32[B]: a uniformly random True entry of each row (0 for an all-False row)."""
    candidates = candidates | ~candidates.any(axis=-1, keepdims=True)
    logits = jnp.where(candidates, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)
