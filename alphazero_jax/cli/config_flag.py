"""``--config=connect_four:cpu``: a training config by game and preset, with overrides.

ml_collections' config-file flag, taught one more form: a game with presets and, after a
colon, the preset (``configs.get_config``). A path to a Python file with a ``get_config``
(``my_config.py[:argument]``) works as ml_collections documents, for a researcher's own
config. Either way ``--config.<key>=<value>`` sets any key (listed in the docs'
configuration reference).
"""

from __future__ import annotations

import os
import sys

from absl import flags
from ml_collections import config_flags

from alphazero_jax import configs, plugs


class _PresetParser(flags.ArgumentParser):
    """Parses ``game[:preset]`` with ``configs.get_config``, anything else as ml_collections'
    own parser does (a file)."""

    def __init__(self, file_parser: flags.ArgumentParser):
        self._file_parser = file_parser

    def flag_type(self) -> str:
        return self._file_parser.flag_type()

    def parse(self, path):
        head, _, preset = path.partition(":")
        if head not in configs.available():
            if not os.path.isfile(head):
                # A game whose optional dependency is missing: the line says how to install it.
                raise ValueError(
                    plugs.GAMES.why_unavailable(head)
                    or f"expected GAME:PRESET with a game of {configs.available()}, or a config "
                    f"file FILE.py[:ARG] that exists, got {path!r}."
                )
            return self._file_parser.parse(path)
        config = configs.get_config(head, preset or configs.AUTO)  # ConfigError: a ValueError
        config.lock()  # an override of a key the config lacks is refused
        return config


def presets_help() -> str:
    """Each registered game with the presets a user picks (agent recipes left out), read
    from the registry when the flag is defined: ``connect_four: smoke, cpu, gpu, auto;
    othello: ...``."""
    return "; ".join(f"{game}: {', '.join(configs.presets(game))}" for game in configs.available())


def define(name: str = "config", default: str | None = None) -> flags.FlagHolder:
    """Defines ``--<name>`` (and ``--<name>.<key>`` overrides); ``default`` like
    ``"connect_four:cpu"``."""
    holder = config_flags.DEFINE_config_file(
        name,
        None,
        f"The training config: GAME:PRESET ({presets_help()}; GAME alone: auto, the "
        "preset of the device's kind; the recipes of the shipped agents build too: "
        "configs.recipes(GAME)), or a config file "
        f"FILE.py[:ARG]; set any key with --{name}.KEY=VALUE.",
    )
    flags.FLAGS[name].parser = _PresetParser(flags.FLAGS[name].parser)
    caller = sys._getframe(1).f_globals["__name__"]  # its --help lists the flag
    flags.FLAGS.register_key_flag_for_module(
        sys.argv[0] if caller == "__main__" else caller, flags.FLAGS[name]
    )
    if default is not None:
        flags.FLAGS.set_default(name, default)
    return holder
