"""Tic-Tac-Toe 3x3: ``default`` (300 iterations, minutes on 2 CPU cores: the optimal
move in about 99% of the 4,520 live positions), ``cpu`` and ``agent`` (the same; ``agent``
is the shipped agent's recipe, ``make agent GAME=tic_tac_toe``) and ``smoke`` (tests)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._smoke import shrink


def _common(config: ml_collections.ConfigDict) -> None:
    config.game.settings = {"rows": 3, "cols": 3, "connect": 3}


def default(config: ml_collections.ConfigDict) -> None:
    """300 iterations on a CPU or an accelerator alike."""
    _common(config)
    config.num_iterations = 300
    config.network.update(channels=32, blocks=2, value_hidden=32)
    config.search.update(num_simulations=32, max_num_considered_actions=9)
    config.selfplay.update(batch_size=128, num_moves=18, num_sampling_moves=6)
    config.replay.capacity = 20_000
    config.learner.update(batch_size=256, updates_per_iteration=8, learning_rate=2e-3)
    config.evaluation.update(every=50, games=64, opponents=("random", "greedy", "minimax:9"))


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests."""
    _common(config)
    shrink(config)
    config.selfplay.num_moves = 9


PRESETS = {"default": default, "cpu": default, "agent": default, "smoke": smoke}
