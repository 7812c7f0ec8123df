r"""Othello. Presets: ``default`` (8x8, an accelerator), ``cpu`` (6x6, 16 minutes of
iterations on a 2-core CPU, plus evaluations), ``smoke`` (6x6, tests) and ``auto`` (``cpu``
unless JAX sees an accelerator):

    python -m experiments.train --config=experiments/configs/othello.py:cpu \
        --workdir=runs/othello_6x6

The evaluation plays the game's baselines: random, its greedy player (``greedy:flips``,
the move that flips the most discs) and alpha-beta on its heuristic (``minimax:d``).
"""

from __future__ import annotations

import ml_collections

from experiments.configs import base

PRESETS = base.PRESETS
OPPONENTS = ("random", "greedy:flips", "minimax:2")


def get_config(preset: str = "default") -> ml_collections.ConfigDict:
    preset = base.resolve_preset(preset)
    config = base.base_config()
    config.game.name = "othello"
    if preset == "default":  # 8x8: 60 placements, a pass now and then
        config.game.settings = {"size": 8, "legal_plane": 1}
        config.num_iterations = 1000
        config.network.update(channels=128, blocks=6, value_hidden=128)
        config.search.num_simulations = 128
        config.selfplay.update(batch_size=1024, num_moves=128, num_sampling_moves=16)
        config.replay.capacity = 1_000_000
        config.learner.update(batch_size=1024, updates_per_iteration=64)
        config.evaluation.update(
            every=25, games=128, opponents=(*OPPONENTS, "minimax:3", "minimax:4")
        )
        return config
    config.game.settings = {"size": 6, "legal_plane": 1}
    if preset == "smoke":
        config = base.smoke(config)
        config.selfplay.num_moves = 63
        config.evaluation.opponents = OPPONENTS
        return config
    # cpu: 6x6, games of about 32 plies; about 4 s an iteration on 2 idle cores (BUILD.md).
    config.num_iterations = 240
    config.network.update(channels=32, blocks=3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.update(batch_size=64, num_moves=64, num_sampling_moves=8)
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=20, games=64, opponents=OPPONENTS)
    return config
