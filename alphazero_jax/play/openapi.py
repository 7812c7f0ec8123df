"""The play API's OpenAPI document (``/api/openapi.json``), as the app's routes make it
with this server's schemas put in (``openapi_of``), and the route list read from it
(``route_table``): the one list of routes the docs and the fuzz tests are held to."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fastapi

from alphazero_jax.play import contract


def openapi_of(app: fastapi.FastAPI, new_session: dict[str, Any]) -> Callable[[], dict]:
    """``app.openapi`` with this server's schema of a new game's body (``new_session``:
    its games, agents and bounds), the move patterns of every game (``contract.move_schema``)
    and the ``Retry-After`` of a 429, without FastAPI's own 422 answers
    (``HTTPValidationError``): this API's refusals are all ``ErrorBody``."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            for operations in schema["paths"].values():
                for operation in operations.values():
                    answers = operation["responses"]
                    if "HTTPValidationError" in json.dumps(answers.get("422", {})):
                        del answers["422"]
                    if "429" in answers:
                        answers["429"]["headers"] = {"Retry-After": contract.RETRY_AFTER}
            components = schema["components"]["schemas"]
            for name in ("HTTPValidationError", "ValidationError"):
                components.pop(name, None)
            components["NewSession"] = new_session
            components["Move"]["properties"]["move"] = contract.move_schema()
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def route_table(app: fastapi.FastAPI) -> list[tuple[str, str, str]]:
    """``(method, path, summary)`` of each route of the API, in the order they are added,
    as its OpenAPI document lists them (the docs' route tables are tested against it)."""
    return [
        (method.upper(), path, operation["description"].split("\n\n")[0].replace("\n", " "))
        for path, operations in app.openapi()["paths"].items()
        for method, operation in operations.items()
    ]
