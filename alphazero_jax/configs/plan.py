"""A training config read once: ``read(config, ...) -> Plan``, the one place a config is
checked, and the value the training loop reads.

Each key's default and its own rule are ``configs.settings``'s (the one source); ``read``
completes an older config, applies those, then the rules that relate several keys or need
the game built, builds the game, the other boards and the evaluation's opponents, checks the
plug-ins the config chooses (its budget and opening by building them, its loss terms against
the network's outputs), records their modules in ``config.imports``, and refuses a workdir
whose run the config would not continue. ``train.train_and_evaluate`` calls it before it
builds or compiles anything, so a typo or an impossible value fails at once with the key's
full name.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

import jax
import ml_collections

from alphazero_jax import agents, games, memory, networks, plugs, runs, search
from alphazero_jax.configs import settings
from alphazero_jax.configs.settings import ConfigError
from alphazero_jax.evaluation import gating, perfect_play
from alphazero_jax.registry import PlugInError
from alphazero_jax.solvers import benchmark_sets
from alphazero_jax.types import Agent, Game

__all__ = [
    "Plan",
    "build_part",
    "check_workdir",
    "make_search",
    "part_settings",
    "read",
    "simulation_stages",
    "updates_per_iteration",
]


class Plan(NamedTuple):
    """A config read: the completed, checked config and what reading it built."""

    config: ml_collections.ConfigDict  # every key, ``imports`` naming its plug-ins' modules
    game: Game
    opponents: tuple[Agent, ...]  # the evaluation's baselines, its anchor first
    mixed: tuple[Game, ...]  # config.game.mixed: the other boards the network learns on
    targets: tuple[str, ...]  # the stored targets its loss terms read
    stages: tuple[tuple[int, int], ...]  # (first iteration, simulations) of self-play


def updates_per_iteration(config: ml_collections.ConfigDict) -> int:
    """The learner's updates an iteration, the other boards' (``game.mixed``) included."""
    return config.learner.updates_per_iteration + config.learner.get("mixed_updates", 0)


def read(
    config: ml_collections.ConfigDict, *, num_devices: int, workdir: str | None = None
) -> Plan:
    """Reads a training config: raises ConfigError (a ValueError) naming its first bad key.

    Args:
      config: a training config (``configs.get_config``, a config file's, or an older run's
        ``config.json``); it is not changed.
      num_devices: the devices the batches are split over.
      workdir: the run directory, if any: a run there must be one this config continues.

    Returns:
      The plan: the completed config and the game, opponents, other boards, targets and
      simulation stages built from it.

    Raises:
      ConfigError: a bad key or value, or a run in ``workdir`` with other settings.
      PlugInError: a chosen plug-in that failed when built (not a refusal of its settings).
    """
    config = settings.complete(config)
    if jax.process_count() > 1 and (config.evaluation.every or config.gating.rule != "none"):
        raise ConfigError(
            f"evaluation and gating run in one process, but this run has "
            f"{jax.process_count()} processes: set config.evaluation.every=0 and "
            "config.gating.rule='none', and evaluate its checkpoints with alphazero-evaluate."
        )
    game, opponents, mixed = _check(config, num_devices)
    stages = simulation_stages(config)
    make_search(config, game, _no_network)  # its policy's factory, with its settings
    _check_parts(config, game, num_devices, stages)
    targets = _check_loss_terms(config, game)
    config.imports = type(config.imports)(settings.plugin_modules(config))
    if workdir is not None:
        check_workdir(workdir, config)
    return Plan(config, game, opponents, mixed, targets, stages)


def simulation_stages(config: ml_collections.ConfigDict) -> tuple[tuple[int, int], ...]:
    """``((first iteration, simulations), ...)`` of self-play, from iteration 0: the
    search's simulations, then each of ``config.selfplay.simulation_stages`` (a rising
    budget, Wu T.-R. et al. (2023)) from its iteration on."""
    starts = {0: config.search.num_simulations}
    starts.update((int(it), int(sims)) for it, sims in config.selfplay.simulation_stages)
    return tuple(sorted(starts.items()))


def _check(config: ml_collections.ConfigDict, num_devices: int):
    """Each key's rule, then the rules between keys; the game, opponents and other boards."""
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
    return game, opponents, mixed


def make_search(
    config: ml_collections.ConfigDict, game: Game, apply_fn, *, num_simulations: int | None = None
):
    """The run's self-play search (``config.search``, root noise on) of ``apply_fn``, with
    ``num_simulations`` (None: the config's): ``search.make_search``, its refusal a
    ConfigError and its fault a ``PlugInError``, each naming the policy."""
    settings_ = search.search_settings(config.search, play=False)
    if num_simulations is not None:
        settings_ = {**settings_, "num_simulations": num_simulations}
    return build_part(
        plugs.SEARCH_POLICIES,
        config.search.policy,
        "config.search",
        lambda make: search.make_search(game, apply_fn, **settings_),
    )


def _no_network(variables, observations, *, train=False):
    """The network of a search built only to check its settings (it is never called)."""
    raise AssertionError("a search built to check a config was run")


def part_settings(config: ml_collections.ConfigDict, section: str) -> dict[str, Any]:
    """The settings of ``config[section]``'s chosen plug-in (its ``kind`` left out): the
    factory's keywords that the section holds (a built-in section holds every built-in's)."""
    values = config[section].to_dict()
    accepted = settings.factory_settings(section, values.pop("kind"))
    return {key: value for key, value in values.items() if key in accepted}


def _check_parts(config, game: Game, num_devices: int, stages) -> None:
    """The budget and the opening built with their settings (the budget with a stand-in
    search, at each stage's simulations): a refusal is a ConfigError naming the section
    and the plug-in, any other failure a ``PlugInError``."""
    batch_size = config.selfplay.batch_size // num_devices
    stand_in = lambda num_simulations: None  # noqa: E731  (no search is run here)
    budget = part_settings(config, "budget")
    for _, sims in stages:
        build_part(
            plugs.BUDGETS,
            config.budget.kind,
            "config.budget",
            lambda make, sims=sims: make(
                stand_in, num_simulations=sims, batch_size=batch_size, **budget
            ),
        )
    opening = part_settings(config, "opening")
    build_part(
        plugs.OPENINGS, config.opening.kind, "config.opening", lambda make: make(game, **opening)
    )


def build_part(registry, name: str, where: str, build):
    """``build(factory)`` of the plug-in ``name`` of ``registry``: its result; a ValueError
    (its settings refused) as a ConfigError naming ``where`` and the plug-in; any other
    exception as a ``PlugInError`` naming the plug-in, its own exception the cause."""
    make = registry.get(name).make
    try:
        return build(make)
    except (ConfigError, PlugInError):
        raise  # a part it builds (a search a budget asks for) said so already
    except ValueError as error:
        raise ConfigError(f"{where}: {registry.describe(name)} refused: {error}") from None
    except Exception as error:
        raise registry.failure(name, "when built", error) from error


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
            for spec in gating.opponent_specs(config.evaluation.opponents)
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
            gating.gating_threshold(config.gating.rule, config.gating.threshold)
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


def _check_loss_terms(config: ml_collections.ConfigDict, game: Game) -> tuple[str, ...]:
    """The targets the run's loss terms read; ConfigError for a term that reads an auxiliary
    output the network does not produce, or a target the game cannot record."""
    kind = config.network.get("kind", networks.DEFAULT_KIND)
    try:
        output = networks.output_shapes(game, **config.network.to_dict())
    except ValueError as error:
        raise ConfigError(f"config.network: {error}") from None
    except Exception as error:
        raise plugs.NETWORKS.failure(kind, "when built", error) from error
    for name in config.learner.aux_weights:
        missing = [out for out in plugs.LOSS_TERMS.get(name).outputs if out not in output.aux]
        if missing:
            raise ConfigError(
                f"config.learner.aux_weights: the loss term {name!r} reads the network's "
                f"auxiliary output(s) {', '.join(missing)}, which network kind {kind!r} does "
                f"not produce (it produces: {', '.join(output.aux) or 'none'})."
            )
    names = tuple(
        sorted(
            {t for name in config.learner.aux_weights for t in plugs.LOSS_TERMS.get(name).targets}
        )
    )
    declared = [plugs.TARGETS.get(name) for name in names if plugs.TARGETS.get(name).records]
    for target in declared:
        try:
            target.records(game)
        except ValueError as error:
            raise ConfigError(
                f"config.learner.aux_weights: the target {target.name!r}: {error}"
            ) from None
    return names


def check_workdir(workdir: str, config: ml_collections.ConfigDict) -> None:
    """Refuses a workdir whose run has other settings: all but the resumable ones
    (``Setting.resumable``; ``num_iterations`` too where the learning rate does not depend
    on it) must agree for the run to go on exactly (its game, network and replay capacity
    are also the shapes of its checkpoints)."""
    if not os.path.exists(os.path.join(workdir, runs.CONFIG_FILE)):
        return
    # Both as config.json has them (tuples as lists): a key added since the run was written
    # gets its default from complete, a tuple, where the config has a list.
    previous = json.loads(json.dumps(settings.complete(runs.read_config(workdir)).to_dict()))
    now = json.loads(json.dumps(config.to_dict()))
    constant = config.learner.schedule == "constant" == previous["learner"].get("schedule")
    for key, setting in settings.config_leaves(config):
        before = _at(previous, key)
        if setting.resumable or (constant and key == "num_iterations"):
            continue
        if before is _ABSENT or before == _at(now, key):
            continue  # an absent key came later than the run: not compared
        raise ConfigError(
            f"{workdir} holds a run trained with {key}={before!r}, but this config "
            f"asks for {key}={_at(now, key)!r}, so it would not continue that run. Resume it "
            "with its own settings (its config.json), or choose another workdir."
        )


_ABSENT = object()


def _at(tree: dict, key: str) -> Any:
    """The value of a dotted settings key in a config dict; ``_ABSENT`` if it has none."""
    for name in key.split("."):
        if not isinstance(tree, dict) or name not in tree:
            return _ABSENT
        tree = tree[name]
    return tree
