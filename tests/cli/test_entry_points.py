"""Every entry point ends a failure in one clear line and a non-zero status, never a
traceback: a damaged run, a size beyond this machine's memory, a bad flag, a folder it
cannot write. (The training entry point's own cases are in test_train.py.)"""

import os
import pathlib
import subprocess
import sys

import pytest
from tiers import one_of_a_kind

from alphazero_jax import configs
from alphazero_jax.training import train

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def damaged_run(tmp_path_factory):
    """A Tic-Tac-Toe run whose only checkpoint has every file overwritten."""
    workdir = tmp_path_factory.mktemp("damaged") / "run"
    config = configs.get_config("tic_tac_toe", "smoke")
    config.num_iterations = 1
    train.train_and_evaluate(config, str(workdir))
    for path in (workdir / "checkpoints").rglob("*"):
        if path.is_file():
            path.write_text("garbage")
    return workdir


# The installed programs, run as `python -m <module> [judgment]` (the same `run`); the
# experiments/ shims and a research script once each.
EVALUATE, EXPORT, JUDGE = (
    "alphazero_jax.cli.evaluate",
    "alphazero_jax.cli.export",
    "alphazero_jax.cli.judge",
)
# One failure of each program in make test; the others are long (each starts a process).
CASES = [
    (EVALUATE, ["--game=connect_four", "--agents=mcts:999999999,random", "--games=2"], "at most"),
    ("experiments.evaluate", ["--game=tic_tac_toe", "--agents=random"], "at least two"),
    ("alphazero_jax.cli.play", ["--game=tic_tac_toe", "--agent=az:{run}"], "cannot be read"),
    (EXPORT, ["--workdir={run}", "--output={tmp}/agents"], "cannot be read"),
    ("experiments.export_agent", ["--workdir=/nonexistent", "--output=agents"], "no training run"),
    ("alphazero_jax.cli.serve", ["--port=0"], "--port"),
    ("experiments.benchmarks.arena", ["--matches=nope"], "--matches"),
    (JUDGE, ["proof", "--workdir={run}"], "got 'proof'"),
    (JUDGE, ["baselines", "--workdir={run}"], "cannot be read"),
    (JUDGE, ["agents", "--agents=minimax:x", "--positions=1"], "minimax"),
    (
        "alphazero_jax.cli.train",
        ["--config=connect_four:cpu", "--workdir={tmp}/w", "--config.replay.capacity=10**12"],
        "config.replay.capacity",
    ),
]
LONG_CASES = [
    (EVALUATE, ["--game=tic_tac_toe", "--agents=random,greedy", "--output=/proc/x"], "/proc/x"),
    (EVALUATE, ["--game=tic_tac_toe", "--agents=az:{run},random", "--games=2"], "cannot be read"),
    ("alphazero_jax.cli.play", ["--game=connect_four", "--agent=mcts:999999999"], "at most"),
    (EXPORT, ["--workdir=/nonexistent", "--output={tmp}/agents"], "no training run"),
    (EXPORT, ["--workdir={run}", "--output=/proc/x"], "--output=/proc/x"),
    (EXPORT, ["--workdir={run}"], "--output: expected the folder the agent goes to"),
    (JUDGE, [], "expected a judgment first"),
    (JUDGE, ["connect_four", "--workdir=/nonexistent"], "no training run"),
    # A checkpoint or an agent's folder is checked as it is: nothing trains into it.
    (JUDGE, ["tic_tac_toe", "--workdir={run}/checkpoints/1"], "cannot be read"),
    (
        JUDGE,
        ["tic_tac_toe", "--workdir={repo}/alphazero_jax/data/agents/othello-size6-legal_plane1"],
        "expected a tic_tac_toe run",
    ),
    (JUDGE, ["agents", "--sets=Nope", "--positions=1"], "--sets"),
    (JUDGE, ["agents", "--agents=az:{run}", "--positions=1"], "cannot be read"),
    (JUDGE, ["checkpoints", "--workdir={run}", "--positions=1"], "cannot be read"),
    (JUDGE, ["checkpoints", "--workdir={tmp}"], "no checkpoints"),
    (JUDGE, ["curves", "--workdir={tmp}"], "judge the run first"),
    (JUDGE, ["baselines", "--workdir={run}", "--simulations=-2"], "expected integers >= -1"),
    ("alphazero_jax.cli.play", ["--agent=random", "--simulations=8"], "expected an az: agent"),
    ("alphazero_jax.cli.play", ["--simulations=-2"], "--simulations"),
    ("alphazero_jax.cli.serve", ["--no_such_flag"], "error: Unknown command line flag"),
    (
        "experiments.train",
        ["--config=connect_four:cpu", "--workdir={tmp}/w", "--config.replay.capacity=999999999999"],
        "at most",
    ),
]


def _id(case: object) -> str:
    return str(case).removeprefix("alphazero_jax.cli.")[:40]


@pytest.mark.parametrize(
    ("module", "arguments", "said"),
    one_of_a_kind(CASES, LONG_CASES),
    ids=_id,
)
def test_entry_point__a_failure_is_one_line_and_no_traceback(
    module, arguments, said, damaged_run, tmp_path
):
    arguments = [a.format(run=damaged_run, tmp=tmp_path, repo=REPO) for a in arguments]
    command = [sys.executable, "-m", module, *arguments]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=dict(env, PYTHONPATH=REPO),
        input="",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    said_in = [line for line in lines if said in line]
    assert said_in, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr


def test_judge__help_lists_every_judgment_and_each_is_a_module_that_runs():
    from alphazero_jax.cli import judge

    done = subprocess.run(
        [sys.executable, "-m", JUDGE, "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for name, what in judge.JUDGMENTS.items():
        assert f"  {name}" in done.stdout and what in done.stdout, done.stdout
        assert (pathlib.Path(judge.__file__).parent / f"{name}.py").is_file(), name
    # A judgment's own --help names the program (here __main__.py) with the judgment, and
    # lists its flags.
    done = subprocess.run(
        [sys.executable, "-m", JUDGE, "curves", "--helpshort"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "__main__.py curves:" in done.stdout and "--workdir" in done.stdout, done.stdout
