"""The agents a server holds (``play/agent_pool.py``): one compile for a new agent and the
other sizes after, idle agents making room, the rate of new agents per client, and an agent
asked for by many built once."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from api_client import TestClient, new

from alphazero_jax import agents, games
from alphazero_jax.play import batching
from alphazero_jax.play.agent_pool import AgentPool, NewAgentTurns
from alphazero_jax.play.compiler import Compiler
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server_config import ServerConfig


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
    config = ServerConfig(max_agents=2, batch_sizes=(1,))
    with TestClient(create_app(config)) as client:
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
    assert turns.due_in("a") == 20 and turns.due_in("a") == 20  # peeking takes no turn
    assert turns.due_in("c") == 0


def test_a_client_whose_turn_is_further_than_the_compile_wait_gets_a_429_with_retry_after():
    # One new agent a minute after 2 at once, and a wait of at most 30 s: the 3rd new
    # strength is refused with the seconds until its turn, holding nothing; an agent
    # already held is no new one.
    config = ServerConfig(
        new_agents_per_minute=1, new_agents_burst=2, batch_sizes=(1,), compile_wait=30.0
    )
    with TestClient(create_app(config)) as client:
        for number in (1, 2, 1):
            assert new(client, agent=f"mcts:{number}")["agent"] == f"mcts:{number}"
        refused = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "mcts:3"})
        assert refused.status_code == 429 and 30 < int(refused.headers["retry-after"]) <= 60
        assert "try again in" in refused.json()["error"]
        assert len(client.app.state.server.pool.batchers) == 2


def test_a_client_beyond_its_rate_of_new_agents_waits_its_turn_and_no_one_else_does():
    # One new agent every 2 s after 2 at once. Client A asks for 4 new strengths at once
    # (mcts, built only: the human moves first); client B, at the same moment, for one.
    # A's 3rd comes 2 s later and its 4th 4 s later, waiting meanwhile (not refused); B's
    # comes before A's 3rd: it waits for none of A's turns.
    config = ServerConfig(new_agents_per_minute=30, new_agents_burst=2, batch_sizes=(1,))
    app = create_app(config)

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
