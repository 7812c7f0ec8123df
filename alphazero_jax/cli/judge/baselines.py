r"""Proof that a trained run learned: it against its game's baselines.

    alphazero-judge baselines --workdir=runs/othello_6x6 \
        --games=400 --simulations=-1,128
    alphazero-judge baselines --workdir=runs/quoridor_5x5
    alphazero-judge baselines --workdir=runs/pgx_animal_shogi --opponents=mcts:32,mcts:128

The game is the run's. Othello's baselines are random, its greedy player
(``greedy:flips``) and alpha-beta on its heuristic at depths 2 to 4; Quoridor's are random,
``greedy:path`` and minimax on the shortest-path race. The run plays ``--games`` against
each, colours swapped in pairs after two random opening plies, against the goals of
``learning_proof.BASELINE_GOALS`` for the run's board size (Othello 6x6: the learning
proof; 8x8: the full-size agent's; Quoridor 5x5, 9x9); a goal of None is reported only.
Any other game (pgx's, one's own) plays ``learning_proof.GENERIC_BASELINES`` (random,
greedy, rollout MCTS) or the agent specs ``--opponents`` names, reported only.
``--opponents`` plays a subset; ``--seed`` plays other games (other openings and tie-breaks)
to see how much a result moves with them. ``--search`` plays the network with other
``config.search`` settings (``--search=play_value_scale=0.2``): with the same ``--seed``
the games open alike, so two settings meet the same openings.
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
_GAMES = common.define_games()
_SIMULATIONS = common.define_simulations()
_OPPONENTS = flags.DEFINE_list(
    "opponents", [], "The baselines to play (default: all of the game's and size's)."
)
_SEED = flags.DEFINE_integer(
    "seed", 0, "The matches' key: another seed draws other openings and tie-breaks."
)
_SEARCH = common.define_search()


def main(argv: list[str]) -> None:
    cli.begin(argv)
    counts = common.simulations(_SIMULATIONS.value)
    import jax

    from alphazero_jax.evaluation import learning_proof

    run = cli.with_search(common.restore(_WORKDIR.value), _SEARCH.value)
    try:
        goals = learning_proof.goals_for(run.game, _OPPONENTS.value)
    except ValueError as error:
        cli.fail(f"--opponents: {error}")
    title = run.game.name.title()
    playing = f", playing with {', '.join(_SEARCH.value)}" if _SEARCH.value else ""
    print(
        f"{title} run {_WORKDIR.value} {dict(run.game.settings)}: iteration {run.iteration}"
        + playing
    )
    for simulations in counts:
        described = learning_proof.describe_search(run, simulations)
        for opponent, goal in goals.items():
            started = time.monotonic()
            result = learning_proof.play_against(
                run,
                opponent,
                _GAMES.value,
                jax.random.key(_SEED.value),
                simulations,
                opening_moves=2,
            )
            verdict = "" if goal is None else (" met" if result["win"] >= goal else " NOT met")
            goal_text = "" if goal is None else f" (goal >= {goal:.0%}{verdict})"
            print(
                f"{described} vs {opponent:<12} {_GAMES.value} games: won {result['win']:.1%}, "
                f"drew {result['draw']:.1%}, lost {result['loss']:.1%}{goal_text} "
                f"[{time.monotonic() - started:.0f} s]",
                flush=True,
            )


def run() -> None:
    """``alphazero-judge baselines``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
