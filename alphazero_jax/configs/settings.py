"""Every training setting once: its default, the rule its value must pass, and what it means.

``SETTINGS`` is the one source: ``base_config`` (the defaults every preset starts from),
``complete`` (an older run's config given the keys added since), ``check`` (each key's
rule), which keys may change when a run resumes (``Setting.resumable``) and the
configuration reference of the docs (``reference``) are all read from it.
Rules that relate several keys, or that need the game built, are
``configs.plan.read``'s.

The table is written in ``configs.table`` (its rules, ``Rule`` and ``Setting`` in
``configs.rules``) and read here; its names are importable from here too. It sits above
the code it configures: each factory keeps literal keyword defaults (as mctx and optax do),
the table imports the factories' choice lists and a test keeps its defaults equal to the
signatures'.

Plug points (``plugs``): ``config.network.kind`` names a registered network
(``networks.register``), ``config.search.policy`` a search policy (``search.register``),
``config.budget.kind`` a self-play budget (``training.budgets.register``),
``config.opening.kind`` an opening rule (``training.openings.register``), and
``config.learner.aux_weights`` weighs registered loss terms (``training.losses``). A
plug-in of one's own has, besides the keys all choices share, its factory's keyword settings
(``plugged``), checked like the built-ins'. ``config.imports`` names the modules that
register them, imported before the config is read (``import_plugins``), so that a resumed
run and an ``az:`` agent find them.

A config written before its self-play parts were plug points (``selfplay.handicap_moves``,
``full_search_probability``, ``fast_simulations``, ``random_opening_plies``, ``early_slots``,
``early_simulations``) is read as the budget and opening those keys chose (``complete``).
"""

from __future__ import annotations

import importlib.machinery
from collections.abc import Iterator
from typing import Any

import ml_collections

from alphazero_jax import plugs, runs
from alphazero_jax.configs.rules import (
    BOOL,
    FLOAT32_MAX,
    INT_MAX,
    ConfigError,
    Rule,
    Setting,
    integer,
    number,
    size_hint,
)
from alphazero_jax.configs.table import GATING_RULES, PLUGS, SETTINGS, TDMCTS_SETTINGS
from alphazero_jax.registry import keyword_defaults

__all__ = [
    "FLOAT32_MAX",
    "GATING_RULES",
    "INT_MAX",
    "SETTINGS",
    "TDMCTS_SETTINGS",
    "Rule",
    "Setting",
    "base_config",
    "check",
    "chosen_plugins",
    "complete",
    "config_leaves",
    "default",
    "factory_settings",
    "import_plugins",
    "leaves",
    "plug",
    "plugged",
    "plugin_modules",
    "reference",
    "resumable",
]


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
    """The settings of the section ``section`` (``"network"``, ``"search"``, ``"budget"``,
    ``"opening"``, or any other) when its plug point is ``chosen``: the table's own for a
    built-in choice (and for any section without a plug point), else the keys every choice
    has and the chosen factory's keyword settings, each with the table's rule where the
    table has the key, else a rule taken from its default's type."""
    tree = SETTINGS[section]
    if section not in PLUGS:
        return tree
    plug = PLUGS[section]
    if not tree[plug.key].rule.check(chosen) or plug.registry.is_built_in(chosen):
        return tree
    own = {
        name: tree[name] if name in tree else _plug_in_setting(section, chosen, name, default)
        for name, default in factory_settings(section, chosen).items()
        if name not in plug.common
    }
    return {**{name: tree[name] for name in plug.common}, **own}


def factory_settings(section: str, chosen: str) -> dict[str, Any]:
    """The keyword settings of the factory that ``chosen`` registered at the plug point of
    ``section``, with their defaults (those the loop gives every factory left out)."""
    plug = PLUGS[section]
    return keyword_defaults(plug.registry.get(chosen).make, given=plug.given)


def plug(config: ml_collections.ConfigDict, section: str, chosen: str, **values) -> None:
    """Sets ``config``'s plug point ``section`` (``"network"`` or ``"search"``) to the
    registered ``chosen``: the keys every choice has keep their values, the rest become
    ``chosen``'s settings at their defaults, then ``values``. E.g.
    ``plug(config, "network", "mlp", hidden=32)``.

    Raises:
      ConfigError: a section without a plug point, an unregistered name, or a value that
        names no setting of it.
    """
    if section not in PLUGS:
        raise ConfigError(f"expected a plug point, one of {tuple(PLUGS)}, got {section!r}.")
    key, common = PLUGS[section].key, PLUGS[section].common
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
        rule = BOOL
    elif isinstance(default, int):
        rule = integer(-INT_MAX)
    elif isinstance(default, float):
        rule = number(lambda v: True, "a finite number")
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
    if section not in PLUGS or not isinstance(config.get(section), ml_collections.ConfigDict):
        return SETTINGS[section]
    key = PLUGS[section].key
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
    _parts_from_selfplay_keys(config)
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


# The self-play keys that chose a budget and an opening before they were plug points:
# old key -> (section, the kind it chooses when set, its key there, the value that is "off").
_MOVED = {
    "full_search_probability": ("budget", "playout_cap", "full_search_probability", 1.0),
    "fast_simulations": ("budget", "playout_cap", "fast_simulations", None),
    "early_slots": ("budget", "by_ply", "early_slots", 0),
    "early_simulations": ("budget", "by_ply", "early_simulations", None),
    "handicap_moves": ("opening", "handicap", "handicap_moves", 0),
    "random_opening_plies": ("opening", "random", "random_plies", 0),
}


def _parts_from_selfplay_keys(config: ml_collections.ConfigDict) -> None:
    """An older config's budget and opening from the self-play keys that chose them (a
    playout cap where ``full_search_probability`` < 1, a budget by ply where ``early_slots``
    > 0, a handicap, random openings), moved into ``config.budget`` and ``config.opening``.

    Raises:
      ConfigError: an older config that chose two budgets, or two openings, at once.
    """
    selfplay = config.get("selfplay")
    if not isinstance(selfplay, ml_collections.ConfigDict):
        return
    old = {key: selfplay[key] for key in _MOVED if key in selfplay}
    if not old:
        return
    chosen: dict[str, set[str]] = {"budget": set(), "opening": set()}
    for key, value in old.items():
        section, kind, _, off = _MOVED[key]
        if off is not None and value != off:
            chosen[section].add(kind)
    for section, kinds in chosen.items():
        if len(kinds) > 1:
            raise ConfigError(
                f"this config's selfplay keys choose {' and '.join(sorted(kinds))} at once; "
                f"expected one config.{section}.kind."
            )
    parts = {"budget": {"kind": "full"}, "opening": {"kind": "none"}}
    for key, value in old.items():
        section, kind, new_key, _ = _MOVED[key]
        del selfplay[key]
        if kind in chosen[section]:
            parts[section].update(kind=kind, **{new_key: value})
    for section, values in parts.items():
        if section not in config:
            config[section] = ml_collections.ConfigDict(values)


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
                f"{size_hint(value)}"
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


def chosen_plugins(config: ml_collections.ConfigDict) -> list[tuple[Any, str]]:
    """``(registry, name)`` of each plug-in ``config`` chooses: its game, network kind,
    search policy, budget, opening and loss terms."""
    chosen = [(plugs.GAMES, config.game.name)]
    for section, plug in PLUGS.items():
        if isinstance(config.get(section), ml_collections.ConfigDict):
            default = SETTINGS[section][plug.key].default
            chosen.append((plug.registry, config[section].get(plug.key, default)))
    chosen += [(plugs.LOSS_TERMS, name) for name in config.learner.get("aux_weights", {})]
    return chosen


def plugin_modules(config: ml_collections.ConfigDict) -> tuple[str, ...]:
    """``config.imports`` and the module of each plug-in ``config`` chooses
    (``chosen_plugins``) that is not the library's own, each once: what a resumed run or an
    ``az:`` agent must import. A plug-in defined where no import finds it again
    (``__main__``, a config file loaded by path) is left out: register it in a module."""
    modules = list(config.get("imports", ()))
    for registry, name in chosen_plugins(config):
        module = registry.module_of(name)
        top = module.split(".")[0]
        if top in ("alphazero_jax", "__main__", "") or module in modules:
            continue
        if importlib.machinery.PathFinder.find_spec(top) is not None:  # on sys.path
            modules.append(module)
    return tuple(modules)


def reference() -> str:
    """The configuration reference: a markdown table of every key, its default, its rule
    and its meaning (the docs' page is generated from it)."""
    rows = ["| key | default | accepts | meaning |", "| --- | --- | --- | --- |"]
    for key, setting in leaves():
        cells = (f"`{key}`", f"`{setting.default!r}`", setting.rule.says(), setting.doc)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
