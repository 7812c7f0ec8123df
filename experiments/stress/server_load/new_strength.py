r"""Players joining at once at a strength the play server has not compiled yet.

    python -m experiments.stress.server_load.new_strength [--joiners=20] [--simulations=8]

``--warm_players`` play at the default strength; after ``--before`` s, ``--joiners``
players start at once at ``--simulations`` simulations, the agent opening. It reports the
joiners' wait for the agent's first move, and the warm players' latency before and while
the new strength compiles (until the server compiles nothing). Its server keeps no
compilation cache (unless the cache flags are given), so that the new strength is
compiled, not loaded from an earlier run.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
from absl import app, flags

from experiments.stress import simulated_players
from experiments.stress.server_load import common

_JOINERS = flags.DEFINE_integer("joiners", 20, "Players joining at once.")
_WARM_PLAYERS = flags.DEFINE_integer("warm_players", 5, "Players already in.")
_BEFORE = flags.DEFINE_float("before", 10.0, "Seconds measured before they join.")
_SIMULATIONS = flags.DEFINE_integer("simulations", 8, "The joiners' simulations.")


async def _new_strength() -> dict:
    strength = _SIMULATIONS.value
    new = f"{common.DEFAULT}:{strength}"
    server = simulated_players.Server(common.cache_arguments() or ["--nocompilation_cache"])
    count = _WARM_PLAYERS.value + _JOINERS.value
    try:
        async with simulated_players.client_for(server, count) as client:
            await server.wait(client, warm=True)
            warm, joiners = simulated_players.Tally(), simulated_players.Tally()
            start = time.monotonic()
            agents = [common.DEFAULT] * _WARM_PLAYERS.value
            players = common.players(client, warm, float("inf"), agents, seed=1)
            running = [asyncio.ensure_future(p) for p in players]
            await asyncio.sleep(_BEFORE.value)
            joined = time.monotonic()
            stop = joined + 600
            newcomers = [new] * _JOINERS.value
            arrivals = common.players(client, joiners, stop, newcomers, seed=2, human="second")
            running += [asyncio.ensure_future(p) for p in arrivals]
            while len(joiners.openings) < _JOINERS.value and time.monotonic() < stop:
                await asyncio.sleep(0.05)
            compiled = await server.idle(client)
            await asyncio.sleep(2.0)
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
    finally:
        server.stop()
    waits = [s for _, s in sorted(joiners.openings)[: _JOINERS.value]]  # each one's first
    print(f"{_JOINERS.value} players join at az:pretrained:{strength} (not compiled yet)")
    print(f"  first move:   p50 {waits[len(waits) // 2]:.2f} s, max {max(waits):.2f} s")
    print(f"  all compiled {compiled - joined:.1f} s after they joined")
    before, during = warm.latencies(start, joined), warm.latencies(joined, compiled)
    print(f"  warm players before: {simulated_players.summary(before)}")
    print(f"  warm players during: {simulated_players.summary(during)}")
    everyone = simulated_players.Tally(errors=warm.errors + joiners.errors)
    print(f"  {common.errors(everyone)}")
    return {
        "strength": strength,
        "first_move_p50_s": waits[len(waits) // 2],
        "first_move_max_s": max(waits),
        "warm_p99_before_ms": float(np.percentile(before, 99) * 1000),
        "warm_p99_during_ms": float(np.percentile(during, 99) * 1000),
        "errors": everyone.error_count(),
    }


def main(argv: list[str]) -> None:
    common.begin(argv, "new_strength")
    common.report(asyncio.run(_new_strength()))


if __name__ == "__main__":
    app.run(main)
