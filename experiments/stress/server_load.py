r"""Load on the play server: many people playing the shipped Connect Four agent at once.

    python -m experiments.stress.server_load [--scenario=load] [--sessions=50] [--seconds=60]
    python -m experiments.stress.server_load --scenario=new_strength [--joiners=20]
    python -m experiments.stress.server_load --scenario=mixed [--strengths=0,8,16,32,64]
    python -m experiments.stress.server_load --scenario=warm_start

Each scenario starts ``experiments.serve`` on loopback and simulated players
(``experiments/stress/simulated_players.py``) who play random legal moves against
``az:pretrained`` (Connect Four 6x7) as fast as the answers come. A move is one request
(the player's move and the agent's reply); an error is any answer but 200, or a failed
request (must be 0).

- ``load``: ``--sessions`` players at the default strength, once with batched searches
  and once one position at a time (``--modes``); after the warm-up and ``--warm_up`` s of
  play it counts ``--seconds``: moves/s, p50/p99 latency, positions per search call.
- ``new_strength``: ``--warm_players`` play at the default strength; after ``--before`` s,
  ``--joiners`` players start at once at ``--new_strength`` simulations, the agent
  opening. It reports the joiners' wait for the agent's first move, and the warm players'
  latency before and while the new strength compiles (until the server compiles nothing).
  Its server keeps no compilation cache (unless the cache flags are given), so that the
  new strength is compiled, not loaded from an earlier run.
- ``mixed``: ``--sessions`` players for ``--seconds``, each at one of ``--strengths``
  (those other than the default compile while they play), after ``--warm_up`` s.
- ``warm_start``: starts the server twice on one new empty compilation cache: seconds
  until it answers and until its warm-up is done, first with the cache empty, then full.

Servers use the per-user compilation cache unless ``--compilation_cache_dir`` or
``--nocompilation_cache`` is given (passed on to them); ``warm_start`` always uses its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time

import numpy as np
from absl import app, flags

from alphazero_jax.cli import common as cli
from experiments.stress import simulated_players

_SCENARIO = flags.DEFINE_enum(
    "scenario", "load", ["load", "new_strength", "mixed", "warm_start"], "What to measure."
)
_SESSIONS = flags.DEFINE_integer("sessions", 50, "load, mixed: concurrent simulated players.")
_SECONDS = flags.DEFINE_float("seconds", 60.0, "load, mixed: measured seconds per server.")
_WARM_UP = flags.DEFINE_float("warm_up", 10.0, "load, mixed: unmeasured seconds of play first.")
_MODES = flags.DEFINE_list("modes", ["batched", "unbatched"], "load: servers to measure.")
_SEED = flags.DEFINE_integer("seed", 0, "The players' randomness.")
_BATCHED_SIZES = flags.DEFINE_string(
    "batch_sizes", "", "The batched server's --batch_sizes; default: the server's own."
)
_JOINERS = flags.DEFINE_integer("joiners", 20, "new_strength: players joining at once.")
_WARM_PLAYERS = flags.DEFINE_integer("warm_players", 5, "new_strength: players already in.")
_BEFORE = flags.DEFINE_float("before", 10.0, "new_strength: seconds measured before joining.")
_NEW_STRENGTH = flags.DEFINE_integer("new_strength", 8, "new_strength: the joiners' simulations.")
_STRENGTHS = flags.DEFINE_list("strengths", ["0", "8", "16", "32", "64"], "mixed: simulations.")

_MODE_NAMES = ("batched", "unbatched")
DEFAULT = "az:pretrained"  # at its default strength, which the warm-up compiles


def _cache_arguments() -> list[str]:
    """This command's compilation-cache flags, for the servers it starts."""
    values = flags.FLAGS
    if not values.compilation_cache:
        return ["--nocompilation_cache"]
    if values.compilation_cache_dir:
        return [f"--compilation_cache_dir={values.compilation_cache_dir}"]
    return []


def _errors(tally: simulated_players.Tally) -> str:
    count = tally.error_count()
    return f"errors: {count}" + (f" (first: {tally.errors[0][1]})" if count else "")


def _players(client, tally, stop, agents, *, seed, human=None):
    return [
        simulated_players.player(
            client, random.Random(seed * 1000 + i), tally, stop, agent, human=human
        )
        for i, agent in enumerate(agents)
    ]


async def _load(mode: str) -> dict:
    sizes = _BATCHED_SIZES.value if mode == "batched" else "1"
    server = simulated_players.Server(
        ([f"--batch_sizes={sizes}"] if sizes else []) + _cache_arguments()
    )
    try:
        async with simulated_players.client_for(server, _SESSIONS.value) as client:
            await server.wait(client, warm=True)
            tally = simulated_players.Tally()
            start = time.monotonic() + _WARM_UP.value
            stop = start + _SECONDS.value
            players = _players(client, tally, stop, [DEFAULT] * _SESSIONS.value, seed=_SEED.value)
            gathered = asyncio.gather(*players)
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


async def _new_strength() -> dict:
    strength = _NEW_STRENGTH.value
    new = f"{DEFAULT}:{strength}"
    server = simulated_players.Server(_cache_arguments() or ["--nocompilation_cache"])
    count = _WARM_PLAYERS.value + _JOINERS.value
    try:
        async with simulated_players.client_for(server, count) as client:
            await server.wait(client, warm=True)
            warm, joiners = simulated_players.Tally(), simulated_players.Tally()
            start = time.monotonic()
            players = _players(client, warm, float("inf"), [DEFAULT] * _WARM_PLAYERS.value, seed=1)
            running = [asyncio.ensure_future(p) for p in players]
            await asyncio.sleep(_BEFORE.value)
            joined = time.monotonic()
            stop = joined + 600
            newcomers = [new] * _JOINERS.value
            arrivals = _players(client, joiners, stop, newcomers, seed=2, human="second")
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
    print(f"  {_errors(everyone)}")
    return {
        "strength": strength,
        "first_move_p50_s": waits[len(waits) // 2],
        "first_move_max_s": max(waits),
        "warm_p99_before_ms": float(np.percentile(before, 99) * 1000),
        "warm_p99_during_ms": float(np.percentile(during, 99) * 1000),
        "errors": everyone.error_count(),
    }


async def _mixed() -> dict:
    strengths = [f"{DEFAULT}:{int(s)}" for s in _STRENGTHS.value]
    # Every simulated player connects from 127.0.0.1, one client to the server's rate of new
    # agents: each strength's first player may not wait its turn.
    server = simulated_players.Server([*_cache_arguments(), "--new_agents_per_minute=0"])
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
    print(f"  {_errors(everyone)}")
    return {
        "moves_per_s": len(latencies) / _SECONDS.value,
        "p99_ms": float(np.percentile(latencies, 99) * 1000),
        "errors": everyone.error_count(),
    }


async def _warm_start() -> dict:
    cache, times = simulated_players.fresh_cache(), {}
    try:
        for start in ("first", "second"):
            server = simulated_players.Server([f"--compilation_cache_dir={cache}"])
            try:
                async with simulated_players.client_for(server, 1) as client:
                    answering = await server.wait(client, warm=False)
                    warm = await server.wait(client, warm=True)
            finally:
                server.stop()
            times[start] = warm
            print(
                f"{start} start ({'empty' if start == 'first' else 'full'} cache): answers after "
                f"{answering:.1f} s, warm after {warm:.1f} s",
                flush=True,
            )
        print(f"cache: {simulated_players.folder_bytes(cache) / 1e6:.1f} MB")
    finally:
        simulated_players.remove(cache)
    return times


def main(argv: list[str]) -> None:
    cli.begin(argv)
    unknown = set(_MODES.value) - set(_MODE_NAMES)
    if unknown:
        raise app.UsageError(f"--modes: expected some of {', '.join(_MODE_NAMES)}, got {unknown}.")
    print(f"scenario {_SCENARIO.value}; {os.cpu_count()} CPU cores, server and players share them")
    if _SCENARIO.value == "load":
        results = {mode: asyncio.run(_load(mode)) for mode in _MODES.value}
        if {"batched", "unbatched"} <= set(results):
            ratio = results["batched"]["moves_per_s"] / results["unbatched"]["moves_per_s"]
            print(f"batched / one at a time: {ratio:.2f}x moves/s")
    else:
        scenarios = {"new_strength": _new_strength, "mixed": _mixed, "warm_start": _warm_start}
        results = asyncio.run(scenarios[_SCENARIO.value]())
    print(json.dumps(results))


if __name__ == "__main__":
    app.run(main)
