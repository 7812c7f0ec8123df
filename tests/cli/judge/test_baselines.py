"""`alphazero-judge baselines --search`: a network judged on its game's baselines with other
play-time ``config.search`` settings (``cli.common.with_search``, tested in
tests/cli/test_common.py). The program runs as a child process: importing the judgments
offers JAX one device per core, which would change this process's devices."""

import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
QUORIDOR = REPO / "alphazero_jax" / "data" / "agents" / "quoridor-size5-walls3-distance_planes1"


@pytest.mark.long
def test_baselines__plays_with_the_search_it_is_given():
    judge = [sys.executable, "-m", "alphazero_jax.cli.judge", "baselines"]
    flags = [f"--workdir={QUORIDOR}", "--search=play_value_scale=0.2", "--opponents=random"]
    done = subprocess.run(
        [*judge, *flags, "--games=2", "--simulations=4"],
        cwd=REPO,
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "iteration 200, playing with play_value_scale=0.2" in done.stdout, done.stdout
    assert "gumbel, 4 simulations vs random       2 games: won" in done.stdout, done.stdout
