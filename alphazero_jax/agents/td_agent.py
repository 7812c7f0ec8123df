"""The TD-MCTS agent and its spec, ``tdmcts:<simulations>[:<setting>=<value>]...[:<run>]``.

E.g. ``tdmcts:100``, ``tdmcts:100:c=0.25:floor=0.0005`` or ``tdmcts:100:runs/ttt_tdmcts``.
Settings: ``c`` (UCT's exploration, default 1), ``gamma`` (default 0.99) and ``floor`` (the
learning-rate floor, default 0). Without a run the table is empty (an untrained TD-MCTS, a
rollout UCT with TD backups); with one, the newest table of that run
(``search.tdmcts_run.restore_tdmcts_table``), and its settings unless the spec names them.
Either way the agent is in tournament mode: it reads the table and never writes it.
"""

from __future__ import annotations

import os

from alphazero_jax.agents import registry
from alphazero_jax.agents._spec_text import MAX_DIGITS, finite_number, is_count
from alphazero_jax.search import td_table, tdmcts, tdmcts_run
from alphazero_jax.types import Agent, Game

GRAMMAR = "tdmcts:<simulations>[:c=<x>][:gamma=<x>][:floor=<x>][:<run>]"
SETTINGS = {"c": "exploration", "gamma": "gamma", "floor": "learning_rate_floor"}


def tdmcts_agent(
    game: Game,
    *,
    num_simulations: int,
    exploration: float = tdmcts.DEFAULT_EXPLORATION,
    gamma: float = tdmcts.DEFAULT_GAMMA,
    learning_rate_floor: float = tdmcts.DEFAULT_FLOOR,
    table: td_table.ValueTable | None = None,
    name: str | None = None,
) -> Agent:
    """TD-MCTS in tournament mode: its ``params`` is the table, which it only reads.

    Args:
      game: the game.
      num_simulations, exploration, gamma, learning_rate_floor: see ``tdmcts.make_tdmcts``.
      table: the values to start from; None for an empty table (an untrained player).
      name: the agent's name (default ``tdmcts:<simulations>``).

    Returns:
      The agent; ``act_fn(table, key, states[B]) -> int32[B]``.
    """
    search = tdmcts.make_tdmcts(
        game,
        num_simulations=num_simulations,
        exploration=exploration,
        gamma=gamma,
        learning_rate_floor=learning_rate_floor,
    )
    table = td_table.empty_table(capacity=1) if table is None else table
    return Agent(name or f"tdmcts:{num_simulations}", search.act_fn, table)


def _fail(spec: str, what: str) -> ValueError:
    return ValueError(f"Agent spec {spec!r}: {what}. Expected {GRAMMAR}.")


def parse_tdmcts(game: Game, spec: str, argument: str) -> Agent:
    """Builds the agent of a ``tdmcts:...`` spec (``argument``: the text after ``tdmcts:``)."""
    count, *parts = argument.split(":")
    if not is_count(count) or int(count) < 1:
        raise _fail(
            spec,
            f"expected a number of simulations >= 1 (at most {MAX_DIGITS} digits), got {count!r}",
        )
    settings: dict[str, float] = {}
    paths = []
    for part in parts:
        name, equals, text = part.partition("=")
        if not equals:
            paths.append(part)
            continue
        if name not in SETTINGS:
            raise _fail(spec, f"unknown setting {name!r} (known: {', '.join(SETTINGS)})")
        value = finite_number(text)
        if value is None:
            raise _fail(spec, f"setting {name!r} needs a finite number, got {text!r}")
        settings[SETTINGS[name]] = value
    if len(paths) > 1 or (paths and not paths[0]):
        raise _fail(spec, f"expected at most one run directory, got {paths}")
    table = None
    if paths:
        # The spec splits at colons, so a run path cannot hold one.
        workdir = paths[0]
        if not os.path.isdir(workdir):
            raise _fail(spec, f"no run directory {workdir!r}")
        try:
            config = tdmcts_run.read_tdmcts_config(workdir)
        except FileNotFoundError as error:
            raise _fail(spec, f"no TD-MCTS run in {workdir!r}: {str(error).rstrip('.')}") from error
        if config["game"] != game.name:
            raise _fail(spec, f"the run {workdir!r} played {config['game']}, not {game.name}")
        for name in SETTINGS.values():
            settings.setdefault(name, float(config[name]))
        empty = td_table.empty_table(capacity=int(config["capacity"]))
        table = tdmcts_run.restore_tdmcts_table(workdir, empty)
    try:
        return tdmcts_agent(
            game, num_simulations=int(count), table=table, name=spec.strip(), **settings
        )
    except ValueError as error:  # a setting out of range
        names = ", ".join(f"{short} is {name}" for short, name in SETTINGS.items())
        raise _fail(spec, f"{str(error).rstrip('.')} ({names})") from error


KINDS = (
    registry.AgentKind(
        "tdmcts",
        GRAMMAR,
        "TD-MCTS",
        "TD-MCTS: UCT on values learned by TD backups and kept in a hash table; "
        "reads the table of a `train_tdmcts` run, or starts from an empty one",
        parse_tdmcts,
        example="tdmcts:8:c=0.5",
    ),
)
