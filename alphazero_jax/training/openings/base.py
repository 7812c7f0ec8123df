"""What an opening rule is: a factory, registered in ``plugs.OPENINGS``, of how each
self-play game's first plies are chosen.

A rule's factory is ``make(game, *, <its settings>) -> Opening`` (settings keyword-only with
literal defaults, ``config.opening`` beside its ``kind``); an ``Opening`` is two functions
over a batch of B slots:

- ``start(key, batch_size) -> Start``: drawn when a slot's game begins; ``Start.plies``
  int32[B] are the game's opening plies, played but never trained on (the game is taken to
  start after them), and ``Start.data`` the rule's own draws (arrays of leading axis B);
- ``play(start, key, states, legal_action_mask, action) -> action``: the move each slot
  plays, given the search's ``action`` (int32[B]) and the legal moves (bool[B, A]).

The search runs on every position (the slots move together), and its result is the
position's policy target wherever the position is kept: a rule that overrides the search's
move after its opening plies (a handicap) changes which positions the replay memory holds,
not what they teach.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from alphazero_jax import plugs
from alphazero_jax.registry import keyword_defaults, module_of
from alphazero_jax.types import Array, Game, State


class Start(NamedTuple):
    """What an opening rule draws for B new games."""

    plies: Array  # int32[B]: each game's opening plies, not trained on
    data: Any = ()  # the rule's own draws, arrays of leading axis B


class Opening(NamedTuple):
    """An opening rule for B slots (see the module docstring)."""

    start: Callable[[Array, int], Start]
    play: Callable[[Start, Array, State, Array, Array], Array]


class OpeningKind(NamedTuple):
    """A registered opening rule: ``make(game, **settings) -> Opening``."""

    name: str
    make: Callable[..., Opening]


def register(name: str, make: Callable[..., Opening]) -> None:
    """Adds an opening rule, so that ``config.opening.kind = name`` starts games with it.

    Raises:
      ValueError: a name that is no identifier, or one taken; one line.
    """
    plugs.OPENINGS.register(name, OpeningKind(name, make), module=module_of(make))


def get(name: str) -> OpeningKind:
    """The registered opening rule ``name`` (ValueError, one line, for an unknown one)."""
    return plugs.OPENINGS.get(name)


def available() -> tuple[str, ...]:
    """The registered opening rules, sorted."""
    return plugs.OPENINGS.available()


def settings_of(name: str) -> dict[str, Any]:
    """The rule's own settings with their defaults (its factory's keyword-only ones)."""
    return keyword_defaults(get(name).make)


def make(name: str, game: Game, **settings) -> Opening:
    """The registered rule ``name`` built for ``game`` with ``settings``."""
    return get(name).make(game, **settings)
