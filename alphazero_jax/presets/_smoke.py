"""The part of every game's ``smoke`` preset that does not depend on the game."""

from __future__ import annotations

import ml_collections


def shrink(config: ml_collections.ConfigDict) -> None:
    """A few seconds of real training, for tests: tiny net, few games, few updates."""
    config.num_iterations = 3
    config.network.update(channels=8, blocks=1, value_hidden=8)
    config.search.update(num_simulations=4, max_num_considered_actions=4)
    config.selfplay.update(batch_size=4, num_sampling_moves=4)  # num_moves: the game's bound
    config.replay.capacity = 512
    config.learner.update(
        batch_size=16, updates_per_iteration=2, warmup_steps=0, schedule="constant"
    )
