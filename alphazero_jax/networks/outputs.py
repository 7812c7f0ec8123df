"""What a network returns and how it is called: ``NetworkOutput``, ``Variables`` and
``ApplyFn`` (the network kinds' registry and the ResNet import them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from alphazero_jax.types import Array

Variables = dict[str, Any]  # Flax variables: {"params": ..., "batch_stats": ...}.
ApplyFn = Callable[..., tuple["NetworkOutput", Variables]]


class NetworkOutput(NamedTuple):
    """What the network predicts for a batch of positions.

    Attributes:
      logits: float32[B, A], unnormalised log-probabilities over all actions (illegal ones
        included; the caller masks them).
      value: float32[B], in [-1, 1] (tanh), the expected outcome for the player to move.
      aux: named auxiliary outputs float32[B, ...] for loss terms (``training.losses``):
        the ResNet's optional ``reply`` and ``score`` heads, or a network of one's own's.
    """

    logits: Array
    value: Array
    aux: dict[str, Array] = {}  # noqa: RUF012  (a pytree field; never mutated)
