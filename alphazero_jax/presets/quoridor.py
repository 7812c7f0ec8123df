"""Quoridor, by hardware: ``smoke`` (5x5, tests), ``cpu`` (5x5 with 3 walls, about half an
hour of 2 cores: the shipped 5x5 agent's recipe), ``gpu`` (9x9 with 10 walls each, minutes
of one GPU). Agent recipes (``configs.recipes``): ``agent`` (9x9, the shipped 9x9 agent's)
and ``default`` (9x9, the accelerator preset before ``gpu``).

The evaluation plays the game's baselines: random, its greedy player (``greedy:path``: walk
a shortest path, wall back when behind on walls) and alpha-beta on its heuristic
(``minimax:d``, shortest-path race and walls in hand)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink

OPPONENTS = ("random", "greedy:path", "minimax:2")
AGENT_ITERATIONS = 360


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """9x9, 10 walls, the accelerator preset before ``gpu``, kept so that a run started with
    ``--config=quoridor:default`` resumes: 1,000 iterations of 1,024 games at 128
    simulations; not yet measured on a GPU (its first iteration on one H100 did not finish
    within three minutes)."""
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
    """5x5 with 3 walls each, about half an hour of 2 cores, stopped at 60 minutes: measured
    on a 2-core Intel Xeon at 30.7 minutes, winning 99.7% against random and 51.7% of 400
    games against alpha-beta at depth 2 (docs: results, Quoridor 5x5).

    Games of 10 to 30 plies; the recipe of the shipped 5x5 agent, ``make agent
    GAME=quoridor RECIPE=cpu``."""
    _small(config)
    config.num_iterations = 200
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.update(batch_size=48, num_moves=100, num_sampling_moves=6)
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=OPPONENTS)
    budget(config, 60)


@agent_recipe
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


def gpu(config: ml_collections.ConfigDict) -> None:
    """9x9 with 10 walls each, one GPU, a budget of 20 minutes; not yet measured on a GPU.
    The ``agent`` recipe (what made 5x5 learn, the 2-core 9x9 agent's search and targets)
    scaled as the other games' ``long_gpu``: 8 times the games at once, the 64 x 4 network.

    On one H200 the ``agent`` recipe's self-play (32 games at once) took 4.7-5.8 s a call
    against 15.5 s on 2 cores, and a GPU steps thousands of 9x9 games at once at 2.0-2.6M
    steps a second (docs: benchmarks), so the games at once are what the GPU adds: 256 of
    them, about 20,000 kept positions an iteration, each sampled about 1.6 times as in
    ``agent``."""
    agent(config)
    config.num_iterations = 90
    config.network.update(channels=64, blocks=4, value_hidden=64)
    config.selfplay.batch_size = 256
    config.learner.updates_per_iteration = 128
    # The last ~15 iterations' positions (~17% of the run, as agent's ~70 of 360 is ~19%).
    config.replay.capacity = 300_000
    config.evaluation.update(every=30)
    budget(config, 20)


def smoke(config: ml_collections.ConfigDict) -> None:
    """5x5, seconds of real training, for tests: measured on 2 cores, where the tests run
    it."""
    _small(config)
    shrink(config)
    config.selfplay.num_moves = 100  # the move cap: every slot finishes a game
    config.evaluation.opponents = OPPONENTS


PRESETS = {"smoke": smoke, "cpu": cpu, "gpu": gpu, "agent": agent, "default": default}
