"""Tic-Tac-Toe 3x3, by hardware: ``smoke`` (tests), ``cpu`` (minutes of 2 cores: the
optimal move in about 99% of the 4,520 live positions), ``gpu`` (minutes of one GPU).
Agent recipes (``configs.recipes``): ``agent`` (the shipped agent's, ``make agent
GAME=tic_tac_toe``) and ``default`` (``cpu``'s before the presets were named by hardware)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink


def _common(config: ml_collections.ConfigDict) -> None:
    config.game.settings = {"rows": 3, "cols": 3, "connect": 3}


def _recipe(config: ml_collections.ConfigDict) -> None:
    """The shipped agent's recipe: 300 iterations of 128 games at 32 simulations."""
    _common(config)
    config.num_iterations = 300
    config.network.update(channels=32, blocks=2, value_hidden=32)
    config.search.update(num_simulations=32, max_num_considered_actions=9)
    config.selfplay.update(batch_size=128, num_moves=18, num_sampling_moves=6)
    config.replay.capacity = 20_000
    config.learner.update(batch_size=256, updates_per_iteration=8, learning_rate=2e-3)
    config.evaluation.update(every=50, games=64, opponents=("random", "greedy", "minimax:9"))


def cpu(config: ml_collections.ConfigDict) -> None:
    """Minutes of 2 cores, stopped at 15 minutes: measured on a 2-core Intel Xeon at 5.0
    minutes, the optimal move in 99.3% of the 4,520 live positions (docs: results,
    Tic-Tac-Toe). The shipped agent's recipe (``agent``) with a budget."""
    _recipe(config)
    budget(config, 15)


def gpu(config: ml_collections.ConfigDict) -> None:
    """One GPU, a budget of 5 minutes; not yet measured on a GPU. ``cpu``'s games, updates
    and network in wider iterations, as the other games' GPU presets: 75 iterations of 512
    games at once and 32 updates each, where ``cpu`` has 300 of 128 and 8 (the same 38,400
    games and 2,400 updates, so the same cosine schedule by update), and a replay memory of
    the same ~9 iterations."""
    _recipe(config)
    config.num_iterations = 75
    config.selfplay.batch_size = 512
    config.learner.updates_per_iteration = 32
    config.replay.capacity = 80_000
    config.evaluation.every = 25
    budget(config, 5)


@agent_recipe
def agent(config: ml_collections.ConfigDict) -> None:
    """The recipe of the shipped agent, ``make agent GAME=tic_tac_toe``: 300 iterations on
    2 cores (``cpu`` without its time limit)."""
    _recipe(config)


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """``cpu``'s settings before the presets were named by hardware, kept so that a run
    started with ``--config=tic_tac_toe:default`` resumes (``cpu`` resumes it too)."""
    _recipe(config)


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests: measured on 2 cores, where the tests run it."""
    _common(config)
    shrink(config)
    config.selfplay.num_moves = 9


PRESETS = {"smoke": smoke, "cpu": cpu, "gpu": gpu, "agent": agent, "default": default}
