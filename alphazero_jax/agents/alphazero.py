"""AlphaZero agents: a network with a noise-free search, or its raw policy, restored from a
training run (``runs.restore_network``) on whatever devices this process has, or shipped
with the package (``az:pretrained``)."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from alphazero_jax import runs, search
from alphazero_jax.agents import pretrained, registry
from alphazero_jax.agents._spec_text import is_count
from alphazero_jax.types import Agent, Analysis, Array, Game, PRNGKey, State


def make_network_analysis_fn(
    game: Game, apply_fn: Callable, search_settings: dict, *, num_simulations: int
) -> Callable[[dict, PRNGKey, State], Analysis]:
    """``analyse_fn(variables, key, states)`` of a network: its move, its value and its
    visit shares (``types.Analysis``) from a noise-free search, or with
    ``num_simulations=0`` from the network alone (the legal move of highest prior logit,
    the value head and the policy).

    The move is the most visited one (sequential halving's choice for Gumbel); the value is
    the search's root value. Each call builds a new function: the caller holds it, so that
    what is jitted over it compiles once.

    Args:
      game: the game the network plays.
      apply_fn: ``networks.make_network``'s apply function.
      search_settings: a run's ``config.search``; the root noise is switched off and
        ``play_c_puct`` and ``play_value_scale``, when set, are the search's ``c_puct`` and
        ``value_scale`` (``search.search_settings``).
      num_simulations: simulations per move, or 0 for the raw policy.
    """
    if num_simulations == 0:

        def raw_policy(variables: dict, key: PRNGKey, states: State) -> Analysis:
            output, _ = apply_fn(variables, jax.vmap(game.observe)(states))
            logits = search.mask_logits(output.logits, jax.vmap(game.legal_action_mask)(states))
            best = logits >= logits.max(axis=-1, keepdims=True)
            return Analysis(search.uniform_choice(key, best), output.value, jax.nn.softmax(logits))

        return raw_policy
    settings = search.search_settings(search_settings, play=True)
    settings["num_simulations"] = num_simulations
    search_fn = search.make_search(game, apply_fn, **settings)

    def searched(variables: dict, key: PRNGKey, states: State) -> Analysis:
        search_key, choice_key = jax.random.split(key)
        output = search_fn(variables, search_key, states)
        greedy = jnp.zeros_like(states.terminal)
        action = search.choose_action(output, choice_key, policy=settings["policy"], sample=greedy)
        summary = output.search_tree.summary()
        return Analysis(action, summary.value, summary.visit_probs)

    return searched


def make_network_act_fn(
    game: Game, apply_fn: Callable, search_settings: dict, *, num_simulations: int
) -> Callable[[dict, PRNGKey, State], Array]:
    """``act_fn(variables, key, states)``: the move of ``make_network_analysis_fn``."""
    analyse = make_network_analysis_fn(
        game, apply_fn, search_settings, num_simulations=num_simulations
    )
    return _act_of(analyse)


def _act_of(analyse: Callable[[dict, PRNGKey, State], Analysis]) -> Callable:
    def act(variables: dict, key: PRNGKey, states: State) -> Array:
        return analyse(variables, key, states).action  # XLA drops what the move does not use

    return act


def az_agent(game: Game, path: str, *, num_simulations: int | None = None) -> Agent:
    """A trained network: ``path`` is a run directory, ``<run>/checkpoints/<n>``, the
    folder of an exported agent (its ``agent.json``, ``pretrained.export``), or
    ``pretrained`` for the network shipped for ``game`` (``pretrained.py``)."""
    return restore_az(game, path, num_simulations=num_simulations)[0]


def restore_az(
    game: Game, path: str, *, num_simulations: int | None = None
) -> tuple[Agent, runs.RestoredNetwork]:
    """``az_agent`` and the run behind it (``runs.RestoredNetwork``, whose ``apply_fn``
    and ``variables`` also give the network's value head)."""
    if path == pretrained.SPEC_NAME:
        run = pretrained.load(game)
    else:
        try:
            run = pretrained.restore(path)
        except OSError as error:  # none there, or no path at all (a name too long)
            raise ValueError(
                f"Agent spec az:{path}: expected a training run directory, one of its "
                f"checkpoints, <run>/checkpoints/<iteration>, or an exported agent's folder, "
                f"got {path!r}: {error}"
            ) from error
    if run.game is not game:
        raise ValueError(
            f"az:{path} was trained on {run.game.name} {dict(run.game.settings)}, but the "
            f"match is {game.name} {dict(game.settings)}; pick a run of the same game."
        )
    if num_simulations is None:
        num_simulations = int(run.config.search.num_simulations)
    settings = run.config.search.to_dict()
    analyse_fn = make_network_analysis_fn(
        game, run.apply_fn, settings, num_simulations=num_simulations
    )
    agent = Agent(f"az:{path}:{num_simulations}", _act_of(analyse_fn), run.variables, analyse_fn)
    return agent, run


def parse_az(spec: str) -> tuple[str, int | None]:
    """``(path, simulations)`` of an ``az:<run, checkpoint or agent folder>[:<sims>]`` spec
    (simulations None: the run's own)."""
    kind, _, argument = spec.strip().partition(":")
    if kind != "az" or not argument:
        raise ValueError(
            f"Agent spec {spec!r}: expected az:<run, checkpoint or agent folder>[:<sims>]."
        )
    path, _, simulations = argument.rpartition(":")
    if path and is_count(simulations):
        return path, int(simulations)
    return argument, None


def _parse_az(game: Game, spec: str, argument: str) -> Agent:
    del argument  # parse_az reads the whole spec, ``az:pretrained:<sims>`` included
    path, simulations = parse_az(spec)
    return az_agent(game, path, num_simulations=simulations)


KINDS = (
    registry.AgentKind(
        "az",
        "az:<run>[:<simulations>]",
        "AlphaZero (a training run)",
        "a trained run (its directory or `<run>/checkpoints/<iteration>`), or an exported "
        "agent's folder, with a noise-free search of the run's own simulations unless given "
        "(and its `config.search.play_c_puct` or `play_value_scale`, if set, as PUCT's constant "
        "or Gumbel's sigma scale); `0` plays the raw policy",
        _parse_az,
    ),
    registry.AgentKind(
        f"az:{pretrained.SPEC_NAME}",
        f"az:{pretrained.SPEC_NAME}[:<simulations>]",
        "AlphaZero (shipped network)",
        "the network shipped in the package for the game at the settings it was trained at "
        "(see [Play](#play-against-an-agent) for which ship)",
        _parse_az,
        strength=registry.Strength("simulations", 0, 0, pretrained.recorded_simulations),
        interactive=True,
        example=f"az:{pretrained.SPEC_NAME}",
        only_settings=pretrained.shipped,
    ),
)
