"""What a play server holds: its sessions (each an ``Entry``), the agents they play
(``agent_pool.AgentPool``: one ``batching.Batcher`` per game and spec) and the solver's
verdicts, within the bounds of its ``ServerConfig``; the warm-up of the shipped agents.
The routes (``routes.py``) read and change it; it knows nothing of HTTP.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import jax

from alphazero_jax import games
from alphazero_jax.agents import pretrained
from alphazero_jax.play.agent_pool import AgentPool, NewAgentTurns
from alphazero_jax.play.batching import Batcher
from alphazero_jax.play.catalogue import BadRequest, catalogue, describe, served_kinds
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.play.session import PlaySession
from alphazero_jax.play.verdicts import Verdicts
from alphazero_jax.types import Game


class UnknownSession(LookupError):
    """No session has this id: it never existed, expired or ended."""


class ServerFull(Exception):
    """The server holds its maximum of sessions."""


class TryLater(Exception):
    """The request would wait longer than the server's ``compile_wait`` (for its agent's
    first compile, or for its client's turn to have a new agent built); ask again in
    ``retry_after`` seconds."""

    def __init__(self, message: str, *, retry_after: int = 1):
        super().__init__(message)
        self.retry_after = retry_after


@dataclasses.dataclass
class Entry:
    """A session the server holds: its game, the agent's ``Batcher`` it plays, the lock its
    requests take in turn, and when a request last used it (``time.monotonic``)."""

    session: PlaySession
    batcher: Batcher
    lock: asyncio.Lock
    used: float


class Server:
    """The sessions, the agents (``AgentPool``: one ``Batcher`` per game and spec) and the
    solver's ``Verdicts``."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.catalogue = catalogue(config)  # GET /api/games
        self.sessions: dict[str, Entry] = {}
        self.verdicts = Verdicts(max_nodes=config.verdict_nodes)
        self.open()

    def open(self) -> None:
        """Starts the agents' pool and the solver's thread: when made, and again when the
        app starts after it was closed (an ASGI server or test client may run the app's
        lifespan more than once); the games of the run before are gone."""
        config = self.config
        self.sessions.clear()
        self.pool = AgentPool(
            max_agents=config.max_agents,
            sizes=config.batch_sizes,
            wait=config.batch_wait,
            label_fn=describe,
        )
        self.turns = None
        if config.new_agents_per_minute is not None:
            self.turns = NewAgentTurns(
                per_minute=config.new_agents_per_minute, burst=config.new_agents_burst
            )
        self.verdicts.open()
        self.warm = not config.warm_up  # True once the warm-up compiled everything
        self.closed = False

    def left(self, since: float | None) -> float | None:
        """The seconds left of the config's ``compile_wait`` for a request that started
        waiting at ``since`` (``time.monotonic``; None: now); None: no bound."""
        wait = self.config.compile_wait
        if wait is None:
            return None
        return max(0.0, wait - (0.0 if since is None else time.monotonic() - since))

    async def batcher(
        self, game: Game, spec: str, *, client: str | None = None, since: float | None = None
    ) -> Batcher:
        """The agent's ``Batcher``; BadRequest for a spec the game refuses, PoolFull when
        every agent the server may hold is in play. A new agent asked for by ``client``
        comes in its turn (``NewAgentTurns``). TryLater when its turn, or its build, is
        further away than what is ``left(since)`` of the config's ``compile_wait``."""
        if client is not None and self.turns is not None and not self.pool.holds(game, spec):
            ahead, most = self.turns.due_in(client), self.left(since)
            if most is not None and ahead > most:
                retry = math.ceil(ahead)
                raise TryLater(
                    f"This client has had its {self.turns.burst} new agents (settings or "
                    "strengths no game here plays) built at once and one more every "
                    f"{self.turns.interval:g} s; try again in {retry} s, or choose an agent "
                    "already in play.",
                    retry_after=retry,
                )
            await self.turns.turn(client)
        getting = asyncio.ensure_future(
            self.pool.get(game, spec, in_use=[entry.batcher for entry in self.sessions.values()])
        )
        getting.add_done_callback(_settled)  # its error is the request's, or no one's
        held = (game, spec) in self.pool.batchers  # returned at once: no wait to bound
        try:
            wait = None if held else self.left(since)
            return await asyncio.wait_for(asyncio.shield(getting), wait)
        except TimeoutError:
            retry = max(1, round(self.config.compile_wait))  # not None: a wait ran out
            raise TryLater(
                f"The agent is being built (a network loaded, its moves compiled): it takes "
                f"seconds, once. Try again in {retry} s.",
                retry_after=retry,
            ) from None
        except ValueError as error:
            raise BadRequest(f"agent: {error}") from error

    async def compiled(self, batcher: Batcher, state: Any, *, since: float | None = None) -> None:
        """Returns once ``batcher``'s search of positions like ``state`` is compiled (a batch
        of one at least), starting the compile if it has not started; TryLater when it is
        not done within what is ``left(since)`` of the config's ``compile_wait`` (the
        compile goes on). A compile
        that fails returns: the search that follows reports it."""
        wait = self.left(since)
        if batcher.ready or wait is None:
            return
        compile_one = asyncio.wrap_future(batcher.compile(batcher.sizes[0], state, urgent=True))
        try:
            await asyncio.wait_for(asyncio.shield(compile_one), wait)
        except TimeoutError:
            retry = max(1, round(self.config.compile_wait))
            raise TryLater(
                f"The agent's search is compiling (a strength or settings no game here played "
                f"yet): it takes seconds, once. Try again in {retry} s.",
                retry_after=retry,
            ) from None
        except Exception:
            return

    def expire(self, now: float) -> None:
        for key in [k for k, e in self.sessions.items() if now - e.used > self.config.idle_seconds]:
            del self.sessions[key]

    def check_room(self) -> None:
        """ServerFull when the server holds its maximum of sessions (expired ones go)."""
        self.expire(time.monotonic())
        if len(self.sessions) >= self.config.max_sessions:
            raise ServerFull(
                f"The server holds its maximum of {self.config.max_sessions} sessions; "
                "try again later or end one (DELETE /api/sessions/<id>).",
            )

    def entry(self, session_id: str) -> Entry:
        self.expire(time.monotonic())
        if session_id not in self.sessions:
            raise UnknownSession(
                f"Unknown session {session_id!r}: it never existed, expired or ended."
            )
        entry = self.sessions[session_id]
        entry.used = time.monotonic()
        return entry

    def warm_up_agents(self) -> list[tuple[Game, str, Any]]:
        """The agents the warm-up compiles: each shipped network at its default strength,
        with the shapes of its game's start position (traced only if needed: seconds for
        Quoridor)."""
        served = served_kinds(self.config)
        shipped = next((k for k in served if k.kind == f"az:{pretrained.SPEC_NAME}"), None)
        wanted = []
        if shipped is None:
            return wanted
        for name in games.available():
            spec = shipped.spec(game=name)
            for settings in shipped.only_settings(name):
                game = games.make(name, **settings)
                wanted.append((game, spec, _start_shapes(game)))
        return wanted

    async def warm_up(self) -> None:
        """Compiles the ``warm_up_agents`` for every batch size (a batch of one for every
        game first), on the compiler's background lane. If that fails, the agents compile
        when first played, and the error is printed. Its first step runs before the
        coroutine first waits, so the warm-up's size is known to the first request."""
        try:
            await self.pool.warm_up(self.warm_up_agents())
        except Exception as error:
            print(f"warning: the warm-up stopped: {error}", file=sys.stderr, flush=True)
        self.warm = True

    async def close(self) -> None:
        self.closed = True
        await self.pool.close()
        self.verdicts.close()


def _settled(future: asyncio.Future) -> None:
    """Retrieves a finished future's error, so that asyncio does not report it: the request
    that awaited it has it, or went away (a 429) and asks again."""
    if not future.cancelled():
        future.exception()


def _start_shapes(game: Game) -> Callable[[], Any]:
    """A function that returns the shapes of ``game``'s start position, traced once."""
    return functools.cache(lambda: jax.eval_shape(game.init, jax.random.key(0)))
