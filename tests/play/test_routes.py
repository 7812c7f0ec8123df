"""The play server's JSON API (``play/routes.py``) through FastAPI's test client: whole games of
every game, every kind of bad input (a 4xx with a JSON error, the session unchanged), the
status of each refusal, hints, the page, and a new game of an agent held compiling nothing."""

from __future__ import annotations

import pathlib
import re
import time

import numpy as np
import pytest
from api_client import TestClient, new

from alphazero_jax import games
from alphazero_jax.play import session as play_session
from alphazero_jax.play.agent_pool import PoolFull
from alphazero_jax.play.catalogue import BadRequest
from alphazero_jax.play.openapi import route_table
from alphazero_jax.play.refusals import status_of
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server import ServerFull, TryLater, UnknownSession
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.play.verdicts import NoVerdicts


def test_games_lists_settings_bounds_and_agents(client):
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert set(listed) == set(games.available())
    c4 = listed["connect_four"]
    assert c4["settings"]["rows"] == {"default": 6, "min": 4, "max": 10, "step": 1}
    assert c4["solver"] and not listed["tic_tac_toe"]["solver"]
    specs = {a["spec"]: a for a in c4["agents"]}
    assert set(specs) == {"az:pretrained", "solver", "mcts", "minimax", "greedy", "random"}
    assert specs["az:pretrained"]["only_settings"] == [{"rows": 6, "cols": 7, "connect": 4}]
    assert specs["solver"]["only_settings"] == [{"rows": 6, "cols": 7, "connect": 4}]
    assert specs["minimax"]["strength"]["name"] == "depth"
    assert specs["greedy"]["strength"] is None


def test_a_whole_tic_tac_toe_game_against_random(client):
    view = new(client, human="first")
    assert view["moves"] == "" and view["human_to_move"] and view["reply"] == []
    assert view["board"] == {"rows": 3, "cols": 3, "cells": [[0] * 3] * 3}
    rng = np.random.default_rng(0)
    played = 0
    while not view["over"]:
        move = str(rng.choice(view["legal_moves"]))
        view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": move}).json()
        played += 1
        assert view["moves"].split()[2 * played - 2] == move
        assert len(view["reply"]) == (0 if len(view["moves"].split()) == 2 * played - 1 else 1)
    stones = sum(cell != 0 for row in view["board"]["cells"] for cell in row)
    assert stones == len(view["moves"].split())
    assert view["result"] in ("You win", "The agent wins", "Draw")
    assert view["legal_moves"] == [] and not view["human_to_move"]
    assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == view["moves"]


def test_othello_games_with_passes_through_the_api(client):
    rng = np.random.default_rng(1)
    passes = 0
    for _ in range(6):
        view = new(client, game="othello", settings={"size": 4}, agent="greedy")
        assert view["board"]["cells"][1:3] == [[0, 2, 1, 0], [0, 1, 2, 0]]
        while not view["over"]:
            legal = view["legal_moves"]
            assert "pass" not in legal or legal == ["pass"]
            move = str(rng.choice(legal))
            passes += move == "pass"
            view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": move}).json()
        passes += view["moves"].split().count("pass")
        assert view["result"] in ("You win", "The agent wins", "Draw")
    assert passes > 0
    odd = client.post("/api/sessions", json={"game": "othello", "settings": {"size": 5}})
    assert odd.status_code == 422 and "even" in odd.json()["error"]


def test_quoridor_through_the_api__a_pawn_move_walls_and_a_refused_wall(client):
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    quoridor = listed["quoridor"]
    assert quoridor["title"] == "Quoridor" and not quoridor["solver"]
    assert quoridor["settings"]["size"] == {"default": 9, "min": 5, "max": 9, "step": 2}
    # Shipped networks play 5x5 with 3 walls and 9x9 with 10; greedy:path comes next.
    specs = [a["spec"] for a in quoridor["agents"]]
    assert specs[:2] == ["az:pretrained", "greedy:path"]
    shipped = [
        {"size": 5, "walls": 3, "distance_planes": 1},
        {"size": 9, "walls": 10, "distance_planes": 1},
    ]
    assert quoridor["agents"][0]["only_settings"] == shipped
    assert "greedy:path" not in {a["spec"] for a in listed["othello"]["agents"]}
    view = new(client, game="quoridor", settings={"size": 5, "walls": 3}, agent="greedy:path")
    assert view["board"]["pawns"] == [[4, 2], [0, 2]] and view["board"]["walls_left"] == [3, 3]
    assert view["legal_moves"][:4] == ["c4", "d5", "b5", "a1h"] and len(view["legal_moves"]) == 35
    session = f"/api/sessions/{view['id']}"
    # X steps up; O, with as many walls in hand as X, steps down its shortest path.
    view = client.post(f"{session}/moves", json={"move": "c4"}).json()
    assert view["moves"] == "c4 c2" and view["reply"][0]["move"] == "c2"
    # The wall c2h bars the c file under O: its one shortest path now starts with b2.
    view = client.post(f"{session}/moves", json={"move": "c2h"}).json()
    assert view["moves"] == "c4 c2 c2h b2"
    board = view["board"]
    assert board["walls_h"] == [[1, 2]] and board["walls_v"] == []
    assert board["walls_left"] == [2, 3] and board["pawns"] == [[3, 2], [1, 1]]
    assert board["cells"][3][2] == 1 and board["cells"][1][1] == 2
    assert {"c2h", "d2h", "c2v"}.isdisjoint(view["legal_moves"]) and "c3" in view["legal_moves"]
    # Crossing c2h, overlapping it, and a groove off the board: refused, nothing changed.
    for wall, words in [
        ("c2v", "c2v is not legal here: it would overlap or cross a wall on the board. "),
        ("c2v", "Legal moves: c3, d4, c5, b4, a1h"),
        ("d2h", "d2h is not legal here: it would overlap"),
        ("e5h", "is not a Quoridor move here"),
    ]:
        refused = client.post(f"{session}/moves", json={"move": wall})
        assert refused.status_code == 409 and words in refused.json()["error"], refused.text
    assert client.get(session).json() == {**view, "reply": []}


def test_the_agent_opens_when_the_human_plays_second(client):
    view = new(client, game="connect_four", human="second")
    assert len(view["moves"]) == 1 and view["to_move"] == 1 and view["human_to_move"]
    assert view["reply"][0]["move"] == view["moves"] and view["reply"][0]["player"] == 0
    assert view["board"]["cells"][-1][int(view["moves"]) - 1] == 1  # bottom row, first player


def test_undo_takes_back_both_moves_then_refuses(client):
    view = new(client, human="first")
    session = view["id"]
    client.post(f"/api/sessions/{session}/moves", json={"move": "b2"})
    undone = client.post(f"/api/sessions/{session}/undo")
    assert undone.status_code == 200 and undone.json()["moves"] == ""
    again = client.post(f"/api/sessions/{session}/undo")
    assert again.status_code == 409 and "Nothing to take back" in again.json()["error"]


# A move in no game's notation is malformed (422); one in a game's notation that the
# session's game does not read, or not legal here, conflicts with the session (409).
BAD_MOVES = [
    ({"move": 5}, 422, "valid string"),
    ({"move": "z9"}, 422, "a3"),  # the message lists the legal moves
    ({"move": "b2 c3"}, 422, "Expected one move"),
    ({"move": "b2"}, 409, "not legal"),  # taken already
    ({"move": "d4"}, 409, "not a cell"),  # an Othello square, off this 3x3 board
    ({"move": "4"}, 409, "not a cell"),  # a Connect Four column
    ({}, 422, "move: Field required"),
    ({"move": "a1", "extra": 1}, 422, "Extra inputs"),
    ([1, 2], 422, "got an array"),
    ({"move": "a" * 100}, 422, "at most 40"),
]


@pytest.mark.parametrize(("body", "status", "words"), BAD_MOVES)
def test_bad_moves_are_refused_and_change_nothing(client, body, status, words):
    view = new(client, human="first", moves="b2 a1")
    response = client.post(f"/api/sessions/{view['id']}/moves", json=body)
    assert response.status_code == status and words in response.json()["error"], response.text
    assert client.get(f"/api/sessions/{view['id']}").json() == {**view, "reply": []}


def test_bodies_that_are_not_json_or_too_large(client):
    view = new(client)
    path = f"/api/sessions/{view['id']}/moves"
    headers = {"content-type": "application/json"}
    broken = client.post(path, content=b"{move: 4", headers=headers)
    assert broken.status_code == 400 and "not valid JSON" in broken.json()["error"]
    large = client.post(path, content=b" " * 20_000, headers=headers)
    assert large.status_code == 413 and "at most 16384 bytes" in large.json()["error"]
    chunks = (b" " * 4096 for _ in range(8))  # no content-length: counted as it arrives
    streamed = client.post(path, content=chunks, headers=headers)
    assert streamed.status_code == 413
    assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == ""


BAD_SESSIONS = [
    ({"game": "chess"}, "Unknown game 'chess'"),
    ({"settings": {"rows": 99}}, "rows must be an integer in [3, 10], got 99"),
    ({"settings": {"rows": True}}, "settings.rows"),
    ({"settings": {"size": 3}}, "Unknown setting(s) size"),
    ({"agent": "az:/etc/passwd"}, "not served"),
    ({"agent": "solver"}, "solver plays connect_four only, not tic_tac_toe"),
    (
        {"game": "connect_four", "settings": {"rows": 5}, "agent": "solver"},
        "solver plays connect_four at rows=6,cols=7,connect=4 only, not rows=5,cols=7,connect=4",
    ),
    ({"agent": "greedy:path"}, "greedy:path plays quoridor only, not tic_tac_toe"),
    ({"agent": "mcts:99999"}, "expected an integer in [1, 1024]"),
    ({"agent": "mcts:-1"}, "expected an integer in [1, 1024]"),
    ({"agent": "minimax", "simulations": 3}, "depth, not simulations"),
    ({"agent": "random:3"}, "takes no strength"),
    ({"human": "nobody"}, "'first', 'second' or 'none'"),
    ({"moves": "q7"}, "moves:"),  # no Tic-Tac-Toe cell in any board's notation
    (
        {"game": "connect_four", "settings": {"rows": 5}, "agent": "az:pretrained"},
        "az:pretrained plays connect_four at rows=6,cols=7,connect=4 only, not rows=5",
    ),
]


@pytest.mark.parametrize(("body", "words"), BAD_SESSIONS)
def test_bad_new_sessions_get_422_with_what_was_expected(client, body, words):
    response = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "random", **body})
    assert response.status_code == 422 and words in response.json()["error"], response.text
    assert client.app.state.server.sessions == {}


def test_a_method_a_path_does_not_answer_gets_405_with_the_methods_it_does(client):
    # RFC 9110: every 405 says in Allow what the path answers (both routes of one path).
    for method, path, allowed in [
        ("PUT", "/api/sessions/abc", "DELETE, GET"),
        ("TRACE", "/api/games", "GET"),
        ("GET", "/api/sessions", "POST"),
        ("OPTIONS", "/api/sessions/abc/moves", "POST"),
        ("DELETE", "/", "GET, HEAD"),
    ]:
        response = client.request(method, path)
        assert response.status_code == 405, (method, path, response.text)
        assert response.headers["allow"] == allowed and response.json()["error"]


# Numbers of thousands of digits (Python's int() refuses more than 4,300), Unicode digits and
# signs, wherever a new game's body has a number: one line of 4xx, never a 500.
LONG = "1" * 5000
LONG_NUMBERS = [
    ({"agent": "minimax:" + LONG}, 422, "agent: String should have at most 200 characters"),
    ({"agent": "mcts:" + LONG}, 422, "(5007 characters)"),
    ({"agent": "az:pretrained:" + LONG}, 422, "at most 200 characters"),
    ({"agent": "mcts:" + "0" * 190 + "7"}, 200, ""),  # leading zeros: read, as the schema says
    ({"agent": "mcts:" + "0" * 180 + "1" * 10}, 422, "expected an integer in [1, 1024]"),
    ({"agent": "mcts:٣"}, 422, "expected an integer in [1, 1024], got '٣'"),
    ({"agent": "minimax:+2"}, 422, "expected an integer in [1, 6]"),
    ({"agent": "minimax:−2"}, 422, "expected an integer in [1, 6]"),
    ({"game": "g" * 5000}, 422, "game: String should have at most 64 characters"),
]


@pytest.mark.parametrize(("body", "status", "words"), LONG_NUMBERS)
def test_long_numbers_and_other_digits_in_a_new_game_are_refused_in_one_line(
    client, body, status, words
):
    response = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "random", **body})
    assert response.status_code == status and words in response.text, response.text
    if status == 200:
        assert response.json()["agent"] == "mcts:7"
    else:
        assert "\n" not in response.text and len(response.text) < 300


@pytest.mark.parametrize("where", ['"simulations": {}', '"settings": {{"rows": {}}}'])
def test_json_numbers_past_what_python_reads_are_a_400(client, where):
    body = '{"game": "tic_tac_toe", "agent": "mcts", ' + where.format(LONG) + "}"
    headers = {"content-type": "application/json"}
    response = client.post("/api/sessions", content=body.encode(), headers=headers)
    assert response.status_code == 400, response.text
    assert response.json() == {
        "error": "The body is not JSON the server can read: expected a JSON object."
    }
    length = {"content-length": LONG, **headers}
    assert client.post("/api/sessions", content=b"{}", headers=length).status_code == 413


def test_a_move_list_in_the_notation_but_not_legal_is_a_409(client):
    response = client.post(
        "/api/sessions", json={"game": "tic_tac_toe", "agent": "random", "moves": "b2 b2"}
    )
    assert response.status_code == 409 and "Move 2 (b2) is not legal" in response.json()["error"]
    assert client.app.state.server.sessions == {}


def test_an_agent_not_built_or_compiled_in_time_is_a_429_with_retry_after_and_changes_nothing():
    # With no wait at all, a new agent is refused with a retry hint while it is built, and
    # again while its search compiles, before any session is held; both go on, and the
    # same request asked again once they are done plays.
    app = create_app(ServerConfig(batch_sizes=(1,), compile_wait=0.0))
    body = {"game": "tic_tac_toe", "agent": "random", "human": "second"}
    with TestClient(app) as client:
        server = client.app.state.server
        built = client.post("/api/sessions", json=body)
        assert built.status_code == 429 and built.headers["retry-after"] == "1"
        assert "being built" in built.json()["error"] and server.sessions == {}
        while not server.pool.batchers:  # the build the refusal left running
            time.sleep(0.05)
        compiling = client.post("/api/sessions", json=body)
        assert compiling.status_code == 429 and compiling.headers["retry-after"] == "1"
        assert "compiling" in compiling.json()["error"] and server.sessions == {}
        (batcher,) = server.pool.batchers.values()
        for future in list(batcher._compiling.values()):
            future.result()  # the compile the refusal started
        view = new(client, human="second")
        assert len(view["reply"]) == 1


def test_the_app_starts_again_after_its_lifespan_ended():
    # A test client (or an ASGI server) may run the app's lifespan twice: the second run
    # plays as the first did, with none of its games.
    app = create_app(ServerConfig(batch_sizes=(1,)))
    for _ in range(2):
        with TestClient(app) as client:
            assert client.app.state.server.sessions == {}
            view = new(client, human="second")
            assert len(view["reply"]) == 1


def test_unknown_sessions_and_paths(client):
    for method, path in [("GET", "/api/sessions/nope"), ("POST", "/api/sessions/nope/undo")]:
        response = client.request(method, path)
        assert response.status_code == 404 and "Unknown session" in response.json()["error"]
    assert client.get("/api/nothing").status_code == 404
    view = new(client)
    assert client.delete(f"/api/sessions/{view['id']}").json() == {"deleted": view["id"]}
    assert client.get(f"/api/sessions/{view['id']}").status_code == 404


def test_moves_out_of_turn(client):
    both = new(client, human="none")
    refused = client.post(f"/api/sessions/{both['id']}/moves", json={"move": "b2"})
    assert refused.status_code == 409 and "both sides" in refused.json()["error"]
    for expected in ("first", "second"):
        view = client.post(f"/api/sessions/{both['id']}/agent-move").json()
        assert view["reply"][0]["player"] == ("first", "second").index(expected)
    mine = new(client, human="first")
    refused = client.post(f"/api/sessions/{mine['id']}/agent-move")
    assert refused.status_code == 409 and "your turn" in refused.json()["error"]


def test_each_refusal_type_has_its_status_and_any_other_error_is_the_servers():
    refusals = [
        (play_session.IllegalMove, 409),
        (BadRequest, 422),
        (play_session.GameOver, 409),
        (play_session.NotYourTurn, 409),
        (play_session.NothingToUndo, 409),
        (NoVerdicts, 409),
        (UnknownSession, 404),
        (TryLater, 429),
        (ServerFull, 503),
        (PoolFull, 503),
        (play_session.MoveError, 422),  # a refused move whose type says no more
        (ValueError, 500),
    ]
    assert [status_of(kind("why")) for kind, _ in refusals] == [s for _, s in refusals]


def test_a_new_game_of_an_agent_held_compiles_nothing(client):
    for moves in ("b2", "a1"):
        view = new(client, agent="greedy")
        client.post(f"/api/sessions/{view['id']}/moves", json={"move": moves})
        assert client.post(f"/api/sessions/{view['id']}/hint").is_success
    ((key, programs),) = client.app.state.server.pool.programs.items()
    assert key[1] == "greedy"
    assert programs.step._cache_size() == programs.facts._cache_size() == 1
    # One compiled analysis per agent: the moves and hints are its Batcher's searches (one
    # program per batch size); the analysis of the sessions' programs is never traced.
    assert programs.analyse._cache_size() == 0


def test_the_page_and_nothing_else_on_disk(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    assert client.get("/games/connect_four.js").status_code == 200
    for path in ["/../pyproject.toml", "/%2e%2e/web.py", "/..%2fweb.py", "/static/../web.py"]:
        assert client.get(path).status_code == 404, path


def test_hint_gives_the_search_without_moving(client):
    view = new(client, agent="az:pretrained:4", human="first")
    hint = client.post(f"/api/sessions/{view['id']}/hint").json()
    assert set(hint["shares"]) == set(view["legal_moves"])
    assert sum(hint["shares"].values()) == pytest.approx(1.0, abs=1e-5)
    assert -1 <= hint["value"] <= 1 and hint["player"] == 0
    assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == ""


@pytest.mark.parametrize("page", ["docs/play.md"])
def test_the_route_tables_of_the_docs_list_exactly_the_apps_routes(page):
    # The page that lists the routes (the design page links to it) names every route of
    # the app once, and no other (the schema's own path aside); paths match whatever their
    # parameter is called.
    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    text = (pathlib.Path(__file__).parents[2] / page).read_text()
    listed = re.findall(r"`(GET|POST|DELETE|PUT|PATCH) (/api/[^` ]*)`", text)
    documented = [(method, shape(path)) for method, path in listed]
    documented = [route for route in documented if route != ("GET", "/api/openapi.json")]
    routes = [(method, shape(path)) for method, path, _ in route_table(create_app())]
    assert sorted(documented) == sorted(routes)
