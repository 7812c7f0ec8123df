"""The server's sessions and agents (``play/server.py``): expiry and the session bound on the
test's clock, the bound checked before an agent is built, the warm-up and its progress."""

from __future__ import annotations

import time
import types

import jax
from api_client import TestClient, new

from alphazero_jax import games
from alphazero_jax.play import routes as play_routes
from alphazero_jax.play import server as play_server
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server import Server
from alphazero_jax.play.server_config import ServerConfig


def test_sessions_expire_and_are_bounded(monkeypatch):
    # The server's clock (time.monotonic in server.py and routes.py) is the test's: a session
    # idle for 300 s is still there, and gone one second later.
    now = [1000.0]
    clock = types.SimpleNamespace(monotonic=lambda: now[0])
    for module in (play_server, play_routes):
        monkeypatch.setattr(module, "time", clock)
    config = ServerConfig(max_sessions=2, idle_seconds=300)
    with TestClient(create_app(config)) as client:
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


def test_the_session_limit_is_checked_before_an_agent_is_built():
    with TestClient(create_app(ServerConfig(max_sessions=1))) as client:
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
    monkeypatch.setattr(Server, "warm_up_agents", lambda self: wanted)
    config = ServerConfig(warm_up=True, batch_sizes=(1, 2))
    with TestClient(create_app(config)) as client:
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
