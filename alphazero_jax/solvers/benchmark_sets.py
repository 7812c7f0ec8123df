"""The registry of the perfect-play benchmark's Connect Four sets: Pons' six and Random-Play.

Every set is a file of 6x7 positions, one ``<moves> <score>`` line each in Pons' notation
(``pons.Position``: the exact score for the side to move), shipped under
``alphazero_jax/data/<folder>/`` with a README; its per-move labels lie beside it in
``<set>.labels`` (``evaluation.perfect_play``).

- Pons' six sets (``pons.SETS``): positions and scores published by Pascal Pons.
- ``Random_Play`` (Random-Play): 1000 positions reached by uniformly random legal play,
  10 to 30 plies, neither over nor with a move that wins at once, scored by our solver;
  ``experiments/data/random_play_set.py`` regenerates it bit for bit.

``SETS`` (file name -> title) is the one list every reader takes the sets from: the
benchmark script, the labelling and checking scripts, the training config's check.
"""

from __future__ import annotations

import pathlib
from importlib import resources

from alphazero_jax.solvers import pons

RANDOM_PLAY = "Random_Play"

# File name -> title: Pons' six in the order of his tutorial, then ours.
SETS: dict[str, str] = {**pons.SETS, RANDOM_PLAY: "Random-Play"}

# File name -> its folder under alphazero_jax/data.
_FOLDERS: dict[str, str] = {**dict.fromkeys(pons.SETS, "pons"), RANDOM_PLAY: "random_play"}


def check_set(set_name: str) -> None:
    """Raises a ValueError naming the known sets unless ``set_name`` is one of them."""
    if set_name not in SETS:
        raise ValueError(
            f"Unknown perfect-play set {set_name!r}; expected one of {', '.join(SETS)}."
        )


def is_published(set_name: str) -> bool:
    """Whether the set's scores are Pons' published ones (else our solver computed them)."""
    check_set(set_name)
    return set_name in pons.SETS


def path(set_name: str) -> pathlib.Path:
    """The positions file of a set in the package (its labels: the same name + ``.labels``)."""
    check_set(set_name)
    folder = resources.files("alphazero_jax").joinpath("data", _FOLDERS[set_name])
    return pathlib.Path(str(folder)) / set_name


def load(set_name: str) -> list[pons.Position]:
    """The positions of a set, e.g. ``load("Random_Play")``; see ``SETS``."""
    return pons.parse(set_name, path(set_name).read_text())
