"""Nothing lost: a step saved again is swapped in atomically, a corrupt newest checkpoint
is named and passed over (and set aside by training), a non-finite loss stops training
before it is saved, and a work directory that cannot take a checkpoint is refused."""

import errno
import os
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import checkpoints, configs, runs
from alphazero_jax.configs import settings
from alphazero_jax.training import session, train


def _config(**overrides):
    config = configs.get_config("tic_tac_toe", "smoke")
    config.checkpoint_every_minutes = 1e-9  # a checkpoint after every iteration
    config.max_to_keep = 5
    for dotted, value in overrides.items():
        section, key = dotted.rsplit(".", 1) if "." in dotted else (None, dotted)
        (config[section] if section else config)[key] = value
    return config


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A three-iteration run with a checkpoint after each iteration; copy it to change it."""
    workdir = tmp_path_factory.mktemp("trained")
    state = train.train_and_evaluate(_config(num_iterations=3), str(workdir))
    return workdir, state


def _copy(trained, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(trained[0], workdir)
    return workdir


def _tree(value):
    return {"weights": jnp.full((3, 2), value, jnp.float32), "step": jnp.int32(value)}


def test_save__a_step_saved_again_is_swapped_in_whole(tmp_path):
    manager = checkpoints.make_manager(str(tmp_path / "checkpoints"), max_to_keep=3)
    checkpoints.save(manager, 1, _tree(1.0), {"note": "first"})
    checkpoints.save(manager, 1, _tree(2.0), {"note": "second"})
    state, metadata = checkpoints.restore(manager, _tree(0.0))
    assert metadata["note"] == "second" and float(state["weights"][0, 0]) == 2.0
    assert sorted(os.listdir(tmp_path / "checkpoints")) == ["1"]  # no staging left
    manager.close()


def test_save__without_an_atomic_exchange_two_renames_do_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(
        checkpoints.ctypes, "CDLL", lambda *a, **k: (_ for _ in ()).throw(OSError())
    )
    manager = checkpoints.make_manager(str(tmp_path / "checkpoints"), max_to_keep=3)
    checkpoints.save(manager, 4, _tree(1.0), {"note": "first"})
    checkpoints.save(manager, 4, _tree(2.0), {"note": "second"})
    assert checkpoints.restore(manager, _tree(0.0))[1]["note"] == "second"
    manager.close()


@pytest.mark.parametrize(
    ("in_place", "staged", "note"),
    [
        ("first", ["4"], "first"),  # killed before the swap: the old version stays
        (None, ["4", "4.old"], "second"),  # between the fallback's renames: the new goes in
        ("second", ["4.old"], "second"),  # after the new one went in
    ],
)
def test_save__a_crash_inside_a_replacement_loses_neither_version(tmp_path, in_place, staged, note):
    """Hand-made leftovers of each moment of a replacement (``4``: the new version,
    ``4.old``: the old one); opening the run for training leaves a complete step 4."""
    versions = {}
    for version, value in (("first", 1.0), ("second", 2.0)):
        manager = checkpoints.make_manager(str(tmp_path / version), max_to_keep=3)
        checkpoints.save(manager, 4, _tree(value), {"note": version})
        manager.close()
        versions[version] = tmp_path / version / "4"
    directory = tmp_path / "checkpoints"
    (directory / ".replacing").mkdir(parents=True)
    if in_place:
        shutil.copytree(versions[in_place], directory / "4")
    for name in staged:
        version = "first" if name.endswith(".old") else "second"
        shutil.copytree(versions[version], directory / ".replacing" / name)
    manager = checkpoints.make_manager(str(directory), max_to_keep=3)
    assert checkpoints.restore(manager, _tree(0.0))[1]["note"] == note
    assert not (directory / ".replacing").exists()
    manager.close()


def _corrupt(step_dir, how):
    if how == "metadata truncated":
        path = step_dir / "metadata" / "metadata"
        path.write_bytes(path.read_bytes()[:10])
    else:  # every data file of the state: halved, or its middle overwritten
        files = [p for p in (step_dir / "state").rglob("*") if p.is_file() and "/d/" in str(p)]
        assert files
        for path in files:
            data = bytearray(path.read_bytes())
            if how == "arrays truncated":
                data = data[: len(data) // 2]
            else:
                middle = len(data) // 2
                data[middle : middle + 16] = bytes(255 - b for b in data[middle : middle + 16])
            path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["metadata truncated", "arrays truncated", "arrays overwritten"])
def test_restore_network__passes_over_a_corrupt_newest_checkpoint(trained, tmp_path, capfd, how):
    workdir = _copy(trained, tmp_path)
    _corrupt(workdir / "checkpoints" / "3", how)
    run = runs.restore_network(str(workdir))
    assert run.iteration == 2
    err = capfd.readouterr().err
    assert f"warning: checkpoint {workdir}/checkpoints/3 is unreadable (" in err
    assert "using step 2 instead." in err and len(err.strip().splitlines()) == 1
    assert (workdir / "checkpoints" / "3").exists()  # a reader moves nothing
    with pytest.raises(runs.CorruptCheckpointError, match=r"checkpoints/3 cannot be read"):
        runs.restore_network(str(workdir), step=3)


def test_training__sets_a_corrupt_checkpoint_aside_and_resumes_exactly(trained, tmp_path, capfd):
    workdir = _copy(trained, tmp_path)
    _corrupt(workdir / "checkpoints" / "3", "arrays overwritten")
    resumed = train.train_and_evaluate(_config(num_iterations=3), str(workdir))
    err = capfd.readouterr().err
    assert f"moved to {workdir}/bad_checkpoints/3; using step 2 instead." in err
    assert (workdir / "bad_checkpoints" / "3" / "state").is_dir()  # kept, not deleted
    for x, y in zip(jax.tree.leaves(resumed), jax.tree.leaves(trained[1])):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))  # iteration 3 replayed


def test_restore__when_no_step_reads_nothing_is_moved_and_the_error_says_why(trained, tmp_path):
    workdir = _copy(trained, tmp_path)
    manager = runs.checkpoint_manager(str(workdir), max_to_keep=5)
    with pytest.raises(
        runs.CorruptCheckpointError, match=r"checkpoints/3 cannot be read: .*2 older"
    ):
        checkpoints.restore(manager, _tree(0.0), set_aside=True)  # a template of another shape
    assert runs.checkpoint_steps(str(workdir)) == [1, 2, 3]
    manager.close()


def test_training__a_non_finite_loss_stops_before_anything_is_saved(trained, tmp_path):
    workdir = _copy(trained, tmp_path)
    config = _config(num_iterations=8, **{"learner.learning_rate": 1e30})
    runs.write_config(str(workdir), config)  # the run's own setting: resuming keeps it
    with pytest.raises(session.TrainingError) as raised:
        train.train_and_evaluate(config, str(workdir))
    message = str(raised.value)
    assert message.startswith("Training stopped: ")
    assert "is nan" in message or "is inf" in message or "not finite" in message
    assert f"the newest checkpoint, {workdir}/checkpoints/3, is intact" in message
    assert runs.checkpoint_steps(str(workdir)) == [1, 2, 3]
    variables = runs.restore_network(str(workdir)).variables
    assert all(np.isfinite(np.asarray(x)).all() for x in jax.tree.leaves(variables))


def test_training__refuses_a_work_directory_it_cannot_write(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    with pytest.raises(
        session.TrainingError, match=r"Cannot write to the work directory .*a_file/run"
    ):
        train.train_and_evaluate(_config(num_iterations=1), str(blocker / "run"))


def test_training__refuses_a_full_disk_before_any_work(tmp_path, monkeypatch):
    usage = shutil.disk_usage(tmp_path)._replace(free=1000)
    monkeypatch.setattr(train.shutil, "disk_usage", lambda path: usage)
    with pytest.raises(session.TrainingError, match=r"has 0 MiB free, but this run needs about"):
        train.train_and_evaluate(_config(num_iterations=1), str(tmp_path / "run"))
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_session__a_save_that_fails_names_the_checkpoint_it_resumes_from(
    trained, tmp_path, monkeypatch
):
    """A full disk at a checkpoint: one message naming the newest complete checkpoint
    (here the session is restored at iteration 3 and asked to save; nothing compiles)."""
    workdir = _copy(trained, tmp_path)
    config = settings.complete(_config(num_iterations=4))
    manager = runs.checkpoint_manager(str(workdir), max_to_keep=5)
    run = session.Session(train.build(config), config, str(workdir), manager)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session.checkpoints, "save", full)
    with pytest.raises(session.TrainingError) as raised:
        run.save()
    assert str(raised.value) == (
        "Training stopped: iteration 3 could not be saved ([Errno 28] No space left on "
        f"device); the newest checkpoint, {workdir}/checkpoints/3, is intact and training "
        "resumes from it."
    )
    manager.close()
