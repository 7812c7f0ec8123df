"""How the play API refuses: each refusal's status (``STATUS``), its body ``{"error":
"..."}``, and the app's exception handlers (``HANDLERS``) that answer them.

The status of an error is that of the first class of its MRO that ``STATUS`` lists; any
other error is the server's own (500). A body FastAPI cannot read is a 400 or a 422 that
says, in one line, what was expected and what was received; a method a path does not
answer is a 405 with the methods it does in ``Allow`` (RFC 9110).
"""

from __future__ import annotations

import http
import json
from collections.abc import Awaitable, Callable
from typing import Any

import fastapi
from fastapi import exceptions, responses
from starlette import routing
from starlette.exceptions import HTTPException as StarletteHTTPException

from alphazero_jax.play.agent_pool import PoolFull
from alphazero_jax.play.catalogue import BadRequest
from alphazero_jax.play.server import ServerFull, TryLater, UnknownSession
from alphazero_jax.play.session import GameOver, IllegalMove, MoveError, NothingToUndo, NotYourTurn
from alphazero_jax.play.verdicts import NoVerdicts

STATUS: dict[type[Exception], int] = {
    BadRequest: 422,
    IllegalMove: 409,  # a move (or move list) written in the notation, not legal here
    GameOver: 409,
    NotYourTurn: 409,
    NothingToUndo: 409,
    MoveError: 422,  # a refused move whose type says no more
    NoVerdicts: 409,
    UnknownSession: 404,
    TryLater: 429,
    ServerFull: 503,
    PoolFull: 503,
}
# FastAPI's answer to a body that is JSON Python cannot read (a number of more than 4,300
# digits): replaced by one that says so.
_UNREADABLE = "There was an error parsing the body"


def status_of(error: Exception) -> int:
    """The HTTP status ``STATUS`` gives ``error``; 500 when it lists none of its classes."""
    return next((STATUS[kind] for kind in type(error).__mro__ if kind in STATUS), 500)


def error(status: int, message: str) -> responses.JSONResponse:
    """A refusal's answer: ``{"error": message}`` with ``status``."""
    return responses.JSONResponse({"error": message}, status_code=status)


async def refused(request: fastapi.Request, problem: Exception) -> responses.JSONResponse:
    """The answer to an error ``STATUS`` lists; a ``TryLater`` one says in ``Retry-After``
    when to ask again."""
    del request
    answer = error(status_of(problem), str(problem))
    if isinstance(problem, TryLater):
        answer.headers["Retry-After"] = str(problem.retry_after)
    return answer


async def invalid(
    request: fastapi.Request, problem: exceptions.RequestValidationError
) -> responses.JSONResponse:
    """The answer to a body that is not JSON (400) or not the route's model (422)."""
    del request
    return error(*describe_validation(problem))


async def http_error(
    request: fastapi.Request, problem: StarletteHTTPException
) -> responses.JSONResponse:
    """Starlette's own refusals as the API's: a method an API path does not answer reaches
    the page's files (mounted at /), which refuse it too; the answer is 405 with the
    methods the path answers in Allow, as every 405 has."""
    status, message = problem.status_code, str(problem.detail)
    if status == 400 and message == _UNREADABLE:
        message = "The body is not JSON the server can read: expected a JSON object."
    allowed = api_methods(request.app, request.scope)
    if allowed and request.method not in allowed and status in (404, 405):
        status, message = 405, http.HTTPStatus(405).phrase
    answer = error(status, message)
    if status == 405:
        answer.headers["Allow"] = ", ".join(allowed or ["GET", "HEAD"])
    return answer


Handler = Callable[[fastapi.Request, Any], Awaitable[responses.JSONResponse]]
# What ``create_app`` installs: each error class with the handler that answers it.
HANDLERS: dict[type[Exception], Handler] = {
    **dict.fromkeys(STATUS, refused),
    exceptions.RequestValidationError: invalid,
    StarletteHTTPException: http_error,
}


def describe_validation(problem: exceptions.RequestValidationError) -> tuple[int, str]:
    """The status and one-line message of a body FastAPI refused."""
    problems = []
    for item in problem.errors():
        if item.get("type") == "json_invalid":
            return 400, "The body is not valid JSON; expected a JSON object."
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        text = f"{where or 'body'}: {item.get('msg', 'invalid')}"
        received = item.get("input")
        if item.get("type") != "missing":
            text += f", got {_received(received)}"
        problems.append(text)
    return 422, "; ".join(problems) + "."


def _received(value: object) -> str:
    """A received value as a message quotes it: as JSON, cut short past 60 characters."""
    if value is None or isinstance(value, str | int | float | bool):
        text = json.dumps(value)
        return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"
    return {dict: "an object", list: "an array"}.get(type(value), type(value).__name__)


def api_methods(app: fastapi.FastAPI, scope: dict[str, Any]) -> list[str]:
    """The methods the API's routes answer at the request's path (none: not an API path),
    as the app's OpenAPI document lists them."""
    path = scope.get("path", "")
    methods = {
        method.upper()
        for template, operations in app.openapi()["paths"].items()
        if routing.compile_path(template)[0].match(path)
        for method in operations
    }
    return sorted(methods)
