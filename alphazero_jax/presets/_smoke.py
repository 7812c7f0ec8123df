"""The parts of every game's presets that do not depend on the game: ``smoke``'s shrinking
and the time budget of a preset sized for a machine."""

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


def budget(config: ml_collections.ConfigDict, minutes: float) -> None:
    """A budget of ``minutes`` of the call: the run stops at its last iteration or after
    ``minutes`` (``time_limit_minutes``), whichever comes first, saves a checkpoint and
    evaluates its last network (``evaluation.final``); run again, it resumes."""
    config.time_limit_minutes = float(minutes)
    config.evaluation.final = True
