"""Game registry: ``games.make(name, **settings)`` and ``games.available()``; the contract
checker ``games.check_game(game)`` for a game of one's own; ``games.register`` to add one,
with its facts (title, notation, settings) in a ``GameRecord`` that ``games.record`` reads.

Games built with the same settings are the same object, so functions jitted over one
game's closures compile once however often the game is requested.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable

from alphazero_jax.games import connect_four, othello, quoridor, tic_tac_toe
from alphazero_jax.games._replay import replay, replay_batch
from alphazero_jax.games.check import GameCheckReport, GameContractError, check_game
from alphazero_jax.games.records import GameRecord, connect_at_most
from alphazero_jax.types import Game

_FACTORIES: dict[str, Callable[..., Game]] = {}
_RECORDS: dict[str, GameRecord] = {}

__all__ = [
    "GameCheckReport",
    "GameContractError",
    "GameRecord",
    "available",
    "check_game",
    "make",
    "record",
    "register",
    "replay",
    "replay_batch",
    "settings_of",
]


def available() -> tuple[str, ...]:
    """Names accepted by ``make``, sorted."""
    return tuple(sorted(_FACTORIES))


def register(
    name: str,
    make: Callable[..., Game],
    *,
    limits: dict[str, tuple[int, ...]] | None = None,
    record: GameRecord | None = None,
) -> None:
    """Adds a game of one's own, so that ``make(name)``, training configs
    (``configs.get_config(name, preset)``), agents, the play server and its page accept
    it. The built-in games are registered the same way (below).

    Args:
      name: the name ``make`` will accept, and the ``name`` of the games ``make`` returns.
      make: the game's factory: keyword-only settings with defaults, returning a ``Game``.
      limits: each setting's ``(min, max)`` or ``(min, max, step)``, for ``settings_of``
        (the same as ``record.limits``; give one or the other).
      record: the game's facts (``GameRecord``: title, notation, settings); None: the
        defaults, which any game satisfies.

    Raises:
      ValueError: a name already taken by another factory, or not an identifier; limits
        given twice.
    """
    if not name.isidentifier():
        raise ValueError(f"A game's name must be an identifier, got {name!r}.")
    if _FACTORIES.get(name, make) is not make:
        raise ValueError(
            f"The game name {name!r} is taken by {_FACTORIES[name].__module__}; choose another."
        )
    record = record or GameRecord()
    if limits is not None and record.limits:
        raise ValueError(
            f"Game {name!r}: expected its limits once, as limits= or in its record; got both."
        )
    if limits is not None:
        record = dataclasses.replace(record, limits=limits)
    _FACTORIES[name] = make
    _RECORDS[name] = record.titled(name)


def record(name: str) -> GameRecord:
    """The facts of a registered game (``GameRecord``), its title filled in.

    Raises:
      ValueError: for an unknown name.
    """
    if name not in _RECORDS:
        raise ValueError(f"Unknown game {name!r}; available games: {', '.join(available())}.")
    return _RECORDS[name]


_SQUARE = "[0-9]{1,9}"  # a row or rank: ASCII digits, leading zeros read (_notation.small_int)
register(
    connect_four.NAME,
    connect_four.make,
    record=GameRecord(
        title="Connect Four",
        limits=connect_four.LIMITS,
        notation="columns, first player first, e.g. 4453",
        move_pattern="[1-9aA]",
        moves_abut=True,
        joint_rules=connect_at_most(min),
    ),
)
register(
    othello.NAME,
    othello.make,
    record=GameRecord(
        title="Othello",
        limits=othello.LIMITS,
        notation="squares (columns a.., rows 1.. from the top) and pass, e.g. f5 d6 c3",
        move_pattern=f"[a-pA-P\\u212a]{_SQUARE}|[pP][aA][sS][sS]",  # K, the Kelvin sign, is k
        encodings=("legal_plane",),
    ),
)
register(
    quoridor.NAME,
    quoridor.make,
    record=GameRecord(
        title="Quoridor",
        limits=quoridor.LIMITS,
        notation="pawn moves to a square (columns a.., rows 1.. from the top) and walls such "
        "as c3h or d4v, e.g. c4 c2 b3h",
        move_pattern=f"[a-iA-I]{_SQUARE}[hvHV]?",
        encodings=("distance_planes",),
    ),
)
register(
    tic_tac_toe.NAME,
    tic_tac_toe.make,
    record=GameRecord(
        title="Tic-Tac-Toe",
        limits=tic_tac_toe.LIMITS,
        notation="cells, first player first, e.g. b2 a1 c3",
        move_pattern=f"[a-jA-J]{_SQUARE}",
        joint_rules=connect_at_most(max),
    ),
)


def settings_of(name: str) -> dict[str, dict[str, int]]:
    """Each setting of a registered game with its default, bounds and step, e.g.
    ``{"rows": {"default": 6, "min": 4, "max": 10, "step": 1}, ...}``. A game may constrain settings
    further together (Connect Four's ``connect`` is at most ``min(rows, cols)``); ``make``
    checks everything.

    Raises:
      ValueError: for an unknown name.
    """
    if name not in _FACTORIES:
        raise ValueError(f"Unknown game {name!r}; available games: {', '.join(available())}.")
    defaults = inspect.signature(_FACTORIES[name]).parameters
    return {
        key: {"default": defaults[key].default, "min": low, "max": high, "step": step}
        for key, (low, high, step) in ((k, (*v, 1)[:3]) for k, v in _RECORDS[name].limits.items())
    }


def make(name: str, **settings) -> Game:
    """Builds a registered game.

    Args:
      name: one of ``available()``, e.g. ``"connect_four"``.
      **settings: the game's keyword arguments, e.g. ``rows=6, cols=7, connect=4``.

    Returns:
      The game as a ``Game`` of pure functions.

    Raises:
      ValueError: for an unknown name or keyword, or a value out of range; the message
        lists what is accepted.
    """
    if name not in _FACTORIES:
        raise ValueError(f"Unknown game {name!r}; available games: {', '.join(available())}.")
    accepted = inspect.signature(_FACTORIES[name]).parameters
    unknown = sorted(set(settings) - set(accepted))
    if unknown:
        described = ", ".join(f"{k}={p.default!r}" for k, p in accepted.items())
        raise ValueError(
            f"Unknown setting(s) {', '.join(unknown)} for game {name!r}; "
            f"accepted settings (with defaults): {described}."
        )
    complete = {k: settings.get(k, p.default) for k, p in accepted.items()}
    try:
        return _make_cached(name, tuple(sorted(complete.items())))
    except TypeError as error:  # An unhashable value is no valid setting either.
        raise ValueError(f"Settings of {name!r} must be plain ints, got {settings!r}.") from error


# A bound that is never reached: the factories refuse invalid settings before anything is
# cached, and the valid ones number 701 (Tic-Tac-Toe 372, Connect Four 189, Quoridor 126,
# Othello 14), so no Game is ever dropped and identity stays stable for a process's life.
_MAX_GAMES = 1024


@functools.lru_cache(maxsize=_MAX_GAMES)
def _make_cached(name: str, settings: tuple) -> Game:
    """The one Game per ``(name, settings)``. jit keys on the identity of a Game's
    functions, and callers compare Games by identity (``run.game is game``), so a second
    Game for the same settings would compile everything again and fail those checks. A Game
    holds only closures and small NumPy tables, no compiled code."""
    return _FACTORIES[name](**dict(settings))
