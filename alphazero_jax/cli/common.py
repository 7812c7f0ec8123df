"""What the entry points share: the start of ``main`` (with the compilation cache) and game
settings on the command line."""

from __future__ import annotations

import sys
from collections.abc import Callable

from absl import app, flags, logging

from alphazero_jax.cli import compilation_cache


def begin(argv: list[str]) -> None:
    """Refuses stray arguments, shows only warnings unless ``--verbosity`` was given (orbax
    and JAX log much at info level) and sets up the persistent compilation cache
    (``compilation_cache.setup``)."""
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    if not flags.FLAGS["verbosity"].present:
        logging.set_verbosity(logging.WARNING)
    compilation_cache.setup()


def parse_settings(text: str) -> dict[str, int]:
    """``{"rows": 5, "cols": 6}`` of ``"rows=5,cols=6"``; "" gives ``{}``.

    Raises:
      ValueError: an item that is not ``name=<int>``.
    """
    settings = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if not name.strip() or not value.strip().lstrip("-").isdigit():
            raise ValueError(f"--game_settings: expected name=<int>,..., got {item!r}.")
        settings[name.strip()] = int(value)
    return settings


def run(main: Callable[[list[str]], None], module: str, **kwargs) -> None:
    """``app.run(main)`` for an entry point whose flags ``module`` defines: its ``--help``
    lists them also when it starts as an installed console script (absl lists the flags of
    the program's own file, which is then the script's)."""
    for flag in flags.FLAGS.get_key_flags_for_module(module):
        flags.FLAGS.register_key_flag_for_module(sys.argv[0], flag)
    app.run(main, **kwargs)
