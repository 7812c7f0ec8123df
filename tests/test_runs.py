"""Run directories: a run trained on one device count is read on another."""

import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from alphazero_jax import agents, configs, games, runs
from alphazero_jax.training import train

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_RESTORE = """
import sys, jax, numpy as np
from alphazero_jax import agents, games, runs
workdir, out = sys.argv[1:]
assert jax.device_count() == 3, jax.devices()
run = runs.restore_network(workdir)
game = games.make("tic_tac_toe")
agent = agents.from_spec(game, "az:" + workdir)
states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 3))
moves = jax.jit(agent.act_fn)(agent.params, jax.random.key(1), states)
leaves = {str(i): np.asarray(x) for i, x in enumerate(jax.tree.leaves(run.variables))}
np.savez(out, moves=np.asarray(moves), iteration=run.iteration, **leaves)
"""


@pytest.mark.long
def test_restore_network__reads_a_run_trained_on_one_device_where_jax_sees_three(tmp_path):
    assert jax.device_count() == 1
    config = configs.get_config("tic_tac_toe", "smoke")
    config.selfplay.batch_size = 4  # does not divide over 3 devices: no matter for reading
    workdir = str(tmp_path / "run")
    state = train.train_and_evaluate(config, workdir)
    env = dict(
        os.environ,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=3",
        PYTHONPATH=REPO,
    )
    out = str(tmp_path / "restored.npz")
    done = subprocess.run(
        [sys.executable, "-c", _RESTORE, workdir, out],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    restored = np.load(out)
    trained = jax.tree.leaves(state.learner.variables)
    assert int(restored["iteration"]) == config.num_iterations
    for index, leaf in enumerate(trained):
        np.testing.assert_array_equal(restored[str(index)], np.asarray(leaf))
    game = games.make("tic_tac_toe")
    agent = agents.from_spec(game, "az:" + workdir)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 3))
    moves = jax.jit(agent.act_fn)(agent.params, jax.random.key(1), states)
    np.testing.assert_array_equal(restored["moves"], np.asarray(moves))


def test_split_checkpoint_path__run_directories_and_checkpoints():
    assert runs.split_checkpoint_path("runs/a") == ("runs/a", None)
    assert runs.split_checkpoint_path("runs/a/checkpoints/40/") == ("runs/a", 40)
    assert runs.split_checkpoint_path("runs/40") == ("runs/40", None)


def test_restore_network__a_directory_without_a_run_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"is no training run: it has no config\.json"):
        runs.restore_network(str(tmp_path))
