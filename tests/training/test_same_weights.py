"""Training gives, bit for bit, the weights it gave before self-play was made of parts (a
budget and an opening passed in, the config read once into a plan): the library of that
commit is taken from the repository's history and trained beside today's, in the same run
on the same machine (XLA's arithmetic differs between processors, so a stored digest would
not do)."""

import os
import pathlib
import subprocess
import sys
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BEFORE = "307e1da"  # main before the budget, the opening and the plan
DIGEST = """
import hashlib, sys, tempfile
import jax, numpy as np
import alphazero_jax
from alphazero_jax import configs
from alphazero_jax.training import train

game, preset, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
config = configs.get_config(game, preset)
config.num_iterations, config.evaluation.every = iterations, 0
with tempfile.TemporaryDirectory() as workdir:
    state = train.train_and_evaluate(config, workdir)
digest = hashlib.sha256()
for leaf in jax.tree.leaves(jax.device_get((state.learner, state.replay, state.key))):
    digest.update(np.ascontiguousarray(np.asarray(leaf)).tobytes())
print("library:", alphazero_jax.__file__)
print("digest:", digest.hexdigest(), int(state.num_positions))
"""


def _digest(library: pathlib.Path, game: str, preset: str, iterations: int) -> tuple[str, str]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(library))
    done = subprocess.run(
        [sys.executable, "-c", DIGEST, game, preset, str(iterations)],
        cwd=library,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    return lines["library"], lines["digest"]


@pytest.fixture(scope="module")
def before(tmp_path_factory) -> pathlib.Path:
    """The package as it was at ``BEFORE``, in a folder of its own."""
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{BEFORE}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    if found.returncode:
        pytest.skip(f"this checkout has no commit {BEFORE} (a shallow clone): nothing to compare")
    folder = tmp_path_factory.mktemp("before")
    archive = folder / "before.tar"
    with open(archive, "wb") as out:
        command = ["git", "archive", BEFORE, "alphazero_jax"]
        subprocess.run(command, cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


@pytest.mark.slow
@pytest.mark.long  # about five minutes of two cores: Connect Four's five iterations twice
@pytest.mark.parametrize(
    ("game", "preset", "iterations"), [("tic_tac_toe", "smoke", 3), ("connect_four", "cpu", 5)]
)
def test_training__gives_the_weights_it_gave_before_self_play_was_made_of_parts(
    before, game, preset, iterations
):
    old_library, old = _digest(before, game, preset, iterations)
    new_library, new = _digest(ROOT, game, preset, iterations)
    assert old_library.startswith(str(before)) and new_library.startswith(str(ROOT))
    assert new == old
