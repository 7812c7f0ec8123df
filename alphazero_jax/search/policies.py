"""The search policies: ``plugs.SEARCH_POLICIES``, a registry like every plug point's.

A search policy is a name, a factory and a move rule. The factory builds the batched
search of a game and a network::

    make(game, apply_fn, *, num_simulations=64, discount=1.0, heuristic_weight=0.0,
         <its own settings with literal defaults>) -> SearchFn

where ``SearchFn`` is ``search(variables, key, states[B]) -> mctx.PolicyOutput`` (its
``action_weights`` are the policy targets of self-play), e.g. built on ``mctx.search``
with its own root and interior action selection, the root and recurrent functions of
``search.make_root_fn`` / ``search.make_recurrent_fn``. The move rule reads the move to
play from that output (``choose``). PUCT and Gumbel (``mctx_search``) are registered the
same way; a run names its policy by ``config.search.policy``. A policy that the offline page's
search plays move for move as JAX does says which (``page``); the page export refuses any
other in one line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax import plugs
from alphazero_jax.registry import module_of
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
    """A registered search policy: its factory, how a move is read from its output, and the
    offline page's search that plays it as JAX does (None: none does)."""

    name: str
    make: Callable[..., SearchFn]
    choose: ChooseFn
    page: str | None = None


def register(
    name: str,
    make: Callable[..., SearchFn],
    *,
    choose: ChooseFn = choose_by_visits,
    page: str | None = None,
):
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
      page: the offline page's search (``"puct"`` or ``"gumbel"``, play/static/offline/
        search.js) that plays this policy move for move as JAX does, with the same settings;
        None (a rule of one's own): the page export refuses its runs in one line.

    Raises:
      ValueError: a name taken by another factory, not an identifier, or a factory that
        lacks one of the common settings.
    """
    missing = [key for key in COMMON if key not in _keywords(make)]
    if missing:
        raise ValueError(
            f"Search policy {name!r}: its factory must take the keyword settings "
            f"{', '.join(COMMON)}; it lacks {', '.join(missing)}."
        )
    entry = SearchPolicy(name, make, choose, page)
    plugs.SEARCH_POLICIES.register(name, entry, module=module_of(make))


def available() -> tuple[str, ...]:
    """The registered search policies, sorted."""
    return plugs.SEARCH_POLICIES.available()


def get(name: str) -> SearchPolicy:
    """The registered policy ``name``.

    Raises:
      ValueError: for a name nobody registered; the message lists those registered.
    """
    return plugs.SEARCH_POLICIES.get(name)


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
