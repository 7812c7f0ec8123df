r"""Proof that training learns, judged against exact references.

    python -m experiments.strength.learning_proof tic_tac_toe --workdir=runs/ttt_proof --minutes=10
    python -m experiments.strength.learning_proof connect_four --workdir=runs/connect_four
    python -m experiments.strength.learning_proof othello --workdir=runs/othello_6x6
    python -m experiments.strength.learning_proof quoridor --workdir=runs/quoridor_5x5

``tic_tac_toe`` trains the default Tic-Tac-Toe config for at most ``--minutes`` and then
checks the agent's move in each of the 4,520 reachable positions that are not over against
a perfect minimax oracle, with search and with the raw policy (argmax of the legal logits).

``connect_four`` evaluates a trained run: its win rate against a uniformly random player
(half the games as first player) and its value head's win/draw/loss accuracy on the
perfect-play sets (``benchmark_sets.SETS``: Pascal Pons' six and Random-Play), whose exact
scores give the labels.

``othello`` evaluates a trained run against the game's baselines: random, its greedy
player (``greedy:flips``) and alpha-beta on its heuristic at depths 2 to 4, ``--games`` each
with colours swapped in pairs after two random opening plies, against the goals of
``network_measures.BASELINE_GOALS`` for the run's board size (6x6: the learning proof;
8x8: the full-size agent's). ``quoridor`` does the same with Quoridor's baselines
(``greedy:path``, minimax on the shortest-path race) and goals (5x5, 9x9); a goal of None
is reported only; ``--opponents`` plays a subset. ``experiments.evaluate``
fits the Elo ladder.
"""

from __future__ import annotations

import time

from absl import app, flags

from alphazero_jax.cli import (
    compilation_cache,
    host_devices,  # noqa: F401  (first: before JAX starts)
)

_WORKDIR = flags.DEFINE_string("workdir", None, "Run directory.", required=True)
_MINUTES = flags.DEFINE_float("minutes", 10.0, "tic_tac_toe: the training time budget.")
_GAMES = flags.DEFINE_integer(
    "games",
    200,
    "connect_four: games against random; othello, quoridor: games against each baseline "
    "(half as first player).",
)
_SIMULATIONS = flags.DEFINE_list(
    "simulations", ["0", "128"], "Search simulations to evaluate with (0: the run's own)."
)
_OPPONENTS = flags.DEFINE_list(
    "opponents", [], "othello, quoridor: the baselines to play (default: all of the size's)."
)


def main(argv: list[str]) -> None:
    modes = {
        "tic_tac_toe": _tic_tac_toe,
        "connect_four": _connect_four,
        "othello": lambda: _against_baselines("Othello"),
        "quoridor": lambda: _against_baselines("Quoridor"),
    }
    if len(argv) != 2 or argv[1] not in modes:
        raise app.UsageError(f"Expected one mode, one of {', '.join(modes)}; got {argv[1:]}.")
    compilation_cache.setup()
    modes[argv[1]]()


def _tic_tac_toe() -> None:
    import jax
    import numpy as np

    from alphazero_jax import configs, games, runs
    from alphazero_jax.solvers import tic_tac_toe as oracle
    from alphazero_jax.training import train
    from experiments.strength import network_measures

    config = configs.get_config("tic_tac_toe")
    config.time_limit_minutes = _MINUTES.value
    started = time.monotonic()
    train.train_and_evaluate(config, _WORKDIR.value)
    minutes = (time.monotonic() - started) / 60
    run = runs.restore_network(_WORKDIR.value)
    boards = [b for b in oracle.reachable_positions() if not oracle.is_over(b)]
    states = games.replay_batch(run.game, [oracle.moves_to(b) for b in boards])
    optimal = [oracle.optimal_moves(b) for b in boards]
    raw = np.asarray(network_measures.raw_policy_moves(run, states))
    print(f"Tic-Tac-Toe: trained {minutes:.1f} min ({run.iteration} iterations) on {jax.devices()}")
    print(f"positions checked: {len(boards)} (every reachable position that is not over)")
    for simulations in (int(s) for s in _SIMULATIONS.value):
        moves = network_measures.search_moves(run, states, jax.random.key(0), simulations)
        rate = np.mean([a in best for a, best in zip(np.asarray(moves), optimal)])
        described = network_measures.describe_search(run, simulations)
        print(f"optimal moves with search ({described}): {rate:.2%} (goal >= 99%)")
    raw_rate = np.mean([a in best for a, best in zip(raw, optimal)])
    print(f"optimal moves, raw policy: {raw_rate:.2%} (goal >= 95%)")


def _connect_four() -> None:
    import jax

    from alphazero_jax import runs
    from alphazero_jax.solvers import benchmark_sets
    from experiments.strength import network_measures

    run = runs.restore_network(_WORKDIR.value)
    print(f"Connect Four run {_WORKDIR.value}: iteration {run.iteration}")
    simulations = int(_SIMULATIONS.value[0])  # the first setting: the run's own by default
    result = network_measures.play_random(run, _GAMES.value, jax.random.key(0), simulations)
    print(
        f"vs random ({network_measures.describe_search(run, simulations)}, {_GAMES.value} "
        f"games, half as first player): won {result['win']:.1%}, drew {result['draw']:.1%}, "
        f"lost {result['loss']:.1%}"
    )
    print(f"{'Set':<28} {'W/D/L accuracy':>15} {'sign on decisive':>17}")
    for set_name, label in benchmark_sets.SETS.items():
        accuracy = network_measures.value_accuracy(run, set_name)
        print(
            f"{set_name + ' (' + label + ')':<28} {accuracy['three_way']:>15.1%} "
            f"{accuracy['decisive_sign']:>17.1%}"
        )


def _against_baselines(title: str) -> None:
    import jax

    from alphazero_jax import runs
    from experiments.strength import network_measures

    run = runs.restore_network(_WORKDIR.value)
    print(f"{title} run {_WORKDIR.value} {dict(run.game.settings)}: iteration {run.iteration}")
    try:
        goals = network_measures.goals_for(run.game, _OPPONENTS.value)
    except ValueError as error:
        raise app.UsageError(f"--opponents: {error}") from error
    for simulations in (int(s) for s in _SIMULATIONS.value):
        described = network_measures.describe_search(run, simulations)
        for opponent, goal in goals.items():
            started = time.monotonic()
            result = network_measures.play_against(
                run, opponent, _GAMES.value, jax.random.key(0), simulations, opening_moves=2
            )
            verdict = "" if goal is None else (" met" if result["win"] >= goal else " NOT met")
            goal_text = "" if goal is None else f" (goal >= {goal:.0%}{verdict})"
            print(
                f"{described} vs {opponent:<12} {_GAMES.value} games: won {result['win']:.1%}, "
                f"drew {result['draw']:.1%}, lost {result['loss']:.1%}{goal_text} "
                f"[{time.monotonic() - started:.0f} s]",
                flush=True,
            )


if __name__ == "__main__":
    app.run(main)
