"""The budget ``by_ply``: the youngest games' slots searched with more simulations.

Each move the ``early_slots`` slots whose games are the youngest (the fewest plies since
their opening, ``youngest_slots``) are searched with ``early_simulations``, the others with
the run's. Games restart in their slots, so the slots are at different plies and no one
search budget is the batch's; a fixed number of them keeps every shape static, and each
move costs the same: two searches, of ``early_slots`` and of ``B - early_slots`` positions.
Slots in their random opening rank last, since those positions' searches are not kept.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax.training.budgets.base import BudgetFn, MoveSearchFn, register, take
from alphazero_jax.types import Array


def youngest_slots(plies: Array, count: int) -> tuple[Array, Array]:
    """The ``count`` slots whose games are the youngest, and the others.

    Args:
      plies: int32[B], each slot's plies since its opening (negative in the opening).
      count: how many slots to choose, from 0 to B.

    Returns:
      ``(early, late)``: int32[count] and int32[B - count] slot indices, fewest plies first,
      a slot still in its opening last, ties by the lower index.
    """
    rank = jnp.where(plies < 0, jnp.iinfo(jnp.int32).max, plies)
    order = jnp.argsort(rank, stable=True).astype(jnp.int32)
    return order[:count], order[count:]


def make_by_ply(
    search_with: Callable[[int], MoveSearchFn],
    *,
    num_simulations: int,
    batch_size: int,
    early_slots: int = 16,
    early_simulations: int = 64,
) -> BudgetFn:
    """The ``early_slots`` youngest games searched with ``early_simulations``, the others
    with ``num_simulations``; every position kept.

    Raises:
      ValueError: early slots not from 1 to below ``batch_size`` (one device's share), or
        early simulations below 1; one line.
    """
    if not 1 <= early_slots < batch_size:
        raise ValueError(
            f"early_slots={early_slots} must be from 1 to below the {batch_size} slots of a "
            "device's share of the batch."
        )
    if early_simulations < 1:
        raise ValueError(f"early_simulations must be >= 1, got {early_simulations}.")
    early_search = search_with(early_simulations)
    late_search = search_with(num_simulations)

    def budget(variables, key, states, plies):
        early, late = youngest_slots(plies, early_slots)
        back = jnp.argsort(jnp.concatenate([early, late]))  # slot order from early + late
        young = early_search(variables, jax.random.fold_in(key, 1), take(states, early))
        old = late_search(variables, key, take(states, late))
        searched = jax.tree.map(lambda a, b: jnp.concatenate([a, b])[back], young, old)
        return searched, jnp.bool_(True)

    return budget


def network_calls(
    *, num_simulations: int, batch_size: int, early_slots: int = 16, early_simulations: int = 64
) -> float:
    """E.g. 29 for 64 simulations on 16 of 64 slots and 16 on the others."""
    share = early_slots / batch_size
    return share * (early_simulations + 1) + (1 - share) * (num_simulations + 1)


register("by_ply", make_by_ply, network_calls=network_calls)
