r"""Players at mixed strengths on one play server, those other than the default compiling
while they play.

    python -m experiments.stress.server_load.mixed [--sessions=50] [--strengths=0,8,16,32,64]

``--sessions`` players for ``--seconds``, each at one of ``--strengths`` (simulations), after
``--warm_up`` s; it reports each strength's latency and everyone's moves/s.
"""

from __future__ import annotations

import asyncio
import random
import time

import numpy as np
from absl import app, flags

from experiments.stress import simulated_players
from experiments.stress.server_load import common

_SESSIONS = common.define_sessions()
_SECONDS = common.define_seconds()
_WARM_UP = common.define_warm_up()
_SEED = common.define_seed()
_STRENGTHS = flags.DEFINE_list("strengths", ["0", "8", "16", "32", "64"], "Simulations.")


async def _mixed() -> dict:
    strengths = [f"{common.DEFAULT}:{int(s)}" for s in _STRENGTHS.value]
    # Every simulated player connects from 127.0.0.1, one client to the server's rate of new
    # agents: each strength's first player may not wait its turn.
    server = simulated_players.Server([*common.cache_arguments(), "--new_agents_per_minute=0"])
    try:
        async with simulated_players.client_for(server, _SESSIONS.value) as client:
            await server.wait(client, warm=True)
            tallies = {agent: simulated_players.Tally() for agent in strengths}
            start = time.monotonic() + _WARM_UP.value
            stop = start + _SECONDS.value
            players = []
            for i in range(_SESSIONS.value):
                agent = strengths[i % len(strengths)]
                rng = random.Random(_SEED.value * 1000 + i)
                players.append(simulated_players.player(client, rng, tallies[agent], stop, agent))
            await asyncio.gather(*players)
    finally:
        server.stop()
    print(f"{_SESSIONS.value} players at mixed strengths, {_SECONDS.value:.0f} s counted")
    for agent, tally in tallies.items():
        summary = simulated_players.summary(tally.latencies(start, stop), _SECONDS.value)
        print(f"  {agent:>20}: {summary}")
    everyone = simulated_players.Tally(
        moves=[m for t in tallies.values() for m in t.moves],
        errors=[e for t in tallies.values() for e in t.errors],
    )
    latencies = everyone.latencies(start, stop)
    print(f"  {'all':>20}: {simulated_players.summary(latencies, _SECONDS.value)}")
    print(f"  {common.errors(everyone)}")
    return {
        "moves_per_s": len(latencies) / _SECONDS.value,
        "p99_ms": float(np.percentile(latencies, 99) * 1000),
        "errors": everyone.error_count(),
    }


def main(argv: list[str]) -> None:
    common.begin(argv, "mixed")
    common.report(asyncio.run(_mixed()))


if __name__ == "__main__":
    app.run(main)
