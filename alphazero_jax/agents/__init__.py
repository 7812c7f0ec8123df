"""Built-in agents and the spec strings that name them.

An agent (``types.Agent``) picks a move for each of a batch of states with a pure, jittable
``act_fn(params, key, states[B]) -> int32[B]``. The built-ins, for every game:

| spec | player |
| --- | --- |
| ``random`` | uniform over the legal moves |
| ``greedy`` | wins at once when it can, else the move with the best heuristic after it |
| ``greedy:flips`` | Othello only: the move that flips the most discs (seed 002's greedy) |
| ``greedy:path`` | Quoridor only: seed 002's greedy player (shortest path, walls back) |
| ``minimax:d`` | alpha-beta ``d`` plies deep on the game's heuristic (``minimax.py``) |
| ``mcts:n`` | UCT with random playouts, ``n`` simulations (``rollout_mcts.py``) |
| ``tdmcts:n[...][:<run>]`` | TD-MCTS, ``n`` simulations, a ``<run>``'s table (``tdmcts_spec.py``) |
| ``az:<run>[:sims]`` | a trained network with a noise-free search (``sims=0``: raw policy) |
| ``az:pretrained[:sims]`` | the network shipped for the game (``pretrained.py``) |
| ``solver[:exact]`` | Connect Four only: perfect play from the exact solver (``solver.py``) |

``<run>`` is a run directory (its newest checkpoint) or one checkpoint,
``<run>/checkpoints/<iteration>``; ``sims`` defaults to the run's own simulations.
``from_spec(game, spec)`` builds any of them. Ties are broken uniformly at random.
"""

from __future__ import annotations

from collections.abc import Callable

from alphazero_jax.agents._spec_text import MAX_DIGITS, is_count
from alphazero_jax.agents.alphazero import (
    az_agent,
    make_network_act_fn,
    make_network_analysis_fn,
    parse_az,
    restore_az,
)
from alphazero_jax.agents.baselines import (
    greedy_agent,
    mcts_agent,
    minimax_agent,
    most_flips_agent,
    random_agent,
    shortest_path_agent,
    uniform_choice,
)
from alphazero_jax.agents.solver import solver_agent
from alphazero_jax.agents.tdmcts_spec import parse_tdmcts, tdmcts_agent
from alphazero_jax.types import Agent, Game

__all__ = [
    "PARSERS",
    "SPECS",
    "az_agent",
    "from_spec",
    "greedy_agent",
    "make_network_act_fn",
    "make_network_analysis_fn",
    "mcts_agent",
    "minimax_agent",
    "most_flips_agent",
    "parse_az",
    "random_agent",
    "restore_az",
    "shortest_path_agent",
    "solver_agent",
    "tdmcts_agent",
    "uniform_choice",
]

SPECS = (
    "random",
    "greedy",
    "greedy:flips",
    "greedy:path",
    "minimax:<depth>",
    "mcts:<simulations>",
    "tdmcts:<simulations>[:c=<x>][:gamma=<x>][:floor=<x>][:<run>]",
    "az:<run>[:<simulations>]",
    "az:pretrained[:<simulations>]",
    "solver[:exact]",
)


def _count(spec: str, text: str, *, minimum: int) -> int:
    if not is_count(text) or int(text) < minimum:
        raise ValueError(
            f"Agent spec {spec!r}: expected an integer >= {minimum} (at most {MAX_DIGITS} "
            f"digits) after the colon, got {text!r}. Valid specs: {', '.join(SPECS)}."
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


def _parse_greedy(game: Game, spec: str, argument: str) -> Agent:
    builders = {"": greedy_agent, "flips": most_flips_agent, "path": shortest_path_agent}
    if argument not in builders:
        raise ValueError(
            f"Agent spec {spec!r}: expected greedy, greedy:flips (Othello) or greedy:path "
            "(Quoridor)."
        )
    return builders[argument](game)


def _parse_solver(game: Game, spec: str, argument: str) -> Agent:
    if argument not in ("", "exact"):
        raise ValueError(f"Agent spec {spec!r}: expected solver or solver:exact.")
    return solver_agent(game, exact=argument == "exact")


# kind -> (game, spec, text after the first colon) -> Agent. Other modules may register
# their agents here.
PARSERS: dict[str, Callable[[Game, str, str], Agent]] = {
    "random": _no_argument(random_agent),
    "greedy": _parse_greedy,
    "minimax": lambda game, spec, arg: minimax_agent(game, depth=_count(spec, arg, minimum=1)),
    "mcts": lambda game, spec, arg: mcts_agent(game, num_simulations=_count(spec, arg, minimum=1)),
    "tdmcts": parse_tdmcts,
    "az": _parse_az,
    "solver": _parse_solver,
}


def from_spec(game: Game, spec: str) -> Agent:
    """Builds the agent that ``spec`` names for ``game``.

    Args:
      game: the game to play.
      spec: one of ``random``, ``greedy``, ``greedy:flips`` (Othello), ``greedy:path``
        (Quoridor), ``minimax:<depth>``
        (depth >= 1), ``mcts:<simulations>`` (>= 1), ``az:<run dir or checkpoint>[:<simulations>]``
        (>= 0; 0 plays the raw policy), ``az:pretrained[:<simulations>]`` (the shipped
        network of the game), ``solver[:exact]`` (Connect Four).

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
