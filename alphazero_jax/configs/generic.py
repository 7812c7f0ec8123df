"""Presets for a registered game that has none of its own (a researcher's game, registered
with ``games.register``): sized from the game's ``max_num_moves`` at its default settings.

``smoke`` is seconds of training, ``cpu`` a small network for 2 cores, ``gpu`` the
accelerator sizes with a budget of 30 minutes; ``default``, an agent recipe, is ``gpu``'s
settings without the budget (the accelerator preset before ``gpu``, kept so that a run
started with it resumes). None is measured: the game is one's own.
"""

from __future__ import annotations

import ml_collections

from alphazero_jax import games
from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink


def _fit(config: ml_collections.ConfigDict) -> None:
    """Every slot finishes a game: moves per slot = the game's longest game."""
    config.selfplay.num_moves = games.make(config.game.name).max_num_moves


def _accelerator(config: ml_collections.ConfigDict) -> None:
    """The accelerator sizes: a 128 x 6 network, 1,024 games at once, 128 simulations."""
    config.num_iterations = 1000
    config.network.update(channels=128, blocks=6, value_hidden=128)
    config.search.num_simulations = 128
    config.selfplay.batch_size = 1024
    config.replay.capacity = 1_000_000
    config.learner.update(batch_size=1024, updates_per_iteration=64)
    config.evaluation.update(every=25, games=64, opponents=("random", "greedy", "minimax:2"))
    _fit(config)


def gpu(config: ml_collections.ConfigDict) -> None:
    """One GPU, a budget of 30 minutes: a 128 x 6 network, 1,024 games at once, 128
    simulations; not yet measured on a GPU (a game of one's own)."""
    _accelerator(config)
    budget(config, 30)


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """``gpu``'s settings without its budget, kept so that a run started with
    ``--config=GAME:default`` resumes; not yet measured on a GPU."""
    _accelerator(config)


def cpu(config: ml_collections.ConfigDict) -> None:
    """A 2-core CPU, stopped at 60 minutes: a small network, 32 simulations; not yet
    measured (a game of one's own)."""
    config.num_iterations = 200
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.batch_size = 64
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=("random", "greedy", "minimax:2"))
    _fit(config)
    budget(config, 60)


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests: measured on 2 cores for the tests' own game."""
    shrink(config)
    _fit(config)


PRESETS = {"smoke": smoke, "cpu": cpu, "gpu": gpu, "default": default}
