"""Training configs: every default once (``settings``) and each game's presets.

    from alphazero_jax import configs
    config = configs.get_config("connect_four", "cpu")   # an ml_collections.ConfigDict
    config.search.num_simulations = 32

The presets of every game: ``default`` (one GPU or TPU host), ``cpu`` (a 2-core machine),
``smoke`` (seconds, for tests) and ``auto`` (``default`` where JAX sees an accelerator, else
``cpu``); a game may add its own (``presets(game)``). A game registered with
``games.register`` gets generic presets sized from its longest game. From the command line
the same config is ``--config=connect_four:cpu``, and any key can be set with
``--config.<key>=<value>``.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_collections

from alphazero_jax import games
from alphazero_jax.configs import connect_four, generic, othello, quoridor, settings, tic_tac_toe
from alphazero_jax.configs.settings import ConfigError

__all__ = ["ConfigError", "available", "get_config", "presets", "resolve_preset", "settings"]

_GAMES: dict[str, dict[str, Callable[[ml_collections.ConfigDict], None]]] = {
    "connect_four": connect_four.PRESETS,
    "othello": othello.PRESETS,
    "quoridor": quoridor.PRESETS,
    "tic_tac_toe": tic_tac_toe.PRESETS,
}
AUTO = "auto"


def available() -> tuple[str, ...]:
    """The games that have presets: every registered game (``games.available()``), with
    its own presets or the generic ones (``configs/generic.py``)."""
    return games.available()


def _presets_of(game: str) -> dict[str, Callable[[ml_collections.ConfigDict], None]]:
    if game not in games.available():
        raise ConfigError(f"No presets for game {game!r}; games with presets: {available()}.")
    return _GAMES.get(game, generic.PRESETS)


def presets(game: str) -> tuple[str, ...]:
    """The presets of ``game``, ``auto`` included.

    Raises:
      ConfigError: for a game that is not registered.
    """
    return (*_presets_of(game), AUTO)


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
    _presets_of(game)[preset](config)
    return config
