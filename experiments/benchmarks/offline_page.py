r"""The offline play page's speed (alphazero-export-web --page): each shipped agent in headless
Chromium (ONNX Runtime Web, one thread, and the JavaScript search) beside the same agent in
JAX, on the same positions.

    python -m experiments.benchmarks.offline_page [--agents=<key>,...] [--moves=12]

Needs ``npm ci`` (ONNX Runtime Web) and Debian's chromium and chromium-driver. The page is
built into a temporary folder and served by ``python -m http.server``. For each agent, a new
browser (nothing cached) opens the page with the agent playing both sides, and ``--moves``
moves are timed: the first move from the page's first byte (loading the page, ONNX Runtime's
WebAssembly and the network included), then the median search of the others. JAX then
searches the positions the browser searched (batch 1, compiled first), median a move, and
its first call (compiling) is reported too. Prints one row per agent, with the bundle's size.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import jax
from absl import app, flags

from alphazero_jax import games
from alphazero_jax.agents import alphazero, pretrained
from alphazero_jax.cli import common as cli

_AGENTS = flags.DEFINE_list("agents", [], "Shipped agents' keys to time (default: all).")
_MOVES = flags.DEFINE_integer("moves", 12, "Agent moves timed per agent (the first included).")
ORT = pathlib.Path("node_modules/onnxruntime-web/dist")


def _serve(folder: pathlib.Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    return server, f"http://127.0.0.1:{port}/"


def _browser_moves(url: str, key: str, moves: int) -> dict:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get(f"{url}?agent={key}&human=none")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            timings = driver.execute_script(
                "return window.offlinePage && window.offlinePage.timings"
            )
            over = driver.execute_script("return document.body.dataset.over === 'true'")
            if timings and (len(timings) >= moves or over):
                break
            time.sleep(0.2)
        driver.execute_script("window.offlinePage.autoplay = false")
        actions = driver.execute_script("return window.offlinePage.game.actions")
        return {"timings": timings[:moves], "actions": actions[: len(timings[:moves])]}
    finally:
        driver.quit()


def _jax_moves(key: str, actions: list[int]) -> dict:
    described = json.loads((pretrained.directory() / key / pretrained.AGENT_FILE).read_text())
    game = games.make(described["game"], **described["settings"])
    agent = alphazero.az_agent(game, pretrained.SPEC_NAME)
    analyse = jax.jit(agent.analyse_fn)
    step = jax.jit(game.step)
    states, state = [], game.init(jax.random.key(0))
    for action in actions:
        states.append(jax.tree.map(lambda x: x[None], state))
        state = step(state, action)
    started = time.perf_counter()
    jax.block_until_ready(analyse(agent.params, jax.random.key(0), states[0]))
    compiled = time.perf_counter() - started
    spent = []
    for index, batch in enumerate(states):
        started = time.perf_counter()
        jax.block_until_ready(analyse(agent.params, jax.random.key(index), batch))
        spent.append(time.perf_counter() - started)
    return {"first": compiled, "median": statistics.median(spent[1:] or spent)}


def _line(row: dict) -> str:
    ratio = row["browser_median_ms"] / row["jax_median_ms"]
    return (
        f"{row['key']:<42} {row['simulations']:>3} sims  bundle {row['bundle_bytes']:>9,} B  "
        f"browser first {row['browser_first_ms']:7.0f} ms, "
        f"median {row['browser_median_ms']:6.0f} ms  "
        f"JAX first {row['jax_first_ms']:7.0f} ms, median {row['jax_median_ms']:6.1f} ms  "
        f"({ratio:.1f}x JAX; {row['moves']} moves)"
    )


def run(*, keys: list[str], moves: int) -> list[dict]:
    """Builds the page, times each agent in the browser then in JAX; prints and returns a row
    per agent (milliseconds; bytes)."""
    from alphazero_jax.play import web_bundle, web_page

    folder = pathlib.Path(tempfile.mkdtemp(prefix="offline_page_"))
    listed = web_bundle.write_page_agents(
        folder / web_page.AGENTS_FOLDER, web_bundle.shipped_runs()
    )
    web_page.write_page(folder, ORT)
    runtime = sum((folder / "ort" / name).stat().st_size for name in web_page.ORT_FILES)
    server, url = _serve(folder)
    rows = []
    try:
        for agent in listed:
            if keys and agent["key"] not in keys:
                continue
            seen = _browser_moves(url, agent["key"], moves)
            timings = seen["timings"]
            jax_times = _jax_moves(agent["key"], seen["actions"])
            row = {
                "key": agent["key"],
                "simulations": agent["num_simulations"],
                "bundle_bytes": agent["onnx_bytes"] + agent["json_bytes"],
                "moves": len(timings),
                "browser_first_ms": timings[0]["at"],
                "browser_median_ms": statistics.median(t["ms"] for t in timings[1:]),
                "jax_first_ms": jax_times["first"] * 1e3,
                "jax_median_ms": jax_times["median"] * 1e3,
            }
            rows.append(row)
            print(_line(row), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"ONNX Runtime Web's files, shared by every agent: {runtime:,} bytes")
    return rows


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if not ORT.is_dir():
        cli.fail(f"{ORT}: not found; run `npm ci` in the repository first.")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        cli.fail("needs Debian's chromium and chromium-driver (make browser installs them).")
    run(keys=_AGENTS.value, moves=_MOVES.value)


if __name__ == "__main__":
    app.run(main)
