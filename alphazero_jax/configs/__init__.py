"""Training configs: every default once (``settings``) and each game's presets.

    from alphazero_jax import configs
    config = configs.get_config("connect_four", "cpu")   # an ml_collections.ConfigDict
    config.search.num_simulations = 32

The presets of every game: ``default`` (one GPU or TPU host), ``cpu`` (a 2-core machine),
``smoke`` (seconds, for tests) and ``auto`` (``default`` where JAX sees an accelerator, else
``cpu``); a game may add its own (``presets(game)``). A game's presets are in its record
(``games.record(name).presets``, registered as ``plugs.PRESETS``' ``"game:preset"``);
``register_preset`` adds one to a registered game, and a game registered without any gets
the generic presets sized from its longest game (``configs.generic``). From the command
line the same config is ``--config=connect_four:cpu``, and any key can be set with
``--config.<key>=<value>``.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_collections

from alphazero_jax import games, plugs
from alphazero_jax.configs import generic, settings
from alphazero_jax.configs.settings import ConfigError
from alphazero_jax.registry import module_of

__all__ = [
    "available",
    "get_config",
    "preset_functions",
    "presets",
    "register_preset",
    "resolve_preset",
    "settings",
]

PresetFn = Callable[[ml_collections.ConfigDict], None]
AUTO = "auto"


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
    """``preset -> function`` of ``game``: its record's presets and those registered for it
    since (``register_preset``), or the generic ones of a game with none
    (``configs.generic``), ``auto`` left out.

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
    """The presets of ``game``, ``auto`` included.

    Raises:
      ConfigError: for a game that is not registered.
    """
    return (*preset_functions(game), AUTO)


def resolve_preset(game: str, preset: str) -> str:
    """Checks a preset name; ``auto`` becomes ``default`` on an accelerator, else ``cpu``.

    Raises:
      ConfigError: for an unknown game or preset.
    """
    if preset not in presets(game):
        raise ConfigError(f"Unknown preset {preset!r} for {game}; expected one of {presets(game)}.")
    if preset == AUTO:
        import jax

        return "default" if jax.default_backend() != "cpu" else "cpu"
    return preset


def get_config(game: str, preset: str = "default") -> ml_collections.ConfigDict:
    """The training config of ``game`` at ``preset``: every setting's default
    (``settings.SETTINGS``) changed where the preset says.

    Args:
      game: a game with presets (``available()``), e.g. ``"connect_four"``.
      preset: one of ``presets(game)``.

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
