"""Self-play budgets: how self-play spends its search on each move of each game slot, and
which positions it keeps for training (``base`` says what a budget is).

Built in, each a factory in its own module, registered in ``plugs.BUDGETS`` as one's own is:

- ``full`` (``full.py``): every move searched with the run's simulations, every position
  kept (AlphaZero's);
- ``playout_cap`` (``playout_cap.py``): playout-cap randomisation (Wu, 2019);
- ``by_ply`` (``by_ply.py``): the youngest games' slots searched with more simulations.

A run picks one by ``config.budget.kind``, with its settings beside it in ``config.budget``;
a budget of one's own is ``register``\\ ed in a module that ``config.imports`` names
(docs/tutorials/selfplay_parts.md).
"""

from __future__ import annotations

from alphazero_jax.training.budgets import by_ply, full, playout_cap
from alphazero_jax.training.budgets.base import (
    Budget,
    BudgetFn,
    MoveSearchFn,
    Searched,
    available,
    get,
    register,
    settings_of,
    take,
)

__all__ = [
    "Budget",
    "BudgetFn",
    "MoveSearchFn",
    "Searched",
    "available",
    "by_ply",
    "full",
    "get",
    "playout_cap",
    "register",
    "settings_of",
    "take",
]
