r"""Proof that training learns Tic-Tac-Toe, judged against a perfect oracle.

    python -m experiments.strength.learning_proof.tic_tac_toe --workdir=runs/ttt_proof \
        --minutes=10

Trains the default Tic-Tac-Toe config for at most ``--minutes`` and then checks the agent's
move in each of the 4,520 reachable positions that are not over against a perfect minimax
oracle, with search (each of ``--simulations``) and with the raw policy (argmax of the
legal logits). A checkpoint (``--workdir=<run>/checkpoints/<iteration>``) or an exported
agent's folder is checked as it is, without training.
"""

from __future__ import annotations

import time

from absl import app, flags

from alphazero_jax.cli import (
    common as cli,
)
from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from experiments.strength.learning_proof import common

_WORKDIR = common.define_workdir()
_MINUTES = flags.DEFINE_float("minutes", 10.0, "The training time budget.")
_SIMULATIONS = common.define_simulations()


def main(argv: list[str]) -> None:
    cli.begin(argv)
    import jax
    import numpy as np

    from alphazero_jax import configs, games
    from alphazero_jax.solvers import tic_tac_toe as oracle
    from alphazero_jax.training import train
    from experiments.strength import network_measures

    workdir = _WORKDIR.value
    if common.is_snapshot(workdir):
        how = "checked as it is"
    else:
        config = configs.get_config("tic_tac_toe")
        config.time_limit_minutes = _MINUTES.value
        started = time.monotonic()
        train.train_and_evaluate(config, workdir)
        how = f"trained {(time.monotonic() - started) / 60:.1f} min on {jax.devices()}"
    run = common.restore(workdir, "tic_tac_toe")
    boards = [b for b in oracle.reachable_positions() if not oracle.is_over(b)]
    states = games.replay_batch(run.game, [oracle.moves_to(b) for b in boards])
    optimal = [oracle.optimal_moves(b) for b in boards]
    raw = np.asarray(network_measures.raw_policy_moves(run, states))
    print(f"Tic-Tac-Toe: {workdir}, iteration {run.iteration}, {how}")
    print(f"positions checked: {len(boards)} (every reachable position that is not over)")
    for simulations in (int(s) for s in _SIMULATIONS.value):
        moves = network_measures.search_moves(run, states, jax.random.key(0), simulations)
        rate = np.mean([a in best for a, best in zip(np.asarray(moves), optimal)])
        described = network_measures.describe_search(run, simulations)
        print(f"optimal moves with search ({described}): {rate:.2%} (goal >= 99%)")
    raw_rate = np.mean([a in best for a, best in zip(raw, optimal)])
    print(f"optimal moves, raw policy: {raw_rate:.2%} (goal >= 95%)")


if __name__ == "__main__":
    app.run(main)
