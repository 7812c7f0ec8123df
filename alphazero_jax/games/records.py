"""What the package knows of a registered game beside its factory: one ``GameRecord``,
passed to ``games.register`` and read back with ``games.record(name)``.

A game is its record: the catalogue and schema of the play server, the page and the
command line's help read its title, notation and settings here; training reads its score
(the score-like target) and its presets; the network kind ``resnet_any_size`` reads its
action layout. So a game registered outside the package shows and trains everywhere the
built-ins do. Every field has a default that any game satisfies.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

# A region of a game's settings: each setting with the values it may take.
Region = dict[str, list[int]]

# What ``str.split()`` (and ``str.strip()``) treat as space: the characters whose
# ``isspace()`` is true, as the inside of a regex character class (Python and ECMA-262).
SPACES = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """A game's facts.

    Attributes:
      title: its name for people, e.g. ``"Tic-Tac-Toe"``; empty: from its name
        (``"my_game"`` is "My Game").
      limits: each setting's ``(min, max)`` or ``(min, max, step)`` (``games.settings_of``).
      notation: how its move lists are written, for a hint, e.g. ``"cells, first player
        first, e.g. b2 a1 c3"``; empty: none given.
      move_pattern: a regex (Python and ECMA-262 alike, no anchors) of the text of one
        move that its ``actions_from_text`` may read: every text it reads as one move
        matches (it may match more). None: any text.
      moves_abut: moves are written without separators (Connect Four's ``4453``); else
        spaces or commas separate them.
      encodings: the settings that change only what the network sees, not the rules
        (Othello's ``legal_plane``): a player never needs to choose them.
      joint_rules: the rules between settings that ``limits`` cannot state, as a function
        that splits a region of settings into the regions it allows (Connect Four's
        ``connect`` at most ``min(rows, cols)``: ``connect_at_most(min)``); None: none.
      score: ``score(game) -> fn(state) -> float32[]``, a finished game's score from the
        first player's view in [-1, 1] (pure, unbatched), the target ``final_score``; None:
        the game has none.
      action_layout: how its actions lie on the board, for the network kind
        ``resnet_any_size`` (a registered layout: ``"cells"``, ``"cells_and_pass"``,
        ``"columns"``, ``"quoridor"`` or one's own); None: none of them.
      presets: its training configs by name, each ``fn(config)`` changing the defaults of
        every setting (its docstring says what it is for); empty: the generic presets sized
        from its longest game (``configs.generic``).
    """

    title: str = ""
    limits: Mapping[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    notation: str = ""
    move_pattern: str | None = None
    moves_abut: bool = False
    encodings: tuple[str, ...] = ()
    joint_rules: Callable[[Region], list[Region]] | None = None
    score: Callable[[Any], Callable[[Any], Any]] | None = None
    action_layout: str | None = None
    presets: Mapping[str, Callable[[Any], None]] = dataclasses.field(default_factory=dict)

    def titled(self, name: str) -> GameRecord:
        """This record with its title filled in from ``name`` where it has none."""
        title = self.title or name.replace("_", " ").title()
        return dataclasses.replace(
            self, title=title, limits=dict(self.limits), presets=dict(self.presets)
        )

    def one_move_pattern(self) -> str | None:
        """The anchored regex of a text that may be one move (spaces around it, and
        commas where they separate moves); None: any text."""
        if self.move_pattern is None:
            return None
        around = f"[{SPACES}]*" if self.moves_abut else f"[{SPACES},]*"
        return f"^{around}({self.move_pattern}){around}$"

    def moves_pattern(self) -> str | None:
        """The anchored regex of a text that may be a move list (none included); None:
        any text."""
        if self.move_pattern is None:
            return None
        move = f"({self.move_pattern})"
        if self.moves_abut:
            return f"^[{SPACES}]*({move}[{SPACES}]*)*$"
        gap = f"[{SPACES},]"
        return f"^{gap}*({move}({gap}+{move})*)?{gap}*$"


def matches(pattern: str | None, text: str) -> bool:
    """Whether ``text`` matches ``pattern`` as JSON Schema reads it (None: any text)."""
    return pattern is None or re.fullmatch(pattern, text) is not None


def connect_at_most(pick: Callable[[int, int], int]) -> Callable[[Region], list[Region]]:
    """The rule "connect at most pick(rows, cols)" (``min`` or ``max``), as regions: one
    per connect value."""

    def split(box: Region) -> list[Region]:
        regions = []
        for connect in box["connect"]:
            fits = {k: [v for v in box[k] if v >= connect] for k in ("rows", "cols")}
            if pick is min:
                regions.append({"rows": fits["rows"], "cols": fits["cols"], "connect": [connect]})
            else:
                regions.append({"rows": fits["rows"], "cols": box["cols"], "connect": [connect]})
                regions.append({"rows": box["rows"], "cols": fits["cols"], "connect": [connect]})
        return [region for region in regions if all(region.values())]

    return split
