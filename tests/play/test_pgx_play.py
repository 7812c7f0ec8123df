"""pgx's games on the play server and in the terminal, with no code of their own: the
catalogue offers them with the baseline agents (and no shipped network), a Tic-Tac-Toe game
is played through the API and the terminal, and (long) Go 9x9 and animal shogi through every
route with random, greedy and rollout MCTS."""

from __future__ import annotations

import pytest
from api_client import TestClient
from play.test_play import _leftmost

from alphazero_jax import games
from alphazero_jax.play import terminal
from alphazero_jax.play.catalogue import BadRequest, catalogue, describe, served_spec
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.play.session import PlaySession

pytest.importorskip("pgx")

BASELINES = ["mcts", "minimax", "greedy", "random"]  # strongest first, as the catalogue lists


@pytest.fixture
def client():
    with TestClient(create_app(ServerConfig(batch_sizes=(1,)))) as c:
        yield c


def test_catalogue__offers_pgx_games_with_the_baselines_and_no_network():
    listed = {g["name"]: g for g in catalogue(ServerConfig())["games"]}
    for name in ("pgx_tic_tac_toe", "pgx_go_9x9", "pgx_animal_shogi", "pgx_chess"):
        shown = listed[name]
        assert [a["spec"] for a in shown["agents"]] == BASELINES, name
        assert (shown["settings"], shown["solver"], shown["encodings"]) == ({}, [], [])
    assert listed["pgx_go_9x9"]["title"] == "Go 9x9 (pgx)"
    assert listed["pgx_go_9x9"]["notation"].startswith("cells a1..i9 (rows from the top) or pass")
    # A built-in game's shipped network is still offered, where it ships.
    (shipped,) = [a for a in listed["tic_tac_toe"]["agents"] if a["spec"] == "az:pretrained"]
    assert shipped["only_settings"] == [{"rows": 3, "cols": 3, "connect": 3}]


def test_served_spec__refuses_a_network_no_one_shipped_in_one_line():
    with pytest.raises(BadRequest) as refused:
        served_spec(ServerConfig(), "az:pretrained", None, game="pgx_go_9x9", settings={})
    assert str(refused.value) == (
        "agent: az:pretrained plays pgx_go_9x9 at no settings yet; GET /api/games lists the "
        "agents that play it."
    )
    assert served_spec(ServerConfig(), "mcts:8", None, game="pgx_go_9x9", settings={}) == "mcts:8"


def test_describe__a_game_without_settings_has_no_parentheses():
    assert describe(games.make("pgx_tic_tac_toe"), "mcts:8") == "Tic-Tac-Toe (pgx), mcts:8"
    shown = describe(games.make("tic_tac_toe"), "random")
    assert shown == "Tic-Tac-Toe (rows 3, cols 3, connect 3), random"


def test_routes__a_pgx_tic_tac_toe_game_against_random_as_second(client):
    opened = client.post(
        "/api/sessions", json={"game": "pgx_tic_tac_toe", "agent": "random", "human": "second"}
    )
    assert opened.status_code == 200, opened.text
    view = opened.json()
    (reply,) = view["reply"]  # the agent opened
    board = view["board"]
    # Cells named by column from the left and row from the top: a1 is the top-left cell.
    assert board["cell_moves"] == [["a1", "b1", "c1"], ["a2", "b2", "c2"], ["a3", "b3", "c3"]]
    (row,) = [r for r, moves in enumerate(board["cell_moves"]) if reply["move"] in moves]
    column = board["cell_moves"][row].index(reply["move"])
    assert board["cells"][row][column] == 1 and sum(map(sum, board["cells"])) == 1
    assert reply["move"] not in view["legal_moves"] and len(view["legal_moves"]) == 8
    while not view["over"]:
        move = view["legal_moves"][0]
        view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": move}).json()
    moves = view["moves"].split()
    stones = [cell for line in view["board"]["cells"] for cell in line if cell]
    assert sorted(stones) == sorted(1 + (i % 2) for i in range(len(moves)))
    assert view["result"] in ("You win", "The agent wins", "Draw")
    refused = client.post(f"/api/sessions/{view['id']}/moves", json={"move": "b2"})
    assert refused.status_code == 409


def test_routes__agent_move_and_a_hint_in_a_pgx_game_and_a_missing_agent_refused(client):
    view = client.post(
        "/api/sessions", json={"game": "pgx_tic_tac_toe", "agent": "greedy", "human": "none"}
    ).json()
    moved = client.post(f"/api/sessions/{view['id']}/agent-move").json()
    assert len(moved["moves"].split()) == 1 and moved["reply"][0]["player"] == 0
    hint = client.post(f"/api/sessions/{view['id']}/hint").json()
    assert hint["player"] == 1 and hint["move"] in moved["legal_moves"]
    # No agent named: the shipped network, of which none ships for pgx's games.
    refused = client.post("/api/sessions", json={"game": "pgx_tic_tac_toe"})
    assert refused.status_code == 422
    assert refused.json()["error"].startswith("agent: az:pretrained plays pgx_tic_tac_toe at no")


def test_routes__a_new_pgx_othello_game_starts_from_the_four_middle_discs(client):
    # pgx's Othello starts with a weakly typed turn, a Python int outside jit.
    opened = client.post("/api/sessions", json={"game": "pgx_othello", "agent": "random"})
    assert opened.status_code == 200, opened.text
    view = opened.json()
    # White on d4 and e5, Black (who moves first) on e4 and d5, and Black's four openings.
    cells = view["board"]["cells"]
    assert [row[3:5] for row in cells[3:5]] == [[2, 1], [1, 2]] and sum(map(sum, cells)) == 6
    assert sorted(view["legal_moves"]) == ["c4", "d3", "e6", "f5"]


def test_terminal__a_pgx_tic_tac_toe_game_typed_in_its_notation():
    game = games.make("pgx_tic_tac_toe")
    lines = iter(["b2", "b2", "e5", "a3", "b1", "c1", "quit"])
    printed = []
    terminal.run(
        lambda: PlaySession(game, _leftmost(game), human="first"),
        read=lambda prompt: next(lines),
        write=printed.append,
    )
    text = "\n".join(printed)
    assert "pgx_tic_tac_toe: you play first (X) against leftmost." in text
    assert "Refused: b2 is not legal here" in text  # taken
    assert "Refused: Move 'e5' at index 0 of 'e5' is no move of Tic-Tac-Toe (pgx)" in text
    # b2 a1, a3 b1 (the agent's lowest legal cells, from the top-left); then c1 is X's third
    # on the diagonal c1 b2 a3 (b1 is the agent's, so the human types it in vain).
    assert "Refused: b1 is not legal here" in text
    assert "You win. Moves: b2 a1 a3 b1 c1" in text
    assert printed[-1] == "Moves: b2 a1 a3 b1 c1"


@pytest.mark.long
@pytest.mark.parametrize("name", ["pgx_go_9x9", "pgx_animal_shogi"])
@pytest.mark.parametrize("agent", ["random", "greedy", "mcts:8"])
def test_routes__go_and_animal_shogi_through_every_route(client, name, agent):
    opened = client.post("/api/sessions", json={"game": name, "agent": agent, "human": "second"})
    assert opened.status_code == 200, opened.text
    view = opened.json()
    assert len(view["reply"]) == 1 and view["human_to_move"]
    grid = "cell_moves" in view["board"]
    assert grid == (name == "pgx_go_9x9")
    if grid:
        assert "pass" in view["legal_moves"] and view["board"]["rows"] == 9
    else:
        assert view["board"] == {"position": None, "num_moves": 1}
    move = view["legal_moves"][0]
    view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": move}).json()
    assert len(view["moves"].split()) == 3 and view["moves"].split()[1] == move
    hint = client.post(f"/api/sessions/{view['id']}/hint")
    assert hint.status_code == 200 and hint.json()["move"] in view["legal_moves"]
    undone = client.post(f"/api/sessions/{view['id']}/undo").json()
    assert len(undone["moves"].split()) == 1
    spectated = client.post(
        "/api/sessions", json={"game": name, "agent": agent, "human": "none"}
    ).json()
    moved = client.post(f"/api/sessions/{spectated['id']}/agent-move").json()
    assert len(moved["moves"].split()) == 1
