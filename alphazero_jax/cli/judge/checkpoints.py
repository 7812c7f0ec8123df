r"""Every saved checkpoint of a Connect Four run against perfect play.

    alphazero-judge checkpoints --workdir=runs/connect_four \
        [--simulations=32] [--sets=Test_L3_R1,Test_L2_R2,Random_Play]

Each checkpoint plays with its run's search (or ``--simulations``). It writes
``perfect_play_checkpoints.json`` and ``perfect_play_checkpoints.png`` into the run
directory and the curves into its TensorBoard (``perfect_play_checkpoints/<set>/...``);
each record also holds the run's training time at that checkpoint (``seconds``), which
``alphazero-judge curves`` draws runs against.
"""

from __future__ import annotations

import json
import os

from absl import flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_WORKDIR = flags.DEFINE_string(
    "workdir", None, "The run directory whose saved checkpoints are judged.", required=True
)
_SIMULATIONS = cli.define_simulations("Every checkpoint plays with it.")
_SETS, _POSITIONS, _BATCH, _SEED = common.define_judging()
cli.define_old_name("run", "workdir")


def main(argv: list[str]) -> None:
    from tensorboardX import SummaryWriter

    from alphazero_jax import checkpoints, games, runs
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.training import plots
    from alphazero_jax.training.run_logging import TENSORBOARD_DIR

    cli.begin(argv)
    workdir = _WORKDIR.value
    steps = runs.checkpoint_steps(workdir)
    if not steps:
        cli.fail(f"--workdir={workdir}: no checkpoints in {workdir}/checkpoints.")
    game = games.make("connect_four")
    labels = common.labels(_SETS.value, _POSITIONS.value)
    simulations = "" if _SIMULATIONS.value < 0 else f":{_SIMULATIONS.value}"
    records = []
    writer = SummaryWriter(os.path.join(workdir, TENSORBOARD_DIR))
    manager = runs.checkpoint_manager(workdir)
    try:  # closed on every way out: a writer left open fails at exit
        for step in steps:
            checkpoint = os.path.join(workdir, runs.CHECKPOINT_DIR, str(step))
            # A damaged checkpoint ends it in one line.
            agent, value_fn = common.agent_of(game, f"az:{checkpoint}{simulations}")
            print(f"checkpoint {step} ({agent.name}):", flush=True)
            results = common.judge(
                game, agent, labels, value_fn, seed=_SEED.value, batch_size=_BATCH.value
            )
            record = {"iteration": step, "perfect_play": {r.set_name: r.as_dict() for r in results}}
            seconds = checkpoints.restore_metadata(manager, step).get("seconds")
            records.append(record if seconds is None else dict(record, seconds=seconds))
            for result in results:
                tag = f"perfect_play_checkpoints/{result.title}"
                writer.add_scalar(f"{tag}/mistake_rate", result.mistake_rate, step)
                writer.add_scalar(f"{tag}/value_accuracy", result.value_accuracy, step)
    finally:
        writer.close()
        manager.close()
    path = os.path.join(workdir, perfect_play.CHECKPOINTS_FILE)
    with open(path + ".tmp", "w") as file:
        json.dump(records, file, indent=1)
    os.replace(path + ".tmp", path)
    figure = os.path.join(workdir, perfect_play.CHECKPOINTS_PLOT)
    plots.plot_mistake_rates(records, figure, title=f"{workdir}: mistakes by checkpoint")
    print(f"Wrote {path} and {figure}")


def run() -> None:
    """``alphazero-judge checkpoints``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
