"""Presets for a registered game that has none of its own (a researcher's game, registered
with ``games.register``): sized from the game's ``max_num_moves`` at its default settings.

``cpu`` is the Connect Four ``cpu`` preset's network and search without its game-specific
tuning; ``default`` the accelerator sizes; ``smoke`` seconds of training.
"""

from __future__ import annotations

import ml_collections

from alphazero_jax import games
from alphazero_jax.presets._smoke import shrink


def _fit(config: ml_collections.ConfigDict) -> None:
    """Every slot finishes a game: moves per slot = the game's longest game."""
    config.selfplay.num_moves = games.make(config.game.name).max_num_moves


def default(config: ml_collections.ConfigDict) -> None:
    """One GPU or TPU host."""
    config.num_iterations = 1000
    config.network.update(channels=128, blocks=6, value_hidden=128)
    config.search.num_simulations = 128
    config.selfplay.batch_size = 1024
    config.replay.capacity = 1_000_000
    config.learner.update(batch_size=1024, updates_per_iteration=64)
    config.evaluation.update(every=25, games=64, opponents=("random", "greedy", "minimax:2"))
    _fit(config)


def cpu(config: ml_collections.ConfigDict) -> None:
    """A 2-core CPU: a small network, 32 simulations."""
    config.num_iterations = 200
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.batch_size = 64
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=("random", "greedy", "minimax:2"))
    _fit(config)


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests."""
    shrink(config)
    _fit(config)


PRESETS = {"default": default, "cpu": cpu, "smoke": smoke}
