"""The browser-play server's JSON API: whole games, every kind of bad input (a 4xx with a
JSON error, the session unchanged), expiry and the session bound, batched searches, and
the compiles: one for a player at a new strength, the rest in the background, within a
bounded number of agents, with no client holding up the others."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import stat
import subprocess
import sys
import threading
import time
import types
import warnings
from unittest import mock

import httpx
import jax
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.play import batching, executables, web
from alphazero_jax.play import routes as play_routes
from alphazero_jax.play import server as play_server
from alphazero_jax.play import session as play_session
from alphazero_jax.play.agent_pool import AgentPool, NewAgentTurns, PoolFull
from alphazero_jax.play.compiler import Compiler
from alphazero_jax.play.executables import SearchStore
from alphazero_jax.play.session import analysis_fn
from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.solvers import opening_book

with warnings.catch_warnings():  # newer Starlette prefers httpx2 to httpx; both work
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture
def client():
    with TestClient(web.create_app()) as c:
        yield c


def new(client, **body):
    response = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "random", **body})
    assert response.status_code == 200, response.text
    return response.json()


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
        assert refused.status_code == 422 and words in refused.json()["error"], refused.text
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


BAD_MOVES = [
    ({"move": 5}, 422, "valid string"),
    ({"move": "z9"}, 422, "a3"),  # the message lists the legal moves
    ({"move": "b2 c3"}, 422, "Expected one move"),
    ({"move": "b2"}, 422, "not legal"),  # taken already
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
    ({"moves": "b2 b2"}, "Move 2 (b2) is not legal"),
    ({"moves": "q7"}, "moves:"),
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


def test_the_app_starts_again_after_its_lifespan_ended():
    # A test client (or an ASGI server) may run the app's lifespan twice: the second run
    # plays as the first did, with none of its games.
    app = web.create_app(web.ServerConfig(batch_sizes=(1,)))
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
        (play_session.IllegalMove, 422),
        (web.BadRequest, 422),
        (play_session.GameOver, 409),
        (play_session.NotYourTurn, 409),
        (play_session.NothingToUndo, 409),
        (web.NoVerdicts, 409),
        (web.UnknownSession, 404),
        (web.ServerFull, 503),
        (PoolFull, 503),
        (play_session.MoveError, 422),  # a refused move whose type says no more
        (ValueError, 500),
    ]
    assert [web.status_of(kind("why")) for kind, _ in refusals] == [s for _, s in refusals]


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


def test_sessions_expire_and_are_bounded(monkeypatch):
    # The server's clock (time.monotonic in server.py and routes.py) is the test's: a session
    # idle for 300 s is still there, and gone one second later.
    now = [1000.0]
    clock = types.SimpleNamespace(monotonic=lambda: now[0])
    for module in (play_server, play_routes):
        monkeypatch.setattr(module, "time", clock)
    config = web.ServerConfig(max_sessions=2, idle_seconds=300)
    with TestClient(web.create_app(config)) as client:
        first, second = new(client), new(client)
        full = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "random"})
        assert full.status_code == 503 and "maximum of 2 sessions" in full.json()["error"]
        now[0] += 200
        assert client.get(f"/api/sessions/{second['id']}").status_code == 200  # used again
        now[0] += 100
        assert client.get(f"/api/sessions/{first['id']}").status_code == 200  # 300 s: kept
        now[0] += 1
        assert client.get(f"/api/sessions/{first['id']}").status_code == 200  # idle 1 s
        now[0] += 300.5
        assert client.get(f"/api/sessions/{second['id']}").status_code == 404  # idle 401.5 s
        assert client.get(f"/api/sessions/{first['id']}").status_code == 404  # idle 300.5 s
        new(client)  # room again


def test_hint_gives_the_search_without_moving(client):
    view = new(client, agent="az:pretrained:4", human="first")
    hint = client.post(f"/api/sessions/{view['id']}/hint").json()
    assert set(hint["shares"]) == set(view["legal_moves"])
    assert sum(hint["shares"].values()) == pytest.approx(1.0, abs=1e-5)
    assert -1 <= hint["value"] <= 1 and hint["player"] == 0
    assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == ""


def test_solver_verdicts_per_column(client):
    # Pons' notation: after 4455 the side to move (first) wins with 3 or 6 (an open three).
    view = new(client, game="connect_four", moves="445566")
    verdicts = client.get(f"/api/sessions/{view['id']}/verdicts").json()
    assert verdicts["reason"] is None
    assert verdicts["verdicts"]["7"] == "win" and verdicts["verdicts"]["3"] == "win"
    assert set(verdicts["verdicts"]) == set("1234567")
    ttt = new(client)
    assert client.get(f"/api/sessions/{ttt['id']}/verdicts").status_code == 409


def test_the_catalogue_offers_verdicts_exactly_where_the_verdicts_route_answers():
    # Every Connect Four setting make accepts (189): the verdicts route answers (200) at the
    # settings the catalogue lists, and refuses (409) elsewhere. A real game at a few of
    # them; at all of them, a session of the game's start that is only what the route reads
    # (a real one compiles its game's programs: a minute for all on two cores).
    config = web.ServerConfig(agent_kinds=("random",), batch_sizes=(1,), verdict_nodes=1000)
    with TestClient(web.create_app(config)) as client:
        listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
        offered, bounds = listed["connect_four"]["solver"], listed["connect_four"]["settings"]
        answered, made = [], 0
        for values in itertools.product(*(range(b["min"], b["max"] + 1) for b in bounds.values())):
            settings = dict(zip(bounds, values))
            try:
                game = games.make("connect_four", **settings)
            except ValueError:  # connect more than min(rows, cols)
                continue
            made += 1
            start = mock.Mock(game=game, over=False, moves_text=lambda: "")
            client.app.state.server.sessions["s"] = web.Entry(start, None, None, time.monotonic())
            verdicts = client.get("/api/sessions/s/verdicts")
            assert verdicts.status_code in (200, 409), verdicts.text
            if verdicts.status_code == 200:
                answered.append(settings)
        assert made == 189 and answered == offered
        for settings in ({"rows": 6}, {"rows": 7, "cols": 8}, {"rows": 8, "cols": 8}, {}):
            view = new(client, game="connect_four", settings=settings)
            verdicts = client.get(f"/api/sessions/{view['id']}/verdicts")
            assert (verdicts.status_code == 200) == (view["settings"] in offered)
    # Four in a row, 4 <= cols <= 9 and (rows + 1) * cols <= 64 (one bitboard): 32 boards.
    assert len(offered) == 32 and {"rows": 7, "cols": 8, "connect": 4} in offered
    assert {"rows": 8, "cols": 8, "connect": 4} not in offered
    assert not listed["tic_tac_toe"]["solver"] and not listed["othello"]["solver"]


def test_the_solver_plays_from_the_first_move_and_keeps_a_won_game_won(client):
    # It opens in the centre, the only first move that wins (AlphaFour (blog)), at once
    # from the opening book; after 1 it answers with a move that still wins.
    view = new(client, game="connect_four", agent="solver", human="second")
    assert view["moves"] == "4"
    view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": "1"}).json()
    reply = int(view["moves"][-1])
    assert view["moves"][:2] == "41" and len(view["moves"]) == 3
    assert solver.verdicts("41")[reply - 1] == 1


def test_verdicts_beyond_the_node_budget_are_unknown():
    with TestClient(web.create_app(web.ServerConfig(verdict_nodes=10))) as client:
        # A Middle-Medium position of Pons' (15 plies): deeper than any opening book.
        view = new(client, game="connect_four", moves="274552224131661")
        answer = client.get(f"/api/sessions/{view['id']}/verdicts").json()
        assert answer["verdicts"] is None and "too far" in answer["reason"]


def test_a_long_solve_holds_up_no_other_request():
    # The solver searches the empty 6x7 board (no book: minutes) on a thread of its own
    # without the GIL; meanwhile a game against random goes on (its agent compiled first, in
    # another game, so that its moves take milliseconds). No clock decides the order: the
    # moves start once the search is seen spending its node budget, and the test ends the
    # search (spends its budget) only after them, so that it is still running when they
    # are answered. A server that made them wait (the search on the event loop, or holding
    # the GIL, or a lock the moves need) answers them only once the search has run out of
    # its budget by itself (~15 s): the check below fails.
    budget = 100_000_000
    config = web.ServerConfig(verdict_nodes=budget)
    with TestClient(web.create_app(config)) as client:
        solving = new(client, game="connect_four")
        playing = new(client, game="connect_four", agent="random")
        warm = new(client, game="connect_four", agent="random")
        assert client.post(f"/api/sessions/{warm['id']}/moves", json={"move": "1"}).is_success
        scratch, budgets = solver._scratch, []

        def kept(rows, cols, max_nodes):  # the search's working rows: its budget's row
            made = scratch(rows, cols, max_nodes)
            if max_nodes == budget:
                budgets.append(made[1][-1])  # [nodes left, max_nodes, ...], read by the search
            return made

        with (
            mock.patch.object(opening_book, "shipped", lambda rows, cols: None),
            mock.patch.object(solver, "_scratch", kept),
        ):
            answer = {}
            asker = threading.Thread(
                target=lambda: answer.update(
                    client.get(f"/api/sessions/{solving['id']}/verdicts").json()
                )
            )
            asker.start()
            for _ in range(6000):  # a guard, not a timing: the search starts in a moment
                if budgets and budgets[0][0] < budget:
                    break
                assert asker.is_alive(), answer
                time.sleep(0.01)
            assert budgets, "the search did not start"
            (left,) = budgets
            for move in ("4", "4", "4"):
                view = client.post(f"/api/sessions/{playing['id']}/moves", json={"move": move})
                assert view.status_code == 200
            assert left[0] >= 0 and not answer, "the game waited for the solver"
            while asker.is_alive():  # spends the budget: the search ends at its next node
                left[0] = -1  # again: the search's own count may write over one of ours
                asker.join(0.01)
        assert answer["verdicts"] is None and "too far" in answer["reason"]


@pytest.mark.parametrize(
    ("spec", "simulations", "served"),
    [
        ("az:pretrained", None, "az:pretrained:32"),
        ("az:pretrained", 0, "az:pretrained:0"),
        ("az:pretrained:64", None, "az:pretrained:64"),
        ("mcts", 50, "mcts:50"),
        ("minimax:3", None, "minimax:3"),
        (" greedy ", None, "greedy"),
        ("greedy:path", None, "greedy:path"),
    ],
)
def test_served_specs(spec, simulations, served):
    assert web.served_spec(web.ServerConfig(), spec, simulations) == served


def test_batcher_gathers_concurrent_searches_and_keeps_their_order():
    # Each position has one winning move for the side to move, which greedy must play:
    # so each caller gets the answer for its own position.
    game = games.make("tic_tac_toe")
    openings = ["a3 a1 b3 b1", "a1 b1 a2 c1", "c3 c1 b2 a3", "a2 b3 b2 c3", "a1 a2 b2 b3"]
    wins = ["c3", "a3", "a1", "c2", "c3"]  # hand-checked: the first player's winning cell
    states = [games.replay(game, opening) for opening in openings]
    batcher = batching.Batcher(agents.from_spec(game, "greedy"), sizes=(1, 4, 8), wait=0.05)

    async def run():
        results = await asyncio.gather(*(batcher.analyse(s) for s in states * 2))
        await batcher.close()
        return results

    results = asyncio.run(run())
    assert [game.action_to_text(int(r.action[0])) for r in results] == wins * 2
    assert batcher.positions == 10 and batcher.batches == 2  # 8 and then 2 (padded to 4)
    assert results[0].value is None and results[0].shares is None


def test_batch_buckets_and_padding():
    assert [batching.bucket(n, (1, 4, 16)) for n in (1, 2, 4, 5, 16)] == [1, 4, 4, 16, 16]
    with pytest.raises(ValueError, match="at most 16"):
        batching.bucket(17, (1, 4, 16))
    game = games.make("tic_tac_toe")
    state = game.init(jax.random.key(0))
    stacked = batching.stack([state, game.step(state, 4)], 4)
    assert stacked.board.shape == (4, *state.board.shape)
    np.testing.assert_array_equal(stacked.board[2], state.board)


def test_config_is_checked():
    with pytest.raises(ValueError, match="ascending"):
        web.ServerConfig(batch_sizes=(4, 1))
    with pytest.raises(ValueError, match="max_sessions >= 1"):
        web.ServerConfig(max_sessions=0)


def test_experiments_serve_answers_and_refuses_bad_flags(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cache = tmp_path / "cache" / "jax"
    command = [sys.executable, "-m", "experiments.serve", f"--port={port}", "--nowarm_up"]
    command.append(f"--compilation_cache_dir={cache}")
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["games"]
    finally:
        server.terminate()
        output = server.communicate(timeout=60)[0]
    assert f"Serving http://127.0.0.1:{port}/" in output
    assert cache.is_dir() and stat.S_IMODE(cache.stat().st_mode) == 0o700  # yours alone
    bad = subprocess.run(
        [sys.executable, "-m", "experiments.serve", "--batch_sizes=4,1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode != 0 and "batch_sizes: expected ascending" in bad.stderr


# -- compiles: one at a time for a player, the rest in the background ---------------------


def test_plan_pads_to_a_ready_size_or_splits_by_the_largest():
    assert batching.plan(3, ()) is None  # nothing compiled: compile first
    assert batching.plan(3, (4, 8)) == (4, 3)  # the smallest ready size that holds them
    assert batching.plan(1, (8,)) == (8, 1)  # padded while 1 compiles
    assert batching.plan(5, (1, 2)) == (2, 2)  # 2 now, the other 3 next
    assert batching.plan(8, (1,)) == (1, 1)


def test_compiler_runs_urgent_jobs_beside_a_busy_background_lane():
    compiler = Compiler()
    started, release = threading.Event(), threading.Event()
    blocked = compiler.submit("background", lambda: started.set() or release.wait())
    assert started.wait(timeout=60)
    queued = compiler.submit("queued", lambda: "queued")
    urgent = compiler.submit("urgent", lambda: "urgent", urgent=True)
    assert urgent.result(timeout=60) == "urgent"  # the background lane is still busy
    assert not queued.done() and compiler.status()["running"] == ["background"]
    compiler.hurry(queued)  # now urgent: the urgent lane takes it
    assert queued.result(timeout=60) == "queued"
    release.set()
    assert blocked.result(timeout=60) is True
    failed = compiler.submit("fails", lambda: 1 / 0, urgent=True)
    with pytest.raises(ZeroDivisionError):
        failed.result(timeout=60)
    compiler.close()
    assert compiler.submit("late", lambda: None).cancelled()


class _LoggedCompiler(Compiler):
    def __init__(self):
        super().__init__()
        self.log = []

    def submit(self, label, fn, *, urgent=False):
        self.log.append((label.rsplit(" ", 1)[-1], urgent))
        return super().submit(label, fn, urgent=urgent)


def test_a_new_agent_waits_for_one_compile_and_the_other_sizes_follow():
    game = games.make("tic_tac_toe")
    compiler = _LoggedCompiler()
    batcher = batching.Batcher(
        agents.from_spec(game, "random"), sizes=(1, 2, 4), wait=0.0, compiler=compiler
    )
    state = games.replay(game, "a3 a1 b3 b1")  # a1 a3 b1 b3 taken: five cells left

    async def run():
        first = await batcher.analyse(state)
        for future in batcher.prepare(state):  # queued already: the same futures
            await asyncio.wrap_future(future)
        again = await asyncio.gather(*(batcher.analyse(state) for _ in range(3)))
        await batcher.close()
        return first, again

    first, again = asyncio.run(run())
    # The caller waited for the batch of one only (urgent); 2 and 4 compiled behind it.
    assert compiler.log[:3] == [("1", True), ("2", False), ("4", False)]
    assert len(compiler.log) == 3 and batcher.ready == (1, 2, 4)
    free = {"a2", "b2", "c1", "c2", "c3"}
    assert {game.action_to_text(int(r.action[0])) for r in (first, *again)} <= free


def test_idle_agents_make_room_and_agents_in_play_are_kept():
    config = web.ServerConfig(max_agents=2, batch_sizes=(1,))
    with TestClient(web.create_app(config)) as client:
        pool = client.app.state.server.pool
        first = new(client, agent="minimax:1")  # the human moves first: nothing compiles
        new(client, agent="greedy")
        full = client.post(
            "/api/sessions", json={"game": "tic_tac_toe", "agent": "random", "human": "second"}
        )
        assert full.status_code == 503 and "maximum of 2 agents" in full.json()["error"]
        assert len(pool.batchers) == 2
        client.delete(f"/api/sessions/{first['id']}")  # minimax:1 is idle now
        third = new(client, agent="random", human="second")
        assert len(third["moves"].split()) == 1  # the new agent opened
        held = {spec for _, spec in pool.batchers}
        assert held == {"greedy", "random"} and pool.evicted == 1
        stats = client.get("/api/stats").json()
        assert stats["max_agents"] == 2 and stats["evicted"] == 1
        shown = {agent["agent"]: agent for agent in stats["agents"]}
        assert shown["random"]["ready"] == [1] and shown["greedy"]["ready"] == []
        assert shown["random"]["settings"] == {"rows": 3, "cols": 3, "connect": 3}


def test_new_agent_turns_come_at_the_rate_after_a_burst():
    # Hand-worked: 3 at once, then one every 10 s; a turn taken is never given back; a
    # client whose bucket has filled again starts afresh; each client has its own.
    now = [0.0]
    turns = NewAgentTurns(per_minute=6, burst=3, clock=lambda: now[0])
    assert [turns.reserve("a") for _ in range(5)] == [0, 0, 0, 10, 20]
    assert turns.reserve("b") == 0
    now[0] = 25.0
    assert turns.reserve("a") == 5  # its turns are due at 30, 40, 50: the next at 30
    now[0] = 100.0
    assert [turns.reserve("a") for _ in range(4)] == [0, 0, 0, 10]


def test_a_client_beyond_its_rate_of_new_agents_waits_its_turn_and_no_one_else_does():
    # One new agent every 2 s after 2 at once. Client A asks for 4 new strengths at once
    # (mcts, built only: the human moves first); client B, at the same moment, for one.
    # A's 3rd comes 2 s later and its 4th 4 s later, waiting meanwhile (not refused); B's
    # comes before A's 3rd: it waits for none of A's turns.
    config = web.ServerConfig(new_agents_per_minute=30, new_agents_burst=2, batch_sizes=(1,))
    app = web.create_app(config)

    def client(host):
        transport = httpx.ASGITransport(app, client=(host, 1234))
        return httpx.AsyncClient(transport=transport, base_url="http://play")

    async def session(http, spec, started):
        body = {"game": "tic_tac_toe", "agent": spec, "human": "first"}
        response = await http.post("/api/sessions", json=body)
        assert response.status_code == 200, response.text
        return time.monotonic() - started

    async def run():
        async with app.router.lifespan_context(app), client("10.0.0.1") as a:
            async with client("10.0.0.2") as b:
                started = time.monotonic()
                asking = [session(a, f"mcts:{n}", started) for n in (1, 2, 3, 4)]
                done = asyncio.gather(*asking, session(b, "mcts:5", started))
                waiting = 0  # until A's 3rd and 4th wait, or everything is done
                while waiting < 2 and not done.done():
                    await asyncio.sleep(0.01)  # a poll (the stats route never yields the loop)
                    waiting = (await b.get("/api/stats")).json()["new_agents_waiting"]
                return await done, waiting

    (*a_times, b_time), waiting = asyncio.run(run())
    assert waiting == 2  # A's 3rd and 4th
    assert a_times[2] >= 2.0 and a_times[3] >= 4.0
    assert b_time < a_times[2] and max(a_times[:2]) < a_times[2]


def test_an_agent_asked_for_by_many_at_once_is_built_once():
    game = games.make("tic_tac_toe")
    pool = AgentPool(max_agents=2, sizes=(1,), wait=0.0)

    async def run():
        first = await asyncio.gather(*(pool.get(game, "greedy") for _ in range(5)))
        again = await pool.get(game, "greedy")  # held now
        with pytest.raises(ValueError, match="nonsense"):
            await asyncio.gather(*(pool.get(game, "nonsense") for _ in range(3)))
        await pool.close()
        return [*first, again]

    got = asyncio.run(run())
    assert all(batcher is got[0] for batcher in got)
    assert list(pool.batchers) == [(game, "greedy")]


def test_the_session_limit_is_checked_before_an_agent_is_built():
    with TestClient(web.create_app(web.ServerConfig(max_sessions=1))) as client:
        new(client)
        pool = client.app.state.server.pool
        held = dict(pool.batchers)
        refused = client.post("/api/sessions", json={"game": "connect_four", "agent": "mcts:77"})
        assert refused.status_code == 503 and "maximum of 1 sessions" in refused.json()["error"]
        assert dict(pool.batchers) == held


def test_the_warm_up_reports_its_progress_and_ends_warm(monkeypatch):
    wanted = []
    for name in ("tic_tac_toe", "connect_four"):
        game = games.make(name)
        wanted.append((game, "random", game.init(jax.random.key(0))))
    monkeypatch.setattr(web.Server, "warm_up_agents", lambda self: wanted)
    config = web.ServerConfig(warm_up=True, batch_sizes=(1, 2))
    with TestClient(web.create_app(config)) as client:
        stats = client.get("/api/stats").json()
        assert stats["warm_up"]["total"] == 4 and set(stats["compiling"]) == {
            "running",
            "queued",
            "done",
        }
        for _ in range(600):  # a guard, not a timing: each compile takes a fraction of this
            stats = client.get("/api/stats").json()
            if stats["warm"]:
                break
            time.sleep(0.1)
        assert stats["warm"] and stats["warm_up"] == {"done": 4, "total": 4}
        assert {a["game"]: a["ready"] for a in stats["agents"]} == {
            "tic_tac_toe": [1, 2],
            "connect_four": [1, 2],
        }


@pytest.mark.parametrize("spec", ["greedy", "mcts:2"])
def test_a_stored_search_compiles_without_tracing_and_answers_as_traced(tmp_path, spec):
    # A batcher traces its size 1 and stores it; another of the same program compiles it
    # from the store without tracing its search or computing its example, and answers
    # alike (greedy: a move only; mcts: its value and visit shares too). Another program,
    # size or installation is another key; a damaged entry is traced again.
    game = games.make("tic_tac_toe")
    state = game.init(jax.random.key(0))
    store = SearchStore(tmp_path)

    def batcher():
        made = batching.Batcher(agents.from_spec(game, spec), sizes=(1, 2))
        made.store, made.program = store, f"tic_tac_toe {spec}"
        return made

    def untraced(*args):
        raise AssertionError("the search was traced")

    first = batcher()
    first.compile(1, state).result()
    (entry,) = tmp_path.iterdir()
    second = batcher()
    second._search = untraced
    second.compile(1, lambda: pytest.fail("the example was computed")).result()
    states = batching.stack([game.step(state, 4)], 1)
    direct = jax.jit(analysis_fn(first.agent)).lower(first.agent.params, first._key, states)
    answers = [direct.compile()(first.agent.params, first._key, states)]
    answers += [b._compiled[1](b.agent.params, b._key, states) for b in (first, second)]
    for answer in answers[1:]:
        assert jax.tree.structure(answer) == jax.tree.structure(answers[0])
        jax.tree.map(np.testing.assert_array_equal, answer, answers[0])
    params = first.agent.params
    assert entry.name == store.key(f"tic_tac_toe {spec}", params, 1)
    assert entry.name != store.key("tic_tac_toe random", params, 1)
    assert entry.name != store.key(f"tic_tac_toe {spec}", params, 2)
    with mock.patch.object(executables, "_installation", lambda: "another jax"):
        assert store.key(f"tic_tac_toe {spec}", params, 1) != entry.name
    entry.write_bytes(b"damaged")
    third = batcher()
    third.compile(1, state).result()
    assert 1 in third.ready and entry.read_bytes() != b"damaged"  # traced and stored again


def test_the_store_is_in_jax_caches_folder_and_off_with_it(tmp_path):
    before = jax.config.jax_compilation_cache_dir, jax.config.jax_enable_compilation_cache
    try:
        jax.config.update("jax_compilation_cache_dir", str(tmp_path))
        assert SearchStore.beside_jax_cache().folder == tmp_path / executables.FOLDER
        jax.config.update("jax_enable_compilation_cache", False)
        assert SearchStore.beside_jax_cache() is None
    finally:
        jax.config.update("jax_compilation_cache_dir", before[0])
        jax.config.update("jax_enable_compilation_cache", before[1])


@contextlib.contextmanager
def _serving(app):
    """``app`` served by uvicorn on a loopback port (in a thread), with the options
    alphazero-serve passes; yields the port."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", **web.uvicorn_options(app)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started:
                break
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_a_slow_or_silent_client_holds_up_no_one():
    app = web.create_app(web.ServerConfig(body_seconds=0.5))
    with _serving(app) as port:
        # One client sends half a body and waits; another sends requests and never reads.
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(
            b"POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game": '
        )
        silent = socket.create_connection(("127.0.0.1", port))
        silent.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            body = {"game": "tic_tac_toe", "agent": "random"}
            view = client.post("/api/sessions", json=body).json()
            view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": "b2"}).json()
            assert view["moves"].startswith("b2 ") and len(view["reply"]) == 1
        slow.settimeout(60)
        answer = slow.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 408") and "did not arrive within 0.5 s" in answer
        slow.close()
        silent.close()


def test_slow_request_headers_get_408_and_hold_up_no_one():
    # A client dribbles a request's headers, a byte every 50 ms (uvicorn alone would wait for
    # hours: the headers stay under its 16 KiB bound); 0.5 s after it connected it gets 408
    # and its connection closes. A request that the app takes longer to answer (a compile),
    # and the next on its connection, are not cut short.
    app = web.create_app(web.ServerConfig(header_seconds=0.5, batch_sizes=(1,)))
    with _serving(app) as port:
        dribbling = socket.create_connection(("127.0.0.1", port))
        dribbling.setblocking(False)
        started, answer = time.monotonic(), b""
        for byte in b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
            try:
                dribbling.send(bytes([byte]))
                answer += dribbling.recv(4096)
            except BlockingIOError:  # nothing to read yet
                pass
            except OSError:  # closed, and reset by the bytes sent after
                break
            if answer:
                break
            time.sleep(0.05)
        waited = time.monotonic() - started
        dribbling.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"headers did not arrive within 0.5 s" in answer and 0.5 <= waited < 5
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            body = {"game": "tic_tac_toe", "agent": "random", "human": "second"}
            view = client.post("/api/sessions", json=body).json()  # compiles: a second or so
            time.sleep(0.2)  # the same connection, idle a moment
            assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == view["moves"]
