"""The budget ``full``: every move of every slot searched with the run's simulations, and
every position kept (AlphaZero's)."""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp

from alphazero_jax.training.budgets.base import BudgetFn, MoveSearchFn, register


def make_full(
    search_with: Callable[[int], MoveSearchFn], *, num_simulations: int, batch_size: int
) -> BudgetFn:
    """Every slot searched with ``num_simulations``; every position kept."""
    del batch_size
    search = search_with(num_simulations)

    def budget(variables, key, states, plies):
        del plies
        return search(variables, key, states), jnp.bool_(True)

    return budget


def network_calls(*, num_simulations: int, batch_size: int) -> float:
    """The root's evaluation and one a simulation."""
    del batch_size
    return float(num_simulations + 1)


register("full", make_full, network_calls=network_calls)
