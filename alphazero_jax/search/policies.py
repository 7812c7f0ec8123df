"""The search policies: a registry with the shape of ``games.register``.

A search policy is a name, a factory and a move rule. The factory builds the batched
search of a game and a network::

    make(game, apply_fn, *, num_simulations=64, discount=1.0, heuristic_weight=0.0,
         <its own settings with literal defaults>) -> SearchFn

where ``SearchFn`` is ``search(variables, key, states[B]) -> mctx.PolicyOutput`` (its
``action_weights`` are the policy targets of self-play), e.g. built on ``mctx.search``
with its own root and interior action selection, the root and recurrent functions of
``search.make_root_fn`` / ``search.make_recurrent_fn``. The move rule reads the move to
play from that output (``choose``). PUCT and Gumbel (``mctx_search``) are registered the
same way; a run names its policy by ``config.search.policy``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax.types import Array, State

SearchFn = Callable[[dict, Array, State], mctx.PolicyOutput]
# (output, key, sample: bool[B]) -> int32[B] actions.
ChooseFn = Callable[[mctx.PolicyOutput, Array, Array], Array]
# Settings every search policy takes, whatever else it takes.
COMMON = ("num_simulations", "discount", "heuristic_weight")


def choose_by_visits(output: mctx.PolicyOutput, key: Array, sample: Array) -> Array:
    """int32[B]: mctx's ``action`` (sampled from the visit counts) where ``sample``, else
    the most weighted move of ``action_weights`` (PUCT's rule)."""
    del key  # the output's action is already sampled
    greedy = jnp.argmax(output.action_weights, axis=-1)
    return jnp.where(sample, output.action, greedy).astype(jnp.int32)


class SearchPolicy(NamedTuple):
    """A registered search policy: its factory and how a move is read from its output."""

    name: str
    make: Callable[..., SearchFn]
    choose: ChooseFn


_POLICIES: dict[str, SearchPolicy] = {}


def register(name: str, make: Callable[..., SearchFn], *, choose: ChooseFn = choose_by_visits):
    """Adds a search policy, so that ``search.make_search(policy=name)`` and training configs
    (``config.search.policy = name``) use it.

    Args:
      name: the policy's name, an identifier.
      make: the factory (see the module docstring): its keyword-only arguments with literal
        defaults are the policy's settings, ``num_simulations``, ``discount`` and
        ``heuristic_weight`` among them.
      choose: ``choose(output, key, sample) -> int32[B]``, the move to play, sampled where
        ``sample`` (bool[B]: the opening plies of self-play) is set; by default mctx's
        ``action`` there and the most weighted move elsewhere.

    Raises:
      ValueError: a name taken by another factory, not an identifier, or a factory that
        lacks one of the common settings.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"A search policy's name must be an identifier, got {name!r}.")
    if name in _POLICIES and _POLICIES[name].make is not make:
        raise ValueError(
            f"The search policy {name!r} is taken by {_POLICIES[name].make.__module__}; "
            "choose another."
        )
    missing = [key for key in COMMON if key not in _keywords(make)]
    if missing:
        raise ValueError(
            f"Search policy {name!r}: its factory must take the keyword settings "
            f"{', '.join(COMMON)}; it lacks {', '.join(missing)}."
        )
    _POLICIES[name] = SearchPolicy(name, make, choose)


def available() -> tuple[str, ...]:
    """The registered search policies, sorted."""
    return tuple(sorted(_POLICIES))


def get(name: str) -> SearchPolicy:
    """The registered policy ``name``.

    Raises:
      ValueError: for a name nobody registered; the message lists those registered.
    """
    if name not in _POLICIES:
        raise ValueError(
            f"Unknown search policy {name!r}; registered: {', '.join(available())}. A policy of "
            "one's own is registered by search.register in a module imported first (a run's "
            "config.imports)."
        )
    return _POLICIES[name]


def settings_of(name: str) -> dict[str, Any]:
    """Each setting of the policy ``name`` with its default (its factory's keywords)."""
    return _keywords(get(name).make)


def _keywords(make: Callable) -> dict[str, Any]:
    return {
        key: p.default
        for key, p in inspect.signature(make).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not inspect.Parameter.empty
    }


def choose_action(output: mctx.PolicyOutput, key: Array, *, policy: str, sample: Array) -> Array:
    """int32[B]: the move to play after a search of ``policy``, by its registered rule,
    sampled where ``sample`` (bool[B]) is set."""
    return jnp.asarray(get(policy).choose(output, key, sample), jnp.int32)


def choose_by_halving(output: mctx.PolicyOutput, key: Array, sample: Array) -> Array:
    """int32[B]: Gumbel's rule: a move sampled from the improved policy (``action_weights``)
    where ``sample``, else sequential halving's choice (mctx's ``action``). Under Gumbel,
    moves dropped early keep few visits and untested values, so the improved policy's argmax
    is no choice of the search."""
    weights = output.action_weights
    logits = jnp.where(weights > 0, jnp.log(jnp.maximum(weights, 1e-30)), -jnp.inf)
    sampled = jax.random.categorical(key, logits, axis=-1)
    return jnp.where(sample, sampled, output.action).astype(jnp.int32)
