"""The budget ``playout_cap``: playout-cap randomisation (Wu (2019), KataGo).

Each move is searched in full with probability ``full_search_probability`` and otherwise by a
cheaper search of ``fast_simulations``; only fully searched positions are kept for training
(their policy targets come from the full search), so a compute budget plays more games, and
so gets more independent outcomes, for the same number of policy targets. One coin per move
decides for all B slots, so a move runs one search, not both.
"""

from __future__ import annotations

from collections.abc import Callable

import jax

from alphazero_jax.training.budgets.base import BudgetFn, MoveSearchFn, register


def make_playout_cap(
    search_with: Callable[[int], MoveSearchFn],
    *,
    num_simulations: int,
    batch_size: int,
    full_search_probability: float = 0.25,
    fast_simulations: int = 16,
) -> BudgetFn:
    """A move searched with ``num_simulations`` with chance ``full_search_probability`` (and
    kept), else with ``fast_simulations`` (and not kept).

    The fast search is meant to be the cheaper one; with ``simulation_stages`` the full
    search's simulations change by iteration and the fast one's stay.

    Raises:
      ValueError: a probability outside (0, 1], or fast simulations below 1; one line.
    """
    del batch_size
    if not 0 < full_search_probability <= 1:
        raise ValueError(
            f"full_search_probability must be in (0, 1], got {full_search_probability!r}."
        )
    if fast_simulations < 1:
        raise ValueError(f"fast_simulations must be >= 1, got {fast_simulations!r}.")
    full_search = search_with(num_simulations)
    fast_search = search_with(fast_simulations)

    def budget(variables, key, states, plies):
        del plies
        full = jax.random.bernoulli(jax.random.fold_in(key, 1), full_search_probability)
        # The searches' trees differ in size: cond returns only what is recorded.
        searched = jax.lax.cond(full, full_search, fast_search, variables, key, states)
        return searched, full

    return budget


def network_calls(
    *,
    num_simulations: int,
    batch_size: int,
    full_search_probability: float = 0.25,
    fast_simulations: int = 16,
) -> float:
    """E.g. 0.25 x 65 + 0.75 x 17 = 29 for 64 simulations on 1 move in 4 and 16 on the rest."""
    del batch_size
    p = full_search_probability
    return p * (num_simulations + 1) + (1 - p) * (fast_simulations + 1)


register("playout_cap", make_playout_cap, network_calls=network_calls)
