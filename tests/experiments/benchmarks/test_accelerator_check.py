"""experiments/benchmarks/accelerator_check.sh, the one bounded run of a session lent a GPU
for a few minutes: every training it starts builds a config training accepts (a bad flag
would cost the span), and its second arm is the long_gpu recipe with exactly `make
train`'s searches.

The script runs with a stand-in ``python3`` first on PATH that prints each call's
arguments, one a line, after a line ``CALL``."""

import pathlib
import shlex
import shutil
import subprocess

import pytest

from alphazero_jax import configs
from alphazero_jax.cli import compare_flags
from alphazero_jax.compare import arms

ROOT = pathlib.Path(__file__).parents[3]
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _calls(tmp_path) -> list[list[str]]:
    stand_in = tmp_path / "bin" / "python3"
    stand_in.parent.mkdir()
    stand_in.write_text(
        '#!/usr/bin/env bash\necho CALL\nfor a in "$@"; do printf "%s\\n" "$a"; done\n'
    )
    stand_in.chmod(0o755)
    done = subprocess.run(
        ["bash", "experiments/benchmarks/accelerator_check.sh"],
        cwd=ROOT,
        env={"PATH": f"{stand_in.parent}:/usr/bin:/bin", "OUT": str(tmp_path / "out")},
        capture_output=True,
        text=True,
        check=True,
    )
    calls = done.stdout.split("CALL\n")[1:]
    return [call.splitlines() for call in calls]


def _trainings(tmp_path) -> dict[str, list[str]]:
    """Each `experiments.train` call's flags, by the name of its workdir."""
    found = {}
    for call in _calls(tmp_path):
        lines = [line for line in call if not line.startswith("===")]
        if lines[:2] == ["-m", "experiments.train"]:
            flags = [line for line in lines[2:] if line.startswith("--")]
            (workdir,) = [f for f in flags if f.startswith("--workdir=")]
            found[workdir.rsplit("_", 1)[-1]] = [f for f in flags if f != workdir]
    return found


def _arm(name: str, flags: list[str]) -> arms.Arm:
    (preset,) = [f.removeprefix("--config=") for f in flags if f.startswith("--config=")]
    overrides = [f for f in flags if f.startswith("--config.")]
    return arms.parse_arm(shlex.join([f"{name}={preset}", *overrides]))


def test_accelerator_check__every_training_builds_a_config_training_accepts(tmp_path):
    trainings = _trainings(tmp_path)
    assert list(trainings) == ["preset", "lean"]
    for name, flags in trainings.items():
        arm = _arm(name, flags)
        compare_flags._checked(arm, compare_flags.build_config(arm))  # ValueError if not


def test_accelerator_check__lean_is_long_gpu_with_make_trains_searches(tmp_path):
    trainings = _trainings(tmp_path)
    preset, lean = (compare_flags.build_config(_arm(n, trainings[n])) for n in ("preset", "lean"))
    cpu = configs.get_config("connect_four", "cpu")
    searches = {
        "search.policy": "gumbel",
        "selfplay.simulation_stages": ((0, 16),),
        "budget.kind": "full",
        "selfplay.num_sampling_moves": 42,
        "opening.kind": "random",
        "opening.random_plies": 2,
    }
    for key, value in searches.items():
        assert _value(cpu, key) == value  # `make train`'s: the winners of the hour's comparisons
        assert _value(lean, key) == value
        if key != "opening.random_plies":  # long_gpu's opening is none: its plies unread
            assert _value(preset, key) != value  # long_gpu's own: PUCT, a playout cap, ...
    # The judging is the preset's; the learner takes twice as many updates for every move
    # kept instead of one in four; the preset stops at its minutes, lean runs on to its end.
    assert _value(lean, "learner.updates_per_iteration") == 256
    assert _value(preset, "learner.updates_per_iteration") == 128
    for key in ("evaluation.simulations", "evaluation.every", "network.channels"):
        assert _value(lean, key) == _value(preset, key)
    assert _value(lean, "evaluation.simulations") == 600
    assert _value(lean, "time_limit_minutes") > _value(preset, "time_limit_minutes")


def _value(config, key: str):
    for part in key.split("."):
        config = config[part]
    return tuple(config) if isinstance(config, list) else config
