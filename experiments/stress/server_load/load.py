r"""Load on the play server: ``--sessions`` players at the default strength.

    python -m experiments.stress.server_load.load [--sessions=50] [--seconds=60] \
        [--modes=batched,unbatched]

Once with batched searches and once one position at a time (``--modes``); after the
warm-up and ``--warm_up`` s of play it counts ``--seconds``: moves/s, p50/p99 latency,
positions per search call, and the ratio of the two servers' moves/s.
(``experiments/stress/server_load/__init__.py`` tells what the scenarios share.)
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
from absl import app, flags

from alphazero_jax.cli import common as cli
from experiments.stress import simulated_players
from experiments.stress.server_load import common

_SESSIONS = common.define_sessions()
_SECONDS = common.define_seconds()
_WARM_UP = common.define_warm_up()
_SEED = common.define_seed()
_MODES = flags.DEFINE_list("modes", ["batched", "unbatched"], "Servers to measure.")
_BATCHED_SIZES = flags.DEFINE_string(
    "batch_sizes", "", "The batched server's --batch_sizes; default: the server's own."
)

_MODE_NAMES = ("batched", "unbatched")


async def _load(mode: str) -> dict:
    sizes = _BATCHED_SIZES.value if mode == "batched" else "1"
    server = simulated_players.Server(
        ([f"--batch_sizes={sizes}"] if sizes else []) + common.cache_arguments()
    )
    try:
        async with simulated_players.client_for(server, _SESSIONS.value) as client:
            await server.wait(client, warm=True)
            tally = simulated_players.Tally()
            start = time.monotonic() + _WARM_UP.value
            stop = start + _SECONDS.value
            agents = [common.DEFAULT] * _SESSIONS.value
            gathered = asyncio.gather(
                *common.players(client, tally, stop, agents, seed=_SEED.value)
            )
            await asyncio.sleep(_WARM_UP.value)
            before = await server.stats(client)
            await gathered
            after = await server.stats(client)
    finally:
        server.stop()
    latencies = tally.latencies(start, stop)
    calls = after["batches"] - before["batches"]
    print(
        f"{mode:>9}: {simulated_players.summary(latencies, _SECONDS.value)}  errors "
        f"{tally.error_count(start, stop)}  "
        f"{(after['positions'] - before['positions']) / max(calls, 1):.1f} positions per call",
        flush=True,
    )
    if tally.errors:
        print(f"           first error: {tally.errors[0][1]}")
    return {
        "moves_per_s": len(latencies) / _SECONDS.value,
        "p50_ms": float(np.percentile(latencies, 50) * 1000),
        "p99_ms": float(np.percentile(latencies, 99) * 1000),
        "errors": tally.error_count(start, stop),
    }


def main(argv: list[str]) -> None:
    unknown = set(_MODES.value) - set(_MODE_NAMES)
    if unknown:
        cli.fail(f"--modes: expected some of {', '.join(_MODE_NAMES)}, got {sorted(unknown)}.")
    common.begin(argv, "load")
    results = {mode: asyncio.run(_load(mode)) for mode in _MODES.value}
    if {"batched", "unbatched"} <= set(results):
        ratio = results["batched"]["moves_per_s"] / results["unbatched"]["moves_per_s"]
        print(f"batched / one at a time: {ratio:.2f}x moves/s")
    common.report(results)


if __name__ == "__main__":
    app.run(main)
