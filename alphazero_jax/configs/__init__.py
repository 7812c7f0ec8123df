"""Training configs: every default once (``settings``) and each game's presets.

    from alphazero_jax import configs
    config = configs.get_config("connect_four", "cpu")   # an ml_collections.ConfigDict
    config.search.num_simulations = 32

The presets of every game are named by the hardware they are for: ``smoke`` (seconds, for
tests), ``cpu`` (about an hour of 2 cores), ``gpu`` (a budget in minutes of one GPU,
``time_limit_minutes``), ``tpu`` where a game has one, and ``auto``, which picks by the kind
of JAX's first device (``preset_for_device``); ``presets(game)`` lists them. The configs
behind the shipped agents (``make agent GAME=... RECIPE=...``) are agent recipes, marked by
``agent_recipe``: ``get_config`` builds them, ``recipes(game)`` lists them, and the user's
list leaves them out. A game's presets are in its record (``games.record(name).presets``,
registered as ``plugs.PRESETS``' ``"game:preset"``); ``register_preset`` adds one to a
registered game, and a game registered without any gets the generic presets sized from its
longest game (``configs.generic``). From the command line the same config is
``--config=connect_four:cpu``, and any key can be set with ``--config.<key>=<value>``.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_collections

from alphazero_jax import games, plugs
from alphazero_jax.configs import generic, settings
from alphazero_jax.configs.settings import ConfigError
from alphazero_jax.presets._recipe import agent_recipe, is_agent_recipe
from alphazero_jax.registry import module_of

__all__ = [
    "AUTO",
    "DEVICE_PRESETS",
    "agent_recipe",
    "available",
    "get_config",
    "preset_for_device",
    "preset_functions",
    "presets",
    "recipes",
    "register_preset",
    "resolve_preset",
    "settings",
]

PresetFn = Callable[[ml_collections.ConfigDict], None]
AUTO = "auto"
# ``auto``'s choice by the platform of JAX's first device: the first of each tuple that the
# game has (a TPU host runs ``gpu``'s where a game has no ``tpu``); any other platform an
# accelerator's ``gpu``.
DEVICE_PRESETS = {"cpu": ("cpu",), "gpu": ("gpu",), "tpu": ("tpu", "gpu")}


def available() -> tuple[str, ...]:
    """The games that have presets: every registered game (``games.available()``), with
    its own presets or the generic ones (``configs/generic.py``)."""
    return games.available()


def register_preset(game: str, name: str, apply: PresetFn) -> None:
    """Adds the preset ``name`` to the registered game ``game``, so that
    ``get_config(game, name)`` and ``--config=game:name`` build it: ``apply(config)`` changes
    every setting's defaults (its docstring says what the preset is for).

    Raises:
      ValueError: an unregistered game, a name that is no identifier, or one taken.
    """
    games.record(game)
    plugs.PRESETS.register(f"{game}:{name}", apply, module=module_of(apply))


def preset_functions(game: str) -> dict[str, PresetFn]:
    """``preset -> function`` of ``game``, agent recipes included: its record's presets and
    those registered for it since (``register_preset``), or the generic ones of a game with
    none (``configs.generic``), ``auto`` left out.

    Raises:
      ConfigError: for a game that is not registered.
    """
    if game not in games.available():
        raise ConfigError(f"No presets for game {game!r}; games with presets: {available()}.")
    prefix = f"{game}:"
    own = {
        name.removeprefix(prefix): apply
        for name, apply in plugs.PRESETS.items()
        if name.startswith(prefix)
    }
    return own or generic.PRESETS


def presets(game: str) -> tuple[str, ...]:
    """The presets a user picks for ``game``, ``auto`` last; agent recipes (``recipes``)
    left out.

    Raises:
      ConfigError: for a game that is not registered.
    """
    picked = [name for name, apply in preset_functions(game).items() if not is_agent_recipe(apply)]
    return (*picked, AUTO)


def recipes(game: str) -> tuple[str, ...]:
    """The agent recipes of ``game`` (presets marked by ``agent_recipe``): the configs
    behind its shipped agents and the comparisons, which ``get_config`` builds.

    Raises:
      ConfigError: for a game that is not registered.
    """
    return tuple(name for name, apply in preset_functions(game).items() if is_agent_recipe(apply))


def preset_for_device(game: str, platform: str) -> str:
    """The preset ``auto`` picks for ``game`` on a device of ``platform`` (JAX's
    ``Device.platform``: ``cpu``, ``gpu``, ``tpu``): ``DEVICE_PRESETS``' first that the game
    has, ``gpu`` on any other accelerator.

    Raises:
      ConfigError: for a game that is not registered, or one with no such preset.
    """
    own = preset_functions(game)
    wanted = DEVICE_PRESETS.get(platform, ("gpu",))
    for name in wanted:
        if name in own and not is_agent_recipe(own[name]):
            return name
    raise ConfigError(
        f"No preset for a {platform} device in {game}; expected one of {wanted}, "
        f"got {presets(game)}."
    )


def resolve_preset(game: str, preset: str) -> str:
    """Checks a preset name; ``auto`` becomes the preset for the kind of JAX's first device
    (``preset_for_device``).

    Raises:
      ConfigError: for an unknown game or preset.
    """
    known = (*presets(game), *recipes(game))
    if preset not in known:
        raise ConfigError(
            f"Unknown preset {preset!r} for {game}; expected one of {presets(game)} "
            f"or an agent recipe {recipes(game)}."
        )
    if preset == AUTO:
        import jax

        return preset_for_device(game, jax.devices()[0].platform)
    return preset


def get_config(game: str, preset: str = AUTO) -> ml_collections.ConfigDict:
    """The training config of ``game`` at ``preset``: every setting's default
    (``settings.SETTINGS``) changed where the preset says.

    Args:
      game: a game with presets (``available()``), e.g. ``"connect_four"``.
      preset: one of ``presets(game)`` (``auto``: the device's) or of ``recipes(game)``.

    Returns:
      A new, unlocked ConfigDict; ``train.train_and_evaluate(config, workdir)`` takes it.

    Raises:
      ConfigError: for an unknown game or preset.
    """
    preset = resolve_preset(game, preset)
    config = settings.base_config()
    config.game.name = game
    preset_functions(game)[preset](config)
    return config
