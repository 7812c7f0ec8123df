"""Quoridor's notation, picture, JSON and the words of a refused move (host-side).

Coordinates: rows ``1..size`` from the top, columns ``a..`` from the left, as OpenSpiel.
A pawn move is written as its destination square (``c4``); a wall by the top-left square
of the 2x2 block whose middle it covers, then ``h`` or ``v`` (``c3h`` lies between rows 3
and 4 under columns c and d; ``c3v`` between columns c and d beside rows 3 and 4). A pawn
move's name depends on where the pawn stands, so the notation replays the pawns from the
position the moves start from.

The game (``quoridor.py``) hands this module what it needs of the action layout: the pawn
actions' offsets in the mover's frame (north is row - 1), which come first, then the
horizontal walls by groove, ``r * (size - 1) + c``, then the vertical walls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from alphazero_jax.games._notation import EMPTY_CHAR, FILES, STONE_CHARS, file_index, small_int
from alphazero_jax.types import State

# Why a move is refused, by the reason the rules give (``quoridor_rules.illegal_reasons``).
REFUSALS = {
    "game_over": "the game is over",
    "pawn": (
        "a pawn steps to an open neighbouring square, jumps straight over the other pawn "
        "it faces, or steps beside it where a wall or the edge blocks the jump"
    ),
    "no_walls": "you have no walls left",
    "overlap": "it would overlap or cross a wall on the board",
}
_CUT_OFF = {"cuts_own": "your pawn", "cuts_other": "the other pawn"}


def refusal(reasons: Sequence[str]) -> str:
    """The words for the rules' ``reasons`` a move is illegal ("" for none)."""
    cut = [_CUT_OFF[reason] for reason in reasons if reason in _CUT_OFF]
    if cut:
        return f"it would leave {' and '.join(cut)} no path to the goal edge"
    return REFUSALS[reasons[0]] if reasons else ""


def square_name(row: int, col: int) -> str:
    return f"{FILES[col]}{row + 1}"


def square(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a square such as ``"c4"`` (any case) on the board, else None."""
    col, rank = file_index(text[:1], FILES[:size]), small_int(text[1:], 1, size)
    return None if col is None or rank is None else (rank - 1, col)


def wall_square(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a wall's groove such as ``"c3h"`` or ``"c3v"`` (any case), else
    None; the last letter (``h`` or ``v``) is not checked."""
    col, rank = file_index(text[:1], FILES[: size - 1]), small_int(text[1:-1], 1, size - 1)
    return None if col is None or rank is None else (rank - 1, col)


class Notation:
    """Move names, which depend on the pawns: a host-side replay of pawn positions and
    turns from ``state`` (from ``start_pawns`` with the first player to move when None).

    Args:
      size: the board's side.
      pawn_offsets: int[P, 2], the ``(row, col)`` step of each pawn action, mover's frame.
      start_pawns: int[2, 2], the pawns' ``(row, col)`` at the start (absolute).
      state: a Quoridor position, or None for the start.
    """

    def __init__(self, size: int, pawn_offsets, start_pawns, state: State | None):
        self.size = size
        self.offsets = [(int(r), int(c)) for r, c in np.asarray(pawn_offsets)]
        self.grooves = (size - 1) ** 2
        self.num_actions = len(self.offsets) + 2 * self.grooves
        if state is None:
            self.pawns = [[int(x) for x in p] for p in np.asarray(start_pawns)]
            self.player = 0
        else:
            self.pawns = [[int(x) for x in p] for p in np.asarray(state.pawns)]
            self.player = int(state.current_player)

    def _absolute(self, action: int) -> tuple[str, tuple[int, int] | None]:
        """The name of ``action`` for the current mover and, for a pawn move, its square."""
        size, num_pawn = self.size, len(self.offsets)
        if not 0 <= action < self.num_actions:
            raise ValueError(
                f"Quoridor action must be in [0, {self.num_actions}) on a {size}x{size} "
                f"board, got {action}."
            )
        sign = 1 if self.player == 0 else -1  # the second player's frame turns rows over
        if action < num_pawn:
            row, col = self.pawns[self.player]
            d_row, d_col = self.offsets[action]
            target = (row + sign * d_row, col + d_col)
            if not (0 <= target[0] < size and 0 <= target[1] < size):
                raise ValueError(
                    f"Pawn action {action} leaves the board from {square_name(row, col)}."
                )
            return square_name(*target), target
        groove = action - num_pawn
        kind = "h" if groove < self.grooves else "v"
        row, col = divmod(groove % self.grooves, size - 1)
        if self.player == 1:
            row = size - 2 - row
        return f"{FILES[col]}{row + 1}{kind}", None

    def _play(self, action: int) -> str:
        name, target = self._absolute(action)
        if target is not None:
            self.pawns[self.player] = list(target)
        self.player = 1 - self.player
        return name

    def name(self, action: int) -> str:
        return self._absolute(int(action))[0]

    def write(self, actions: Sequence[int]) -> str:
        return " ".join(self._play(int(a)) for a in actions)

    def parse(self, text: str) -> list[int]:
        """Parses ``"c4 c2 c3h"`` (spaces or commas between moves, any case)."""
        actions = []
        for index, token in enumerate(text.replace(",", " ").split()):
            action = self._parse_one(token.lower())
            if action is None:
                size, middle = self.size, self.size // 2
                raise ValueError(
                    f"Move {token!r} at index {index} of {text!r} is not a Quoridor move here: "
                    f"expected a pawn move to a square a..{FILES[size - 1]}1..{size} (rows "
                    f"from the top) at most two steps away, e.g. '{FILES[middle]}{size - 1}', "
                    f"or a wall such as '{FILES[middle]}{middle - 1}h' or "
                    f"'{FILES[middle - 1]}{middle}v' (columns a..{FILES[size - 2]}, rows "
                    f"1..{size - 1})."
                )
            self._play(action)
            actions.append(action)
        return actions

    def _parse_one(self, token: str) -> int | None:
        size, num_pawn = self.size, len(self.offsets)
        kind = token[-1] if token[-1:] in ("h", "v") else ""
        if kind:
            wall = wall_square(token, size)
            if wall is None:
                return None
            row, col = wall
            if self.player == 1:
                row = size - 2 - row
            groove = row * (size - 1) + col + (self.grooves if kind == "v" else 0)
            return num_pawn + groove
        target = square(token, size)
        if target is None:
            return None
        for action in range(num_pawn):
            try:
                if self._absolute(action)[1] == target:
                    return action
            except ValueError:
                continue
        return None


def to_json(state: State) -> dict:
    """The position for a front end: the grid (1 and 2 for the pawns), the pawns' squares,
    the walls by groove ``[row, col]`` (absolute) and the walls in hand."""
    size = int(np.shape(state.walls_h)[-1]) + 1
    pawns = np.asarray(state.pawns).tolist()
    cells = [[0] * size for _ in range(size)]
    for player, (row, col) in enumerate(pawns):
        cells[row][col] = player + 1

    def grooves(rows) -> list[list[int]]:
        rows = np.asarray(rows)
        return [[r, c] for r in range(size - 1) for c in range(size - 1) if (rows[r] >> c) & 1]

    return {
        "rows": size,
        "cols": size,
        "cells": cells,
        "pawns": pawns,
        "walls_h": grooves(state.walls_h),
        "walls_v": grooves(state.walls_v),
        "walls_left": [int(w) for w in np.asarray(state.walls_left)],
    }


def to_text(state: State) -> str:
    """ASCII picture: ``X`` the first player's pawn (heading up), ``O`` the second's, ``.``
    a square, ``|`` and ``---`` walls, ``+`` a wall's middle; rows numbered from the top."""
    position = to_json(state)
    size = position["rows"]
    horizontal = {tuple(g) for g in position["walls_h"]}
    vertical = {tuple(g) for g in position["walls_v"]}
    chars = (EMPTY_CHAR, *STONE_CHARS)
    width = len(str(size))
    lines = [(" " * width + " ".join(f" {f} " for f in FILES[:size])).rstrip()]
    for row in range(size):
        line = f"{row + 1:>{width}}"
        for col in range(size):
            wall = (row, col) in vertical or (row - 1, col) in vertical
            line += f" {chars[position['cells'][row][col]]} " + ("|" if wall else " ")
        lines.append(line.rstrip())
        if row < size - 1:
            line = " " * width
            for col in range(size):
                under = (row, col) in horizontal or (row, col - 1) in horizontal
                middle = (row, col) in horizontal or (row, col) in vertical
                line += ("---" if under else "   ") + ("+" if middle else " ")
            lines.append(line.rstrip())
    walls = position["walls_left"]
    lines.append(f"walls in hand: X {walls[0]}, O {walls[1]}")
    return "\n".join(lines)
