"""Every entry point ends a failure in one clear line and a non-zero status, never a
traceback: a damaged run, a size beyond this machine's memory, a bad flag, a folder it
cannot write. (The training entry point's own cases are in test_train.py.)"""

import os
import subprocess
import sys

import pytest

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


CASES = [
    ("evaluate", ["--game=connect_four", "--agents=mcts:999999999,random", "--games=2"], "at most"),
    (
        "evaluate",
        ["--game=tic_tac_toe", "--agents=random,greedy", "--output_dir=/proc/x"],
        "/proc/x",
    ),
    ("evaluate", ["--game=tic_tac_toe", "--agents=az:{run},random", "--games=2"], "cannot be read"),
    ("play", ["--game=connect_four", "--agent=mcts:999999999"], "at most"),
    ("play", ["--game=tic_tac_toe", "--agent=az:{run}"], "cannot be read"),
    ("export_agent", ["--run={run}"], "cannot be read"),
    ("export_agent", ["--run=/nonexistent"], "no training run"),
    ("serve", ["--port=0"], "--port"),
    ("benchmarks.arena", ["--matches=nope"], "--matches"),
    ("strength.learning_proof.baselines", ["--workdir={run}"], "cannot be read"),
    ("strength.learning_proof.connect_four", ["--workdir=/nonexistent"], "no training run"),
    # A checkpoint or an agent's folder is checked as it is: nothing trains into it.
    ("strength.learning_proof.tic_tac_toe", ["--workdir={run}/checkpoints/1"], "cannot be read"),
    (
        "strength.learning_proof.tic_tac_toe",
        ["--workdir={repo}/alphazero_jax/data/agents/othello-size6-legal_plane1"],
        "expected a tic_tac_toe run",
    ),
    ("strength.perfect_play.agents", ["--sets=Nope", "--positions=1"], "--sets"),
    ("strength.perfect_play.agents", ["--agents=minimax:x", "--positions=1"], "minimax"),
    ("strength.perfect_play.agents", ["--agents=az:{run}", "--positions=1"], "cannot be read"),
    ("strength.perfect_play.checkpoints", ["--run={run}", "--positions=1"], "cannot be read"),
    ("strength.perfect_play.checkpoints", ["--run={tmp}"], "no checkpoints"),
    ("strength.perfect_play.compare", ["--runs={tmp}"], "judge the run first"),
    (
        "train",
        ["--config=connect_four:cpu", "--workdir={tmp}/w", "--config.replay.capacity=10**12"],
        "config.replay.capacity",
    ),
    (
        "train",
        ["--config=connect_four:cpu", "--workdir={tmp}/w", "--config.replay.capacity=999999999999"],
        "at most",
    ),
]


@pytest.mark.parametrize(("program", "arguments", "said"), CASES, ids=lambda c: str(c)[:40])
def test_entry_point__a_failure_is_one_line_and_no_traceback(
    program, arguments, said, damaged_run, tmp_path
):
    arguments = [a.format(run=damaged_run, tmp=tmp_path, repo=REPO) for a in arguments]
    command = [sys.executable, "-m", f"experiments.{program}", *arguments]
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
    # absl's usage errors may add one hint line ("Try --helpfull ..."), nothing more.
    assert len([line for line in lines if "Try --help" not in line]) <= 2, done.stderr
