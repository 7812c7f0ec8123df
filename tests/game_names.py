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
DEFAULT = BUILT_IN + PGX_CHEAPEST  # the games that the default suite's loops run over


def marked(names) -> list:
    """``names`` as pytest parameters, each one outside ``DEFAULT`` marked ``long``."""
    return [
        name if name in DEFAULT else pytest.param(name, marks=pytest.mark.long) for name in names
    ]


EVERY = marked(games.available())  # every registered game, pgx's costly ones marked long
