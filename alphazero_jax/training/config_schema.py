"""The keys a training config must have, and the checks its values must pass.

``train.train_and_evaluate`` calls ``validate_config`` before it builds or compiles
anything, so a typo or an impossible value fails at once with the key's full name.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import ml_collections

from alphazero_jax import agents, games
from alphazero_jax.evaluation import perfect_play
from alphazero_jax.solvers import benchmark_sets
from alphazero_jax.training import evaluator

# Counts reach int32 device arrays (iterations, positions, steps), so each fits one.
INT_MAX = 2**31 - 1
FLOAT32_MAX = 3.4028234663852886e38


def _int(low: int, high: int = INT_MAX) -> tuple[Callable, str]:
    expected = f"an int >= {low}" if high == INT_MAX else f"an int in [{low}, {high}]"
    return (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high,
        expected,
    )


def _finite(value: float) -> bool:
    """Whether ``value`` is a finite float32 (settings reach the device as float32)."""
    try:
        return math.isfinite(value) and abs(float(value)) <= FLOAT32_MAX
    except OverflowError:  # an int too large for any float
        return False


def _number(check: Callable[[float], bool], expected: str) -> tuple[Callable, str]:
    """An int or a float (not a bool), finite in float32, that passes ``check``."""
    return (
        lambda v: (
            isinstance(v, int | float) and not isinstance(v, bool) and _finite(v) and check(v)
        ),
        expected,
    )


def _list_of(check: Callable, expected: str) -> tuple[Callable, str]:
    return (lambda v: isinstance(v, list | tuple) and all(check(x) for x in v), expected)


_POSITIVE = _int(1)
_NON_NEGATIVE = _int(0)
_FRACTION = _number(lambda v: 0 <= v <= 1, "a number in [0, 1]")
_POSITIVE_FLOAT = _number(lambda v: v > 0, "a finite number > 0")
_NON_NEGATIVE_FLOAT = _number(lambda v: v >= 0, "a finite number >= 0")
_DISCOUNT = _number(lambda v: 0 < v <= 1, "a number in (0, 1]")
_BOOL = (lambda v: isinstance(v, bool), "True or False")
_SETTINGS = (
    lambda v: isinstance(v, dict | ml_collections.ConfigDict),
    "a dict of the game's settings, such as {'rows': 6, 'cols': 7}",
)
_SPECS = _list_of(
    lambda x: isinstance(x, str), "a list of agent specs such as ('random', 'minimax:2')"
)
_SET_NAMES = _list_of(lambda x: isinstance(x, str), "a list of perfect-play set names")
_STEPS = _list_of(_NON_NEGATIVE[0], "a list of ints >= 0")


class ConfigError(ValueError):
    """A training config that cannot run; the message names the key and what it accepts."""


def _one_of(*options: str) -> tuple[Callable, str]:
    return (lambda v: isinstance(v, str) and v in options, f"one of {options}")


SCHEMA: dict = {
    "seed": _int(0, 2**32 - 1),
    "num_iterations": _POSITIVE,
    "log_every": _POSITIVE,
    "checkpoint_every_minutes": _POSITIVE_FLOAT,
    "max_to_keep": _POSITIVE,
    "time_limit_minutes": _NON_NEGATIVE_FLOAT,
    "game": {"name": _one_of(*games.available()), "settings": _SETTINGS},
    "network": {
        "channels": _POSITIVE,
        "blocks": _NON_NEGATIVE,
        "activation": _one_of("relu", "leaky_relu"),
        "normalization": _one_of("batch_norm", "none"),
        "value_hidden": _POSITIVE,
    },
    "search": {
        "policy": _one_of("puct", "gumbel"),
        "num_simulations": _POSITIVE,
        "dirichlet_alpha": _POSITIVE_FLOAT,
        "dirichlet_fraction": _FRACTION,
        "c_puct": _POSITIVE_FLOAT,
        "c_puct_base": _POSITIVE_FLOAT,
        "max_num_considered_actions": _POSITIVE,
        "gumbel_scale": _NON_NEGATIVE_FLOAT,
        "discount": _DISCOUNT,
        "heuristic_weight": _FRACTION,
    },
    "selfplay": {
        "batch_size": _POSITIVE,
        "num_moves": _POSITIVE,
        "num_sampling_moves": _NON_NEGATIVE,
        "inference_dtype": _one_of("float32", "bfloat16"),
        "handicap_moves": _NON_NEGATIVE,
        "root_value_weight": _FRACTION,
        "full_search_probability": _DISCOUNT,
        "fast_simulations": _NON_NEGATIVE,
    },
    "replay": {"capacity": _POSITIVE, "augment": _BOOL},
    "evaluation": {
        "every": _NON_NEGATIVE,
        "games": _POSITIVE,
        "opponents": _SPECS,
        "num_past": _NON_NEGATIVE,
        "simulations": _int(-1),
        "opening_moves": _NON_NEGATIVE,
        "perfect_play_positions": _NON_NEGATIVE,
        "perfect_play_sets": _SET_NAMES,
    },
    "gating": {
        "rule": _one_of(*evaluator.GATING_RULES),
        "threshold": _NON_NEGATIVE_FLOAT,
        "games": _POSITIVE,
    },
    "learner": {
        "batch_size": _POSITIVE,
        "updates_per_iteration": _POSITIVE,
        "optimizer": _one_of("adam", "sgd"),
        "learning_rate": _POSITIVE_FLOAT,
        "schedule": _one_of("constant", "cosine", "step"),
        "warmup_steps": _NON_NEGATIVE,
        "decay_rate": _POSITIVE_FLOAT,
        "decay_steps": _STEPS,
        "l2_weight": _NON_NEGATIVE_FLOAT,
        "value_weight": _POSITIVE_FLOAT,
    },
}


# Sections (and keys) added after runs were first written: a run's config.json without them
# gets these values, which keep the behaviour it was trained with (no evaluation, no gating).
OPTIONAL_SECTIONS: dict[str, dict] = {
    "evaluation": {
        "every": 0,  # iterations between evaluations; 0: none
        "games": 64,  # games per opponent (even)
        "opponents": ("random", "greedy", "minimax:2"),  # baselines, by agent spec
        "num_past": 2,  # earlier evaluated networks that are played too
        "simulations": -1,  # the network's simulations per move; -1: search's, 0: raw policy
        "opening_moves": 2,  # random plies opening each game (varies noise-free games)
        # Connect Four 6x7: mistake rates against perfect play on the first positions of
        # these sets (benchmark_sets.SETS: End-Easy, Middle-Medium, Random-Play) at each
        # evaluation (alphazero_jax/evaluation/perfect_play.py); 0: off.
        "perfect_play_positions": 0,
        "perfect_play_sets": ("Test_L3_R1", "Test_L2_R2", benchmark_sets.RANDOM_PLAY),
    },
    "gating": {
        "rule": "none",  # "none", "win_ratio" or "score" (training/evaluator.py)
        "threshold": 0.0,  # 0: the rule's own (evaluator.GATING_THRESHOLDS)
        "games": 40,  # games of the candidate against the best network (even)
    },
}


# Keys added to older sections later, likewise with the value that keeps old runs' behaviour.
OPTIONAL_KEYS: dict[str, dict] = {
    "search": {
        "discount": 1.0,  # per-ply value discount; 1: AlphaZero's undiscounted outcome
        "heuristic_weight": 0.0,  # the game heuristic's share of node values; 0: none
    },
    "selfplay": {
        "inference_dtype": "float32",  # the network's arithmetic in self-play
        "handicap_moves": 0,  # random opening moves of one side; 0: all moves searched
        "root_value_weight": 0.0,  # the search's root value's share of value targets
        "full_search_probability": 1.0,  # playout-cap randomisation off: every move in full
        "fast_simulations": 0,  # the cheap search's simulations when it is on
    },
}


def complete_config(config: ml_collections.ConfigDict) -> ml_collections.ConfigDict:
    """A copy of ``config`` with any missing optional section or key set to its default."""
    config = ml_collections.ConfigDict(config.to_dict())
    for section, defaults in (*OPTIONAL_SECTIONS.items(), *OPTIONAL_KEYS.items()):
        if section not in config:
            config[section] = ml_collections.ConfigDict(defaults)
        if not isinstance(config[section], ml_collections.ConfigDict):
            continue  # not a section at all: validate_config says so
        for key, value in defaults.items():
            if key not in config[section]:
                config[section][key] = value
    return config


def _check_section(config, schema: dict, prefix: str) -> None:
    keys = set(config.keys())
    unknown = sorted(keys - set(schema))
    missing = sorted(set(schema) - keys)
    if unknown or missing:
        problems = [f"unknown key config.{prefix}{k}" for k in unknown]
        problems += [f"missing key config.{prefix}{k}" for k in missing]
        where = "config." + prefix[:-1] if prefix else "config"
        raise ConfigError(
            f"{'; '.join(problems)}. Accepted keys under {where}: {', '.join(sorted(schema))}."
        )
    for key, rule in schema.items():
        if isinstance(rule, dict):
            if not isinstance(config[key], ml_collections.ConfigDict):
                raise ConfigError(
                    f"config.{prefix}{key} must be a section with the keys "
                    f"{', '.join(sorted(rule))}, got {config[key]!r}."
                )
            _check_section(config[key], rule, f"{prefix}{key}.")
            continue
        check, expected = rule
        value = config[key]
        if not check(value):
            raise ConfigError(
                f"config.{prefix}{key} must be {expected}, got {value!r}.{_size_hint(value)}"
            )


def _size_hint(value) -> str:
    """Why a number that looks right is refused: it does not fit the device's int32 or
    float32."""
    if isinstance(value, int) and not isinstance(value, bool) and value > INT_MAX:
        return f" Counts are int32 on the device: at most {INT_MAX}."
    if isinstance(value, float) and math.isfinite(value) and abs(value) > FLOAT32_MAX:
        return f" Numbers are float32 on the device: at most {FLOAT32_MAX:.4g} in size."
    return ""


def validate_config(config: ml_collections.ConfigDict, *, num_devices: int) -> None:
    """Raises ConfigError (a ValueError) naming the first bad key of ``config``; returns
    None if it is fine.

    Args:
      config: a training config (see ``experiments/configs/``).
      num_devices: local devices the batches are split over.
    """
    _check_section(config, SCHEMA, "")
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
    total_steps = config.num_iterations * config.learner.updates_per_iteration
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
    _check_evaluation(config, game)
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
    if config.selfplay.num_moves < game.max_num_moves:
        raise ConfigError(
            f"config.selfplay.num_moves={config.selfplay.num_moves} must be at least the "
            f"game's max_num_moves={game.max_num_moves}, so that every slot finishes a game."
        )


def _check_evaluation(config: ml_collections.ConfigDict, game) -> None:
    for section in ("evaluation", "gating"):
        if config[section].games % 2:
            raise ConfigError(
                f"config.{section}.games must be even (each side moves first in half of the "
                f"games), got {config[section].games}."
            )
    for spec in config.evaluation.opponents:
        try:
            agents.from_spec(game, spec)
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


def _check_perfect_play(settings: ml_collections.ConfigDict, game) -> None:
    if not settings.perfect_play_positions or not settings.every:
        return  # off, or evaluation is off altogether
    sets = settings.perfect_play_sets
    if isinstance(sets, str) or not sets or any(name not in benchmark_sets.SETS for name in sets):
        raise ConfigError(
            f"config.evaluation.perfect_play_sets must be a non-empty list of perfect-play sets "
            f"from {tuple(benchmark_sets.SETS)}, got {sets!r}."
        )
    try:
        perfect_play.check_game(game)
    except ValueError as error:
        raise ConfigError(f"config.evaluation.perfect_play_positions > 0: {error}") from error
