r"""Proof that training learns Tic-Tac-Toe, judged against a perfect oracle.

    alphazero-judge tic_tac_toe --workdir=runs/ttt_proof --minutes=10

Trains the shipped Tic-Tac-Toe agent's recipe (``tic_tac_toe:agent``) for at most
``--minutes`` and then checks the agent's move in each of the 4,520 reachable positions
that are not over against a perfect minimax oracle, with search (each of
``--simulations``) and with the raw policy (argmax of the legal logits). A checkpoint
(``--workdir=<run>/checkpoints/<iteration>``) or an exported agent's folder is checked as
it is, without training.
"""

from __future__ import annotations

import time

from absl import flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_WORKDIR = common.define_workdir()
_MINUTES = flags.DEFINE_float("minutes", 10.0, "The training time budget.")
_SIMULATIONS = common.define_simulations()


def main(argv: list[str]) -> None:
    cli.begin(argv)
    simulations = common.simulations(_SIMULATIONS.value)  # before training
    import jax

    from alphazero_jax import configs
    from alphazero_jax.evaluation import learning_proof
    from alphazero_jax.training import train

    workdir = _WORKDIR.value
    if common.is_snapshot(workdir):
        how = "checked as it is"
    else:
        config = configs.get_config("tic_tac_toe", "agent")
        config.time_limit_minutes = _MINUTES.value
        started = time.monotonic()
        train.train_and_evaluate(config, workdir)
        how = f"trained {(time.monotonic() - started) / 60:.1f} min on {jax.devices()}"
    run = common.restore(workdir, "tic_tac_toe")
    judged = learning_proof.optimal_moves(run, simulations, jax.random.key(0))
    print(f"Tic-Tac-Toe: {workdir}, iteration {run.iteration}, {how}")
    print(f"positions checked: {judged.positions} (every reachable position that is not over)")
    for number, rate in judged.search.items():
        described = learning_proof.describe_search(run, number)
        print(f"optimal moves with search ({described}): {rate:.2%} (goal >= 99%)")
    print(f"optimal moves, raw policy: {judged.raw_policy:.2%} (goal >= 95%)")


def run() -> None:
    """``alphazero-judge tic_tac_toe``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
