"""Game registry: ``games.make(name, **settings)`` and ``games.available()``; the contract
checker ``games.check_game(game)`` for a game of one's own; ``games.register`` to add one,
with its facts (title, notation, settings, score, action layout, presets) in a
``GameRecord`` that ``games.record`` reads. The registry is ``plugs.GAMES``.

Games built with the same settings are the same object, so functions jitted over one
game's closures compile once however often the game is requested.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import NamedTuple

from alphazero_jax import plugs
from alphazero_jax.games import _kinarow, connect_four, othello, pgx_games, quoridor, tic_tac_toe
from alphazero_jax.games._replay import replay, replay_batch
from alphazero_jax.games.check import GameCheckReport, GameContractError, check_game
from alphazero_jax.games.records import GameRecord, connect_at_most
from alphazero_jax.presets import connect_four as connect_four_presets
from alphazero_jax.presets import othello as othello_presets
from alphazero_jax.presets import quoridor as quoridor_presets
from alphazero_jax.presets import tic_tac_toe as tic_tac_toe_presets
from alphazero_jax.registry import module_of
from alphazero_jax.types import Game

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
    "score_fn",
    "settings_of",
]


class Registered(NamedTuple):
    """A registered game: its factory and its record (the title filled in)."""

    make: Callable[..., Game]
    record: GameRecord


def available() -> tuple[str, ...]:
    """Names accepted by ``make``, sorted."""
    return plugs.GAMES.available()


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
      record: the game's facts (``GameRecord``: title, notation, settings, score, action
        layout, presets); None: the defaults, which any game satisfies. Its presets are
        registered as ``"<name>:<preset>"`` (``plugs.PRESETS``).

    Raises:
      ValueError: a name already taken by another factory, or not an identifier; limits
        given twice.
    """
    record = record or GameRecord()
    if limits is not None and record.limits:
        raise ValueError(
            f"Game {name!r}: expected its limits once, as limits= or in its record; got both."
        )
    if limits is not None:
        record = dataclasses.replace(record, limits=limits)
    plugs.GAMES.register(name, Registered(make, record.titled(name)), module=module_of(make))
    for preset, apply in record.presets.items():
        plugs.PRESETS.register(f"{name}:{preset}", apply, module=module_of(apply))


def record(name: str) -> GameRecord:
    """The facts of a registered game (``GameRecord``), its title filled in.

    Raises:
      ValueError: for an unknown name.
    """
    return plugs.GAMES.get(name).record


def score_fn(game: Game) -> Callable:
    """``score(state) -> float32[]`` of ``game``'s finished games, from the first player's
    view (unbatched; the caller vmaps): its record's ``score``.

    Raises:
      ValueError: a game whose record has no score; the message lists the games with one.
    """
    make_score = record(game.name).score
    if make_score is None:
        with_score = [name for name in available() if record(name).score is not None]
        raise ValueError(
            f"The game {game.name!r} has no score in its record; games with one: "
            f"{', '.join(with_score)} (GameRecord(score=...) when it is registered)."
        )
    return make_score(game)


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
        score=_kinarow.score,
        action_layout="columns",
        presets=connect_four_presets.PRESETS,
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
        score=othello.score,
        action_layout="cells_and_pass",
        presets=othello_presets.PRESETS,
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
        score=quoridor.score,
        action_layout="quoridor",
        presets=quoridor_presets.PRESETS,
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
        score=_kinarow.score,
        action_layout="cells",
        presets=tic_tac_toe_presets.PRESETS,
    ),
)


def _register_pgx() -> None:
    """pgx's games (``games/pgx_games.py``) where pgx is installed; elsewhere their names are
    refused in one line that says how to install it."""
    for spec in pgx_games.GAMES:
        name = pgx_games.PREFIX + spec.env_id
        if pgx_games.installed():
            register(name, pgx_games.factory(spec), record=pgx_games.record_of(spec))
        else:
            plugs.GAMES.unavailable(name, pgx_games.missing(name))


_register_pgx()


def settings_of(name: str) -> dict[str, dict[str, int]]:
    """Each setting of a registered game with its default, bounds and step, e.g.
    ``{"rows": {"default": 6, "min": 4, "max": 10, "step": 1}, ...}``. A game may constrain settings
    further together (Connect Four's ``connect`` is at most ``min(rows, cols)``); ``make``
    checks everything.

    Raises:
      ValueError: for an unknown name.
    """
    entry = plugs.GAMES.get(name)
    defaults = inspect.signature(entry.make).parameters
    return {
        key: {"default": defaults[key].default, "min": low, "max": high, "step": step}
        for key, (low, high, step) in ((k, (*v, 1)[:3]) for k, v in entry.record.limits.items())
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
    accepted = inspect.signature(plugs.GAMES.get(name).make).parameters
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
    return plugs.GAMES.get(name).make(**dict(settings))
