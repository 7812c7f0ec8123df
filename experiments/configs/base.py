"""Settings shared by every game's config; each game's file adjusts its presets."""

from __future__ import annotations

import ml_collections

from alphazero_jax.training import config_schema


def base_config() -> ml_collections.ConfigDict:
    config = ml_collections.ConfigDict()
    config.seed = 0
    config.num_iterations = 100
    config.log_every = 1
    config.checkpoint_every_minutes = 5.0
    config.max_to_keep = 3
    config.time_limit_minutes = 0.0  # > 0: save and stop after this long (this process)

    config.game = ml_collections.ConfigDict({"name": "", "settings": {}})

    config.network = ml_collections.ConfigDict(
        {
            "channels": 64,
            "blocks": 4,
            "activation": "relu",
            "normalization": "batch_norm",
            "value_hidden": 64,
        }
    )
    config.search = ml_collections.ConfigDict(
        {
            "policy": "puct",
            "num_simulations": 64,
            "dirichlet_alpha": 0.3,
            "dirichlet_fraction": 0.25,
            "c_puct": 1.25,
            "c_puct_base": 19652.0,
            "max_num_considered_actions": 16,
            "gumbel_scale": 1.0,
            # Per-ply value discount of the search and of self-play's value targets; below
            # 1 the network learns how far a win is, so the search hurries to it.
            "discount": 1.0,
            # The game heuristic's share of the search's node values (AlphaGo's mixing
            # of value network and rollouts); the value targets stay the outcomes.
            "heuristic_weight": 0.0,
        }
    )
    # Moves per slot and iteration: games restart in their slot when they end, and the
    # last, unfinished game of each slot is dropped, so a few game lengths waste little.
    # inference_dtype "bfloat16": self-play's network computes in bfloat16 (its weights
    # stay float32; the learner is unchanged), for a GPU's or TPU's bfloat16 units.
    # handicap_moves n: one side of each game plays its first 0..n moves at random, which
    # puts positions the network's own play never reaches into the replay buffer.
    # root_value_weight w: value targets are (1 - w) * outcome + w * the search's root value.
    # full_search_probability p < 1: playout-cap randomisation (Wu (2019)): a move is
    # searched in full with chance p and kept for training, else with fast_simulations.
    config.selfplay = ml_collections.ConfigDict(
        {
            "batch_size": 64,
            "num_moves": 0,
            "num_sampling_moves": 10,
            "inference_dtype": "float32",
            "handicap_moves": 0,
            "root_value_weight": 0.0,
            "full_search_probability": 1.0,
            "fast_simulations": 0,
        }
    )
    config.replay = ml_collections.ConfigDict({"capacity": 30_000, "augment": True})
    # Elo against baselines and earlier networks every `every` iterations (0: never), and
    # optional gating of the network self-play uses; see alphazero_jax/training/evaluator.py.
    for section, defaults in config_schema.OPTIONAL_SECTIONS.items():
        config[section] = ml_collections.ConfigDict(defaults)
    config.learner = ml_collections.ConfigDict(
        {
            "batch_size": 256,
            "updates_per_iteration": 8,
            "optimizer": "adam",
            "learning_rate": 1e-3,
            "schedule": "cosine",
            "warmup_steps": 50,
            "decay_rate": 0.1,
            "decay_steps": (),
            "l2_weight": 1e-4,
            "value_weight": 1.0,
        }
    )
    return config


PRESETS = ("default", "cpu", "smoke", "auto")


def resolve_preset(preset: str) -> str:
    """Checks a preset name; ``auto`` becomes ``default`` on an accelerator, else ``cpu``."""
    if preset not in PRESETS:
        raise ValueError(f"Unknown preset {preset!r}; expected one of {PRESETS}.")
    if preset == "auto":
        return "default" if has_accelerator() else "cpu"
    return preset


def has_accelerator() -> bool:
    import jax

    return jax.default_backend() != "cpu"


def smoke(config: ml_collections.ConfigDict) -> ml_collections.ConfigDict:
    """A few seconds of real training, for tests: tiny net, few games, few updates."""
    config.num_iterations = 3
    config.network.update(channels=8, blocks=1, value_hidden=8)
    config.search.update(num_simulations=4, max_num_considered_actions=4)
    config.selfplay.update(batch_size=4, num_sampling_moves=4)  # num_moves: the game's bound
    config.replay.capacity = 512
    config.learner.update(
        batch_size=16, updates_per_iteration=2, warmup_steps=0, schedule="constant"
    )
    return config
