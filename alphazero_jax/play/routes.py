"""Browser play and its JSON API: ``create_app(ServerConfig())`` is an ASGI app (FastAPI).

``alphazero-serve`` runs it with uvicorn (``uvicorn_options``). The page (``static/``:
plain HTML, CSS and JavaScript, one small drawing module per game) uses nothing but the API:

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
with the methods it does in ``Allow``. This module is the HTTP side only: what the server
offers is ``catalogue.py``, what it holds ``server.py`` (within ``server_config.py``'s
bounds), the solver's answers ``verdicts.py``. The searches of all sessions that play the
same agent are batched (``batching.Batcher``), and compiles run on threads of their own
(``compiler.Compiler``): a new strength waits for one compile and holds up no one else.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import pathlib
import secrets
import time
from collections.abc import Callable
from typing import Any

import fastapi
from fastapi import exceptions, responses, routing, staticfiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from alphazero_jax import games
from alphazero_jax.play import connections, contract
from alphazero_jax.play.agent_pool import PoolFull
from alphazero_jax.play.catalogue import BadRequest, catalogue, new_session_model, served_spec
from alphazero_jax.play.server import Entry, Server, ServerFull, UnknownSession
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.play.session import (
    AgentMove,
    GameOver,
    IllegalMove,
    MoveError,
    NothingToUndo,
    NotYourTurn,
    PlaySession,
)
from alphazero_jax.play.verdicts import NoVerdicts

STATIC = pathlib.Path(__file__).parent / "static"


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
        return await server.verdicts.of(server.entry(session_id).session)

    app.mount("/", staticfiles.StaticFiles(directory=STATIC, html=True), name="page")
    app.add_middleware(_BodyLimit, limit=config.max_body_bytes, seconds=config.body_seconds)
    return app
