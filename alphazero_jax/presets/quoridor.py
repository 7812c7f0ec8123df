"""Quoridor: ``default`` (9x9 with 10 walls each, an accelerator), ``cpu`` (5x5 with 3 walls,
the shipped 5x5 agent's recipe for a 2-core CPU), ``agent`` (9x9, the shipped 9x9 agent's
recipe), ``smoke`` (5x5, tests).

The evaluation plays the game's baselines: random, its greedy player (``greedy:path``: walk
a shortest path, wall back when behind on walls) and alpha-beta on its heuristic
(``minimax:d``, shortest-path race and walls in hand)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._smoke import shrink

OPPONENTS = ("random", "greedy:path", "minimax:2")
AGENT_ITERATIONS = 360


def default(config: ml_collections.ConfigDict) -> None:
    """9x9, 10 walls: 140 actions, games of 60-100 plies. Not yet timed: its first iteration
    on one H100 did not finish within three minutes."""
    config.game.settings = {"size": 9, "walls": 10, "distance_planes": 1}
    config.num_iterations = 1000
    config.network.update(channels=128, blocks=8, value_hidden=128)
    config.search.num_simulations = 128
    # num_moves: the move cap (4 x 81 plies), so that even a capped game finishes.
    config.selfplay.update(batch_size=1024, num_moves=324, num_sampling_moves=20)
    config.replay.capacity = 1_000_000
    config.learner.update(batch_size=1024, updates_per_iteration=64)
    config.evaluation.update(every=25, games=128, opponents=(*OPPONENTS, "minimax:3"))


def _small(config: ml_collections.ConfigDict) -> None:
    """5x5 with 3 walls each, and what made it learn there."""
    config.game.settings = {"size": 5, "walls": 3, "distance_planes": 1}
    # One side's first 0-3 moves are random, mostly walls dropped anywhere, so that the
    # network learns boards like those a random player leaves.
    config.opening.update(kind="handicap", handicap_moves=3)
    # A quarter of every node's value is the game's heuristic (the shortest-path race), so
    # that a side sure of its win still walks to its goal.
    config.search.heuristic_weight = 0.25
    # Gumbel: sequential halving tries every root candidate, and the policy target is the
    # improved policy, not visit counts that echo the prior; it unlearns a prior sure of a
    # dead-end step, which PUCT with 32 simulations never does.
    config.search.policy = "gumbel"


def cpu(config: ml_collections.ConfigDict) -> None:
    """5x5 with 3 walls each; games of 10 to 30 plies. The recipe of the shipped 5x5 agent,
    ``make agent GAME=quoridor RECIPE=cpu``, about half an hour of 2 cores."""
    _small(config)
    config.num_iterations = 200
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.update(batch_size=48, num_moves=100, num_sampling_moves=6)
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=OPPONENTS)


def agent(config: ml_collections.ConfigDict) -> None:
    """The recipe of the shipped 9x9 agent, ``make agent GAME=quoridor``: what made the
    5x5 ``cpu`` preset learn (handicap openings, a quarter heuristic, Gumbel), on 9x9 with
    the 32x3 network, playout-cap randomisation and value targets half the root value,
    sized to a few hours of 2 cores. A GPU is no faster: 32 games cannot fill it, and the
    shortest-path test of each wall is sequential."""
    _small(config)
    config.game.settings = {"size": 9, "walls": 10, "distance_planes": 1}
    config.opening.handicap_moves = 4
    config.num_iterations = AGENT_ITERATIONS
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    # num_moves: the move cap (4 x 81 plies), so that even a capped game finishes.
    config.selfplay.update(
        batch_size=32, num_moves=324, num_sampling_moves=10, root_value_weight=0.5
    )
    config.budget.update(kind="playout_cap", full_search_probability=0.25, fast_simulations=8)
    config.replay.capacity = 150_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=AGENT_ITERATIONS // 4, games=64, opponents=OPPONENTS)


def smoke(config: ml_collections.ConfigDict) -> None:
    """5x5, seconds of real training, for tests."""
    _small(config)
    shrink(config)
    config.selfplay.num_moves = 100  # the move cap: every slot finishes a game
    config.evaluation.opponents = OPPONENTS


PRESETS = {"default": default, "cpu": cpu, "agent": agent, "smoke": smoke}
