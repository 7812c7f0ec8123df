r"""Load on the play server: many people playing the shipped Connect Four agent at once.

    python -m experiments.benchmark_serve [--sessions=50] [--seconds=60] [--warm_up=10]

Starts ``experiments.serve`` twice on loopback, once with batched searches (the server's
default sizes, or ``--batch_sizes``) and once searching one position at a time. Each of
``--sessions`` simulated players starts a game of Connect Four 6x7 against
``az:pretrained`` at its default strength on a random side, plays random legal moves as
fast as the answers come, and starts a new game when one ends. Once the server has
compiled its searches (its warm-up) and after ``--warm_up`` seconds of play, it counts for
``--seconds``: moves per second (a move is one request: the player's move and the agent's
reply), the latency of a move (p50, p99), errors (any answer but 200, or a failed request:
must be 0) and, from ``/api/stats``, positions searched per device call. The last line is
the batched server's throughput over the one-at-a-time server's.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time

import httpx
import numpy as np
from absl import app, flags

from experiments import cli

_SESSIONS = flags.DEFINE_integer("sessions", 50, "Concurrent simulated players.")
_SECONDS = flags.DEFINE_float("seconds", 60.0, "Measured seconds per server.")
_WARM_UP = flags.DEFINE_float("warm_up", 10.0, "Unmeasured seconds of play first.")
_MODES = flags.DEFINE_list("modes", ["batched", "unbatched"], "Servers to measure.")
_SEED = flags.DEFINE_integer("seed", 0, "The players' randomness.")
_BATCHED_SIZES = flags.DEFINE_string(
    "batch_sizes", "", "The batched server's --batch_sizes; default: the server's own."
)

_MODE_NAMES = ("batched", "unbatched")
_GAME = {"game": "connect_four", "agent": "az:pretrained"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_server(port: int, batch_sizes: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "experiments.serve", f"--port={port}"]
    command += [f"--batch_sizes={batch_sizes}"] if batch_sizes else []
    command += ["--max_sessions=1000"]
    return subprocess.Popen(command, env={**os.environ, "PYTHONUNBUFFERED": "1"})


async def _wait_ready(client: httpx.AsyncClient, server: subprocess.Popen) -> None:
    """Until the server answers and has compiled its searches (its warm-up)."""
    for _ in range(6000):
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            if (await client.get("/api/stats")).json()["warm"]:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("the server was not ready within 10 minutes")


class Tally:
    def __init__(self):
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.counting = False


async def _player(client: httpx.AsyncClient, rng: random.Random, tally: Tally, stop: float):
    view = None
    while time.monotonic() < stop:
        try:
            if view is None or view["over"]:
                if view is not None:
                    await client.delete(f"/api/sessions/{view['id']}")
                body = {**_GAME, "human": rng.choice(["first", "second"])}
                response = await client.post("/api/sessions", json=body)
            else:
                move = rng.choice(view["legal_moves"])
                began = time.perf_counter()
                response = await client.post(
                    f"/api/sessions/{view['id']}/moves", json={"move": move}
                )
                if tally.counting and response.status_code == 200:
                    tally.latencies.append(time.perf_counter() - began)
            if response.status_code != 200:
                raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
            view = response.json()
        except Exception as error:  # counted, then the player starts a new game
            if tally.counting:
                tally.errors.append(repr(error))
            view = None


async def _measure(mode: str) -> dict:
    port = _free_port()
    server = _start_server(port, _BATCHED_SIZES.value if mode == "batched" else "1")
    limits = httpx.Limits(max_connections=_SESSIONS.value + 10)
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", timeout=120, limits=limits
        ) as client:
            await _wait_ready(client, server)
            tally = Tally()
            rngs = [random.Random(_SEED.value * 1000 + i) for i in range(_SESSIONS.value)]
            start = time.monotonic()
            stop = start + _WARM_UP.value + _SECONDS.value
            players = [_player(client, rng, tally, stop) for rng in rngs]
            gathered = asyncio.gather(*players)
            await asyncio.sleep(_WARM_UP.value)
            before = (await client.get("/api/stats")).json()
            tally.counting, counted_from = True, time.monotonic()
            await gathered
            elapsed = time.monotonic() - counted_from
            after = (await client.get("/api/stats")).json()
    finally:
        server.terminate()
        server.wait(timeout=60)
    latencies = np.array(tally.latencies) * 1000
    searched = after["positions"] - before["positions"]
    calls = after["batches"] - before["batches"]
    return {
        "mode": mode,
        "moves_per_s": len(latencies) / elapsed,
        "p50_ms": float(np.percentile(latencies, 50)) if len(latencies) else float("nan"),
        "p99_ms": float(np.percentile(latencies, 99)) if len(latencies) else float("nan"),
        "moves": len(latencies),
        "errors": len(tally.errors),
        "first_error": tally.errors[0] if tally.errors else None,
        "positions_per_call": searched / max(calls, 1),
    }


def main(argv: list[str]) -> None:
    cli.begin(argv)
    unknown = set(_MODES.value) - set(_MODE_NAMES)
    if unknown:
        raise app.UsageError(f"--modes: expected some of {', '.join(_MODE_NAMES)}, got {unknown}.")
    print(
        f"{_SESSIONS.value} players, random legal moves against {_GAME['agent']} (Connect Four "
        f"6x7, default strength); {_WARM_UP.value:.0f} s warm-up, {_SECONDS.value:.0f} s counted; "
        f"{os.cpu_count()} CPU cores."
    )
    results = {}
    for mode in _MODES.value:
        results[mode] = asyncio.run(_measure(mode))
        r = results[mode]
        print(
            f"{mode:>9}: {r['moves_per_s']:7.1f} moves/s  p50 {r['p50_ms']:7.1f} ms  "
            f"p99 {r['p99_ms']:7.1f} ms  errors {r['errors']}  "
            f"{r['positions_per_call']:.1f} positions per search call  ({r['moves']} moves)",
            flush=True,
        )
        if r["first_error"]:
            print(f"           first error: {r['first_error']}")
    if {"batched", "unbatched"} <= set(results):
        ratio = results["batched"]["moves_per_s"] / results["unbatched"]["moves_per_s"]
        print(f"batched / one at a time: {ratio:.2f}x moves/s")
    print(json.dumps(results))


if __name__ == "__main__":
    app.run(main)
