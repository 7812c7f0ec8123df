"""What the learning proofs measure of a trained network (``alphazero-judge tic_tac_toe``,
``connect_four`` and ``baselines``): its moves (a noise-free search or the raw policy), its
share of optimal moves in every Tic-Tac-Toe position, its results against an agent, its
value accuracy on the perfect-play sets (``benchmark_sets.SETS``), and the goals of the
Othello and Quoridor proofs by board size.

``run`` is what ``agents.pretrained.restore`` returns: a run, one of its checkpoints or an
exported agent's folder (``game``, ``config``, ``apply_fn``, ``variables``, ``iteration``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import numpy as np

from alphazero_jax import agents, games, networks
from alphazero_jax.evaluation import arena, perfect_play
from alphazero_jax.solvers import benchmark_sets
from alphazero_jax.solvers import tic_tac_toe as oracle
from alphazero_jax.types import Agent


def _simulations(run, simulations: int) -> int:
    """The count ``simulations`` stands for: the run's own for -1, 0 for the raw policy."""
    return int(run.config.search.num_simulations) if simulations < 0 else simulations


def describe_search(run, simulations: int) -> str:
    """``"<policy>, <n> simulations"``: the search ``simulations`` stands for (-1: the run's
    own), or ``"raw policy"`` for 0."""
    count = _simulations(run, simulations)
    return f"{run.config.search.policy}, {count} simulations" if count else "raw policy"


def _act_fn(run, num_simulations: int):
    """The network's move function: a noise-free search, or the raw policy for 0."""
    search_settings = run.config.search.to_dict()
    return agents.make_network_act_fn(
        run.game, run.apply_fn, search_settings, num_simulations=num_simulations
    )


def search_moves(run, states, key, simulations: int = -1):
    """int32[B]: the greedy move of a noise-free search from each state (``simulations``
    -1: the run's own; 0: the raw policy)."""
    act_fn = _act_fn(run, _simulations(run, simulations))
    return jax.jit(act_fn)(run.variables, key, states)


def raw_policy_moves(run, states):
    """int32[B]: the legal move with the highest policy logit."""
    return jax.jit(_act_fn(run, 0))(run.variables, jax.random.key(0), states)


def play_random(run, num_games: int, key, simulations: int = -1) -> dict[str, float]:
    """Win, draw and loss rates of greedy search against uniform random moves (the network
    moves first in half of the games)."""
    return play_against(run, "random", num_games, key, simulations)


def play_against(
    run, opponent: str, num_games: int, key, simulations: int = -1, opening_moves: int = 0
) -> dict[str, float]:
    """Win, draw and loss rates of greedy search against the agent ``opponent`` names (the
    network moves first in half of the games; ``opening_moves`` random plies open each
    colour-swapped pair; ``simulations`` -1: the run's own search, 0: the raw policy)."""
    other = agents.from_spec(run.game, opponent)
    network = Agent("network", _act_fn(run, _simulations(run, simulations)), run.variables)
    result = arena.play(
        run.game, network, other, num_games=num_games, key=key, opening_moves=opening_moves
    )
    total = result.total
    return {
        "win": total.wins / num_games,
        "draw": total.draws / num_games,
        "loss": total.losses / num_games,
    }


class OptimalMoves(NamedTuple):
    """The share of Tic-Tac-Toe positions in which a network's move is optimal."""

    positions: int  # every reachable position that is not over: 4,520
    search: dict[int, float]  # simulations (-1: the run's own) -> share with search
    raw_policy: float  # the share with the raw policy (argmax of the legal logits)


def optimal_moves(run, simulations: Sequence[int], key) -> OptimalMoves:
    """A Tic-Tac-Toe network's moves against the perfect oracle (``solvers.tic_tac_toe``)
    in each reachable position that is not over: with a noise-free search of each of
    ``simulations`` (-1: the run's own; 0: the raw policy), and with the raw policy.

    Raises:
      ValueError: a run of another game.
    """
    if run.game.name != "tic_tac_toe":
        raise ValueError(f"expected a tic_tac_toe run; got one of {run.game.name}.")
    boards = [b for b in oracle.reachable_positions() if not oracle.is_over(b)]
    states = games.replay_batch(run.game, [oracle.moves_to(b) for b in boards])
    optimal = [oracle.optimal_moves(b) for b in boards]

    def share(moves) -> float:
        return float(np.mean([a in best for a, best in zip(np.asarray(moves), optimal)]))

    searched = {n: share(search_moves(run, states, key, n)) for n in simulations}
    return OptimalMoves(len(boards), searched, share(raw_policy_moves(run, states)))


def value_accuracy(run, set_name: str) -> dict[str, float]:
    """The value head against the exact outcome (the sign of the score) of each position of
    a set of ``benchmark_sets.SETS``.

    ``three_way``: win/draw/loss read as the learner's ``value_sign_accuracy`` does
    (``networks.outcome_label``); ``decisive_sign``: the sign of the value on the positions
    that are not draws.
    """
    positions = benchmark_sets.load(set_name)
    game = run.game
    states = games.replay_batch(game, [game.actions_from_text(p.moves) for p in positions])
    value = np.asarray(perfect_play.make_value_fn(game, run.apply_fn)(run.variables, states))
    label = np.sign([p.score for p in positions])
    predicted = np.asarray(networks.outcome_label(value))
    decisive = label != 0
    return {
        "three_way": float(np.mean(predicted == label)),
        "decisive_sign": float(np.mean(np.sign(value[decisive]) == label[decisive])),
    }


# The game's baselines and the share of games the trained network must win against each,
# by game and board size: the small boards' learning proofs, and the full-size agents' goals.
BASELINE_GOALS = {
    "othello": {
        6: {"random": 0.99, "greedy:flips": 0.90, "minimax:2": 0.60, "minimax:3": None,
            "minimax:4": None},
        8: {"random": 0.99, "greedy:flips": None, "minimax:2": None, "minimax:3": 0.90,
            "minimax:4": 0.60},
    },
    "quoridor": {
        5: {"random": 0.99, "greedy:path": 0.80, "minimax:2": None, "minimax:3": None},
        9: {"random": 0.99, "greedy:path": 0.90, "minimax:2": 0.75, "minimax:3": None},
    },
}  # fmt: skip


# The baselines that need nothing of a game (a neutral heuristic makes ``greedy`` greedy by
# one-ply outcome): the ladder of a game with no goals of its own (pgx's, one's own).
GENERIC_BASELINES = ("random", "greedy", "mcts:32")


def goals_for(game: games.Game, opponents: Sequence[str] = ()) -> dict[str, float | None]:
    """The ``BASELINE_GOALS`` of ``game``: those of the listed size nearest its board's,
    only ``opponents``' if any are given. A game with none of its own is judged against
    ``opponents`` (any agent specs; default ``GENERIC_BASELINES``), each reported only
    (a goal of None).

    Raises:
      ValueError: an opponent that has no goal at that size.
    """
    if game.name not in BASELINE_GOALS:
        return dict.fromkeys(opponents or GENERIC_BASELINES)
    by_size = BASELINE_GOALS[game.name]
    size = int(dict(game.settings)["size"])
    goals = by_size[min(by_size, key=lambda listed: abs(listed - size))]
    if not opponents:
        return dict(goals)
    unknown = sorted(set(opponents) - set(goals))
    if unknown:
        raise ValueError(f"expected opponents among {list(goals)}; got {unknown}.")
    return {name: goal for name, goal in goals.items() if name in opponents}
