"""Browser play and its JSON API: ``create_app(ServerConfig())`` is an ASGI app (FastAPI).

``alphazero-serve`` runs it with uvicorn (``uvicorn_options``). The page (``static/``:
plain HTML, CSS and JavaScript, one small drawing module per game and a generic grid for
any other) uses nothing but the API. The routes are the handlers of ``ROUTERS`` below,
each summed up by its docstring's first line; ``openapi.route_table(app)`` lists them (method,
path, summary), and ``/api/openapi.json`` describes every body and refusal
(``contract.py``). Handlers reach the app's ``Server`` through a dependency
(``ServerDep``).

A session is returned as ``{id, game, settings, agent, human, moves, text, board,
legal_moves, to_move, human_to_move, over, result, winner, reply}``; ``reply`` lists the
agent's moves made by the request, each ``{move, player, value, shares}`` (``value`` for
the side that moved, ``shares`` the search's visit share per legal move).

Bad input gets a 4xx answer ``{"error": "..."}`` that says what was expected, and leaves
the session as it was (``refusals.py``: the status comes from the error's type, and each
route declares in the schema the ones it can answer). The server's state is ``server.py``
(within ``server_config.py``'s bounds), what it offers ``catalogue.py``, the solver's
answers ``verdicts.py``. The searches of all sessions that play the same agent are batched
(``batching.Batcher``), and compiles run on threads of their own (``compiler.Compiler``):
a request waits at most ``ServerConfig.compile_wait`` for one (429 with ``Retry-After``
beyond), and holds up no one else.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import secrets
import time
from typing import Annotated, Any

import fastapi
from fastapi import staticfiles

from alphazero_jax import games
from alphazero_jax.games import records as game_record
from alphazero_jax.play import connections, contract, openapi, refusals
from alphazero_jax.play.body_limit import BodyLimit
from alphazero_jax.play.catalogue import BadRequest, new_session_model, served_spec
from alphazero_jax.play.server import Entry, Server
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.play.session import AgentMove, IllegalMove, MoveError, PlaySession, Programs
from alphazero_jax.types import Agent, Game

STATIC = pathlib.Path(__file__).parent / "static"


async def the_server(request: fastapi.Request) -> Server:
    """The dependency of every handler: the app's ``Server`` (a coroutine, so that FastAPI
    calls it on the event loop, not on a thread: requests keep their order)."""
    return request.app.state.server


ServerDep = Annotated[Server, fastapi.Depends(the_server)]

# What each route can refuse, beyond the body limits every route has (contract.BODY_LIMITS).
NO_JSON = {400: "The body is not JSON."}
UNKNOWN = {404: "No session has this id: it never existed, expired or ended."}
COMPILING = {
    429: "The agent's search is compiling, or the client's turn to have a new agent built "
    "is still to come, past the server's compile_wait: ask again after Retry-After seconds "
    "(the compile goes on)."
}
REFUSED_SESSION = {
    **NO_JSON,
    **COMPILING,
    409: "The move list is written in the game's notation but is not legal from the start.",
    422: "The body is not a game the server plays: its fields, the game's settings, the "
    "agent and its strength, or a move list not in the game's notation.",
    503: "The server holds its maximum of sessions, or of agents with games in play.",
}
REFUSED_MOVE = {
    **NO_JSON,
    **UNKNOWN,
    **COMPILING,
    409: "The game is over, it is not the human's turn (or the agent plays both sides), or "
    "the move is written in a game's notation but is not a legal move here.",
    422: "The body is not one move in any game's notation.",
}
REFUSED_AGENT_MOVE = {**UNKNOWN, **COMPILING, 409: "The game is over, or it is the human's turn."}
REFUSED_UNDO = {**UNKNOWN, 409: "No move of the human's to take back."}
REFUSED_HINT = {**UNKNOWN, **COMPILING, 409: "The game is over."}
REFUSED_VERDICTS = {**UNKNOWN, 409: "The solver gives no verdicts for this game's settings."}


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


def _reply(analysed: AgentMove, player: int) -> dict[str, Any]:
    return {
        "move": analysed.move,
        "player": player,
        "value": analysed.value,
        "shares": analysed.shares,
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


# -- the catalogue ---------------------------------------------------------------------

about = fastapi.APIRouter(prefix="/api")


@about.get("/games", responses=contract.refusals({}))
async def list_games(server: ServerDep) -> contract.Catalogue:
    """The games, their settings with bounds, the agents and strengths."""
    return server.catalogue


@about.get("/stats", responses=contract.refusals({}))
async def stats(server: ServerDep) -> contract.Stats:
    """Sessions held, searches run, the warm-up's progress, agents held."""
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


# -- sessions ----------------------------------------------------------------------------

sessions = fastapi.APIRouter(prefix="/api/sessions")


@sessions.post("", responses=contract.refusals(REFUSED_SESSION))
async def new_session(
    body: contract.NewSession, server: ServerDep, request: fastapi.Request
) -> contract.SessionView:
    """A new game: {game, settings, agent, simulations, human, moves}."""
    server.check_room()  # before anything is built
    since = time.monotonic()  # what the request waits for is bounded from here
    try:  # a new board's tables are built on a thread: the event loop goes on
        game = await asyncio.to_thread(games.make, body.game, **body.settings)
    except ValueError as error:
        raise BadRequest(str(error)) from error
    settings = dict(game.settings)
    spec = served_spec(
        server.config, body.agent, body.simulations, game=game.name, settings=settings
    )
    client = None if request.client is None else request.client.host
    batcher = await server.batcher(game, spec, client=client, since=since)
    programs = server.pool.programs[game, spec]  # held with the batcher: no compile
    session = await asyncio.to_thread(_started, game, batcher.agent, body, programs)
    if body.human != "none" and not session.human_to_move and not session.over:
        await server.compiled(batcher, session.state, since=since)  # the agent opens
    server.check_room()  # others may have come in while the agent was built
    session_id = secrets.token_urlsafe(12)
    entry = Entry(session, batcher, asyncio.Lock(), time.monotonic())
    server.sessions[session_id] = entry
    async with entry.lock:
        reply = [] if body.human == "none" else await _agent_turns(entry)
        return view(session_id, entry, reply)


def _started(
    game: Game, agent: Agent, body: contract.NewSession, programs: Programs
) -> PlaySession:
    """The new game, its ``moves`` played (on a thread: a long list is many device calls):
    IllegalMove (409) for a list written in the game's notation that is not legal,
    BadRequest (422) for any other refused text."""
    session = PlaySession(game, agent, human=body.human, programs=programs)
    moves = body.moves
    try:
        session.set_moves(moves)
    except MoveError as error:
        written = game_record.matches(games.record(session.game.name).moves_pattern(), moves)
        raise (IllegalMove if written else BadRequest)(f"moves: {error}") from error
    return session


@sessions.get("/{session_id}", responses=contract.refusals(UNKNOWN))
async def get_session(session_id: str, server: ServerDep) -> contract.SessionView:
    """The session."""
    return view(session_id, server.entry(session_id))


@sessions.delete("/{session_id}", responses=contract.refusals(UNKNOWN))
async def end_session(session_id: str, server: ServerDep) -> contract.Deleted:
    """Ends the session."""
    server.entry(session_id)
    del server.sessions[session_id]
    return {"deleted": session_id}


@sessions.post("/{session_id}/moves", responses=contract.refusals(REFUSED_MOVE))
async def move(session_id: str, body: contract.Move, server: ServerDep) -> contract.SessionView:
    """{"move": "4"}: the human's move, then the agent's."""
    entry = server.entry(session_id)
    async with entry.lock:
        session, written = entry.session, contract.is_move_text(body.move)
        session.check_human_move()
        if written:
            await server.compiled(entry.batcher, session.state)  # before the move is played
        try:
            session.play(body.move)
        except IllegalMove as error:
            if written:
                raise  # in a game's notation: not legal here (409)
            raise BadRequest(str(error)) from error  # no game's notation (422)
        return view(session_id, entry, await _agent_turns(entry))


@sessions.post("/{session_id}/agent-move", responses=contract.refusals(REFUSED_AGENT_MOVE))
async def agent_move(session_id: str, server: ServerDep) -> contract.SessionView:
    """The agent's move when it is its turn."""
    entry = server.entry(session_id)
    async with entry.lock:
        entry.session.check_agent_move()  # before the search
        await server.compiled(entry.batcher, entry.session.state)
        return view(session_id, entry, await _agent_turns(entry))


@sessions.post("/{session_id}/undo", responses=contract.refusals(REFUSED_UNDO))
async def undo(session_id: str, server: ServerDep) -> contract.SessionView:
    """Takes back the human's last move and the reply."""
    entry = server.entry(session_id)
    async with entry.lock:
        entry.session.undo()
        return view(session_id, entry)


@sessions.post("/{session_id}/hint", responses=contract.refusals(REFUSED_HINT))
async def hint(session_id: str, server: ServerDep) -> contract.Reply:
    """The agent's move and search for the side to move."""
    entry = server.entry(session_id)
    async with entry.lock:
        session = entry.session
        session.check_analysable()  # before the search
        await server.compiled(entry.batcher, session.state)
        computed = await entry.batcher.analyse(session.state)
        return _reply(session.analyse(computed), session.player)


@sessions.get("/{session_id}/verdicts", responses=contract.refusals(REFUSED_VERDICTS))
async def verdicts(session_id: str, server: ServerDep) -> contract.Verdicts:
    """Connect Four: the solver's win/draw/loss per column."""
    return await server.verdicts.of(server.entry(session_id).session)


ROUTERS = (about, sessions)


# -- the app -----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def lifespan(app: fastapi.FastAPI):
    """Opens the server (again, after a lifespan ended), starts its warm-up, and closes it."""
    server: Server = app.state.server
    if server.closed:
        server.open()
    warming = asyncio.create_task(server.warm_up()) if server.config.warm_up else None
    await asyncio.sleep(0)  # the warm-up starts, and announces its size, before requests
    yield
    if warming is not None:
        warming.cancel()
    await server.close()


def create_app(config: ServerConfig | None = None) -> fastapi.FastAPI:
    """The ASGI app: the API under ``/api`` (``ROUTERS``) and the page at ``/``."""
    config = config or ServerConfig()
    # No /docs: its page loads scripts from the internet. The schema is /api/openapi.json.
    app = fastapi.FastAPI(
        title="alphazero_jax play",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.server = Server(config)
    app.openapi = openapi.openapi_of(app, new_session_model(config).model_json_schema())
    for kind, handler in refusals.HANDLERS.items():
        app.add_exception_handler(kind, handler)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/", staticfiles.StaticFiles(directory=STATIC, html=True), name="page")
    app.add_middleware(BodyLimit, limit=config.max_body_bytes, seconds=config.body_seconds)
    return app


def uvicorn_options(app: fastapi.FastAPI) -> dict[str, Any]:
    """The keyword arguments ``uvicorn.run(app, ...)`` takes beside the address, that
    bound connections as the app's ``ServerConfig`` says (``connections.py``)."""
    return connections.uvicorn_options(header_seconds=app.state.server.config.header_seconds)
