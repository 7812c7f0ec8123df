"""What the entry points share: the start of ``main`` (with the compilation cache) and game
settings on the command line."""

from __future__ import annotations

from absl import app, flags, logging

from experiments.support import compilation_cache


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
