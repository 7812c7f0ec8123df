"""Othello, by hardware: ``smoke`` (6x6, tests), ``cpu`` (6x6, about half an hour of 2
cores: the shipped 6x6 agent's recipe), ``gpu`` (8x8, minutes of one GPU). Agent recipes
(``configs.recipes``): ``long_gpu`` (8x8, the shipped 8x8 agent's), ``agent`` (8x8, a 32 x 3
agent in one session of 2 cores) and ``default`` (8x8, the accelerator preset before
``gpu``).

The evaluation plays the game's baselines: random, its greedy player (``greedy:flips``, the
move that flips the most discs) and alpha-beta on its heuristic (``minimax:d``)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink

OPPONENTS = ("random", "greedy:flips", "minimax:2")
AGENT_ITERATIONS = 360


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """8x8, the accelerator preset before ``gpu``, kept so that a run started with
    ``--config=othello:default`` resumes: 1,000 iterations of 1,024 games, 43.5 s an
    iteration on one H100 (about 12 hours); not yet measured on a GPU to its end."""
    config.game.settings = {"size": 8, "legal_plane": 1}
    config.num_iterations = 1000
    config.network.update(channels=128, blocks=6, value_hidden=128)
    config.search.num_simulations = 128
    config.selfplay.update(batch_size=1024, num_moves=128, num_sampling_moves=16)
    config.replay.capacity = 1_000_000
    config.learner.update(batch_size=1024, updates_per_iteration=64)
    config.evaluation.update(every=25, games=128, opponents=(*OPPONENTS, "minimax:3", "minimax:4"))


def cpu(config: ml_collections.ConfigDict) -> None:
    """6x6, about half an hour of 2 cores, stopped at 60 minutes: measured on a 2-core Intel
    Xeon at 28.5 minutes, winning 83.2% of 400 games against alpha-beta at depth 2 (docs:
    results, Othello 6x6).

    Games of about 32 plies; the recipe of the shipped 6x6 agent, ``make agent GAME=othello
    RECIPE=cpu``."""
    config.game.settings = {"size": 6, "legal_plane": 1}
    config.num_iterations = 240
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.update(batch_size=64, num_moves=64, num_sampling_moves=8)
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=OPPONENTS)
    budget(config, 60)


@agent_recipe
def agent(config: ml_collections.ConfigDict) -> None:
    """The recipe of the 8x8 agent shipped before ``long_gpu``'s, ``make agent
    GAME=othello``: the 32x3 network of the ``cpu`` presets with Connect Four's self-play
    (playout-cap randomisation, 64 simulations on one move in four and 16 on the others,
    value targets half the root value) and a replay memory of the last ~70 iterations'
    positions, sized to one working session of 2 cores."""
    config.game.settings = {"size": 8, "legal_plane": 1}
    config.num_iterations = AGENT_ITERATIONS
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 64
    # 64 slots x 128 plies: two games of ~60 plies a slot, a quarter of the moves kept:
    # ~2,000 positions an iteration, each sampled about twice (16 updates of 256).
    config.selfplay.update(
        batch_size=64, num_moves=128, num_sampling_moves=12, root_value_weight=0.5
    )
    config.budget.update(kind="playout_cap", full_search_probability=0.25, fast_simulations=16)
    config.replay.capacity = 150_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(
        every=AGENT_ITERATIONS // 4, games=64, opponents=(*OPPONENTS, "minimax:3", "minimax:4")
    )


@agent_recipe
def long_gpu(config: ml_collections.ConfigDict) -> None:
    """The recipe of the shipped 8x8 agent, ``make agent GAME=othello RECIPE=long_gpu``: the
    ``agent`` recipe's search and targets with a network of 64 channels x 4 blocks (310,600
    parameters, 4.6x) over 80 iterations of 512 games at once and 128 updates each. Against
    ``agent`` it plays about 1.8x the positions and takes 1.8x the updates (10,240 of 256)
    at the same ratio of samples to new positions (about 2), and its replay memory holds the
    last ~19 iterations (~20% of the run, as ``agent``'s does). Sized to minutes of one GPU;
    on 2 cores, hours. Its strength: docs, results, Othello 8x8."""
    agent(config)
    config.num_iterations = 80
    config.network.update(channels=64, blocks=4, value_hidden=64)
    config.selfplay.batch_size = 512
    config.replay.capacity = 300_000
    config.learner.updates_per_iteration = 128
    config.evaluation.update(every=40, opponents=(*OPPONENTS, "minimax:3"))


def gpu(config: ml_collections.ConfigDict) -> None:
    """8x8, one GPU, a budget of 12 minutes: the ``long_gpu`` recipe, which trained the
    shipped 8x8 agent, stopped at 12 minutes. Measured on one H100 as that recipe: 8.3
    minutes, winning 92.0% of 200 games against alpha-beta at depth 3 and 80.5% at depth 4
    (docs: results, Othello 8x8); its time limit was never reached."""
    long_gpu(config)
    budget(config, 12)


def smoke(config: ml_collections.ConfigDict) -> None:
    """6x6, seconds of real training, for tests: measured on 2 cores, where the tests run
    it."""
    config.game.settings = {"size": 6, "legal_plane": 1}
    shrink(config)
    config.selfplay.num_moves = 63
    config.evaluation.opponents = OPPONENTS


PRESETS = {
    "smoke": smoke,
    "cpu": cpu,
    "gpu": gpu,
    "long_gpu": long_gpu,
    "agent": agent,
    "default": default,
}
