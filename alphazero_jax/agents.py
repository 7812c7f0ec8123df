"""Built-in agents and the spec strings that name them.

An agent (``types.Agent``) picks a move for each of a batch of states with a pure, jittable
``act_fn(params, key, states[B]) -> int32[B]``. The built-ins, for every game:

| spec | player |
| --- | --- |
| ``random`` | uniform over the legal moves |
| ``greedy`` | wins at once when it can, else the move with the best heuristic after it |
| ``minimax:d`` | alpha-beta ``d`` plies deep on the game's heuristic (``minimax.py``) |
| ``mcts:n`` | UCT with random playouts, ``n`` simulations (``rollout_mcts.py``) |
| ``az:<run>[:sims]`` | a trained network with a noise-free search (``sims=0``: raw policy) |
| ``solver[:exact]`` | Connect Four only: perfect play from the exact solver (``perfect_play``) |

``<run>`` is a run directory (its newest checkpoint) or one checkpoint,
``<run>/checkpoints/<iteration>``; ``sims`` defaults to the run's own simulations.
``from_spec(game, spec)`` builds any of them. Ties are broken uniformly at random.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from alphazero_jax import minimax, rollout_mcts, search
from alphazero_jax.types import Agent, Array, Game, PRNGKey, State

SPECS = (
    "random",
    "greedy",
    "minimax:<depth>",
    "mcts:<simulations>",
    "az:<run>[:<simulations>]",
    "solver[:exact]",
)


def uniform_choice(key: PRNGKey, candidates: Array) -> Array:
    """int32[B]: a uniformly random True entry of each row (0 for an all-False row)."""
    candidates = candidates | ~candidates.any(axis=-1, keepdims=True)
    logits = jnp.where(candidates, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def random_agent(game: Game) -> Agent:
    """Uniformly random legal moves."""

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        return uniform_choice(key, jax.vmap(game.legal_action_mask)(states))

    return Agent("random", act_fn)


def greedy_agent(game: Game) -> Agent:
    """One ply of lookahead: an immediate win if there is one, else the move after which
    the heuristic is best for the mover (a one-ply ``minimax``, ties broken at random)."""
    return minimax_agent(game, depth=1, name="greedy")


def minimax_agent(game: Game, *, depth: int, name: str | None = None) -> Agent:
    """Alpha-beta ``depth`` plies deep on the game's heuristic (``minimax.py``), drawing
    uniformly among the moves of equal best value; finished games get move 0."""
    negamax = jax.vmap(minimax.make_negamax(game, depth=depth))

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        values, legal = negamax(states)
        return uniform_choice(key, minimax.best_moves(values, legal))

    return Agent(name or f"minimax:{depth}", act_fn)


def mcts_agent(game: Game, *, num_simulations: int) -> Agent:
    """UCT with uniform priors and random playouts; see ``rollout_mcts.py``."""
    act_fn = rollout_mcts.make_rollout_mcts(game, num_simulations=num_simulations)
    return Agent(f"mcts:{num_simulations}", act_fn)


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


def restore_az(game: Game, path: str, *, num_simulations: int | None = None) -> tuple[Agent, Any]:
    """``az_agent`` and the run behind it (``train.RestoredNetwork``, whose ``apply_fn``
    and ``variables`` also give the network's value head)."""
    from alphazero_jax import train  # train imports this module's users; import late

    workdir, step = split_checkpoint_path(path)
    run = train.restore_network(workdir, step)
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


def split_checkpoint_path(path: str) -> tuple[str, int | None]:
    """``(workdir, step)`` of a run directory (step None: newest) or a checkpoint path."""
    path = os.path.normpath(path)
    parent, name = os.path.split(path)
    if name.isdigit() and os.path.basename(parent) == "checkpoints":
        return os.path.dirname(parent), int(name)
    return path, None


def _count(spec: str, text: str, *, minimum: int) -> int:
    if not text.isdigit() or int(text) < minimum:
        raise ValueError(
            f"Agent spec {spec!r}: expected an integer >= {minimum} after the colon, got "
            f"{text!r}. Valid specs: {', '.join(SPECS)}."
        )
    return int(text)


def _no_argument(build: Callable[[Game], Agent]) -> Callable[[Game, str, str], Agent]:
    def parse(game: Game, spec: str, argument: str) -> Agent:
        if argument:
            raise ValueError(
                f"Agent spec {spec!r} takes no argument. Valid specs: {', '.join(SPECS)}."
            )
        return build(game)

    return parse


def _parse_az(game: Game, spec: str, argument: str) -> Agent:
    del argument  # parse_az reads the whole spec
    path, simulations = parse_az(spec)
    return az_agent(game, path, num_simulations=simulations)


def _parse_solver(game: Game, spec: str, argument: str) -> Agent:
    from alphazero_jax import perfect_play  # numba is loaded only when the solver is used

    if argument not in ("", "exact"):
        raise ValueError(f"Agent spec {spec!r}: expected solver or solver:exact.")
    return perfect_play.solver_agent(game, exact=argument == "exact")


# kind -> (game, spec, text after the first colon) -> Agent. Other modules may register
# their agents here.
PARSERS: dict[str, Callable[[Game, str, str], Agent]] = {
    "random": _no_argument(random_agent),
    "greedy": _no_argument(greedy_agent),
    "minimax": lambda game, spec, arg: minimax_agent(game, depth=_count(spec, arg, minimum=1)),
    "mcts": lambda game, spec, arg: mcts_agent(game, num_simulations=_count(spec, arg, minimum=1)),
    "az": _parse_az,
    "solver": _parse_solver,
}


def from_spec(game: Game, spec: str) -> Agent:
    """Builds the agent that ``spec`` names for ``game``.

    Args:
      game: the game to play.
      spec: one of ``random``, ``greedy``, ``minimax:<depth>`` (depth >= 1),
        ``mcts:<simulations>`` (>= 1), ``az:<run dir or checkpoint>[:<simulations>]``
        (>= 0; 0 plays the raw policy), ``solver[:exact]`` (Connect Four).

    Returns:
      The agent, named by its spec.

    Raises:
      ValueError: for an unknown or malformed spec; the message lists the valid ones.
    """
    if not isinstance(spec, str):
        raise ValueError(f"An agent spec is a string, one of {', '.join(SPECS)}; got {spec!r}.")
    kind, _, argument = spec.strip().partition(":")
    if kind not in PARSERS:
        raise ValueError(f"Unknown agent spec {spec!r}. Valid specs: {', '.join(SPECS)}.")
    return PARSERS[kind](game, spec, argument)
