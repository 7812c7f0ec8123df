"""The solver's verdicts (``play/verdicts.py``): per column, offered exactly where the route
answers, from the first move, unknown beyond the node budget, and a long solve that holds
up no other request."""

from __future__ import annotations

import itertools
import threading
import time
from unittest import mock

from api_client import TestClient, new

from alphazero_jax import games
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server import Entry
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.solvers import opening_book


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
    config = ServerConfig(agent_kinds=("random",), batch_sizes=(1,), verdict_nodes=1000)
    with TestClient(create_app(config)) as client:
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
            client.app.state.server.sessions["s"] = Entry(start, None, None, time.monotonic())
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
    with TestClient(create_app(ServerConfig(verdict_nodes=10))) as client:
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
    config = ServerConfig(verdict_nodes=budget)
    with TestClient(create_app(config)) as client:
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
