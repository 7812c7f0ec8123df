"""The play server, by its old name: ``web.create_app(web.ServerConfig())`` as before.

The server is five modules, each with one job; this one only re-exports the names its
callers use:

- ``server_config``: what a server may hold and do (``ServerConfig``), the agent kinds it
  may play (``AGENT_KINDS``);
- ``catalogue``: its games, agents and strengths (``GET /api/games``) and the check of a
  request's agent (``served_spec``, ``BadRequest``);
- ``verdicts``: the Connect Four solver's verdicts, on a thread of their own;
- ``server``: the sessions and agents it holds (``Server``, ``Entry``);
- ``routes``: the ASGI app, its routes and refusals (``create_app``, ``uvicorn_options``).
"""

from alphazero_jax.play.catalogue import (
    DEFAULT_AGENT,
    TITLES,
    BadRequest,
    catalogue,
    describe,
    new_session_model,
    served_kinds,
    served_spec,
    strongest,
)
from alphazero_jax.play.routes import STATIC, STATUS, create_app, status_of, uvicorn_options, view
from alphazero_jax.play.server import Entry, Server, ServerFull, UnknownSession
from alphazero_jax.play.server_config import AGENT_KINDS, ServerConfig
from alphazero_jax.play.verdicts import (
    VERDICTS_KEPT,
    NoVerdicts,
    Verdicts,
    solvable,
    solver_settings,
)

__all__ = [
    "AGENT_KINDS",
    "DEFAULT_AGENT",
    "STATIC",
    "STATUS",
    "TITLES",
    "VERDICTS_KEPT",
    "BadRequest",
    "Entry",
    "NoVerdicts",
    "Server",
    "ServerConfig",
    "ServerFull",
    "UnknownSession",
    "Verdicts",
    "catalogue",
    "create_app",
    "describe",
    "new_session_model",
    "served_kinds",
    "served_spec",
    "solvable",
    "solver_settings",
    "status_of",
    "strongest",
    "uvicorn_options",
    "view",
]
