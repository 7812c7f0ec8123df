"""The mark that sets a game's agent recipes apart from the presets a user picks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ATTRIBUTE = "agent_recipe"


def agent_recipe(apply: Callable[[Any], None]) -> Callable[[Any], None]:
    """Marks the preset function ``apply`` as an agent recipe: a config kept to train a
    shipped agent again (``make agent GAME=... RECIPE=...``) or to compare against, which
    ``configs.get_config`` builds like any preset but ``configs.presets`` (the user's list,
    ``alphazero-train --help``) leaves out; ``configs.recipes`` lists them. Returns
    ``apply``."""
    setattr(apply, ATTRIBUTE, True)
    return apply


def is_agent_recipe(apply: Callable[[Any], None]) -> bool:
    """Whether ``apply`` is marked by ``agent_recipe``."""
    return bool(getattr(apply, ATTRIBUTE, False))
