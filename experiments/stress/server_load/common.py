"""What the load scenarios share: the agent the players meet, the flags of more than one
scenario (each defined here once: a scenario calls ``define_<flag>()`` at the top of its
module, and the flag belongs to it), and the servers' compilation-cache arguments."""

from __future__ import annotations

import json
import os
import random

from absl import flags

from alphazero_jax.cli import common as cli
from experiments.stress import simulated_players

flags.disclaim_key_flags()  # the flags defined below belong to the module that asks for them

DEFAULT = "az:pretrained"  # at its default strength, which the warm-up compiles


def define_sessions() -> flags.FlagHolder[int]:
    return flags.DEFINE_integer("sessions", 50, "Concurrent simulated players.")


def define_seconds() -> flags.FlagHolder[float]:
    return flags.DEFINE_float("seconds", 60.0, "Measured seconds per server.")


def define_warm_up() -> flags.FlagHolder[float]:
    return flags.DEFINE_float("warm_up", 10.0, "Unmeasured seconds of play first.")


def define_seed() -> flags.FlagHolder[int]:
    return flags.DEFINE_integer("seed", 0, "The players' randomness.")


def begin(argv: list[str], scenario: str) -> None:
    """``cli.begin``, then a line naming the scenario and the cores it shares."""
    cli.begin(argv)
    print(f"scenario {scenario}; {os.cpu_count()} CPU cores, server and players share them")


def report(results: dict) -> None:
    print(json.dumps(results))


def cache_arguments() -> list[str]:
    """This command's compilation-cache flags, for the servers it starts."""
    values = flags.FLAGS
    if not values.compilation_cache:
        return ["--nocompilation_cache"]
    if values.compilation_cache_dir:
        return [f"--compilation_cache_dir={values.compilation_cache_dir}"]
    return []


def errors(tally: simulated_players.Tally) -> str:
    count = tally.error_count()
    return f"errors: {count}" + (f" (first: {tally.errors[0][1]})" if count else "")


def players(client, tally, stop, agents, *, seed, human=None):
    """A simulated player per agent spec of ``agents``, each with its own randomness."""
    return [
        simulated_players.player(
            client, random.Random(seed * 1000 + i), tally, stop, agent, human=human
        )
        for i, agent in enumerate(agents)
    ]
