"""Test helper: the registered games by what a test of each costs, for the tests that run over
every game. The games written here and the cheapest of pgx's run in ``make test``; pgx's
others (each compiles pgx's rules for seconds) run under ``@pytest.mark.long``; the three
largest (chess, shogi and Go 19x19, whose rules compile for minutes each) under
``@pytest.mark.large``, in ``make test-large`` only. pgx's names are those of
``games/pgx_games.py`` installed here."""

import pytest

from alphazero_jax import games
from alphazero_jax.games import pgx_games

PGX = tuple(name for name in games.available() if name.startswith(pgx_games.PREFIX))
BUILT_IN = tuple(name for name in games.available() if name not in PGX)
PGX_CHEAPEST = tuple(name for name in PGX if name == "pgx_tic_tac_toe")
PGX_QUICK = PGX_CHEAPEST + tuple(name for name in PGX if name == "pgx_connect_four")
PGX_LARGE = tuple(name for name in PGX if name in ("pgx_chess", "pgx_shogi", "pgx_go_19x19"))
DEFAULT = BUILT_IN + PGX_CHEAPEST  # the games of the default suite's loops


def marked(names, default=DEFAULT, value=lambda name: name, large=PGX_LARGE) -> list:
    """``value(name)`` for each of ``names``, as pytest parameters: those in ``large`` marked
    ``large``, the others outside ``default`` marked ``long``."""

    def marks(name):
        if name in large:
            return (pytest.mark.large,)
        return () if name in default else (pytest.mark.long,)

    return [pytest.param(value(n), marks=marks(n)) for n in names]
