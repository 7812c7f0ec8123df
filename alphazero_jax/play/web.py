"""Browser play and its JSON API: ``create_app(ServerConfig())`` is an ASGI app (FastAPI).

``python -m experiments.serve`` runs it with uvicorn. The page (``static/``: plain HTML,
CSS and JavaScript, one small drawing module per game) uses nothing but the API:

| method and path | what it does |
| --- | --- |
| ``GET /api/games`` | the games, their settings with bounds, the agents and strengths |
| ``GET /api/stats`` | sessions held, searches run, the warm-up's progress, agents held |
| ``POST /api/sessions`` | a new game: ``{game, settings, agent, simulations, human, moves}`` |
| ``GET /api/sessions/{id}`` | the session |
| ``POST /api/sessions/{id}/moves`` | ``{"move": "4"}``: the human's move, then the agent's |
| ``POST /api/sessions/{id}/agent-move`` | the agent's move when it is its turn |
| ``POST /api/sessions/{id}/undo`` | takes back the human's last move and the reply |
| ``POST /api/sessions/{id}/hint`` | the agent's move and search for the side to move |
| ``GET /api/sessions/{id}/verdicts`` | Connect Four: the solver's win/draw/loss per column |
| ``DELETE /api/sessions/{id}`` | ends the session |
| ``GET /api/openapi.json`` | the contract: every body and refusal (``contract.py``) |

A session is returned as ``{id, game, settings, agent, human, moves, text, board,
legal_moves, to_move, human_to_move, over, result, winner, reply}``; ``reply`` lists the
agent's moves made by the request, each ``{move, player, value, shares}`` (``value`` for
the side that moved, ``shares`` the search's visit share per legal move).

Bad input gets a 4xx answer ``{"error": "..."}`` that says what was expected, and leaves
the session as it was; the status comes from the error's type (``STATUS``), and each route
declares in the schema the ones it can answer. A method a path does not answer gets 405
with the methods it does in ``Allow``. The catalogue's ``solver`` lists the settings at
which the verdicts route answers (``solvable``, which the route asks too). Agents are the
interactive kinds of ``agents.KINDS`` (no file of the user's, a move within seconds), each
for the games it plays. The searches of all sessions that play the same agent are batched
(``batching.Batcher``), and compiles run on threads of their own (``compiler.Compiler``): a
new strength waits for one compile and holds up no one else.

What a client can make the server hold or do is bounded (``ServerConfig``):

- sessions: at most ``max_sessions`` (503 beyond, checked before anything is built), each
  dropped after ``idle_seconds`` without a request;
- agents: a strength of at most ``max_simulations`` simulations or ``max_depth`` plies; at
  most ``max_agents`` agents held (each a game's settings, a kind and a strength: the
  settings x strengths a server compiles for), each with one compiled search per batch
  size; an idle one makes room for a new one, else 503 (``agent_pool.AgentPool``);
- compiles: each client has new agents built at ``new_agents_per_minute`` after
  ``new_agents_burst`` at once; beyond, its request waits its turn (``NewAgentTurns``);
- requests: headers within ``header_seconds`` and bodies within ``body_seconds`` (408),
  bodies of at most ``max_body_bytes`` (413), headers of at most 16 KiB (uvicorn);
- verdicts: ``verdict_nodes`` of the solver's search per request, on one thread.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import http
import itertools
import json
import pathlib
import secrets
import sys
import time
from collections.abc import Callable
from typing import Any

import fastapi
import jax
from fastapi import exceptions, responses, routing, staticfiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from alphazero_jax import agents, games
from alphazero_jax.agents import pretrained
from alphazero_jax.play import batching, connections, contract
from alphazero_jax.play.agent_pool import AgentPool, NewAgentTurns, PoolFull
from alphazero_jax.play.batching import Batcher
from alphazero_jax.play.session import (
    SIDES,
    AgentMove,
    GameOver,
    IllegalMove,
    MoveError,
    NothingToUndo,
    NotYourTurn,
    PlaySession,
)
from alphazero_jax.types import Game

STATIC = pathlib.Path(__file__).parent / "static"
VERDICTS_KEPT = 4096  # the solver's answers a server keeps
TITLES = {
    "connect_four": "Connect Four",
    "othello": "Othello",
    "quoridor": "Quoridor",
    "tic_tac_toe": "Tic-Tac-Toe",
}


@dataclasses.dataclass(frozen=True)
class ServerConfig:
    """How the server bounds its work.

    Attributes:
      max_sessions: sessions kept at once; a new one beyond is refused (503).
      idle_seconds: a session with no request for this long is dropped.
      max_body_bytes: larger request bodies are refused (413).
      batch_sizes: the batch sizes each agent compiles for, ascending; ``(1,)`` searches
        one position at a time; None: ``batching.default_sizes()`` (up to 8 on a CPU, 64
        on an accelerator).
      batch_wait: seconds a search waits for others to join its batch.
      verdict_nodes: the solver's node budget for one verdict request (some 10 million a
        second, on a thread of its own that holds up no other request); beyond it the
        verdicts are reported unknown. The opening book, where one ships, costs none; the
        default answers every 6x7 position we tried (docs/play.md), the slowest in 20-odd s.
      max_simulations, max_depth: the strongest network/MCTS search and alpha-beta depth a
        client may ask for.
      warm_up: compile the shipped agents' searches (at their default strength, every
        batch size) when the server starts, so that players do not wait for compiles.
      max_agents: agents (a game's settings, an agent and its strength) held at once with
        their compiled searches; an idle one makes room for a new one.
      body_seconds: a request body that has not arrived in this time is refused (408).
      new_agents_per_minute, new_agents_burst: each client (by its address) may have
        ``new_agents_burst`` new agents (a game's settings or a strength no one plays now:
        compiles) built at once, then one every ``60 / new_agents_per_minute`` s; a client
        that asks for more waits for its turn, and no other client waits for it
        (``agent_pool.NewAgentTurns``). None (the library's default): no bound;
        ``alphazero-serve`` bounds it to 6 a minute. Behind a proxy, its clients share one.
      header_seconds: a request's headers that have not arrived in this time (after the
        connection opened, or the answer before) get 408 and the connection closes
        (``connections.py``: uvicorn alone never times them out; ``uvicorn_options``).
      agent_kinds: the kinds of ``AGENT_KINDS`` the server plays (e.g. ``("random",
        "greedy")``); None: every one.
    """

    max_sessions: int = 500
    idle_seconds: float = 1800.0
    max_body_bytes: int = 16_384
    batch_sizes: tuple[int, ...] | None = None
    batch_wait: float = 0.002
    verdict_nodes: int = 300_000_000
    max_simulations: int = 1024
    max_depth: int = 6
    warm_up: bool = False
    max_agents: int = 32
    body_seconds: float = 10.0
    header_seconds: float = 10.0
    new_agents_per_minute: float | None = None
    new_agents_burst: int = 3
    agent_kinds: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.batch_sizes is None:
            object.__setattr__(self, "batch_sizes", batching.default_sizes())
        sizes = self.batch_sizes
        if not sizes or list(sizes) != sorted(set(sizes)) or sizes[0] < 1:
            raise ValueError(f"batch_sizes: expected ascending integers >= 1, got {sizes!r}.")
        if self.max_sessions < 1 or self.idle_seconds <= 0 or self.max_body_bytes < 1024:
            raise ValueError(
                "Expected max_sessions >= 1, idle_seconds > 0 and max_body_bytes >= 1024, got "
                f"{self.max_sessions}, {self.idle_seconds}, {self.max_body_bytes}."
            )
        if self.max_agents < 1 or self.body_seconds <= 0 or self.header_seconds <= 0:
            raise ValueError(
                "Expected max_agents >= 1, body_seconds > 0 and header_seconds > 0, got "
                f"{self.max_agents}, {self.body_seconds}, {self.header_seconds}."
            )
        rate, burst = self.new_agents_per_minute, self.new_agents_burst
        if (rate is not None and rate <= 0) or burst < 1:
            raise ValueError(
                "Expected new_agents_per_minute > 0 (or None) and new_agents_burst >= 1, got "
                f"{rate}, {burst}."
            )
        known = [kind.kind for kind in AGENT_KINDS]
        if self.agent_kinds is not None and not set(self.agent_kinds) <= set(known):
            raise ValueError(f"agent_kinds: expected some of {known}, got {self.agent_kinds!r}.")


class BadRequest(ValueError):
    """A request the server cannot serve as asked (a game's settings, an agent, a move
    list); the message says what was expected."""


class UnknownSession(LookupError):
    """No session has this id: it never existed, expired or ended."""


class ServerFull(Exception):
    """The server holds its maximum of sessions."""


class NoVerdicts(Exception):
    """The solver gives no verdicts for the session's game."""


# The answer to each refusal: the status of the first class of the error's MRO listed here,
# with the message in {"error": ...}. Any other error is the server's own (500).
STATUS: dict[type[Exception], int] = {
    BadRequest: 422,
    IllegalMove: 422,
    GameOver: 409,
    NotYourTurn: 409,
    NothingToUndo: 409,
    MoveError: 422,  # a refused move whose type says no more
    NoVerdicts: 409,
    UnknownSession: 404,
    ServerFull: 503,
    PoolFull: 503,
}


def status_of(error: Exception) -> int:
    """The HTTP status ``STATUS`` gives ``error``; 500 when it lists none of its classes."""
    return next((STATUS[kind] for kind in type(error).__mro__ if kind in STATUS), 500)


# -- agents --------------------------------------------------------------------------------


# The agents the server plays, strongest first: the interactive ones of ``agents.KINDS``.
# The page offers them in this order and picks the first one usable at the chosen settings.
AGENT_KINDS = tuple(kind for kind in reversed(agents.KINDS) if kind.interactive)
DEFAULT_AGENT = "az:pretrained"  # what a new game plays when its body names no agent


def served_kinds(config: ServerConfig) -> tuple[agents.AgentKind, ...]:
    """The kinds of ``AGENT_KINDS`` the server plays (``config.agent_kinds``), in order."""
    wanted = config.agent_kinds
    return tuple(kind for kind in AGENT_KINDS if wanted is None or kind.kind in wanted)


def strongest(config: ServerConfig, kind: agents.AgentKind) -> int:
    """The largest strength a client may ask of ``kind`` (one with a strength)."""
    return config.max_simulations if kind.strength.name == "simulations" else config.max_depth


def served_spec(
    config: ServerConfig,
    spec: str,
    simulations: int | None,
    *,
    game: str | None = None,
    settings: dict[str, int] | None = None,
) -> str:
    """The spec of an agent the server plays (for ``game``, when given, at its ``settings``,
    when given), with its strength (``simulations`` replaces a search's); BadRequest for
    any other."""
    spec, kinds = spec.strip(), served_kinds(config)
    found = agents.find_kind(spec, kinds)
    if found is None:
        raise BadRequest(
            f"agent: expected one of {', '.join(k.kind for k in kinds)} (with "
            f"':<strength>' where it has one), got {spec!r}. Agents from files (az:<run>) "
            "are not served.",
        )
    kind, argument = found
    name, strength = kind.kind, kind.strength
    if game is not None and not kind.plays(game):
        raise BadRequest(f"agent: {name} plays {', '.join(kind.games)} only, not {game}.")
    if game is not None and settings is not None and kind.only_settings is not None:
        allowed = kind.only_settings(game)
        if settings not in allowed:

            def shown(one):
                return ",".join(f"{key}={value}" for key, value in one.items())

            where = " or ".join(shown(one) for one in allowed) or "no settings yet"
            raise BadRequest(f"agent: {name} plays {game} at {where} only, not {shown(settings)}.")
    if strength is None:
        if argument or simulations is not None:
            raise BadRequest(f"agent {name!r} takes no strength, got {spec!r}.")
        return kind.spec()
    if simulations is not None:
        if strength.name != "simulations":
            raise BadRequest(f"simulations: {name} has a {strength.name}, not simulations.")
        argument = str(simulations)
    low, high = strength.minimum, strongest(config, kind)
    if not argument:
        return kind.spec(game=game)
    if not (argument.isascii() and argument.isdigit() and low <= int(argument) <= high):
        raise BadRequest(
            f"{strength.name} of {name}: expected an integer in [{low}, {high}], got {argument!r}.",
        )
    return kind.spec(int(argument))


# -- sessions ------------------------------------------------------------------------------


@dataclasses.dataclass
class Entry:
    session: PlaySession
    batcher: Batcher
    lock: asyncio.Lock
    used: float


class Server:
    """The sessions and the agents (``AgentPool``: one ``Batcher`` per game and spec)."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.sessions: dict[str, Entry] = {}
        # The verdicts of recent positions, (game, moves) -> answer, oldest first out.
        self.verdicts: collections.OrderedDict = collections.OrderedDict()
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
        self.solver_lock = asyncio.Lock()
        # The verdicts' searches run on this one thread, with its transposition table (the
        # solver keeps one per thread), warm from the last request.
        self.solver_thread = concurrent.futures.ThreadPoolExecutor(1, "solver")
        self.warm = not config.warm_up  # True once the warm-up compiled everything
        self.closed = False

    async def batcher(self, game: Game, spec: str, *, client: str | None = None) -> Batcher:
        """The agent's ``Batcher``; BadRequest for a spec the game refuses, PoolFull when
        every agent the server may hold is in play. A new agent asked for by ``client``
        comes in its turn (``NewAgentTurns``)."""
        if client is not None and self.turns is not None and not self.pool.holds(game, spec):
            await self.turns.turn(client)
        try:
            return await self.pool.get(
                game, spec, in_use=[entry.batcher for entry in self.sessions.values()]
            )
        except ValueError as error:
            raise BadRequest(f"agent: {error}") from error

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
        self.solver_thread.shutdown(wait=False, cancel_futures=True)


def _start_shapes(game: Game) -> Callable[[], Any]:
    """A function that returns the shapes of ``game``'s start position, traced once."""
    return functools.cache(lambda: jax.eval_shape(game.init, jax.random.key(0)))


def describe(game: Game, spec: str) -> str:
    """An agent as the status names it: "Connect Four (rows 6, cols 7, connect 4), mcts:50"."""
    settings = dict(game.settings)
    shown = ", ".join(f"{name} {value}" for name, value in settings.items())
    return f"{TITLES.get(game.name, game.name)} ({shown}), {spec}"


def _reply(analysed: AgentMove, player: int) -> dict[str, Any]:
    return {
        "move": analysed.move,
        "player": player,
        "value": analysed.value,
        "shares": analysed.shares,
    }


def view(session_id: str, entry: Entry, reply: list[dict] | None = None) -> dict[str, Any]:
    """A session as the API returns it."""
    session = entry.session
    return {
        "id": session_id,
        "game": session.game.name,
        "settings": dict(session.game.settings),
        "agent": session.agent.name,
        "human": session.human,
        "moves": session.moves_text(),
        "text": session.board_text(),
        "board": session.game.to_json(session.state),
        "legal_moves": session.legal_moves(),
        "to_move": session.player,
        "human_to_move": session.human_to_move,
        "over": session.over,
        "result": session.result_text(),
        "winner": session.winner,
        "reply": reply or [],
    }


async def _agent_turns(entry: Entry) -> list[dict]:
    """Plays the agent's moves until the human is to move or the game ends (one move when
    the agent plays both sides). The search comes from the agent's ``Batcher``, with its
    key: a session's own seed does not apply on the server."""
    session, played = entry.session, []
    while not session.over and not session.human_to_move:
        player = session.player
        computed = await entry.batcher.analyse(session.state)
        played.append(_reply(session.agent_move(computed), player))
        if session.human == "none":
            break
    return played


def _verdicts(game: Game, moves: str, max_nodes: int) -> dict[str, Any]:
    from alphazero_jax.solvers import connect_four as solver

    settings = dict(game.settings)
    try:
        scores = solver.verdicts(
            moves, rows=settings["rows"], cols=settings["cols"], max_nodes=max_nodes
        )
    except solver.SearchLimitReached:
        return {"verdicts": None, "reason": "too far from the end to solve quickly"}
    named = {
        game.action_to_text(column): ("win", "draw", "loss")[1 - score]
        for column, score in enumerate(scores)
        if score is not None
    }
    return {"verdicts": named, "reason": None}


def solvable(name: str, settings: dict[str, int]) -> bool:
    """Whether the solver gives verdicts for the game ``name`` at ``settings`` (Connect
    Four, four in a row, a board that fits its bitboard): the one rule both the verdicts
    route and the catalogue's ``solver`` settings follow."""
    if name != "connect_four" or settings["connect"] != 4:
        return False
    from alphazero_jax.solvers import connect_four as solver

    try:
        solver.check_size(settings["rows"], settings["cols"])
    except ValueError:
        return False
    return True


def solver_settings(name: str) -> list[dict[str, int]]:
    """Every setting of the game ``name`` (``games.make`` accepts it) that is ``solvable``."""
    found = {
        tuple(zip(region, values))
        for region in contract.setting_regions(name)
        for values in itertools.product(*region.values())
        if solvable(name, dict(zip(region, values)))
    }
    return [dict(settings) for settings in sorted(found)]


# -- the app -------------------------------------------------------------------------------


def _error(status: int, message: str) -> responses.JSONResponse:
    return responses.JSONResponse({"error": message}, status_code=status)


def _describe_validation(error: exceptions.RequestValidationError) -> tuple[int, str]:
    problems = []
    for item in error.errors():
        if item.get("type") == "json_invalid":
            return 400, "The body is not valid JSON; expected a JSON object."
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        problem = f"{where or 'body'}: {item.get('msg', 'invalid')}"
        received = item.get("input")
        if item.get("type") != "missing":
            problem += f", got {json.dumps(received) if _scalar(received) else _kind(received)}"
        problems.append(problem)
    return 422, "; ".join(problems) + "."


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array"}.get(type(value), type(value).__name__)


class _BodyLimit:
    """ASGI middleware: reads a request's body first, at most ``limit`` bytes; a larger one
    (by its Content-Length or as it arrives) gets a 413 before the app sees it, and one
    that has not arrived within ``seconds`` a 408 (a slow client holds only its own
    request, but not for ever)."""

    def __init__(self, app, limit: int, seconds: float):
        self.app, self.limit, self.seconds = app, limit, seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        refused = _error(
            413, f"The request body is too large: expected at most {self.limit} bytes."
        )
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await refused(scope, receive, send)
        chunks, size, more = [], 0, True
        deadline = asyncio.get_running_loop().time() + self.seconds
        while more:
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                late = _error(408, f"The request body did not arrive within {self.seconds:g} s.")
                return await late(scope, receive, send)
            if message["type"] != "http.request":  # the client went away
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await refused(scope, receive, send)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


def catalogue(config: ServerConfig) -> dict[str, Any]:
    """``GET /api/games``: each game with its settings' bounds, the agents that play it and
    the settings at which the solver answers; the human's sides."""
    listed = []
    for name in games.available():
        kinds = []
        for kind in [k for k in served_kinds(config) if k.plays(name)]:
            described = {"spec": kind.kind, "label": kind.label, "strength": None}
            if kind.strength:
                described["strength"] = {
                    "name": kind.strength.name,
                    "min": kind.strength.minimum,
                    "max": strongest(config, kind),
                    "default": kind.strength.default_for(name),
                }
            only = kind.only_settings
            described["only_settings"] = None if only is None else only(name)
            kinds.append(described)
        listed.append(
            {
                "name": name,
                "title": TITLES.get(name, name),
                "settings": games.settings_of(name),
                "agents": kinds,
                "solver": solver_settings(name),
            }
        )
    return {"games": listed, "sides": list(SIDES)}


def new_session_model(config: ServerConfig) -> type[contract.NewSession]:
    """``contract.NewSession``, published with the schema of the bodies this server plays."""
    ranges = [
        contract.AgentRange(
            kind,
            None if kind.strength is None else kind.strength.name,
            0 if kind.strength is None else kind.strength.minimum,
            0 if kind.strength is None else strongest(config, kind),
        )
        for kind in served_kinds(config)
    ]
    schema = contract.new_session_schema(ranges, default_agent=DEFAULT_AGENT)
    return contract.published_as(contract.NewSession, schema)


def api_methods(app: fastapi.FastAPI, scope: dict[str, Any]) -> list[str]:
    """The methods the API's routes answer at the request's path (none: not an API path)."""
    methods = {
        method
        for route in app.routes
        if isinstance(route, routing.APIRoute) and route.matches(scope)[0] != Match.NONE
        for method in route.methods
    }
    return sorted(methods)


def _openapi_of(app: fastapi.FastAPI) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` without FastAPI's own 422 answers (``HTTPValidationError``): this
    API's refusals are all ``ErrorBody``, declared where a route can answer them."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            for operations in schema["paths"].values():
                for operation in operations.values():
                    refused = operation["responses"].get("422", {})
                    if "HTTPValidationError" in json.dumps(refused):
                        del operation["responses"]["422"]
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


# What each route can refuse, beyond the body limits every route has (contract.BODY_LIMITS).
NO_JSON = {400: "The body is not JSON."}
UNKNOWN = {404: "No session has this id: it never existed, expired or ended."}
REFUSED_SESSION = {
    **NO_JSON,
    422: "The body is not a game the server plays: its fields, the game's settings, the "
    "agent and its strength, or a move list that is not legal from the start.",
    503: "The server holds its maximum of sessions, or of agents with games in play.",
}
REFUSED_MOVE = {
    **NO_JSON,
    **UNKNOWN,
    409: "The game is over, or it is not the human's turn (or the agent plays both sides).",
    422: "The body is not one move, or the move is malformed or not legal here.",
}
REFUSED_AGENT_MOVE = {**UNKNOWN, 409: "The game is over, or it is the human's turn."}
REFUSED_UNDO = {**UNKNOWN, 409: "No move of the human's to take back."}
REFUSED_HINT = {**UNKNOWN, 409: "The game is over."}
REFUSED_VERDICTS = {**UNKNOWN, 409: "The solver gives no verdicts for this game's settings."}


def uvicorn_options(app: fastapi.FastAPI) -> dict[str, Any]:
    """The keyword arguments ``uvicorn.run(app, ...)`` takes beside the address, that
    bound connections as the app's ``ServerConfig`` says (``connections.py``)."""
    return connections.uvicorn_options(header_seconds=app.state.server.config.header_seconds)


def create_app(config: ServerConfig | None = None) -> fastapi.FastAPI:
    """The ASGI app: the API under ``/api`` and the page at ``/``."""
    config = config or ServerConfig()
    server = Server(config)
    listed = catalogue(config)
    session_body = new_session_model(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: fastapi.FastAPI):
        if server.closed:
            server.open()
        warming = asyncio.create_task(server.warm_up()) if config.warm_up else None
        await asyncio.sleep(0)  # the warm-up starts, and announces its size, before requests
        yield
        if warming is not None:
            warming.cancel()
        await server.close()

    # No /docs: its page loads scripts from the internet. The schema is /api/openapi.json.
    app = fastapi.FastAPI(
        title="alphazero_jax play",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.openapi = _openapi_of(app)
    app.state.server = server

    async def refused(request: fastapi.Request, error: Exception):
        return _error(status_of(error), str(error))

    for refusal in STATUS:
        app.add_exception_handler(refusal, refused)

    @app.exception_handler(exceptions.RequestValidationError)
    async def invalid(request: fastapi.Request, error: exceptions.RequestValidationError):
        return _error(*_describe_validation(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: fastapi.Request, error: StarletteHTTPException):
        # A method an API path does not answer reaches the page's files (mounted at /),
        # which refuse it too; the answer is the API's: 405, with the methods it answers
        # in Allow (RFC 9110), as every 405 has.
        status, message = error.status_code, str(error.detail)
        allowed = api_methods(app, request.scope)
        if allowed and request.method not in allowed and status in (404, 405):
            status, message = 405, http.HTTPStatus(405).phrase
        answer = _error(status, message)
        if status == 405:
            answer.headers["Allow"] = ", ".join(allowed or ["GET", "HEAD"])
        return answer

    @app.get("/api/games", responses=contract.refusals({}))
    async def list_games() -> contract.Catalogue:
        return listed

    @app.get("/api/stats", responses=contract.refusals({}))
    async def stats() -> contract.Stats:
        server.expire(time.monotonic())
        held = server.pool.batchers.values()
        return {
            "sessions": len(server.sessions),
            "warm": server.warm,
            "batches": sum(b.batches for b in held),
            "positions": sum(b.positions for b in held),
            **server.pool.status(),
            "new_agents_waiting": 0 if server.turns is None else server.turns.waiting,
        }

    async def new_session(request, http: fastapi.Request) -> contract.SessionView:
        server.check_room()  # before anything is built
        try:
            game = games.make(request.game, **request.settings)
        except ValueError as error:
            raise BadRequest(str(error)) from error
        spec = served_spec(
            config, request.agent, request.simulations, game=game.name, settings=dict(game.settings)
        )
        client = None if http.client is None else http.client.host
        batcher = await server.batcher(game, spec, client=client)
        programs = server.pool.programs[game, spec]  # held with the batcher: no compile
        session = PlaySession(game, batcher.agent, human=request.human, programs=programs)
        try:
            session.set_moves(request.moves)
        except MoveError as error:
            raise BadRequest(f"moves: {error}") from error
        server.check_room()  # others may have come in while the agent was built
        session_id = secrets.token_urlsafe(12)
        entry = Entry(session, batcher, asyncio.Lock(), time.monotonic())
        server.sessions[session_id] = entry
        async with entry.lock:
            reply = [] if request.human == "none" else await _agent_turns(entry)
            return view(session_id, entry, reply)

    # The body's model is this server's (its games, agents and bounds), made above.
    new_session.__annotations__["request"] = session_body
    app.post("/api/sessions", responses=contract.refusals(REFUSED_SESSION))(new_session)

    @app.get("/api/sessions/{session_id}", responses=contract.refusals(UNKNOWN))
    async def get_session(session_id: str) -> contract.SessionView:
        return view(session_id, server.entry(session_id))

    @app.delete("/api/sessions/{session_id}", responses=contract.refusals(UNKNOWN))
    async def end_session(session_id: str) -> contract.Deleted:
        server.entry(session_id)
        del server.sessions[session_id]
        return {"deleted": session_id}

    @app.post("/api/sessions/{session_id}/moves", responses=contract.refusals(REFUSED_MOVE))
    async def move(session_id: str, request: contract.Move) -> contract.SessionView:
        entry = server.entry(session_id)
        async with entry.lock:
            entry.session.play(request.move)
            return view(session_id, entry, await _agent_turns(entry))

    @app.post(
        "/api/sessions/{session_id}/agent-move", responses=contract.refusals(REFUSED_AGENT_MOVE)
    )
    async def agent_move(session_id: str) -> contract.SessionView:
        entry = server.entry(session_id)
        async with entry.lock:
            entry.session.check_agent_move()  # before the search
            return view(session_id, entry, await _agent_turns(entry))

    @app.post("/api/sessions/{session_id}/undo", responses=contract.refusals(REFUSED_UNDO))
    async def undo(session_id: str) -> contract.SessionView:
        entry = server.entry(session_id)
        async with entry.lock:
            entry.session.undo()
            return view(session_id, entry)

    @app.post("/api/sessions/{session_id}/hint", responses=contract.refusals(REFUSED_HINT))
    async def hint(session_id: str) -> contract.Reply:
        entry = server.entry(session_id)
        async with entry.lock:
            session = entry.session
            session.check_analysable()  # before the search
            computed = await entry.batcher.analyse(session.state)
            return _reply(session.analyse(computed), session.player)

    @app.get("/api/sessions/{session_id}/verdicts", responses=contract.refusals(REFUSED_VERDICTS))
    async def verdicts(session_id: str) -> contract.Verdicts:
        entry = server.entry(session_id)
        session = entry.session
        if not solvable(session.game.name, dict(session.game.settings)):
            raise NoVerdicts(
                "The solver gives verdicts for Connect Four with four in a row on "
                "boards up to (rows + 1) * cols <= 64 and 4 <= cols <= 9 only.",
            )
        if session.over:
            return {"verdicts": {}, "reason": "the game is over"}
        key = (session.game, session.moves_text())
        async with server.solver_lock:  # one solver (and its table) per process
            if key not in server.verdicts:
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(
                    server.solver_thread, _verdicts, *key, config.verdict_nodes
                )
                server.verdicts[key] = answer
                if len(server.verdicts) > VERDICTS_KEPT:
                    server.verdicts.popitem(last=False)
            server.verdicts.move_to_end(key)
            return server.verdicts[key]

    app.mount("/", staticfiles.StaticFiles(directory=STATIC, html=True), name="page")
    app.add_middleware(_BodyLimit, limit=config.max_body_bytes, seconds=config.body_seconds)
    return app
