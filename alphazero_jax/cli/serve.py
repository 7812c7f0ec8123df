r"""Play the agents in a browser (``make serve``), and their JSON API.

    alphazero-serve [--host=127.0.0.1] [--port=8000]

Then open http://127.0.0.1:8000/. ``--host=0.0.0.0`` serves every device on your network
(phones, other computers: open http://<this machine's address>:8000/). There is no login
and no encryption: do that only on a network you trust. The API is described in
``alphazero_jax/play/routes.py``, docs/play.md and ``/api/openapi.json``.

Compiled searches are kept in a per-user cache (``alphazero_jax/cli/compilation_cache.py``;
``--compilation_cache_dir``, ``--nocompilation_cache``), so a second start warms up from
disk.
"""

from __future__ import annotations

import dataclasses

from absl import flags

from alphazero_jax.cli import common as cli

_HOST = flags.DEFINE_string("host", "127.0.0.1", "Address to bind; 0.0.0.0: the whole network.")
_PORT = flags.DEFINE_integer("port", 8000, "Port to listen on.", lower_bound=1, upper_bound=65535)
_MAX_SESSIONS = flags.DEFINE_integer("max_sessions", 500, "Games kept at once.")
_MAX_AGENTS = flags.DEFINE_integer(
    "max_agents",
    32,
    "Agents (game settings, agent, strength) kept compiled at once, the warm-up's included.",
)
_IDLE_MINUTES = flags.DEFINE_float("idle_minutes", 30.0, "A game idle this long is dropped.")
_BATCH_SIZES = flags.DEFINE_list(
    "batch_sizes",
    [],
    "Batch sizes of the agents' searches, ascending; 1: one position at a time. Default: "
    "1,2,4,8 on a CPU, 1,2,4,...,64 on an accelerator.",
)
_NEW_AGENTS = flags.DEFINE_float(
    "new_agents_per_minute",
    6.0,
    "New agents (game settings or a strength no one plays now: compiles) each client may "
    "have built a minute, after 3 at once; one that asks for more waits its turn, holding up "
    "no one else. 0: no bound.",
)
_COMPILE_WAIT = flags.DEFINE_float(
    "compile_wait",
    5.0,
    "Seconds a request waits for its agent's first compile; beyond, it is answered 429 with "
    "Retry-After (the compile goes on). 0: never waits; negative: waits for the compile.",
)
_WARM_UP = flags.DEFINE_bool(
    "warm_up", True, "Compile the shipped agents' searches before the first game asks."
)


def config():
    from alphazero_jax.play.server_config import ServerConfig

    sizes = _BATCH_SIZES.value
    if not all(size.isdigit() for size in sizes):
        cli.fail(f"--batch_sizes: expected integers, got {','.join(sizes)}.")
    return dataclasses.replace(
        ServerConfig(),
        max_sessions=_MAX_SESSIONS.value,
        idle_seconds=_IDLE_MINUTES.value * 60,
        batch_sizes=tuple(int(size) for size in sizes) or None,
        warm_up=_WARM_UP.value,
        max_agents=_MAX_AGENTS.value,
        new_agents_per_minute=_NEW_AGENTS.value or None,
        compile_wait=None if _COMPILE_WAIT.value < 0 else _COMPILE_WAIT.value,
    )


def main(argv: list[str]) -> None:
    cli.begin(argv)
    import uvicorn

    from alphazero_jax.play.routes import create_app, uvicorn_options

    try:
        application = create_app(config())
    except ValueError as error:
        cli.fail(error)
    shown = "127.0.0.1" if _HOST.value in ("0.0.0.0", "::") else _HOST.value
    print(f"Serving http://{shown}:{_PORT.value}/ (Ctrl-C stops)", flush=True)
    if _HOST.value not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"Listening on {_HOST.value}: every device that reaches this machine can play "
            "(no login, no encryption); use it on a network you trust.",
            flush=True,
        )
    uvicorn.run(
        application,
        host=_HOST.value,
        port=_PORT.value,
        log_level="warning",
        **uvicorn_options(application),  # slow request headers time out, as bodies do
    )


def run() -> None:
    """The ``alphazero-serve`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
