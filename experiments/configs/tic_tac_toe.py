r"""Tic-Tac-Toe 3x3. Presets: ``default`` (300 iterations, 10-16 minutes on a 2-core CPU:
the optimal move in about 99% of the 4,520 live positions; BUILD.md, "Proof that it
learns"), ``cpu`` (the same) and ``smoke`` (tests):

    python -m experiments.train --config=experiments/configs/tic_tac_toe.py \
        --workdir=runs/tic_tac_toe
"""

from __future__ import annotations

import ml_collections

from experiments.configs import base

PRESETS = base.PRESETS


def get_config(preset: str = "default") -> ml_collections.ConfigDict:
    preset = base.resolve_preset(preset)
    config = base.base_config()
    config.game.name = "tic_tac_toe"
    config.game.settings = {"rows": 3, "cols": 3, "connect": 3}
    if preset == "smoke":
        config = base.smoke(config)
        config.selfplay.num_moves = 9
        return config
    config.num_iterations = 300
    config.network.update(channels=32, blocks=2, value_hidden=32)
    config.search.update(num_simulations=32, max_num_considered_actions=9)
    config.selfplay.update(batch_size=128, num_moves=18, num_sampling_moves=6)
    config.replay.capacity = 20_000
    config.learner.update(batch_size=256, updates_per_iteration=8, learning_rate=2e-3)
    config.evaluation.update(every=50, games=64, opponents=("random", "greedy", "minimax:9"))
    return config
