"""``alphazero-serve`` (``cli/serve.py``, as ``python -m experiments.serve``): it answers, and
refuses bad flags in one line."""

from __future__ import annotations

import socket
import stat
import subprocess
import sys
import time

import httpx


def test_experiments_serve_answers_and_refuses_bad_flags(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cache = tmp_path / "cache" / "jax"
    command = [sys.executable, "-m", "experiments.serve", f"--port={port}", "--nowarm_up"]
    command.append(f"--compilation_cache_dir={cache}")
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["games"]
    finally:
        server.terminate()
        output = server.communicate(timeout=60)[0]
    assert f"Serving http://127.0.0.1:{port}/" in output
    assert cache.is_dir() and stat.S_IMODE(cache.stat().st_mode) == 0o700  # yours alone
    bad = subprocess.run(
        [sys.executable, "-m", "experiments.serve", "--batch_sizes=4,1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode != 0 and "batch_sizes: expected ascending" in bad.stderr
