r"""Proof that a trained Connect Four run learned, judged against exact references.

    alphazero-judge connect_four --workdir=runs/connect_four

Evaluates the run: its win rate against a uniformly random player (``--games``, half as
first player, with the first of ``--simulations``) and its value head's win/draw/loss
accuracy on the perfect-play sets (``benchmark_sets.SETS``: Pascal Pons' six and
Random-Play), whose exact scores give the labels.
"""

from __future__ import annotations

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_WORKDIR = common.define_workdir()
_GAMES = common.define_games()
_SIMULATIONS = common.define_simulations()


def main(argv: list[str]) -> None:
    cli.begin(argv)
    simulations = common.simulations(_SIMULATIONS.value)[0]  # the run's own by default
    import jax

    from alphazero_jax.evaluation import learning_proof
    from alphazero_jax.solvers import benchmark_sets

    run = common.restore(_WORKDIR.value, "connect_four")
    print(f"Connect Four run {_WORKDIR.value}: iteration {run.iteration}")
    result = learning_proof.play_random(run, _GAMES.value, jax.random.key(0), simulations)
    print(
        f"vs random ({learning_proof.describe_search(run, simulations)}, {_GAMES.value} "
        f"games, half as first player): won {result['win']:.1%}, drew {result['draw']:.1%}, "
        f"lost {result['loss']:.1%}"
    )
    print(f"{'Set':<28} {'W/D/L accuracy':>15} {'sign on decisive':>17}")
    for set_name, label in benchmark_sets.SETS.items():
        accuracy = learning_proof.value_accuracy(run, set_name)
        print(
            f"{set_name + ' (' + label + ')':<28} {accuracy['three_way']:>15.1%} "
            f"{accuracy['decisive_sign']:>17.1%}"
        )


def run() -> None:
    """``alphazero-judge connect_four``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
