"""Built-in agents and the spec strings that name them.

An agent (``types.Agent``) picks a move for each of a batch of states with a pure, jittable
``act_fn(params, key, states[B]) -> int32[B]``. Each kind of agent is one
``registry.AgentKind``, defined beside the agent and registered in ``plugs.AGENT_KINDS``
(``register`` adds one's own); ``kinds()`` lists them in registration order, weakest first
(roughly: the play page offers them strongest first), and everything here is derived from
it: ``from_spec(game, spec)`` builds any of them, ``specs()`` lists their grammars,
``spec_table()`` is the docs' table (docs/agents.md) and ``spec_help()`` the entry
points' flag help.
Ties are broken uniformly at random.
"""

from __future__ import annotations

from alphazero_jax import memory, plugs
from alphazero_jax.agents import alphazero, baselines, registry, solver, td_agent
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
)
from alphazero_jax.agents.registry import AgentKind, SpecError, Strength
from alphazero_jax.agents.solver import solver_agent
from alphazero_jax.agents.td_agent import tdmcts_agent
from alphazero_jax.registry import module_of
from alphazero_jax.types import Agent, Game

__all__ = [
    "AgentKind",
    "SpecError",
    "Strength",
    "az_agent",
    "find_kind",
    "from_spec",
    "greedy_agent",
    "kinds",
    "make_network_act_fn",
    "make_network_analysis_fn",
    "mcts_agent",
    "minimax_agent",
    "most_flips_agent",
    "parse_az",
    "random_agent",
    "register",
    "restore_az",
    "shortest_path_agent",
    "solver_agent",
    "spec_help",
    "spec_table",
    "specs",
    "tdmcts_agent",
]


def register(kind: AgentKind) -> None:
    """Adds an agent kind of one's own, so that ``from_spec``, the programs' ``--agents``
    and the docs' table know it; the built-ins are registered the same way (below).

    Raises:
      ValueError: a kind whose name is taken, or not a lowercase identifier (two may be
        joined by a colon, as ``greedy:path``); one line.
    """
    plugs.AGENT_KINDS.register(kind.kind, kind, module=module_of(kind.parse))


def kinds() -> tuple[AgentKind, ...]:
    """Every registered agent kind, in registration order: weakest first, roughly (the play
    page offers them in reverse order and starts with the first that plays the chosen
    settings: the shipped network before perfect play, the baselines after)."""
    return plugs.AGENT_KINDS.entries()


def specs() -> tuple[str, ...]:
    """The grammar of every registered agent kind's spec, e.g. ``minimax:<depth>``."""
    return tuple(kind.grammar for kind in kinds())


for _kind in (*baselines.KINDS, *td_agent.KINDS, *solver.KINDS, *alphazero.KINDS):
    register(_kind)
del _kind


def find_kind(
    spec: str, kinds_: tuple[AgentKind, ...] | None = None
) -> tuple[AgentKind, str] | None:
    """``(kind, argument)``: the spec's kind (the longest of ``kinds_``, every registered
    kind by default, that it starts with, up to a colon or its end) and the text after the
    kind and its colon; None for no kind."""
    return registry.find(kinds() if kinds_ is None else kinds_, spec)


def from_spec(game: Game, spec: str) -> Agent:
    """Builds the agent that ``spec`` names for ``game``.

    Args:
      game: the game to play.
      spec: one of ``specs()`` (``spec_table()`` says what each plays).

    Returns:
      The agent, named by its spec.

    Raises:
      ValueError: for an unknown or malformed spec; the message says what was expected.
        ``memory.MemoryBoundError`` (a ValueError) for a strength whose search would not
        fit this machine's memory; the message says the largest that does.
    """
    valid = ", ".join(specs())
    if not isinstance(spec, str):
        raise ValueError(f"An agent spec is a string, one of {valid}; got {spec!r}.")
    found = find_kind(spec)
    if found is None:
        raise ValueError(f"Unknown agent spec {spec!r}. Valid specs: {valid}.")
    kind, argument = found
    try:
        return kind.parse(game, spec, argument)
    except SpecError as error:
        raise SpecError(f"{error} Valid specs: {valid}.") from None
    except memory.MemoryBoundError as error:
        raise memory.MemoryBoundError(f"Agent spec {spec!r}: {error}") from None


def spec_table() -> str:
    """The markdown table of every kind's spec and what it plays (docs/agents.md holds it)."""
    return registry.spec_table(kinds())


def spec_help() -> str:
    """One line naming every spec, for a flag's help."""
    return registry.spec_help(kinds())
