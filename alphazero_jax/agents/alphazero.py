"""AlphaZero agents: a network with a noise-free search, or its raw policy, restored from a
training run (``runs.restore_network``) on whatever devices this process has."""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax import runs, search
from alphazero_jax.agents.baselines import uniform_choice
from alphazero_jax.types import Agent, Array, Game, PRNGKey, State


def make_network_act_fn(
    game: Game, apply_fn: Callable, search_settings: dict, *, num_simulations: int
) -> Callable[[dict, PRNGKey, State], Array]:
    """``act_fn(variables, key, states)`` of a network: the most visited move of a
    noise-free search (sequential halving's choice for Gumbel), or with
    ``num_simulations=0`` the legal move of highest prior logit.

    Args:
      game: the game the network plays.
      apply_fn: ``networks.make_network``'s apply function.
      search_settings: ``search.make_search`` keyword arguments (a run's
        ``config.search``); the root noise is switched off.
      num_simulations: simulations per move, or 0 for the raw policy.
    """
    frozen = tuple(sorted(dict(search_settings).items()))
    return _network_act_fn(game, apply_fn, frozen, num_simulations)


@functools.cache
def _network_act_fn(game: Game, apply_fn: Callable, search_settings: tuple, num_simulations: int):
    """Cached, so that the same network and settings give the same function and every
    match jitted over it compiles once per process."""
    if num_simulations == 0:

        def raw_policy(variables: dict, key: PRNGKey, states: State) -> Array:
            output, _ = apply_fn(variables, jax.vmap(game.observe)(states))
            logits = search.mask_logits(output.logits, jax.vmap(game.legal_action_mask)(states))
            best = logits >= logits.max(axis=-1, keepdims=True)
            return uniform_choice(key, best)

        return raw_policy
    settings = dict(search_settings)
    settings.update(dirichlet_fraction=0.0, gumbel_scale=0.0, num_simulations=num_simulations)
    search_fn = search.make_search(game, apply_fn, **settings)

    def searched(variables: dict, key: PRNGKey, states: State) -> Array:
        search_key, choice_key = jax.random.split(key)
        output = search_fn(variables, search_key, states)
        greedy = jnp.zeros_like(states.terminal)
        return search.choose_action(output, choice_key, policy=settings["policy"], sample=greedy)

    return searched


def az_agent(game: Game, path: str, *, num_simulations: int | None = None) -> Agent:
    """A trained run's network; ``path`` is a run directory or ``<run>/checkpoints/<n>``."""
    return restore_az(game, path, num_simulations=num_simulations)[0]


def restore_az(
    game: Game, path: str, *, num_simulations: int | None = None
) -> tuple[Agent, runs.RestoredNetwork]:
    """``az_agent`` and the run behind it (``runs.RestoredNetwork``, whose ``apply_fn``
    and ``variables`` also give the network's value head)."""
    workdir, step = runs.split_checkpoint_path(path)
    run = runs.restore_network(workdir, step)
    if run.game is not game:
        raise ValueError(
            f"az:{path} was trained on {run.game.name} {dict(run.game.settings)}, but the "
            f"match is {game.name} {dict(game.settings)}; pick a run of the same game."
        )
    if num_simulations is None:
        num_simulations = int(run.config.search.num_simulations)
    act_fn = make_network_act_fn(
        game, run.apply_fn, run.config.search.to_dict(), num_simulations=num_simulations
    )
    return Agent(f"az:{path}:{num_simulations}", act_fn, run.variables), run


def parse_az(spec: str) -> tuple[str, int | None]:
    """``(path, simulations)`` of an ``az:<run dir or checkpoint>[:<sims>]`` spec
    (simulations None: the run's own)."""
    kind, _, argument = spec.strip().partition(":")
    if kind != "az" or not argument:
        raise ValueError(f"Agent spec {spec!r}: expected az:<run dir or checkpoint>[:<sims>].")
    path, _, simulations = argument.rpartition(":")
    if path and simulations.isdigit():
        return path, int(simulations)
    return argument, None
