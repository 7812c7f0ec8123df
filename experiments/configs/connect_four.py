r"""Connect Four 6x7. Presets: ``default`` (an accelerator), ``cpu`` (a 2-core machine),
``smoke`` (tests) and ``auto`` (``cpu`` unless JAX sees an accelerator):

    python -m experiments.train --config=experiments/configs/connect_four.py:cpu \
        --workdir=runs/connect_four
"""

from __future__ import annotations

import ml_collections

from experiments.configs import base

PRESETS = base.PRESETS


def get_config(preset: str = "default") -> ml_collections.ConfigDict:
    preset = base.resolve_preset(preset)
    config = base.base_config()
    config.game.name = "connect_four"
    config.game.settings = {"rows": 6, "cols": 7, "connect": 4}
    if preset == "default":
        config.num_iterations = 2000
        config.network.update(channels=128, blocks=6, value_hidden=128)
        config.search.num_simulations = 128
        config.selfplay.update(batch_size=512, num_moves=84)
        config.replay.capacity = 500_000
        config.learner.update(batch_size=1024, updates_per_iteration=32)
        config.evaluation.update(
            every=50,
            games=128,
            opponents=("random", "greedy", "minimax:2", "minimax:4"),
            perfect_play_positions=500,  # of End-Easy and Middle-Medium: mistake rates
        )
    elif preset == "cpu":  # about an hour on a 2-core CPU
        config.num_iterations = 240
        config.network.update(channels=32, blocks=3, value_hidden=32)
        config.search.num_simulations = 32
        config.selfplay.update(batch_size=64, num_moves=84)
        config.replay.capacity = 60_000
        config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
        # random, greedy, minimax:2; and mistake rates on 100 + 100 of Pons' positions
        config.evaluation.update(every=20, games=64, perfect_play_positions=100)
    elif preset == "smoke":
        config = base.smoke(config)
        config.selfplay.num_moves = 42
    return config
