"""The game contract, checked by ``games.check_game`` on every registered game (and on a
non-default shape of each); what the contract leaves to each game (the registry, the grid
games' JSON board and its picture) is checked here. pgx's games other than Tic-Tac-Toe are
checked under ``long`` (``game_names``), the largest on fewer games, and chess, shogi and
Go 19x19 under ``large``."""

import json

import jax
import pytest
from game_names import BUILT_IN, PGX, marked

from alphazero_jax import games

BATCH = 256  # random games played by check_game per case
FEWER = {"pgx_chess": 8, "pgx_shogi": 8, "pgx_go_19x19": 8}  # a state of kilobytes, 512+ plies
FEWER |= {"pgx_go_9x9": 32, "pgx_gardner_chess": 32, "pgx_animal_shogi": 32}

# Quoridor's default (9x9) is covered by its OpenSpiel differential; here its 5x5.
CASES = [(name, {}) for name in BUILT_IN if name != "quoridor"] + [
    ("connect_four", {"rows": 5, "cols": 4, "connect": 3}),
    ("connect_four", {"rows": 10, "cols": 10, "connect": 5}),
    ("tic_tac_toe", {"rows": 4, "cols": 5, "connect": 4}),
    ("othello", {"size": 4, "legal_plane": 0}),
    ("othello", {"size": 10, "legal_plane": 1}),
    ("quoridor", {"size": 5, "walls": 3, "distance_planes": 0}),
]
CASES += marked(PGX, value=lambda name: (name, {}))  # pgx's differential: test_pgx_games.py


@pytest.fixture(
    scope="module", params=CASES, ids=lambda c: c[0] + "".join(f"-{v}" for v in c[1].values())
)
def game(request):
    name, settings = request.param
    return games.make(name, **settings)


@pytest.fixture(scope="module")
def report(game):
    """check_game's run over the game: it raises GameContractError naming a broken rule."""
    return games.check_game(game, num_games=FEWER.get(game.name, BATCH))


def test_game__meets_the_contract(game, report):
    """check_game passes, having tried enough: every game met illegal moves, and at least
    half of the symmetries map the start onto itself, so that play checks them (Othello's
    start is not mirror-symmetric: its own test draws the mirrored positions)."""
    num_games = FEWER.get(game.name, BATCH)
    assert report.num_games == num_games
    assert report.num_positions >= num_games * 5
    assert report.num_illegal_moves > 0, "the random games should meet some illegal moves"
    assert report.symmetries_played[0] == "identity"
    assert len(report.symmetries_played) >= len(game.symmetries) // 2
    assert 0 < len(report.longest_game) <= game.max_num_moves


def test_game__make_gives_back_the_same_game(game):
    assert games.make(game.name, **dict(game.settings)) is game


def test_game__json_board_is_plain_json_and_agrees_with_the_text(game, report):
    moves = list(report.longest_game)
    plies = (0, 3, len(moves))
    positions = games.replay_batch(game, [moves[:ply] for ply in plies])
    states = [jax.tree.map(lambda x, i=index: x[i], positions) for index in range(len(plies))]
    if "cells" not in game.to_json(states[0]):  # pgx's chess, shogi: a position's text, no grid
        for state in states:
            board = game.to_json(state)
            assert json.loads(json.dumps(board)) == board and isinstance(game.to_text(state), str)
        return
    start = game.to_json(states[0])["cells"]
    for state in states:
        board = game.to_json(state)
        assert json.loads(json.dumps(board)) == board
        stones = sum(cell != 0 for row in board["cells"] for cell in row)
        # Each move puts one stone down (none for a pass).
        assert stones <= sum(cell != 0 for row in start for cell in row) + int(state.num_moves)
        # The ASCII picture shows the same cells, top row first.
        picture = game.to_text(state)
        assert isinstance(picture, str) and len(picture.splitlines()) >= 2
        lines = [[t for t in line.split() if t in ".XO"] for line in picture.split("\n")]
        lines = [line for line in lines if len(line) == board["cols"]]  # walls, labels: gone
        marks = [["." if c == 0 else "XO"[c - 1] for c in row] for row in board["cells"]]
        assert lines[: board["rows"]] == marks


def test_settings_of_every_game_match_what_make_accepts():
    for name in games.available():
        for key, bound in games.settings_of(name).items():
            games.make(name, **{key: bound["default"]})
            with pytest.raises(ValueError, match=key):
                games.make(name, **{key: bound["max"] + 1})
            with pytest.raises(ValueError, match=key):
                games.make(name, **{key: bound["min"] - 1})
