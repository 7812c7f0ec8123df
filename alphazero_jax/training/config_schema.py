"""The rules of a training config that relate several keys or need the game built.

Each key's default and its own rule are ``alphazero_jax.configs.settings``'s (the one
source); ``validate_config`` applies those, then these. ``train.train_and_evaluate`` calls it
before it builds or compiles anything, so a typo or an impossible value fails at once with
the key's full name, and ``build`` uses the game and opponents it made.
"""

from __future__ import annotations

from typing import NamedTuple

import ml_collections

from alphazero_jax import agents, games, memory, search
from alphazero_jax.configs import settings
from alphazero_jax.configs.settings import ConfigError
from alphazero_jax.evaluation import perfect_play
from alphazero_jax.solvers import benchmark_sets
from alphazero_jax.training import evaluator
from alphazero_jax.types import Agent, Game

__all__ = ["ConfigError", "Validated", "validate_config"]


class Validated(NamedTuple):
    """What validation built, for ``build`` to use rather than build again."""

    game: Game
    opponents: tuple[Agent, ...]  # the evaluation's baselines, its anchor first
    mixed: tuple[Game, ...] = ()  # config.game.mixed: the other boards the network learns on


def updates_per_iteration(config: ml_collections.ConfigDict) -> int:
    """The learner's updates an iteration, the other boards' (``game.mixed``) included."""
    return config.learner.updates_per_iteration + config.learner.get("mixed_updates", 0)


def validate_config(config: ml_collections.ConfigDict, *, num_devices: int) -> Validated:
    """Raises ConfigError (a ValueError) naming the first bad key of ``config``.

    Args:
      config: a complete training config (``configs.get_config``, or an older run's
        through ``configs.settings.complete``).
      num_devices: local devices the batches are split over.

    Returns:
      The game and the evaluation's opponents, built once here.
    """
    settings.check(config)
    for section in ("selfplay", "learner"):
        batch = config[section].batch_size
        if batch % num_devices:
            raise ConfigError(
                f"config.{section}.batch_size={batch} does not divide over the {num_devices} "
                f"devices JAX sees; use a multiple of {num_devices}."
            )
    if config.replay.capacity < config.learner.batch_size:
        raise ConfigError(
            f"config.replay.capacity={config.replay.capacity} must be at least "
            f"config.learner.batch_size={config.learner.batch_size}."
        )
    total_steps = config.num_iterations * updates_per_iteration(config)
    if config.learner.schedule == "cosine" and config.learner.warmup_steps >= total_steps:
        raise ConfigError(
            f"config.learner.warmup_steps={config.learner.warmup_steps} must be below the "
            f"{total_steps} updates of the run (config.num_iterations x "
            "config.learner.updates_per_iteration) for the cosine schedule."
        )
    try:
        game = games.make(config.game.name, **config.game.settings)
    except ValueError as error:
        raise ConfigError(f"config.game.settings: {error}") from error
    opponents = _check_evaluation(config, game)
    fast = config.selfplay.fast_simulations
    if (
        config.selfplay.full_search_probability < 1
        and not 1 <= fast < config.search.num_simulations
    ):
        raise ConfigError(
            f"config.selfplay.fast_simulations={fast} must be from 1 to below "
            f"config.search.num_simulations={config.search.num_simulations} when "
            f"config.selfplay.full_search_probability="
            f"{config.selfplay.full_search_probability} < 1 (playout-cap randomisation)."
        )
    _check_early_slots(config, num_devices)
    if config.selfplay.num_moves < game.max_num_moves:
        raise ConfigError(
            f"config.selfplay.num_moves={config.selfplay.num_moves} must be at least the "
            f"game's max_num_moves={game.max_num_moves}, so that every slot finishes a game."
        )
    mixed = _check_mixed(config)
    try:
        _check_memory(config, game, num_devices, mixed)
    except memory.MemoryBoundError as error:
        raise ConfigError(str(error)) from None
    return Validated(game=game, opponents=opponents, mixed=mixed)


def _check_early_slots(config: ml_collections.ConfigDict, num_devices: int) -> None:
    """A budget by ply (``selfplay.early_slots``): fewer slots than the batch, as many on
    each device, a budget of its own, and no playout cap beside it."""
    early, batch = config.selfplay.early_slots, config.selfplay.batch_size
    if not early:
        return
    if early >= batch or early % num_devices:
        raise ConfigError(
            f"config.selfplay.early_slots={early} must be below config.selfplay.batch_size="
            f"{batch} and a multiple of the {num_devices} devices JAX sees."
        )
    if config.selfplay.early_simulations < 1:
        raise ConfigError(
            f"config.selfplay.early_simulations={config.selfplay.early_simulations} must be "
            f">= 1 with config.selfplay.early_slots={early}."
        )
    if config.selfplay.full_search_probability < 1:
        raise ConfigError(
            f"config.selfplay.early_slots={early} cannot go with config.selfplay."
            f"full_search_probability={config.selfplay.full_search_probability} < 1: "
            "expected one budget rule, a budget by ply or a playout cap."
        )


def mixed_settings(config: ml_collections.ConfigDict) -> tuple[dict, ...]:
    """Each game of ``config.game.mixed`` as its full settings: the main game's, updated."""
    main = dict(config.game.settings)
    return tuple({**main, **dict(entry)} for entry in config.game.get("mixed", ()))


def _check_mixed(config: ml_collections.ConfigDict) -> tuple[Game, ...]:
    """The games of ``config.game.mixed``, checked with ``learner.mixed_updates``."""
    entries, updates = mixed_settings(config), config.learner.get("mixed_updates", 0)
    if bool(entries) != (updates > 0):
        raise ConfigError(
            f"config.game.mixed has {len(entries)} other boards and "
            f"config.learner.mixed_updates={updates}: expected both or neither (the updates "
            "an iteration on the other boards' positions)."
        )
    mixed = []
    for index, entry in enumerate(entries):
        try:
            mixed.append(games.make(config.game.name, **entry))
        except ValueError as error:
            raise ConfigError(f"config.game.mixed[{index}]: {error}") from error
    return tuple(mixed)


def _check_memory(
    config: ml_collections.ConfigDict, game: Game, num_devices: int, mixed: tuple = ()
) -> None:
    """Each size that allocates, against this machine's memory (``memory.budget_bytes``):
    the replay memory (one copy per device, bfloat16; one more of the capacity for each
    other board of ``mixed``), self-play's search trees and trajectory, and the learner's
    batch (its network's activations, kept for the gradient)."""
    height, width, channels = game.observation_shape
    cells, actions = height * width, game.num_actions

    def sample_bytes(board: Game) -> int:  # bfloat16 observation, policy, value
        rows, cols, planes = board.observation_shape
        return 2 * (rows * cols * planes + board.num_actions + 1)

    sample = sum(sample_bytes(board) for board in (game, *mixed))
    memory.check(
        f"config.replay.capacity={config.replay.capacity:,}|for the replay memory "
        f"({num_devices} cop{'ies' if num_devices > 1 else 'y'}, one per device)",
        config.replay.capacity,
        bytes_per_unit=num_devices * sample,
    )
    search.check_simulations(  # too many even for one game at a time
        game,
        config.search.num_simulations,
        name=f"config.search.num_simulations={config.search.num_simulations:,}",
    )
    position = 4 * (cells * channels + 2 * actions + 6)  # a Trajectory's float32 record
    memory.check(
        f"config.selfplay.batch_size={config.selfplay.batch_size:,}|for self-play's "
        f"{config.selfplay.num_moves} moves of trajectory and search trees",
        config.selfplay.batch_size,
        bytes_per_unit=config.selfplay.num_moves * position
        + search.tree_bytes(game, config.search.num_simulations),
    )
    # Every layer's activations, float32, kept for the backward pass, about three times
    # over (the layer's input, its normalisation, its gradient).
    # A network of one's own is counted as a ResNet without blocks of the observation's width.
    layers = 2 * config.network.get("blocks", 0) + 3
    example = 3 * 4 * cells * max(config.network.get("channels", channels), channels) * layers
    memory.check(
        f"config.learner.batch_size={config.learner.batch_size:,}|for the learner's activations",
        config.learner.batch_size,
        bytes_per_unit=example,
    )


def _check_evaluation(config: ml_collections.ConfigDict, game: Game) -> tuple[Agent, ...]:
    for section in ("evaluation", "gating"):
        if config[section].games % 2:
            raise ConfigError(
                f"config.{section}.games must be even (each side moves first in half of the "
                f"games), got {config[section].games}."
            )
    try:
        opponents = tuple(
            agents.from_spec(game, spec)
            for spec in evaluator.opponent_specs(config.evaluation.opponents)
        )
    except ValueError as error:
        raise ConfigError(f"config.evaluation.opponents: {error}") from error
    _check_perfect_play(config.evaluation, game)
    if config.gating.rule != "none" and not config.evaluation.every:
        raise ConfigError(
            f"config.gating.rule={config.gating.rule!r} needs evaluations: set "
            "config.evaluation.every to the iterations between them."
        )
    if config.gating.rule != "none":
        try:
            evaluator.gating_threshold(config.gating.rule, config.gating.threshold)
        except ValueError as error:
            raise ConfigError(f"config.gating.threshold: {error}") from error
    return opponents


def _check_perfect_play(evaluation: ml_collections.ConfigDict, game: Game) -> None:
    if not evaluation.perfect_play_positions or not evaluation.every:
        return  # off, or evaluation is off altogether
    sets = evaluation.perfect_play_sets
    if isinstance(sets, str) or not sets or any(name not in benchmark_sets.SETS for name in sets):
        raise ConfigError(
            f"config.evaluation.perfect_play_sets must be a non-empty list of perfect-play sets "
            f"from {tuple(benchmark_sets.SETS)}, got {sets!r}."
        )
    try:
        perfect_play.check_game(game)
    except ValueError as error:
        raise ConfigError(f"config.evaluation.perfect_play_positions > 0: {error}") from error
