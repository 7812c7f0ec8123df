r"""Connect Four agents against perfect play: mistake rates on the perfect-play sets.

    alphazero-judge agents \
        --agents=random,greedy,minimax:4,az:runs/connect_four [--sets=Random_Play]

For each agent and set it prints the mistake rate with its 95% Wilson interval, and for
``az:`` agents the value head's win/draw/loss accuracy; the table goes to ``--output`` as
Markdown (``mistakes.md``) and JSON (``mistakes.json``).
"""

from __future__ import annotations

import json
import os

from absl import flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax import agents
from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_AGENTS = flags.DEFINE_list(
    "agents", ["random", "greedy", "minimax:4"], f"Agents to judge. {agents.spec_help()}"
)
_SETS, _POSITIONS, _BATCH, _SEED = common.define_judging()
_OUTPUT = common.define_output("runs/benchmark_c4")


def main(argv: list[str]) -> None:
    from alphazero_jax import games
    from alphazero_jax.evaluation import perfect_play

    cli.begin(argv)
    game = games.make("connect_four")
    labels = common.labels(_SETS.value, _POSITIONS.value)
    rows, records = {}, {}
    for spec in _AGENTS.value:
        agent, value_fn = common.agent_of(game, spec)  # a bad spec ends it in one line
        print(f"{agent.name}:", flush=True)
        results = common.judge(
            game, agent, labels, value_fn, seed=_SEED.value, batch_size=_BATCH.value
        )
        rows[agent.name] = results
        records[agent.name] = [r.as_dict() for r in results]
    table = perfect_play.results_table(rows)
    print("\nMistake rate against perfect play [95% interval]\n\n" + table)
    os.makedirs(_OUTPUT.value, exist_ok=True)
    with open(os.path.join(_OUTPUT.value, "mistakes.md"), "w") as file:
        file.write(table + "\n")
    with open(os.path.join(_OUTPUT.value, "mistakes.json"), "w") as file:
        json.dump(records, file, indent=1)
    print(f"\nWrote {_OUTPUT.value}/mistakes.md and mistakes.json")


def run() -> None:
    """``alphazero-judge agents``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
