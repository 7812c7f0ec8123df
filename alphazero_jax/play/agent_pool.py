"""The agents a play server holds, each with its ``Batcher``, within a fixed number.

Every agent a client asks for (a game, its settings and an agent spec with its strength)
costs compiled searches, one per batch size. The pool holds at most ``max_agents`` of
them: a new one replaces the least recently used agent that no game is playing and that
has no search waiting, and when every agent held is in play the new one is refused
(``PoolFull``) until a game ends or expires. Agents compiled by the warm-up are kept.
All the pool's compiles share one ``Compiler``. Beside each agent's ``Batcher`` the pool
holds the ``session.Programs`` its games run, so that a new game compiles nothing; both
go when the agent is evicted. ``NewAgentTurns`` paces each client's new agents (the server
asks it before ``get`` builds one).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

import jax

from alphazero_jax import agents
from alphazero_jax.play.batching import Batcher
from alphazero_jax.play.compiler import Compiler
from alphazero_jax.play.executables import SearchStore
from alphazero_jax.play.session import Programs, make_programs
from alphazero_jax.types import Game


class PoolFull(Exception):
    """Every agent held is in play, and the pool holds as many as it may."""


class NewAgentTurns:
    """Each client's turns to have a new agent built (and compiled): ``burst`` at once, then
    one every ``60 / per_minute`` seconds. A client that asks for more waits for its turn
    (its own request only: nothing is held meanwhile), so that one client cycling through
    strengths or settings keeps the compile threads busy at that rate at most.

    A token bucket per client (as GCRA: each client's next free turn), forgotten once full.
    """

    def __init__(
        self, *, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic
    ):
        if per_minute <= 0 or burst < 1:
            raise ValueError(f"Expected per_minute > 0 and burst >= 1, got {per_minute}, {burst}.")
        self.interval, self.burst, self.clock = 60.0 / per_minute, burst, clock
        self._due: dict[str, float] = {}  # client -> when its bucket is full again
        self.waiting = 0  # requests waiting for their turn now

    def due_in(self, client: str) -> float:
        """The seconds until ``client``'s next turn (0: now), without taking it."""
        now = self.clock()
        due = max(self._due.get(client, now), now)
        return max(now, due - (self.burst - 1) * self.interval) - now

    def reserve(self, client: str) -> float:
        """Takes ``client``'s next turn; returns the seconds until it comes (0: now)."""
        now = self.clock()
        if len(self._due) > 1024:  # clients whose bucket has filled again
            self._due = {c: due for c, due in self._due.items() if due > now}
        due = max(self._due.get(client, now), now)
        start = max(now, due - (self.burst - 1) * self.interval)
        self._due[client] = due + self.interval
        return start - now

    async def turn(self, client: str) -> None:
        """Returns when ``client`` may have a new agent: at once within its rate, else when
        its turn comes."""
        wait = self.reserve(client)
        if wait > 0:
            self.waiting += 1
            try:
                await asyncio.sleep(wait)
            finally:
                self.waiting -= 1


def _built_agent(game: Game, spec: str) -> tuple[Any, Programs]:
    """The agent of ``spec`` and its games' ``Programs``, their moves compiled (a step and
    a position's facts, from the start): on a thread of its own, so that a new game at
    settings no game has played compiles nothing on the event loop."""
    agent = agents.from_spec(game, spec)
    programs = make_programs(game, agent)
    start = game.init(jax.random.key(0))
    programs.facts(start)
    programs.step(start, 0)
    return agent, programs


class AgentPool:
    """Builds, holds and evicts the agents of a server.

    Args:
      max_agents: agents held at once (with their compiled searches).
      sizes: the batch sizes each agent's ``Batcher`` compiles for.
      wait: a ``Batcher``'s wait for a batch to fill.
      label_fn: ``label_fn(game, spec)``, how the status names an agent.
    """

    def __init__(
        self,
        *,
        max_agents: int,
        sizes: Sequence[int],
        wait: float,
        label_fn: Callable[[Game, str], str] = lambda game, spec: f"{game.name} {spec}",
    ):
        if max_agents < 1:
            raise ValueError(f"max_agents: expected at least 1, got {max_agents}.")
        self.max_agents, self.sizes, self.wait, self.label_fn = max_agents, sizes, wait, label_fn
        self.compiler = Compiler()
        self.batchers: collections.OrderedDict[tuple[Game, str], Batcher] = (
            collections.OrderedDict()
        )  # least recently used first
        self.programs: dict[tuple[Game, str], Programs] = {}  # the games of each agent held
        self.kept: set[tuple[Game, str]] = set()  # the warm-up's agents, never evicted
        self.warm_up_jobs: list[concurrent.futures.Future] = []
        self.warm_up_total = 0  # compiles the warm-up will run, known before they start
        self._building: dict[tuple[Game, str], asyncio.Future] = {}
        self._closing: set[asyncio.Future] = set()  # evicted batchers stopping
        self.evicted = 0

    def holds(self, game: Game, spec: str) -> bool:
        """Whether the agent is held or being built (``get`` builds nothing new)."""
        return (game, spec) in self.batchers or (game, spec) in self._building

    async def get(self, game: Game, spec: str, *, in_use: Collection[Batcher] = ()) -> Batcher:
        """The ``Batcher`` of ``spec`` for ``game``, built when it is not held.

        Args:
          game, spec: the agent (``agents.from_spec``).
          in_use: batchers that games are playing now; they are not evicted.

        Raises:
          ValueError: ``spec`` is not an agent for ``game``.
          PoolFull: the pool is full and every agent in it is in use.
        """
        key = (game, spec)
        if key in self.batchers:
            self.batchers.move_to_end(key)
            return self.batchers[key]
        building = self._building.get(key)
        if building is None:  # else asked for twice at once: built once
            playing = {id(batcher) for batcher in in_use}
            building = asyncio.ensure_future(self._build(key, playing))
            self._building[key] = building
            building.add_done_callback(lambda done: self._built(key, done))
        return await asyncio.shield(building)  # a caller that goes away stops no one

    async def _build(self, key: tuple[Game, str], playing: set[int]) -> Batcher:
        """Makes room, then builds the agent's ``Batcher`` in a thread (loading a network
        takes a moment) and holds it."""
        self._make_room(playing)
        game, spec = key
        agent, programs = await asyncio.to_thread(_built_agent, game, spec)
        label = self.label_fn(game, spec)
        batcher = Batcher(
            agent, sizes=self.sizes, wait=self.wait, compiler=self.compiler, label=label
        )
        self._make_room(playing)  # others may have come in meanwhile
        self.batchers[key] = batcher
        self.programs[key] = programs
        return batcher

    def _built(self, key: tuple[Game, str], done: asyncio.Future) -> None:
        self._building.pop(key, None)
        if not done.cancelled():
            done.exception()  # its callers have it; asyncio need not report it again

    def _make_room(self, in_use: set[int]) -> None:
        """Evicts least recently used agents while the pool is full.

        Raises:
          PoolFull: every agent held is in play (or kept).
        """
        while len(self.batchers) >= self.max_agents:
            key = next(
                (
                    key
                    for key, batcher in self.batchers.items()
                    if key not in self.kept and id(batcher) not in in_use and batcher.idle
                ),
                None,
            )
            if key is None:
                raise PoolFull(
                    f"The server holds its maximum of {self.max_agents} agents and games are "
                    "playing each of them; choose an agent and strength already in play, or "
                    "try again when a game has ended."
                )
            del self.programs[key]
            closing = asyncio.ensure_future(self.batchers.pop(key).close())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
            self.evicted += 1

    async def warm_up(self, wanted: Sequence[tuple[Game, str, Any]]) -> None:
        """Compiles each ``(game, spec, example position)`` agent for every batch size, the
        smallest size of every agent first (each as soon as its agent is built, while the
        next one is), in the background, and keeps these agents. An example may be a
        function that returns one, called only for a search that is not on disk: the
        warm-up's searches are kept there (``SearchStore``), so that a second start
        loads them."""
        self.warm_up_total = len(wanted) * len(self.sizes)
        self.warm_up_jobs = []
        store = SearchStore.beside_jax_cache()
        batchers = []
        for game, spec, example in wanted:
            batcher = await self.get(game, spec)
            batcher.store, batcher.program = store, f"{game.name} {game.settings} {spec}"
            self.kept.add((game, spec))
            self.warm_up_jobs.append(batcher.compile(self.sizes[0], example))
            batchers.append((batcher, example))
        self.warm_up_jobs += [
            batcher.compile(size, example)
            for size in self.sizes[1:]
            for batcher, example in batchers
        ]
        jobs = [asyncio.wrap_future(job) for job in self.warm_up_jobs]
        await asyncio.gather(*jobs, return_exceptions=True)  # a failed one: retried when used

    def status(self) -> dict[str, Any]:
        """The warm-up's progress, the compiler's work and the agents held."""
        jobs = self.warm_up_jobs
        return {
            "warm_up": {
                "done": sum(job.done() for job in jobs),
                "total": max(self.warm_up_total, len(jobs)),
            },
            "compiling": self.compiler.status(),
            "agents": [
                {
                    "game": game.name,
                    "settings": dict(game.settings),
                    "agent": spec,
                    "ready": list(batcher.ready),
                    "compiling": list(batcher.compiling),
                }
                for (game, spec), batcher in self.batchers.items()
            ],
            "max_agents": self.max_agents,
            "evicted": self.evicted,
        }

    async def close(self) -> None:
        self.compiler.close()
        for batcher in self.batchers.values():
            await batcher.close()
