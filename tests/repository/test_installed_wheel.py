"""The package as a user gets it: the wheel, installed with its dependencies into a fresh
venv and used from an empty folder outside the checkout, with no checkout on the path.

The wheel is built from a copy of what it is made of (``pyproject.toml``, the README, the
licence and ``alphazero_jax/``), so that nothing is written into the checkout and no stale
``build/`` of it leaks in. The venv gets the package as a notebook's reader in Colab does:
the wheel uploaded to the working folder, the notebooks' set-up cell run there without
``ALPHAZERO_JAX_SOURCE`` pip-installs it (pip's cache and its configured mirrors serve the
dependencies, else the registry does). Every notebook then runs in a Jupyter kernel of the
venv, from a folder outside the checkout: the training notebook trains, checkpoints and
plots a Connect Four run there.
Under pytest-xdist the workers share one wheel and one venv.
"""

import contextlib
import fcntl
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator

import pytest
from repository.test_notebooks import NOTEBOOKS, TINY, cells, source, tiny_cell

# two minutes on two cores with pip's cache warm: pip, XLA
pytestmark = [pytest.mark.slow, pytest.mark.long]

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = {"connect_four", "othello", "quoridor", "tic_tac_toe"}
SCRIPTS = (
    "alphazero-train",
    "alphazero-play",
    "alphazero-serve",
    "alphazero-evaluate",
    "alphazero-judge",
    "alphazero-export",
)
# Settings through which the checkout could reach an installed program.
UNSET = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "ALPHAZERO_JAX_SOURCE", "ALPHAZERO_JAX_RUNS")
# The training notebook at its smallest: one iteration of the smoke preset, no evaluation.
NOTEBOOK_VALUES = {
    **TINY,
    "train_connect_four.ipynb": {
        "PRESET": "smoke",
        "OVERRIDES": {"num_iterations": 1, "evaluation.every": 0, "time_limit_minutes": 5.0},
    },
}

TRAIN = """
import importlib.util
import pathlib

import alphazero_jax
from alphazero_jax import configs
from alphazero_jax.training import train

assert importlib.util.find_spec("experiments") is None, "the checkout is on the path"
print("package:", pathlib.Path(alphazero_jax.__file__).parent)
config = configs.get_config("tic_tac_toe", "smoke")
config.num_iterations = 1
state = train.train_and_evaluate(config, "run")
print("iterations:", int(state.iteration))
"""

# Runs in the venv: every notebook in its own kernel (the venv's "python3"), all at once;
# prints one JSON line: per notebook, the set-up cell's output, every cell's printed text
# and the seconds it took.
RUN_NOTEBOOKS = """
import asyncio
import json
import sys
import time

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

kernel = KernelSpecManager().get_kernel_spec("python3").argv[0]
assert kernel == sys.executable, f"the python3 kernel is {kernel}, not this venv's"


async def run(job):
    notebook = nbformat.read(job["path"], as_version=4)
    tags = [cell.metadata.get("tags", []) for cell in notebook.cells]
    if job["parameters"]:
        at = next(i for i, tagged in enumerate(tags) if "parameters" in tagged)
        notebook.cells.insert(at + 1, nbformat.v4.new_code_cell(job["parameters"]))
    start = time.perf_counter()
    client = NotebookClient(notebook, kernel_name="python3", timeout=900)
    await client.async_execute(cwd=job["cwd"])
    set_up = next(cell for cell in notebook.cells if "setup" in cell.metadata.get("tags", []))
    printed = "".join(output.get("text", "") for output in set_up.outputs)
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    texts = [output.get("text", "") for output in outputs]
    seconds = round(time.perf_counter() - start, 1)
    return {"set_up": printed, "printed": "".join(texts), "seconds": seconds}


async def main():
    jobs = json.loads(sys.argv[1])
    results = await asyncio.gather(*(run(job) for job in jobs), return_exceptions=True)
    failed = [(job["path"], r) for job, r in zip(jobs, results) if isinstance(r, BaseException)]
    for path, error in failed:
        print(f"{path}: {error}", file=sys.stderr)
    print(json.dumps({job["path"]: r for job, r in zip(jobs, results) if not failed}))
    sys.exit(1 if failed else 0)


asyncio.run(main())
"""

# Runs in the venv: the cells given as arguments in a kernel; prints the last one's outputs.
RUN_CELLS = """
import json
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in sys.argv[1:]])
try:
    NotebookClient(notebook, kernel_name="python3", timeout=300).execute()
except CellExecutionError:
    pass
print(json.dumps(notebook.cells[-1].outputs))
"""


@contextlib.contextmanager
def _shared(request, tmp_path_factory, name: str):
    """Yields ``(folder, make)``: a folder made once per test session. Under xdist the first
    worker gets ``make`` True and the others wait on a lock, then get the folder made."""
    if not hasattr(request.config, "workerinput"):
        yield tmp_path_factory.mktemp(name), True
        return
    folder = tmp_path_factory.getbasetemp().parent / name  # the session's, not the worker's
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = pathlib.Path(f"{folder}.made")
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        yield folder, not made.exists()
        made.touch()


def _run(command: list, **options) -> subprocess.CompletedProcess:
    """Runs ``command``, failing the test with its output unless it exits with 0."""
    result = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, **options
    )
    assert result.returncode == 0, f"{result.args}\n{result.stdout}\n{result.stderr}"
    return result


def _environment(venv: pathlib.Path, **settings: str) -> dict[str, str]:
    """The environment of a shell with ``venv`` activated, on the CPU, plus ``settings``."""
    environment = {key: value for key, value in os.environ.items() if key not in UNSET}
    environment.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        VIRTUAL_ENV=str(venv),
        JAX_PLATFORMS="cpu",
        **settings,
    )
    return environment


def _jupyter_environment(venv: pathlib.Path, folder: pathlib.Path, **settings: str):
    """As ``_environment``, with Jupyter's folders in ``folder``: no kernel of the user's."""
    return _environment(
        venv,
        JUPYTER_PREFER_ENV_PATH="1",  # the venv's kernel first
        JUPYTER_DATA_DIR=str(folder / "data"),
        JUPYTER_CONFIG_DIR=str(folder / "config"),
        JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
        **settings,
    )


@pytest.fixture(scope="module")
def wheel(request, tmp_path_factory) -> pathlib.Path:
    with _shared(request, tmp_path_factory, "wheel") as (folder, make):
        if make:
            project = folder / "project"
            shutil.copytree(
                ROOT / "alphazero_jax",
                project / "alphazero_jax",
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            )
            for name in ("pyproject.toml", "README.md", "LICENSE"):
                shutil.copy(ROOT / name, project / name)
            pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", folder]
            _run([*pip, project], timeout=300)
            shutil.rmtree(project)
        (built,) = folder.glob("alphazero_jax-*.whl")
    return built


@pytest.fixture
def outside(tmp_path) -> pathlib.Path:
    """An empty working folder outside the checkout."""
    folder = tmp_path / "user"
    folder.mkdir()
    assert ROOT not in folder.parents
    return folder


@pytest.fixture(scope="module")
def venv(request, tmp_path_factory, wheel) -> Iterator[pathlib.Path]:
    with _shared(request, tmp_path_factory, "venv") as (folder, make):
        if make:
            _run([sys.executable, "-m", "venv", folder], timeout=300)
            python = folder / "bin" / "python"
            # --no-compile: compiling every dependency's bytecode would double the time.
            pip = [python, "-m", "pip", "install", "-q", "--no-compile"]
            _run([*pip, "nbclient", "ipykernel"], timeout=600)
            set_up = source(cells(NOTEBOOKS[0])[0])
            content = folder / "content"  # Colab's working folder, where its Files pane uploads
            content.mkdir()
            uploaded = shutil.copy(wheel, content)
            environment = _environment(folder, PIP_COMPILE="0")  # no ALPHAZERO_JAX_SOURCE
            installed = _run([python, "-c", set_up], cwd=content, env=environment, timeout=600)
            assert f"Installing {uploaded}" in installed.stdout, installed.stdout
            assert f"alphazero_jax: {folder}" in installed.stdout, installed.stdout
            _run([python, "-m", "ipykernel", "install", "--sys-prefix"], timeout=120)
    yield folder
    if not hasattr(request.config, "workerinput"):  # else another worker may still use it
        # A gigabyte in many small files: deleted in the background, not on the test's time.
        remove = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"
        subprocess.Popen([sys.executable, "-c", remove, folder], start_new_session=True)


def test_wheel__holds_the_page_the_shipped_data_and_the_console_scripts(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (entry_points,) = [name for name in names if name.endswith("/entry_points.txt")]
        entry_points = archive.read(entry_points).decode()
    shipped = {
        path.relative_to(ROOT).as_posix()
        for folder in ("alphazero_jax/data", "alphazero_jax/play/static")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert not shipped - names, sorted(shipped - names)
    for name in (
        "alphazero_jax/play/static/index.html",
        "alphazero_jax/play/static/games/connect_four.js",
        "alphazero_jax/data/book/connect_four-6x7.npz",
        "alphazero_jax/data/agents/connect_four-rows6-cols7-connect4/variables.msgpack",
        "alphazero_jax/configs/__init__.py",
    ):
        assert name in names, name
    assert len([name for name in names if name.endswith("/agent.json")]) >= 6  # 4 games
    assert not [name for name in names if not name.startswith("alphazero_jax")]
    for script in SCRIPTS:
        assert f"{script} = alphazero_jax.cli." in entry_points, entry_points


def test_installed__trains_a_packaged_preset_through_the_python_api(venv, outside):
    result = _run(
        [venv / "bin" / "python", "-c", TRAIN],
        cwd=outside,
        env=_environment(venv),
        timeout=600,
    )
    assert f"package: {venv}" in result.stdout and "iterations: 1" in result.stdout, result
    assert (outside / "run" / "config.json").is_file()
    assert any((outside / "run" / "checkpoints").iterdir())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()


def _wait_for_page(url: str, server: subprocess.Popen, log: pathlib.Path) -> bytes:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert server.poll() is None, f"alphazero-serve exited:\n{log.read_text()}"
        try:
            return _get(url)
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.5)
    raise AssertionError(f"alphazero-serve did not answer in 300 s:\n{log.read_text()}")


def test_installed__alphazero_serve_serves_the_page_and_the_games(venv, outside, tmp_path):
    port = _free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as output:
        server = subprocess.Popen(
            [venv / "bin" / "alphazero-serve", f"--port={port}", "--nowarm_up"],
            cwd=outside,
            env=_environment(venv),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        page = _wait_for_page(f"http://127.0.0.1:{port}/", server, log)
        assert b"<html" in page and b'src="app.js"' in page
        assert b"import" in _get(f"http://127.0.0.1:{port}/app.js")
        listed = json.loads(_get(f"http://127.0.0.1:{port}/api/games"))
        assert {game["name"] for game in listed["games"]} == GAMES
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_installed__alphazero_play_plays_a_terminal_game(venv, outside):
    result = _run(
        [venv / "bin" / "alphazero-play", "--game=tic_tac_toe", "--agent=random"],
        input="b2\nmoves\nquit\n",
        cwd=outside,
        env=_environment(venv),
        timeout=300,
    )
    assert "Your move (" in result.stdout and "Moves: b2 " in result.stdout, result.stdout


def test_installed__a_network_trained_exported_judged_and_rated_by_the_programs(venv, outside):
    """The programs a pip user has for a trained network, on a one-iteration Tic-Tac-Toe run:
    alphazero-export into a folder of theirs, alphazero-judge's learning proof and perfect
    play (on the labels shipped in the package), alphazero-evaluate's Elo ladder."""

    def program(name: str, *arguments: str) -> str:
        command = [venv / "bin" / name, *arguments]
        return _run(command, cwd=outside, env=_environment(venv), timeout=600).stdout

    program(
        "alphazero-train",
        "--config=tic_tac_toe:smoke",
        "--workdir=run",
        "--config.num_iterations=1",
        "--config.evaluation.every=0",
    )
    exported = program("alphazero-export", "--workdir=run", "--output=agents")
    (agent,) = (outside / "agents").iterdir()
    assert (agent / "agent.json").is_file() and (agent / "variables.msgpack").is_file()
    assert f"az:agents/{agent.name} now plays it" in exported, exported
    spec = f"az:agents/{agent.name}"

    proof = program("alphazero-judge", "tic_tac_toe", f"--workdir={agent}", "--simulations=2")
    assert "iteration 1, checked as it is" in proof, proof
    assert "positions checked: 4520" in proof and "optimal moves, raw policy: " in proof, proof
    perfect = program(
        "alphazero-judge",
        "agents",
        "--agents=random,greedy",
        "--sets=Random_Play",
        "--positions=10",
        "--output=judged",
    )
    assert "| agent | Random-Play (10) |" in perfect and "| greedy | " in perfect, perfect
    assert (outside / "judged" / "mistakes.json").is_file()

    rated = program(
        "alphazero-evaluate",
        "--game=tic_tac_toe",
        f"--agents={spec}:2,random",
        "--games=4",
        "--output=ladder",
    )
    assert "[1/1] " in rated and "Elo ladder (random = 0" in rated, rated
    ladder = json.loads((outside / "ladder" / "ladder.json").read_text())
    assert len(ladder["ratings"]) == 2, ladder


def test_installed__notebooks_run_in_a_jupyter_kernel_of_the_venv(venv, outside, tmp_path):
    runs = tmp_path / "runs"
    jobs = [
        {
            "path": str(path),
            "parameters": tiny_cell(NOTEBOOK_VALUES[path.name])
            if path.name in NOTEBOOK_VALUES
            else "",
            "cwd": str(outside),
        }
        for path in NOTEBOOKS
    ]
    result = _run(
        [venv / "bin" / "python", "-c", RUN_NOTEBOOKS, json.dumps(jobs)],
        cwd=outside,
        env=_jupyter_environment(venv, tmp_path / "jupyter", ALPHAZERO_JAX_RUNS=str(runs)),
        timeout=900,
    )
    reports = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(reports) == {job["path"] for job in jobs}
    for path, report in reports.items():
        assert f"alphazero_jax: {venv}" in report["set_up"], (path, report)
        assert f"runs: {runs}" in report["set_up"], (path, report)
    (training,) = [r for path, r in reports.items() if path.endswith("train_connect_four.ipynb")]
    plan = "Plan: up to 1 iterations of "
    budget = "training stops after 5 minutes (time_limit_minutes), with a checkpoint."
    assert plan in training["printed"] and budget in training["printed"], training["printed"]
    assert "iterations: 1 positions: " in training["printed"], training["printed"]
    assert any((runs / "connect_four_notebook" / "checkpoints").iterdir())
    print({pathlib.Path(path).name: report["seconds"] for path, report in reports.items()})


def test_installed__set_up_cell_without_the_package_or_a_source__stops_in_one_line(
    venv, outside, tmp_path
):
    blocked = "import sys\nsys.modules['alphazero_jax'] = None  # the import fails"
    set_up = source(cells(NOTEBOOKS[0])[0])
    result = _run(
        [venv / "bin" / "python", "-c", RUN_CELLS, blocked, set_up],
        cwd=outside,
        env=_jupyter_environment(venv, tmp_path / "jupyter"),
        timeout=300,
    )
    (output,) = json.loads(result.stdout.strip().splitlines()[-1])  # no warning, no print
    assert output["ename"] == "SystemExit", output
    assert output["evalue"].startswith("alphazero_jax is not installed here: set ALPHAZERO_JAX")
    assert len(output["traceback"]) == 2, output  # IPython's "An exception has occurred"
