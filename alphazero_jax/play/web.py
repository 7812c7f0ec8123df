"""The play server, by its old name: ``web.create_app(web.ServerConfig())`` as before.

The server is modules with one job each; import what you use from the one that owns it:

- ``server_config``: what a server may hold and do (``ServerConfig``), the agent kinds it
  may play (``interactive_kinds()``);
- ``catalogue``: its games, agents and strengths (``GET /api/games``) and the check of a
  request's agent (``served_spec``, ``BadRequest``);
- ``verdicts``: the Connect Four solver's verdicts, on a thread of their own;
- ``server``: the sessions and agents it holds (``Server``, ``Entry``);
- ``refusals``: each refusal's status and answer (``STATUS``, ``status_of``);
- ``routes``: the ASGI app and its routes (``create_app``, ``uvicorn_options``);
- ``openapi``: its OpenAPI document and the route list read from it (``route_table``).

This module keeps only the three names that start a server.
"""

from alphazero_jax.play.routes import create_app, uvicorn_options
from alphazero_jax.play.server_config import ServerConfig

__all__ = ["ServerConfig", "create_app", "uvicorn_options"]
