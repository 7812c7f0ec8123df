"""Game settings written on the command line: ``rows=5,cols=6``."""

from __future__ import annotations


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
