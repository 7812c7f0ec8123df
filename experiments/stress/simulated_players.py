"""Load on the play server over loopback: simulated players against ``experiments.serve``.

A player starts a game of Connect Four 6x7 against ``az:pretrained`` at its strength,
plays random legal moves as fast as the answers come, and starts a new game when one
ends. Every answer is timed: a move (one request: the player's move and the agent's
reply), and the start of a game where the agent opens (its first move). Anything but a
200, or a failed request, is an error. The scenarios (``server_load/``) read these
records by time window.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import numpy as np

GAME = "connect_four"


@dataclasses.dataclass
class Tally:
    """What a group of players saw, each record stamped with ``time.monotonic()``."""

    moves: list[tuple[float, float]] = dataclasses.field(default_factory=list)  # (end, s)
    openings: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    errors: list[tuple[float, str]] = dataclasses.field(default_factory=list)

    def latencies(self, start: float = 0.0, stop: float = float("inf")) -> np.ndarray:
        """Seconds per move of the moves answered within ``[start, stop)``."""
        return np.array([s for end, s in self.moves if start <= end < stop])

    def error_count(self, start: float = 0.0, stop: float = float("inf")) -> int:
        return sum(start <= when < stop for when, _ in self.errors)


def summary(latencies: np.ndarray, seconds: float | None = None) -> str:
    """ "p50 ... ms  p99 ... ms (n moves[, x moves/s])"."""
    if not len(latencies):
        return "no moves"
    p50, p99 = np.percentile(latencies * 1000, [50, 99])
    rate = f", {len(latencies) / seconds:.1f} moves/s" if seconds else ""
    return f"p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  ({len(latencies)} moves{rate})"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """``python -m experiments.serve`` on a free loopback port, with ``arguments``."""

    def __init__(self, arguments: list[str]):
        self.port = free_port()
        command = [sys.executable, "-m", "experiments.serve", f"--port={self.port}"]
        command += ["--max_sessions=1000", *arguments]
        self.started = time.monotonic()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(command, env=env)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)

    async def stats(self, client: httpx.AsyncClient) -> dict:
        return (await client.get("/api/stats")).json()

    async def wait(self, client: httpx.AsyncClient, *, warm: bool) -> float:
        """Seconds from the start until the server answers (``warm``: and has compiled its
        warm-up), polled every 0.1 s."""
        for _ in range(12_000):
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                stats = await self.stats(client)
                if stats["warm"] or not warm:
                    return time.monotonic() - self.started
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
        raise RuntimeError("the server was not ready within 20 minutes")

    async def idle(self, client: httpx.AsyncClient) -> float:
        """Waits until nothing compiles or waits to compile; returns when that was."""
        while True:
            compiling = (await self.stats(client))["compiling"]
            if not compiling["running"] and not compiling["queued"]:
                return time.monotonic()
            await asyncio.sleep(0.1)


def client_for(server: Server, players: int) -> httpx.AsyncClient:
    # Idle connections are dropped after 1 s, before the server's 5 s: a request sent on a
    # connection the server is closing would fail for want of a retry, not of an answer.
    limits = httpx.Limits(max_connections=players + 10, keepalive_expiry=1.0)
    return httpx.AsyncClient(base_url=server.url, timeout=300, limits=limits)


async def player(
    client: httpx.AsyncClient,
    rng: random.Random,
    tally: Tally,
    stop: float,
    agent: str,
    *,
    human: str | None = None,
) -> None:
    """Plays games against ``agent`` until ``stop`` (``time.monotonic()``); ``human``:
    the player's side in every game (None: a random side per game)."""
    view = None
    while time.monotonic() < stop:
        try:
            began = time.perf_counter()
            if view is None or view["over"]:
                if view is not None:
                    await client.delete(f"/api/sessions/{view['id']}")
                side = human or rng.choice(["first", "second"])
                body = {"game": GAME, "agent": agent, "human": side}
                began = time.perf_counter()
                response = await client.post("/api/sessions", json=body)
                record = tally.openings if side == "second" else None
            else:
                move = rng.choice(view["legal_moves"])
                path = f"/api/sessions/{view['id']}/moves"
                response = await client.post(path, json={"move": move})
                record = tally.moves
            if response.status_code != 200:
                raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
            if record is not None:
                record.append((time.monotonic(), time.perf_counter() - began))
            view = response.json()
        except Exception as error:  # counted, then the player starts a new game
            tally.errors.append((time.monotonic(), repr(error)))
            view = None


def fresh_cache() -> str:
    """A new empty folder (mode 0700) for a server's compilation cache."""
    return tempfile.mkdtemp(prefix="alphazero_jax_cache_")


def remove(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def folder_bytes(folder: str) -> int:
    return sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(folder)
        for name in names
    )
