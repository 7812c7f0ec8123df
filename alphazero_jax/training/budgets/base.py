"""What a self-play budget is: a factory, registered in ``plugs.BUDGETS``, of a function that
searches one move of every game slot and says which positions are kept for training.

A budget's factory is ``make(search_with, *, num_simulations, batch_size, <its settings>)``:

- ``search_with(simulations) -> MoveSearchFn`` builds the run's search (its policy, its
  settings and its move rule) with another number of simulations; each call builds one
  search, so a budget builds the few it needs once;
- ``num_simulations``: the simulations the run gives a move (``config.search.num_simulations``,
  or the current stage's of ``config.selfplay.simulation_stages``);
- ``batch_size``: the slots of one device's share of the batch;
- its own settings: keyword-only with literal defaults (``config.budget`` beside its ``kind``).

It returns ``budget(variables, key, states, plies) -> (Searched, keep)``: ``states`` are the
B slots' positions, ``plies`` int32[B] each game's plies since its opening (negative while
the opening's random plies are played, ``training.openings``), ``key`` the move's key (pass
it to a ``MoveSearchFn`` as it is; ``jax.random.fold_in(key, n)`` for draws of one's own,
n >= 1); ``keep`` bool[] or bool[B], the positions whose search is a training target (a
position of the opening is never kept, whatever the budget says). Every shape is static:
a budget chooses which search each slot gets, not how many slots are searched.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import jax

from alphazero_jax import plugs
from alphazero_jax.registry import keyword_defaults, module_of
from alphazero_jax.types import Array, State


class Searched(NamedTuple):
    """One move's search of B slots."""

    action: Array  # int32[B]: the move to play (sampled in the opening plies, see selfplay)
    policy: Array  # float32[B, A]: the policy target, the search's action weights
    root_value: Array  # float32[B]: the search's value of the position, its mover's view


GIVEN = ("num_simulations", "batch_size")  # what the loop gives every budget's factory
# (variables, key, states[B]) -> Searched: the run's search and move rule at some simulations.
MoveSearchFn = Callable[[dict, Array, State], Searched]
# (variables, key, states[B], plies int32[B]) -> (Searched, keep bool[] or bool[B]).
BudgetFn = Callable[[dict, Array, State, Array], tuple[Searched, Array]]


class Budget(NamedTuple):
    """A registered self-play budget.

    Attributes:
      name: its name, ``config.budget.kind``.
      make: its factory (see the module docstring).
      network_calls: ``network_calls(*, num_simulations, batch_size, <its settings>)``, the
        network evaluations a move costs on average (the root's and one a simulation); None:
        not said (benchmarks then report none).
    """

    name: str
    make: Callable[..., BudgetFn]
    network_calls: Callable[..., float] | None = None


def register(
    name: str, make: Callable[..., BudgetFn], *, network_calls: Callable[..., float] | None = None
) -> None:
    """Adds a self-play budget, so that ``config.budget.kind = name`` plays with it.

    Raises:
      ValueError: a name that is no identifier or is taken, or a factory without the
        keywords ``num_simulations`` and ``batch_size``; one line.
    """
    missing = [k for k in GIVEN if k not in inspect.signature(make).parameters]
    if missing:
        raise ValueError(
            f"Self-play budget {name!r}: its factory must take the keywords num_simulations "
            f"and batch_size; it lacks {', '.join(missing)}."
        )
    entry = Budget(name, make, network_calls)
    plugs.BUDGETS.register(name, entry, module=module_of(make))


def get(name: str) -> Budget:
    """The registered budget ``name`` (ValueError, one line, for an unknown one)."""
    return plugs.BUDGETS.get(name)


def available() -> tuple[str, ...]:
    """The registered budgets, sorted."""
    return plugs.BUDGETS.available()


def settings_of(name: str) -> dict[str, Any]:
    """The budget's own settings with their defaults (its factory's keyword-only ones but
    ``num_simulations`` and ``batch_size``, which the loop gives)."""
    return keyword_defaults(get(name).make, given=GIVEN)


def take(states: State, slots: Array) -> State:
    """The states of ``slots`` (int32[K]) of a batch."""
    return jax.tree.map(lambda x: x[slots], states)
