"""Every training setting once: its default, the rule its value must pass, and what it means.

``SETTINGS`` is the one source: ``base_config`` (the defaults every preset starts from),
``complete`` (an older run's config given the keys added since), ``check`` (each key's
rule), which keys may change when a run resumes (``Setting.resumable``) and the
configuration reference of the docs (``reference``) are all read from it.
Rules that relate several keys, or that need the game built, are
``training.config_schema.validate_config``'s.

The table sits above the code it configures: each factory keeps literal keyword defaults
(as mctx and optax do), the table imports the factories' choice lists (activations,
normalisations, dtypes, search policies, optimisers, schedules, gating rules) and a test
keeps its defaults equal to the signatures'.

Plug points: ``config.network.kind`` names a registered network (``networks.register``),
``config.search.policy`` a registered search policy (``search.register``) and
``config.learner.aux_weights`` weighs registered loss terms (``training.losses``). A
network or a policy of one's own has, besides the keys all choices share, its factory's
keyword settings (``plugged``), checked like the built-ins'. ``config.imports`` names the
modules that register them, imported before the config is read (``import_plugins``), so
that a resumed run and an ``az:`` agent find them.
"""

from __future__ import annotations

import importlib.machinery
import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import ml_collections

from alphazero_jax import games, networks, runs
from alphazero_jax.search import policies
from alphazero_jax.search import tdmcts as tdmcts_search
from alphazero_jax.solvers import benchmark_sets
from alphazero_jax.training import evaluator, learner, losses

# Counts reach int32 device arrays (iterations, positions, steps), so each fits one.
INT_MAX = 2**31 - 1
FLOAT32_MAX = 3.4028234663852886e38
GATING_RULES = evaluator.GATING_RULES


class ConfigError(ValueError):
    """A training config that cannot run; the message names the key and what it accepts."""


class Rule(NamedTuple):
    """What a value must be: ``check(value)`` is True, ``expected`` says it in words (or,
    for a registry's names, a function that says it when asked)."""

    check: Callable[[Any], bool]
    expected: str | Callable[[], str]

    def says(self) -> str:
        """``expected``, in words."""
        return self.expected() if callable(self.expected) else self.expected


class Setting(NamedTuple):
    """One key of a training config.

    Attributes:
      default: its value unless a preset or a flag sets another.
      rule: what a value must be.
      doc: one or two sentences: what it does.
      added_later: whether runs written before the key existed lack it; such a run gets
        ``default``, which keeps the behaviour it was trained with.
      resumable: whether a resumed run may change it: how the run is watched and kept,
        not what it computes.
    """

    default: Any
    rule: Rule
    doc: str
    added_later: bool = False
    resumable: bool = False


def _int(low: int, high: int = INT_MAX) -> Rule:
    expected = f"an int >= {low}" if high == INT_MAX else f"an int in [{low}, {high}]"
    return Rule(
        lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high, expected
    )


def _finite(value: float) -> bool:
    """Whether ``value`` is a finite float32 (settings reach the device as float32)."""
    try:
        return math.isfinite(value) and abs(float(value)) <= FLOAT32_MAX
    except OverflowError:  # an int too large for any float
        return False


def _number(check: Callable[[float], bool], expected: str) -> Rule:
    """An int or a float (not a bool), finite in float32, that passes ``check``."""
    return Rule(
        lambda v: (
            isinstance(v, int | float) and not isinstance(v, bool) and _finite(v) and check(v)
        ),
        expected,
    )


def _list_of(check: Callable[[Any], bool], expected: str) -> Rule:
    return Rule(lambda v: isinstance(v, list | tuple) and all(check(x) for x in v), expected)


def _one_of(*options: str) -> Rule:
    return Rule(lambda v: isinstance(v, str) and v in options, f"one of {options}")


_GAME_NAME = Rule(  # looked up when checked: a researcher's game may be registered later
    lambda v: isinstance(v, str) and v in games.available(),
    "a registered game (games.available(), or one added with games.register)",
)
_POSITIVE = _int(1)
_NON_NEGATIVE = _int(0)
_FRACTION = _number(lambda v: 0 <= v <= 1, "a number in [0, 1]")
_POSITIVE_FLOAT = _number(lambda v: v > 0, "a finite number > 0")
_NON_NEGATIVE_FLOAT = _number(lambda v: v >= 0, "a finite number >= 0")
_DISCOUNT = _number(lambda v: 0 < v <= 1, "a number in (0, 1]")
_BOOL = Rule(lambda v: isinstance(v, bool), "True or False")
_SETTINGS = Rule(
    lambda v: isinstance(v, dict | ml_collections.ConfigDict),
    "a dict of the game's settings, such as {'rows': 6, 'cols': 7}",
)
_SPECS = _list_of(
    lambda x: isinstance(x, str), "a list of agent specs such as ('random', 'minimax:2')"
)
_SET_NAMES = _list_of(lambda x: isinstance(x, str), "a list of perfect-play set names")
_STEPS = _list_of(_NON_NEGATIVE.check, "a list of ints >= 0")
_MODULES = _list_of(lambda x: isinstance(x, str), "a list of module names such as ('my_plugins',)")
_NETWORK_KIND = Rule(  # looked up when checked, as a researcher's kind registers later
    lambda v: isinstance(v, str) and v in networks.available(),
    lambda: f"a registered network kind, one of {networks.available()} (networks.register)",
)
_POLICY = Rule(
    lambda v: isinstance(v, str) and v in policies.available(),
    lambda: f"a registered search policy, one of {policies.available()} (search.register)",
)


def _is_aux_weights(value: Any) -> bool:
    if not isinstance(value, dict | ml_collections.ConfigDict):
        return False
    return all(
        name in losses.available() and name not in losses.BUILT_IN and _POSITIVE_OR_ZERO(w)
        for name, w in value.items()
    )


def _POSITIVE_OR_ZERO(value: Any) -> bool:
    return _NON_NEGATIVE_FLOAT.check(value)


def _is_stages(value: Any) -> bool:
    if not isinstance(value, list | tuple):
        return False
    pairs = [tuple(p) if isinstance(p, list | tuple) else () for p in value]
    if not all(len(p) == 2 and _NON_NEGATIVE.check(p[0]) and _POSITIVE.check(p[1]) for p in pairs):
        return False
    return all(a[0] < b[0] for a, b in itertools.pairwise(pairs))


_STAGES = Rule(
    _is_stages,
    "a list of (iteration >= 0, simulations >= 1) pairs of ints, iterations increasing, such as "
    "((100, 32), (300, 64))",
)

_AUX_WEIGHTS = Rule(
    _is_aux_weights,
    lambda: (
        "a dict of registered loss terms to weights >= 0, such as {'reply': 0.5}; terms: "
        f"{tuple(n for n in losses.available() if n not in losses.BUILT_IN)} "
        "(training.losses.register)"
    ),
)

S = Setting
SETTINGS: dict[str, Any] = {
    "seed": S(0, _int(0, 2**32 - 1), "The run's random seed: network, self-play, evaluation."),
    "num_iterations": S(100, _POSITIVE, "Iterations of self-play then learning."),
    "log_every": S(1, _POSITIVE, "Iterations between lines of the metrics log.", resumable=True),
    "checkpoint_every_minutes": S(
        5.0, _POSITIVE_FLOAT, "Minutes between checkpoints.", resumable=True
    ),
    "max_to_keep": S(3, _POSITIVE, "Checkpoints kept in the workdir (the newest).", resumable=True),
    "time_limit_minutes": S(
        0.0,
        _NON_NEGATIVE_FLOAT,
        "> 0: save and stop after this long (this process); 0: none.",
        resumable=True,
    ),
    "imports": S(
        (),
        _MODULES,
        "Modules imported before the config is read: those that register a network, search "
        "policy or loss term of one's own. Training adds the module of each plug-in it uses, "
        "so that a resumed run and an ``az:`` agent import them too.",
        added_later=True,
        resumable=True,
    ),
    "game": {
        "name": S("", _GAME_NAME, "The game, by its registry name (``games.make``)."),
        "settings": S({}, _SETTINGS, "The game's keyword arguments (``games.settings_of``)."),
    },
    "network": {
        "kind": S(
            "resnet",
            _NETWORK_KIND,
            "The network, by its registry name: ``resnet`` (the keys below) or one's own "
            "(``networks.register``; its factory's keyword settings replace them).",
            added_later=True,
        ),
        "channels": S(64, _POSITIVE, "ResNet: channels of the residual tower."),
        "blocks": S(4, _NON_NEGATIVE, "ResNet: residual blocks (two convolutions each)."),
        "activation": S(
            "relu", _one_of(*networks.ACTIVATIONS), "ResNet: the tower's nonlinearity."
        ),
        "normalization": S(
            "batch_norm", _one_of(*networks.NORMALIZATIONS), "ResNet: after each conv."
        ),
        "value_hidden": S(64, _POSITIVE, "ResNet: width of the value head's hidden layer."),
        "reply_head": S(
            False,
            _BOOL,
            "ResNet: a head predicting the opponent's reply, aux['reply'], for the loss term "
            "``reply`` (Wu, 2019).",
            added_later=True,
        ),
        "score_head": S(
            False,
            _BOOL,
            "ResNet: a head predicting the game's final score, aux['score'], for the loss term "
            "``score`` (Wu, 2019; ``training.scores``).",
            added_later=True,
        ),
    },
    "search": {
        "policy": S(
            "puct",
            _POLICY,
            "``puct``: mctx's muzero_policy, AlphaZero's PUCT with root noise (Silver et al., "
            "2018); ``gumbel``: gumbel_muzero_policy (Danihelka et al., 2022); "
            "``puct_forced``: PUCT with forced playouts and policy target pruning (Wu, 2019; "
            "k = 2); or one's own "
            "(``search.register``; its factory's keyword settings replace the PUCT and Gumbel "
            "keys).",
        ),
        "num_simulations": S(64, _POSITIVE, "Simulations of each self-play search."),
        "dirichlet_alpha": S(0.3, _POSITIVE_FLOAT, "PUCT: the root noise's concentration."),
        "dirichlet_fraction": S(0.25, _FRACTION, "PUCT: the root noise's share of the prior."),
        "c_puct": S(1.25, _POSITIVE_FLOAT, "PUCT: the exploration constant c_1."),
        "c_puct_base": S(19652.0, _POSITIVE_FLOAT, "PUCT: the constant c_2 of c's growth."),
        "play_c_puct": S(
            0.0,
            _NON_NEGATIVE_FLOAT,
            "PUCT: c_1 when the network plays to win (agents, evaluations) rather than "
            "self-plays; 0: c_puct. Self-play explores, so play may want less.",
            added_later=True,
        ),
        "max_num_considered_actions": S(16, _POSITIVE, "Gumbel: root actions sampled."),
        "gumbel_scale": S(1.0, _NON_NEGATIVE_FLOAT, "Gumbel: the scale of the Gumbel noise."),
        "discount": S(
            1.0,
            _DISCOUNT,
            "Per-ply value discount of the search and of the value targets; below 1 the "
            "network learns how far a win is, so the search hurries to it.",
            added_later=True,
        ),
        "heuristic_weight": S(
            0.0,
            _FRACTION,
            "The game heuristic's share of the search's node values (AlphaGo's mix of value "
            "network and rollouts); the value targets stay the outcomes.",
            added_later=True,
        ),
    },
    "selfplay": {
        "batch_size": S(64, _POSITIVE, "Games played at once (slots), over all devices."),
        "num_moves": S(
            0,
            _POSITIVE,
            "Moves per slot and iteration, at least the game's max_num_moves: games restart "
            "in their slot, and each slot's last, unfinished game is dropped.",
        ),
        "num_sampling_moves": S(
            10, _NON_NEGATIVE, "Opening moves of each game sampled from the visit counts."
        ),
        "inference_dtype": S(
            "float32",
            _one_of(*networks.COMPUTE_DTYPES),
            "The network's arithmetic in self-play (weights stay float32; the learner is "
            "unchanged); bfloat16 for a GPU's or TPU's bfloat16 units.",
            added_later=True,
        ),
        "handicap_moves": S(
            0,
            _NON_NEGATIVE,
            "n: one side of each game plays its first 0..n moves at random, which puts "
            "positions the network's own play never reaches into the replay memory.",
            added_later=True,
        ),
        "root_value_weight": S(
            0.0,
            _FRACTION,
            "w: value targets are (1 - w) x the outcome + w x the search's root value.",
            added_later=True,
        ),
        "full_search_probability": S(
            1.0,
            _DISCOUNT,
            "p < 1: playout-cap randomisation (Wu, 2019): a move is searched in full with "
            "chance p and kept for training, else with fast_simulations and not kept.",
            added_later=True,
        ),
        "fast_simulations": S(
            0, _NON_NEGATIVE, "The cheap search's simulations (playout cap).", added_later=True
        ),
        "random_opening_plies": S(
            0,
            _NON_NEGATIVE,
            "k > 0: each game opens with 0..k (drawn per game) uniform random plies, not "
            "trained on, as AlphaZero.jl issue #217 (2024) starts games from random 0-2-ply "
            "positions; 0: every game starts from the initial position.",
            added_later=True,
        ),
        "simulation_stages": S(
            (),
            _STAGES,
            "A rising simulation budget (Wu T.-R. et al., 2023): (iteration, simulations) "
            "pairs; from each iteration on, self-play searches with its simulations (before "
            "the first, search.num_simulations); each stage's search is compiled once.",
            added_later=True,
        ),
    },
    "replay": {
        "capacity": S(30_000, _POSITIVE, "Positions the replay memory holds (a ring)."),
        "augment": S(True, _BOOL, "Train on a random symmetry of each sampled position."),
        "window_start": S(
            0,
            _NON_NEGATIVE,
            "s > 0: sample from a growing window of the newest positions (Wu, 2019): all of "
            "the first s, then s x (1 + 0.4 ((N/s)^0.75 - 1) / 0.75) of the N so far, at "
            "most the capacity; 0: from the whole memory.",
            added_later=True,
        ),
        "merge_duplicates": S(
            False,
            _BOOL,
            "Average the targets (policy, value, further ones) of a sampled position over "
            "every copy of it in the memory (Clausen, 2020).",
            added_later=True,
        ),
    },
    "evaluation": {
        "every": S(0, _NON_NEGATIVE, "Iterations between evaluations; 0: none.", added_later=True),
        "games": S(64, _POSITIVE, "Games per opponent (even).", added_later=True),
        "opponents": S(
            ("random", "greedy", "minimax:2"),
            _SPECS,
            "Baselines, by agent spec (``agents.from_spec``).",
            added_later=True,
        ),
        "num_past": S(
            2, _NON_NEGATIVE, "Earlier evaluated networks that are played too.", added_later=True
        ),
        "simulations": S(
            -1,
            _int(-1),
            "The network's simulations per move; -1: the search's, 0: its raw policy.",
            added_later=True,
        ),
        "opening_moves": S(
            2,
            _NON_NEGATIVE,
            "Random plies opening each game (varies the games of a noise-free network).",
            added_later=True,
        ),
        "perfect_play_positions": S(
            0,
            _NON_NEGATIVE,
            "Connect Four 6x7: mistake rates against perfect play on the first positions of "
            "perfect_play_sets at each evaluation; 0: off.",
            added_later=True,
        ),
        "perfect_play_sets": S(
            ("Test_L3_R1", "Test_L2_R2", benchmark_sets.RANDOM_PLAY),
            _SET_NAMES,
            "The perfect-play sets judged (``benchmark_sets.SETS``).",
            added_later=True,
        ),
    },
    "gating": {
        "rule": S(
            "none",
            _one_of(*GATING_RULES),
            "Whether a candidate network replaces the one self-play uses: ``none``, "
            "``win_ratio`` or ``score`` (``training/evaluator.py``).",
            added_later=True,
        ),
        "threshold": S(
            0.0, _NON_NEGATIVE_FLOAT, "The rule's threshold; 0: its own.", added_later=True
        ),
        "games": S(
            40,
            _POSITIVE,
            "Games of the candidate against the best network (even).",
            added_later=True,
        ),
    },
    "learner": {
        "batch_size": S(256, _POSITIVE, "Positions per update, over all devices."),
        "updates_per_iteration": S(8, _POSITIVE, "Optimiser updates after each self-play."),
        "optimizer": S("adam", _one_of(*learner.OPTIMIZERS), "``adam``, or ``sgd`` with momentum."),
        "learning_rate": S(1e-3, _POSITIVE_FLOAT, "The peak learning rate."),
        "schedule": S(
            "cosine",
            _one_of(*learner.SCHEDULES),
            "``constant``, ``cosine`` (warm-up then decay to 0 over the run) or ``step``.",
        ),
        "warmup_steps": S(50, _NON_NEGATIVE, "Cosine: updates of linear warm-up."),
        "decay_rate": S(0.1, _POSITIVE_FLOAT, "Step: the factor at each of decay_steps."),
        "decay_steps": S((), _STEPS, "Step: the updates at which the rate is multiplied."),
        "l2_weight": S(1e-4, _NON_NEGATIVE_FLOAT, "Weight decay (L2 on the parameters)."),
        "value_weight": S(1.0, _POSITIVE_FLOAT, "The value loss's weight beside the policy's."),
        "aux_weights": S(
            {},
            _AUX_WEIGHTS,
            "Further loss terms by registry name, each with its weight, e.g. ``{'reply': "
            "0.15}``: ``reply``, the opponent's reply (Wu, 2019; network.reply_head), "
            "``score``, the final score (Wu, 2019; network.score_head), or one's own "
            "(``training.losses``).",
            added_later=True,
        ),
    },
}
for _key in SETTINGS["evaluation"]:  # how a run is judged, not what it computes
    SETTINGS["evaluation"][_key] = SETTINGS["evaluation"][_key]._replace(resumable=True)
del _key

# Sections whose keys follow a registry choice: section -> (the key that chooses, the keys
# every choice has, the choices whose keys are the table's, the registry's settings).
_PLUGS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], Callable[[str], dict]]] = {
    "network": ("kind", ("kind",), ("resnet",), networks.settings_of),
    "search": (
        "policy",
        ("policy", *policies.COMMON, "play_c_puct"),
        ("puct", "gumbel", "puct_forced"),
        policies.settings_of,
    ),
}


_STRING = Rule(lambda v: isinstance(v, str), "a string")
# TD-MCTS's runs (training.tdmcts): a flat config of their own, through the same kind of table.
TDMCTS_SETTINGS: dict[str, Setting] = {
    "algorithm": S("tdmcts", _one_of("tdmcts"), "The run's kind (``search.tdmcts_run``)."),
    "game": S("tic_tac_toe", _GAME_NAME, "The game, by its registry name, at its defaults."),
    "num_simulations": S(100, _POSITIVE, "TD-MCTS's simulations per move."),
    "exploration": S(
        tdmcts_search.DEFAULT_EXPLORATION, _NON_NEGATIVE_FLOAT, "UCT's exploration constant c."
    ),
    "gamma": S(tdmcts_search.DEFAULT_GAMMA, _FRACTION, "The TD backups' per-ply discount."),
    "learning_rate_floor": S(
        tdmcts_search.DEFAULT_FLOOR,
        _FRACTION,
        "The least step of a value's update; 0: the value is its targets' running mean.",
    ),
    "capacity": S(2**16, _POSITIVE, "Entries of the value table (a power of two)."),
    "opponent": S("minimax:6", _STRING, "The training opponent, an agent spec, or ``self``."),
    "tournament_opponent": S(
        "", _STRING, "The tournaments' opponent; empty: the opponent (``mcts:100`` in self-play)."
    ),
    "episodes": S(5000, _POSITIVE, "Training games in all.", resumable=True),
    "tournament_every": S(200, _POSITIVE, "Episodes between tournaments."),
    "tournament_games": S(100, _POSITIVE, "Games of each tournament (even)."),
    "batch_size": S(100, _POSITIVE, "Games played at once (even; divides tournament_every)."),
    "seed": S(0, _int(0, 2**32 - 1), "The run's random seed."),
}
del S


def leaves(tree: dict = SETTINGS, prefix: str = "") -> Iterator[tuple[str, Setting]]:
    """``(dotted key, Setting)`` of every setting, in the order of ``SETTINGS``."""
    for key, value in tree.items():
        if isinstance(value, Setting):
            yield prefix + key, value
        else:
            yield from leaves(value, f"{prefix}{key}.")


def default(key: str) -> Any:
    """The default of the setting ``key`` (dotted, e.g. ``"search.c_puct"``); the library's
    factories take their keyword defaults from here, so each is written once."""
    node: Any = SETTINGS
    for part in key.split("."):
        node = node[part]
    return node.default


def base_config(tree: dict | None = None) -> ml_collections.ConfigDict:
    """Every setting of ``tree`` (``SETTINGS`` unless given, e.g. ``TDMCTS_SETTINGS``) at its
    default: what each game's presets start from."""

    def build(tree: dict) -> ml_collections.ConfigDict:
        return ml_collections.ConfigDict(
            {k: v.default if isinstance(v, Setting) else build(v) for k, v in tree.items()}
        )

    return build(SETTINGS if tree is None else tree)


def plugged(section: str, chosen: Any) -> dict[str, Setting]:
    """The settings of the section ``section`` (``"network"``, ``"search"``, or any other)
    when its plug point is ``chosen``: the table's own for a built-in choice (and for any
    section without a plug point), else the keys every choice has and the chosen factory's
    keyword settings, each with the table's rule where the table has the key, else a rule
    taken from its default's type."""
    tree = SETTINGS[section]
    if section not in _PLUGS:
        return tree
    key, common, built_in, settings_of = _PLUGS[section]
    if chosen in built_in or not tree[key].rule.check(chosen):
        return tree
    own = {
        name: tree[name] if name in tree else _plug_in_setting(section, chosen, name, default)
        for name, default in settings_of(chosen).items()
        if name not in common
    }
    return {**{name: tree[name] for name in common}, **own}


def plug(config: ml_collections.ConfigDict, section: str, chosen: str, **values) -> None:
    """Sets ``config``'s plug point ``section`` (``"network"`` or ``"search"``) to the
    registered ``chosen``: the keys every choice has keep their values, the rest become
    ``chosen``'s settings at their defaults, then ``values``. E.g.
    ``plug(config, "network", "mlp", hidden=32)``.

    Raises:
      ConfigError: a section without a plug point, an unregistered name, or a value that
        names no setting of it.
    """
    if section not in _PLUGS:
        raise ConfigError(f"expected a plug point, one of {tuple(_PLUGS)}, got {section!r}.")
    key, common, _, _ = _PLUGS[section]
    rule = SETTINGS[section][key].rule
    if not rule.check(chosen):
        raise ConfigError(f"config.{section}.{key} must be {rule.says()}, got {chosen!r}.")
    tree = plugged(section, chosen)
    unknown = sorted(set(values) - set(tree))
    if unknown:
        raise ConfigError(
            f"{', '.join(unknown)}: no setting of {section} {chosen!r}; its settings: "
            f"{', '.join(sorted(tree))}."
        )
    kept = {name: config[section][name] for name in common if name in config[section]}
    made = {name: setting.default for name, setting in tree.items()}
    config[section] = ml_collections.ConfigDict({**made, **kept, key: chosen, **values})


def _plug_in_setting(section: str, chosen: str, name: str, default: Any) -> Setting:
    """A plug-in's own setting: its default, and a rule from the default's type."""
    if isinstance(default, bool):
        rule = _BOOL
    elif isinstance(default, int):
        rule = _int(-INT_MAX)
    elif isinstance(default, float):
        rule = _number(lambda v: True, "a finite number")
    elif isinstance(default, str):
        rule = Rule(lambda v: isinstance(v, str), "a string")
    elif isinstance(default, tuple | list):
        rule = Rule(lambda v: isinstance(v, tuple | list), "a list")
    else:
        rule = Rule(lambda v: True, "anything its factory takes")
    doc = f"{chosen}'s own setting (its factory's keyword)."
    return Setting(default, rule, doc, added_later=True)


def _section(config: ml_collections.ConfigDict, section: str) -> dict[str, Setting]:
    """``plugged(section, ...)`` with the choice that ``config[section]`` makes."""
    if section not in _PLUGS or not isinstance(config.get(section), ml_collections.ConfigDict):
        return SETTINGS[section]
    key = _PLUGS[section][0]
    return plugged(section, config[section].get(key, SETTINGS[section][key].default))


def import_plugins(config: ml_collections.ConfigDict) -> None:
    """Imports the modules ``config.imports`` names (where its plug-ins register).

    Raises:
      ConfigError: a module that cannot be imported; the line says what to do.
    """
    try:
        runs.import_modules(config.get("imports", ()))
    except ValueError as error:
        raise ConfigError(f"config.imports: {error}") from None


def complete(config: ml_collections.ConfigDict) -> ml_collections.ConfigDict:
    """A copy of ``config`` given every key added since it was written (``added_later``),
    and a plug-in's settings it leaves out (their defaults); the modules of
    ``config.imports`` are imported first.

    Raises:
      ConfigError: a module of ``config.imports`` that cannot be imported.
    """
    config = ml_collections.ConfigDict(config.to_dict())
    import_plugins(config)
    for section, node in SETTINGS.items():
        if isinstance(node, Setting):
            if node.added_later and section not in config:
                config[section] = node.default
            continue
        if section in config and not isinstance(config[section], ml_collections.ConfigDict):
            continue  # not a section at all: check says so
        for name, setting in _section(config, section).items():
            if not setting.added_later or (section in config and name in config[section]):
                continue
            if section not in config:
                config[section] = ml_collections.ConfigDict()
            config[section][name] = setting.default
    return config


def config_leaves(config: ml_collections.ConfigDict) -> Iterator[tuple[str, Setting]]:
    """``leaves()`` of the sections as ``config`` chooses its plug-ins (``plugged``)."""
    yield from leaves(
        {k: _section(config, k) if isinstance(v, dict) else v for k, v in SETTINGS.items()}
    )


def check(config: ml_collections.ConfigDict, tree: dict | None = None) -> None:
    """Raises ConfigError naming the first unknown or missing key of ``config``, or the
    first value its rule refuses (a plug-in's section by its own settings, ``plugged``);
    ``tree``: another table than ``SETTINGS`` (``TDMCTS_SETTINGS``)."""
    if tree is not None:
        _check_section(config, tree, "")
        return
    tree = {k: _section(config, k) if isinstance(v, dict) else v for k, v in SETTINGS.items()}
    _check_section(config, tree, "")


def _check_section(config, tree: dict, prefix: str) -> None:
    keys = set(config.keys())
    unknown = sorted(keys - set(tree))
    missing = sorted(set(tree) - keys)
    if unknown or missing:
        problems = [f"unknown key config.{prefix}{k}" for k in unknown]
        problems += [f"missing key config.{prefix}{k}" for k in missing]
        where = "config." + prefix[:-1] if prefix else "config"
        raise ConfigError(
            f"{'; '.join(problems)}. Accepted keys under {where}: {', '.join(sorted(tree))}."
        )
    for key, setting in tree.items():
        if not isinstance(setting, Setting):
            if not isinstance(config[key], ml_collections.ConfigDict):
                raise ConfigError(
                    f"config.{prefix}{key} must be a section with the keys "
                    f"{', '.join(sorted(setting))}, got {config[key]!r}."
                )
            _check_section(config[key], setting, f"{prefix}{key}.")
            continue
        value = config[key]
        if not setting.rule.check(value):
            if isinstance(value, ml_collections.ConfigDict):  # its repr spans lines
                value = value.to_dict()
            raise ConfigError(
                f"config.{prefix}{key} must be {setting.rule.says()}, got {value!r}."
                f"{_size_hint(value)}"
            )


def resumable(key: str) -> bool:
    """Whether the dotted setting ``key`` may change when a run resumes (a plug-in's own
    settings may not)."""
    node: Any = SETTINGS
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, Setting) and node.resumable


def plugin_modules(config: ml_collections.ConfigDict) -> tuple[str, ...]:
    """``config.imports`` and the module of each plug-in ``config`` chooses (its network,
    search policy and loss terms) that is not the library's own, each once: what a resumed
    run or an ``az:`` agent must import. A plug-in defined where no import finds it again
    (``__main__``, a config file loaded by path) is left out: register it in a module."""
    made = [
        networks.factory(config.network.get("kind", "resnet")),
        policies.get(config.search.policy).make,
        *(losses.get(name).fn for name in config.learner.get("aux_weights", {})),
    ]
    modules = list(config.get("imports", ()))
    for thing in made:
        module = getattr(thing, "__module__", None) or ""
        top = module.split(".")[0]
        if top in ("alphazero_jax", "__main__", "") or module in modules:
            continue
        if importlib.machinery.PathFinder.find_spec(top) is not None:  # on sys.path
            modules.append(module)
    return tuple(modules)


def _size_hint(value) -> str:
    """Why a number that looks right is refused: it does not fit the device's int32 or
    float32."""
    if isinstance(value, int) and not isinstance(value, bool) and value > INT_MAX:
        return f" Counts are int32 on the device: at most {INT_MAX}."
    if isinstance(value, float) and math.isfinite(value) and abs(value) > FLOAT32_MAX:
        return f" Numbers are float32 on the device: at most {FLOAT32_MAX:.4g} in size."
    return ""


def reference() -> str:
    """The configuration reference: a markdown table of every key, its default, its rule
    and its meaning (the docs' page is generated from it)."""
    rows = ["| key | default | accepts | meaning |", "| --- | --- | --- | --- |"]
    for key, setting in leaves():
        cells = (f"`{key}`", f"`{setting.default!r}`", setting.rule.says(), setting.doc)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
