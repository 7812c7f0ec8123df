"""Pascal Pons' six Connect Four benchmark sets (6 x 1000 positions with exact scores).

Shipped in ``alphazero_jax/data/pons/`` (provenance and format in its README). A score is
from the side to move under perfect play: positive wins (22 minus the winner's stone count
at the end), 0 draws, negative loses; after the best move the opponent's score is the
negation.

The perfect-play benchmark reads its sets, these six and the project's own, from one
registry: ``benchmark_sets.SETS``.
"""

from __future__ import annotations

from importlib import resources
from typing import NamedTuple

# File name -> Pons' name of the set, in the order of his tutorial.
SETS: dict[str, str] = {
    "Test_L3_R1": "End-Easy",
    "Test_L2_R1": "Middle-Easy",
    "Test_L2_R2": "Middle-Medium",
    "Test_L1_R1": "Begin-Easy",
    "Test_L1_R2": "Begin-Medium",
    "Test_L1_R3": "Begin-Hard",
}


class Position(NamedTuple):
    moves: str  # Pons' 1-based column string, e.g. "4453".
    score: int


def check_set(set_name: str) -> None:
    """Raises a ValueError naming the six sets unless ``set_name`` is one of them."""
    if set_name not in SETS:
        raise ValueError(f"Unknown Pons set {set_name!r}; expected one of {', '.join(SETS)}.")


def load(set_name: str) -> list[Position]:
    """The positions of one of Pons' sets, e.g. ``load("Test_L2_R2")``; see ``SETS``
    (``benchmark_sets.load`` reads these and the project's own sets)."""
    check_set(set_name)
    return parse(
        set_name, resources.files("alphazero_jax").joinpath("data", "pons", set_name).read_text()
    )


def parse(set_name: str, text: str) -> list[Position]:
    """The positions of a set file's ``text``, one ``<moves> <score>`` line each.

    Raises:
      ValueError: a line that is not ``<moves> <score>``, named by ``set_name`` and number.
    """
    positions = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"{set_name}:{number}: expected '<moves> <score>', got {line!r}.")
        positions.append(Position(fields[0], int(fields[1])))
    return positions
