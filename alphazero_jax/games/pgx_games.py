"""pgx's two-player board games through the game contract (Koyamada et al., 2023): ``pgx_go_9x9``,
``pgx_hex``, ``pgx_chess``, ... trained, judged and played like the games written here.

pgx is an optional dependency (``pip install "alphazero_jax[pgx]"``); without it the names are
refused in one line that says so. What the contract asks of a pgx game, and how it is met:

- our ``current_player`` is the colour to move (0 moves first): pgx draws at ``init`` which of
  its player ids moves first, so the state keeps that id, and the rewards are read by colour;
- the end is kept: pgx zeroes the rewards of a step after the end and makes every action
  legal there; here a finished state is returned unchanged and its mask is empty;
- an action out of range is a loss for the mover, as an illegal one (pgx would index its mask
  with a clamped action);
- each game ends by pgx's own move cap (chess and shogi 512 plies, Gardner chess and animal
  shogi 256, Go twice its cells), which is its ``max_num_moves``; the cap is a draw here too
  should pgx not end a game by then;
- the heuristic is neutral: 0 before the end, the mover's reward at it, so the greedy baseline
  is greedy by one-ply outcome and alpha-beta searches outcomes only.

Each game's facts (title, how its actions lie on the board, its symmetries, its cap) are one row
of ``GAMES``; everything else is shared. Moves are named by cell (columns ``a..`` from the left,
rows ``1..`` from the top, as Othello here) where actions are cells or columns, else by pgx's
action number; a position's text is pgx's FEN or SFEN where it gives one.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import string
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.games import _board
from alphazero_jax.games._notation import picture
from alphazero_jax.games.records import GameRecord
from alphazero_jax.types import Array, Game, Symmetry

PREFIX = "pgx_"
INSTALL = 'pip install "alphazero_jax[pgx]"'
_FILES = string.ascii_lowercase
_DIHEDRAL = _board.symmetry_names(square=True, vertical=True)
_MIRROR = _board.symmetry_names(square=False, vertical=False)


class PgxGame(NamedTuple):
    """One pgx game's facts.

    Attributes:
      env_id: pgx's name (``pgx.make(env_id)``).
      title: its name for people.
      max_num_moves: pgx's move cap in plies (or a bound on any game's length).
      board: ``(rows, cols)`` of the observation where actions lie on it, else None.
      layout: how actions lie on the board: ``"cells"`` (action ``r * W + c`` is the cell at
        row r, column c of the observation, then ``extra``), ``"columns"`` (action c is column
        c) or None (actions are pgx's numbers, nothing on a grid).
      extra: the names of the actions after the cells (Go's pass, Hex's swap).
      symmetries: the board's symmetries (``_board`` names), the identity first.
      position: the module and function of pgx that writes a position as text (FEN, SFEN).
    """

    env_id: str
    title: str
    max_num_moves: int
    board: tuple[int, int] | None = None
    layout: str | None = None
    extra: tuple[str, ...] = ()
    symmetries: tuple[str, ...] = ("identity",)
    position: tuple[str, str] | None = None


# pgx 2.6's two-player, zero-sum, deterministic games. pgx's Hex has a size setting that its
# init ignores (the board is always 11 x 11), so Hex is offered at 11 only.
GAMES = (
    PgxGame("tic_tac_toe", "Tic-Tac-Toe (pgx)", 9, (3, 3), "cells", symmetries=_DIHEDRAL),
    PgxGame("connect_four", "Connect Four (pgx)", 42, (6, 7), "columns", (), _MIRROR),
    PgxGame("othello", "Othello (pgx)", 128, (8, 8), "cells", ("pass",), _DIHEDRAL),
    PgxGame("go_9x9", "Go 9x9 (pgx)", 162, (9, 9), "cells", ("pass",), _DIHEDRAL),
    PgxGame("go_19x19", "Go 19x19 (pgx)", 722, (19, 19), "cells", ("pass",), _DIHEDRAL),
    PgxGame("hex", "Hex 11x11 (pgx)", 122, (11, 11), "cells", ("swap",), ("identity", "rot180")),
    PgxGame("chess", "Chess (pgx)", 512, position=("pgx.experimental.chess", "to_fen")),
    PgxGame("gardner_chess", "Gardner chess (pgx)", 256, position=("pgx.gardner_chess", "_to_fen")),
    PgxGame("shogi", "Shogi (pgx)", 512, position=("pgx.experimental.shogi", "to_sfen")),
    PgxGame("animal_shogi", "Animal shogi (pgx)", 256),
)


def installed() -> bool:
    """Whether pgx can be imported here."""
    return importlib.util.find_spec("pgx") is not None


def missing(name: str) -> str:
    """The one line that refuses a pgx game where pgx is not installed."""
    return f"The game {name!r} is one of pgx's, and pgx is not installed; install it: {INSTALL}."


@struct.dataclass
class PgxState:
    """A pgx state seen by the contract.

    Attributes:
      inner: pgx's own state.
      first: int32[], the pgx player id that moved first.
      terminal: bool[].
      rewards: float32[2], the outcome by colour (the first mover's first).
      num_moves: int32[].
    """

    inner: Any
    first: Array
    terminal: Array
    rewards: Array
    num_moves: Array

    @property
    def current_player(self) -> Array:
        """int32[]: the colour to move, 0 for the side that moved first."""
        return (self.inner.current_player != self.first).astype(jnp.int32)


def make_game(spec: PgxGame) -> Game:
    """The game contract over ``pgx.make(spec.env_id)``.

    Raises:
      ValueError: where pgx is not installed (one line that says how to install it).
    """
    name = PREFIX + spec.env_id
    if not installed():
        raise ValueError(missing(name))
    import pgx  # an optional dependency: imported when one of its games is made

    env = pgx.make(spec.env_id)
    probe = jax.eval_shape(env.init, jax.random.PRNGKey(0))  # shapes only: nothing runs
    num_actions = int(probe.legal_action_mask.shape[0])
    height, width, channels = (int(n) for n in probe.observation.shape)
    if spec.board is not None and spec.board != (height, width):
        raise ValueError(
            f"{name}: expected pgx's observation to be {spec.board} cells, got {(height, width)}."
        )
    cap = spec.max_num_moves

    def by_colour(rewards: Array, first: Array) -> Array:
        return jnp.where(first == 0, rewards, rewards[::-1]).astype(jnp.float32)

    def init(key: Array) -> PgxState:
        # Strongly typed as step's states are (pgx's Othello starts with a Python int as its
        # turn), so that init's and step's states trace the same functions once.
        inner = jax.tree.map(lambda x: jnp.asarray(x, jnp.asarray(x).dtype), env.init(key))
        zero = jnp.zeros((), jnp.int32)
        return PgxState(inner, inner.current_player, jnp.bool_(False), jnp.zeros(2), zero)

    def step(state: PgxState, action: Array) -> PgxState:
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action < num_actions)
        clipped = jnp.clip(action, 0, num_actions - 1)
        legal = in_range & state.inner.legal_action_mask[clipped]
        inner = env.step(state.inner, clipped)
        mover = state.current_player
        lost = jnp.where(mover == 0, jnp.float32([-1, 1]), jnp.float32([1, -1]))
        played = PgxState(
            inner=inner,
            first=state.first,
            terminal=inner.terminated | inner.truncated | (state.num_moves + 1 >= cap),
            rewards=by_colour(inner.rewards, state.first),
            num_moves=state.num_moves + 1,
        )
        refused = state.replace(
            terminal=jnp.bool_(True), rewards=lost, num_moves=state.num_moves + 1
        )
        after = _select(legal, played, refused)
        return _select(state.terminal, state, after)

    def observe(state: PgxState) -> Array:
        return state.inner.observation.astype(jnp.float32)

    def legal_action_mask(state: PgxState) -> Array:
        return state.inner.legal_action_mask & ~state.terminal

    def heuristic(state: PgxState) -> Array:
        return jnp.where(state.terminal, state.rewards[state.current_player], 0.0)

    text = _Text(spec, num_actions)
    return Game(
        name=name,
        num_actions=num_actions,
        observation_shape=(height, width, channels),
        max_num_moves=cap,
        settings=(),
        init=init,
        step=step,
        observe=observe,
        legal_action_mask=legal_action_mask,
        heuristic=heuristic,
        symmetries=_symmetries(spec, num_actions),
        to_text=text.to_text,
        action_to_text=lambda action, state=None: text.action_to_text(action),
        actions_from_text=lambda moves, state=None: text.actions_from_text(moves),
        actions_to_text=lambda actions, state=None: " ".join(map(text.action_to_text, actions)),
        to_json=text.to_json,
    )


def _select(pred: Array, on_true: PgxState, on_false: PgxState) -> PgxState:
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


def _grid_of_actions(spec: PgxGame) -> np.ndarray:
    """int[h, w]: the action each board position stands for (a row of columns for
    ``"columns"``)."""
    height, width = spec.board
    if spec.layout == "columns":
        return np.arange(width).reshape(1, width)
    return np.arange(height * width).reshape(height, width)


def _symmetries(spec: PgxGame, num_actions: int) -> tuple[Symmetry, ...]:
    """The board's symmetries; actions off the board (a pass, the swap) map to themselves."""
    if spec.layout is None:
        return (Symmetry("identity", lambda x: x, np.arange(num_actions, dtype=np.int32)),)
    grid = _grid_of_actions(spec)
    rest = np.arange(grid.size, num_actions, dtype=np.int32)
    return tuple(
        s._replace(action_permutation=np.concatenate([s.action_permutation, rest]))
        for s in _board.symmetries(grid, spec.symmetries)
    )


def _move_names(spec: PgxGame, num_actions: int) -> tuple[str, ...]:
    """Each action's name: ``c3`` (column c, row 3 from the top) for a cell, the column's
    number (from 1) for a column, ``spec.extra``'s after the cells, else pgx's number."""
    if spec.layout == "columns":
        return tuple(str(c + 1) for c in range(num_actions))
    if spec.layout == "cells":
        width = spec.board[1]
        num_cells = num_actions - len(spec.extra)
        cells = (f"{_FILES[a % width]}{a // width + 1}" for a in range(num_cells))
        return (*cells, *spec.extra)
    return tuple(str(a) for a in range(num_actions))


class _Text:
    """The host helpers of one pgx game: its notation, picture and JSON."""

    def __init__(self, spec: PgxGame, num_actions: int):
        self.spec, self.names = spec, _move_names(spec, num_actions)
        self.actions = {n.lower(): a for a, n in enumerate(self.names)}
        self.position: Callable[[Any], str] | None = None
        if spec.position is not None:
            module, function = spec.position
            self.position = getattr(importlib.import_module(module), function)

    def notation(self) -> str:
        return notation(self.spec)

    def action_to_text(self, action: int) -> str:
        if not 0 <= int(action) < len(self.names):
            raise ValueError(
                f"A {self.spec.title} action must be in [0, {len(self.names)}), got {action}."
            )
        return self.names[int(action)]

    def actions_from_text(self, text: str) -> list[int]:
        actions = []
        for index, token in enumerate(re.split(r"[\s,]+", text.strip())):
            if not token:
                continue
            if token.lower() not in self.actions:
                raise ValueError(
                    f"Move {token!r} at index {index} of {text!r} is no move of "
                    f"{self.spec.title}: expected {self.notation()}."
                )
            actions.append(self.actions[token.lower()])
        return actions

    def cells(self, state: PgxState) -> list[list[int]] | None:
        """``cells[row][col]``: 0 empty, 1 the first mover's stone, 2 the second's (from the
        observation's first two planes, the mover's and the opponent's); None off a grid."""
        if self.spec.layout is None:
            return None
        planes = np.asarray(state.inner.observation)[..., :2].astype(np.int8)
        mover, other = planes[..., 0], planes[..., 1]
        first, second = (mover, other) if int(state.current_player) == 0 else (other, mover)
        return (first + 2 * second).tolist()

    def to_text(self, state: PgxState) -> str:
        cells = self.cells(state)
        side = ("first", "second")[int(state.current_player)]
        status = f"move {int(state.num_moves)}, the {side} player to move"
        if bool(state.terminal):
            status = f"over after {int(state.num_moves)} moves"
        if cells is not None:
            if self.spec.layout == "columns":
                footer = " ".join(str(c + 1) for c in range(len(cells[0])))
                return picture(cells, footer) + f"\n{status}"
            footer = " ".join(_FILES[: len(cells[0])])
            return picture(cells, footer, ranks=range(1, len(cells) + 1)) + f"\n{status}"
        lines = [f"{self.spec.title}: {status}"]
        if self.position is not None:
            lines.append(self.position(state.inner))
        return "\n".join(lines)

    def to_json(self, state: PgxState) -> dict[str, Any]:
        cells = self.cells(state)
        if cells is None:
            text = self.position(state.inner) if self.position is not None else None
            return {"position": text, "num_moves": int(state.num_moves)}
        rows, cols = len(cells), len(cells[0])
        if self.spec.layout == "columns":
            cell_moves = [[self.names[c] for c in range(cols)] for _ in range(rows)]
        else:
            cell_moves = [[self.names[r * cols + c] for c in range(cols)] for r in range(rows)]
        return {"rows": rows, "cols": cols, "cells": cells, "cell_moves": cell_moves}


def notation(spec: PgxGame) -> str:
    """How a move list of ``spec`` is written, for its record and its refusals."""
    if spec.layout == "cells":
        height, width = spec.board
        extra = "".join(f" or {e}" for e in spec.extra)
        return f"cells a1..{_FILES[width - 1]}{height} (rows from the top){extra}, e.g. c3 d4"
    if spec.layout == "columns":
        return f"column numbers 1..{spec.board[1]}, e.g. 4 4 5"
    return "pgx's action numbers, e.g. 12 301"


def move_pattern(spec: PgxGame) -> str:
    """The regex of one move's text (any case), for its record: the board's own cells (so
    that a cell off every game's board, z9, is in no game's notation) or columns."""
    if spec.layout == "cells":
        height, width = spec.board
        last = _FILES[width - 1]
        kelvin = "\\u212a" if width > _FILES.index("k") else ""  # K, the Kelvin sign, is k
        rows = "|".join(str(row) for row in range(height, 0, -1))
        any_case = ("".join(f"[{c}{c.upper()}]" for c in word) for word in spec.extra)
        cells = f"[a-{last}A-{last.upper()}{kelvin}]({rows})"
        return cells + "".join(f"|{word}" for word in any_case)
    if spec.layout == "columns":
        return "|".join(str(column) for column in range(spec.board[1], 0, -1))
    return "[0-9]{1,4}"


def record_of(spec: PgxGame) -> GameRecord:
    """``spec``'s ``GameRecord``: its title, notation, and the network layout of its actions
    (``resnet_any_size``'s ``cells``, ``columns``, or ``cells_and_pass`` where one action
    follows the cells)."""
    layout = spec.layout
    if spec.layout == "cells" and len(spec.extra) == 1:
        layout = "cells_and_pass"
    return GameRecord(
        title=spec.title,
        notation=notation(spec),
        move_pattern=move_pattern(spec),
        action_layout=layout,
    )


def factory(spec: PgxGame) -> Callable[[], Game]:
    """``make()`` of one pgx game, as ``games.register`` takes it."""

    def make() -> Game:
        return make_game(spec)

    make.__doc__ = f"{spec.title}: pgx's {spec.env_id!r} through the game contract."
    return make
