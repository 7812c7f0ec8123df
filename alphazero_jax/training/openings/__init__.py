"""Opening rules: how each self-play game's first plies are chosen (``base`` says what a rule
is).

Built in, each a factory in its own module, registered in ``plugs.OPENINGS`` as one's own is:

- ``none`` (``none.py``): the game's initial position, every move the search's;
- ``handicap`` (``handicap.py``): one side's first 0..n moves at random, kept for training;
- ``random`` (``random_plies.py``): 0..k random plies of both sides, not trained on.

A run picks one by ``config.opening.kind``, with its settings beside it in
``config.opening``; a rule of one's own (a curriculum of starting positions, say) is
``register``\\ ed in a module that ``config.imports`` names
(docs/tutorials/selfplay_parts.md).
"""

from __future__ import annotations

from alphazero_jax.training.openings import handicap, none, random_plies
from alphazero_jax.training.openings.base import (
    Opening,
    OpeningKind,
    Start,
    available,
    get,
    make,
    register,
    settings_of,
)

__all__ = [
    "Opening",
    "OpeningKind",
    "Start",
    "available",
    "get",
    "handicap",
    "make",
    "none",
    "random_plies",
    "register",
    "settings_of",
]
