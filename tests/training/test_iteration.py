"""The iteration over several local devices (``training.iteration``), on the CPU with 8
host devices: the path a TPU host (8 chips) or a machine with several GPUs takes, where
``train.build`` makes a one-axis mesh over ``jax.devices()``, self-play splits its slots over
it (``selfplay.shard``, a ``jax.shard_map``) and the learner's batch is split along it
(``iteration.BATCH_AXIS``).

What the design promises across device counts: the learner's update is the same (up to the
order of a sum) whatever the device count, a run trained on 8 devices resumes on 1. Self-play
is not the same: each device plays its share of the slots with its own key."""

import json
import os
import pickle
import subprocess
import sys

import jax
import ml_collections
import numpy as np
import pytest

from alphazero_jax import configs, runs
from alphazero_jax.training import train

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICES = 8
# tic_tac_toe:smoke with one slot and two learner examples per device.
OVERRIDES = {
    "selfplay.batch_size": DEVICES,
    "learner.batch_size": 2 * DEVICES,
    "num_iterations": 2,
    "evaluation.every": 0,
}

# In a process with 8 host devices: one self-play half and one learner half from the new
# run's state, saved (the state after self-play, the variables after learning); then the
# run trained for 2 iterations into the workdir, and where its arrays live.
_EIGHT = """
import json, pickle, sys
import jax, jax.numpy as jnp, numpy as np
from alphazero_jax import configs
from alphazero_jax.training import train

workdir, out, overrides, devices = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
assert jax.device_count() == int(devices), jax.devices()
config = configs.get_config("tic_tac_toe", "smoke")
config.update_from_flattened_dict(overrides)
components = train.build(config)
played, _ = components.selfplay_fn(components.initial_state)
learned, _ = components.learn_fn(jax.tree.map(jnp.copy, played))
leaves = {f"played{i}": np.asarray(x) for i, x in enumerate(jax.tree.leaves(played))}
leaves.update({f"learned{i}": np.asarray(x) for i, x in enumerate(jax.tree.leaves(learned))})
with open(out, "wb") as file:  # pickle: npz has no bfloat16
    pickle.dump(leaves, file)
state = train.train_and_evaluate(config, workdir)
devices = {len(leaf.sharding.device_set) for leaf in jax.tree.leaves(state)}
print(json.dumps({"iteration": int(state.iteration), "devices": sorted(devices)}))
"""


def _config(**more) -> ml_collections.ConfigDict:
    config = configs.get_config("tic_tac_toe", "smoke")
    config.update_from_flattened_dict({**OVERRIDES, **more})
    return config


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    """``(workdir, saved arrays, report)`` of the 8-device process."""
    folder = tmp_path_factory.mktemp("eight_devices")
    workdir, out = folder / "run", folder / "halves.pickle"
    flags = os.environ.get("XLA_FLAGS", "")
    env = dict(
        os.environ,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS=f"{flags} --xla_force_host_platform_device_count={DEVICES}".strip(),
        PYTHONPATH=REPO,
    )
    done = subprocess.run(
        [sys.executable, "-c", _EIGHT, str(workdir), str(out), json.dumps(OVERRIDES), str(DEVICES)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    with open(out, "rb") as file:
        return workdir, pickle.load(file), report


@pytest.mark.long
def test_eight_devices__the_learner_updates_as_on_one_device(eight):
    """The same state after self-play, learned from on 8 devices and on 1: the same sampled
    examples, the gradient's mean split over the devices then summed, so the same network up
    to float32 rounding."""
    _, saved, _ = eight
    assert jax.device_count() == 1
    components = train.build(_config())
    structure = jax.tree.structure(components.initial_state)
    count = structure.num_leaves
    arrays = [saved[f"played{i}"] for i in range(count)]
    placed = [
        jax.device_put(array, leaf.sharding)  # as the run's state: on the mesh, replicated
        for array, leaf in zip(arrays, jax.tree.leaves(components.initial_state), strict=True)
    ]
    played = jax.tree.unflatten(structure, placed)
    assert int(played.num_positions) > 0 and int(played.iteration) == 0
    learned, _ = components.learn_fn(played)
    leaves = jax.tree.leaves(learned)
    assert len(leaves) == count
    assert int(learned.iteration) == 1
    changed = 0
    for index, leaf in enumerate(leaves):
        on_eight, on_one = saved[f"learned{index}"], np.asarray(leaf)
        if np.issubdtype(on_one.dtype, np.floating):
            np.testing.assert_allclose(on_one, on_eight, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(on_one, on_eight)
        changed += not np.array_equal(on_eight, saved[f"played{index}"])
    assert changed > 0  # the update moved the network


@pytest.mark.long
def test_eight_devices__each_device_plays_its_own_games(eight):
    """Self-play under ``jax.shard_map``, one slot a device, each with its own key: 8 games,
    not 8 copies of one (whose positions would each be stored 8 times)."""
    _, saved, _ = eight
    state = train.build(_config()).initial_state
    leaves = jax.tree.leaves(state)

    def played(leaf) -> np.ndarray:  # the saved array of one of the state's leaves
        return saved[f"played{next(i for i, x in enumerate(leaves) if x is leaf)}"]

    filled = played(state.replay.observation)[: int(played(state.replay.size))]
    rows = np.ascontiguousarray(filled).reshape(len(filled), -1).view(np.uint16)
    assert len(filled) >= 5 * DEVICES  # a Tic-Tac-Toe game has 5 positions or more
    assert len(np.unique(rows, axis=0)) > len(filled) // 4, len(filled)


@pytest.mark.long
def test_eight_devices__train_checkpoint_and_resume_on_one_device(eight, tmp_path):
    """The 8-device run keeps its state on all 8 devices, checkpoints its 2 iterations, and
    resumes on 1 device for a third."""
    workdir, _, report = eight
    assert report == {"iteration": 2, "devices": [DEVICES]}
    assert runs.checkpoint_steps(str(workdir)) == [2]
    assert jax.device_count() == 1
    state = train.train_and_evaluate(_config(num_iterations=3), str(workdir))
    assert int(state.iteration) == 3
    assert runs.checkpoint_steps(str(workdir))[-1] == 3
    lines = (workdir / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2, 3]
