"""Test helper: the registered games by what a test of each costs, for the tests that run over
every game. The games written here and the cheapest of pgx's run in ``make test``; pgx's
others (each compiles pgx's rules for seconds, chess, shogi and Go 19x19 for minutes) run
under ``@pytest.mark.long``. pgx's names are those of ``games/pgx_games.py`` installed here."""

import pytest

from alphazero_jax import games
from alphazero_jax.games import pgx_games

PGX = tuple(name for name in games.available() if name.startswith(pgx_games.PREFIX))
BUILT_IN = tuple(name for name in games.available() if name not in PGX)
PGX_CHEAPEST = tuple(name for name in PGX if name == "pgx_tic_tac_toe")
PGX_QUICK = PGX_CHEAPEST + tuple(name for name in PGX if name == "pgx_connect_four")
DEFAULT = BUILT_IN + PGX_CHEAPEST  # the games of the default suite's loops


def marked(names, default=DEFAULT, value=lambda name: name) -> list:
    """``value(name)`` for each of ``names``, as pytest parameters: those of the names outside
    ``default`` marked ``long``."""
    long = pytest.mark.long
    return [value(n) if n in default else pytest.param(value(n), marks=long) for n in names]


EVERY = marked(games.available())  # every registered game, pgx's costly ones marked long
