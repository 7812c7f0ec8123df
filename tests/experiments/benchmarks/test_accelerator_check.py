"""experiments/benchmarks/accelerator_check.sh, the one bounded command of a session lent a
GPU for a few minutes: every training it starts builds a config training accepts (a bad
flag would cost the span), each game's `gpu` preset is trained with its own time limit
scaled down, Connect Four's is judged on AlphaZero.jl's table, and the phases' time limits
sum within one command's 600 s (and 12 minutes of the machine).

The script runs with a stand-in ``python3`` first on PATH that prints each call's
arguments, one a line, after a line ``CALL``."""

import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

from alphazero_jax import configs
from alphazero_jax.cli import compare_flags
from alphazero_jax.compare import arms

ROOT = pathlib.Path(__file__).parents[3]
SCRIPT = ROOT / "experiments/benchmarks/accelerator_check.sh"
COMMAND_LIMIT_S = 600  # the device tool's limit for one command, inside 12 minutes
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _run_script(tmp_path_factory, *arguments: str) -> str:
    tmp_path = tmp_path_factory.mktemp("accelerator_check")
    stand_in = tmp_path / "bin" / "python3"
    stand_in.parent.mkdir()
    stand_in.write_text(
        '#!/usr/bin/env bash\necho CALL\nfor a in "$@"; do printf "%s\\n" "$a"; done\n'
    )
    stand_in.chmod(0o755)
    done = subprocess.run(
        ["bash", str(SCRIPT), *arguments],
        cwd=ROOT,
        env={"PATH": f"{stand_in.parent}:/usr/bin:/bin", "OUT": str(tmp_path / "out")},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def output(tmp_path_factory) -> str:
    return _run_script(tmp_path_factory)


@pytest.fixture(scope="module")
def pgx_output(tmp_path_factory) -> str:
    return _run_script(tmp_path_factory, "pgx")


def _trainings(output: str) -> dict[str, list[str]]:
    """Each `experiments.train` call's flags, by the name of its workdir."""
    found = {}
    for call in output.split("CALL\n")[1:]:
        lines = [line for line in call.splitlines() if not line.startswith("===")]
        if lines[:2] == ["-m", "experiments.train"]:
            flags = [line for line in lines[2:] if line.startswith("--")]
            (workdir,) = [f for f in flags if f.startswith("--workdir=")]
            found[workdir.removeprefix("--workdir=/tmp/accelerator_")] = [
                f for f in flags if f != workdir
            ]
    return found


def _config(name: str, flags: list[str]):
    (preset,) = [f.removeprefix("--config=") for f in flags if f.startswith("--config=")]
    overrides = [f for f in flags if f.startswith("--config.")]
    arm = arms.parse_arm(shlex.join([f"{name}={preset}", *overrides]))
    config = compare_flags.build_config(arm)
    compare_flags._checked(arm, config)  # ValueError if training would refuse it
    return preset, config


def test_accelerator_check__every_training_builds_a_config_training_accepts(output):
    trainings = _trainings(output)
    assert list(trainings) == [
        "c4_gpu",
        "quoridor_gpu",
        "othello_gpu",
        "tic_tac_toe_gpu",
        "c4_games2048",
    ]
    for name, flags in trainings.items():
        preset, config = _config(name, flags)
        game = preset.split(":")[0]
        assert preset == f"{game}:gpu", name  # every game's gpu preset
        own = configs.get_config(game, "gpu")
        # Each stops at its own time limit, scaled down from the preset's, and is judged
        # at its end.
        assert 0 < config.time_limit_minutes < own.time_limit_minutes, name
        assert config.evaluation.final and config.evaluation.every > 0, name
        assert config.network.to_dict() == own.network.to_dict(), name


def test_accelerator_check__connect_four_is_judged_on_alphazero_jl_s_table(output):
    trainings = _trainings(output)
    _, first = _config("c4_gpu", trainings["c4_gpu"])
    _, lever = _config("c4_games2048", trainings["c4_games2048"])
    own = configs.get_config("connect_four", "gpu")
    for config in (first, lever):
        assert config.evaluation.simulations == 600
        assert tuple(config.evaluation.perfect_play_sets) == ("Test_L2_R2", "Test_L1_R3")
        assert config.evaluation.perfect_play_positions == 500
    assert first.evaluation.every == 16
    assert first.selfplay.to_dict() == own.selfplay.to_dict()  # the preset as it is
    assert first.learner.to_dict() == own.learner.to_dict()
    # The lever: four times the games at once, with the same games, updates and schedule
    # (to within one of its iterations).
    assert lever.selfplay.batch_size == 4 * own.selfplay.batch_size
    games = [c.num_iterations * c.selfplay.batch_size for c in (lever, own)]
    updates = [c.num_iterations * c.learner.updates_per_iteration for c in (lever, own)]
    assert abs(games[0] - games[1]) <= lever.selfplay.batch_size, games
    assert abs(updates[0] - updates[1]) <= lever.learner.updates_per_iteration, updates
    assert lever.evaluation.every == 8


def test_accelerator_check__quoridor_s_self_play_is_timed_against_the_2_core_figure(output):
    calls = [call.splitlines() for call in output.split("CALL\n")[1:]]
    timed = [c for c in calls if c[:2] == ["-m", "experiments.benchmarks.quoridor"]]
    assert [c[2] for c in timed] == ["--selfplay=quoridor:agent"]


def _limits(output: str) -> dict[str, str]:
    """Each phase's time limit, setup's counted whether or not wheels were there."""
    limits = dict(re.findall(r"^=== phase (\w+) \(at most (\d+) s\)", output, re.M))
    if "setup" not in limits:  # only with wheels in .whl: its limit counts all the same
        (setup,) = re.findall(r"^\s*phase setup (\d+) ", SCRIPT.read_text(), re.M)
        limits["setup"] = setup
    return limits


def test_accelerator_check__its_phases_time_limits_fit_one_command(output):
    limits = _limits(output)
    assert {"devices", "c4_gpu", "quoridor_agent", "othello_gpu"} <= set(limits)
    total = sum(int(seconds) for seconds in limits.values())
    assert total <= COMMAND_LIMIT_S <= 12 * 60, limits
    # Each training's limit holds its time limit, with room to build and judge at the end.
    for name, flags in _trainings(output).items():
        _, config = _config(name, flags)
        assert int(limits[name]) >= config.time_limit_minutes * 60 + 20, name
    assert re.search(rf"phases' time limits sum to {total} s", SCRIPT.read_text()), total


def test_accelerator_check__its_pgx_set_trains_go_9x9_s_gpu_preset_in_one_command(pgx_output):
    trainings = _trainings(pgx_output)
    assert list(trainings) == ["pgx_go_9x9_gpu"]
    preset, config = _config("pgx_go_9x9_gpu", trainings["pgx_go_9x9_gpu"])
    own = configs.get_config("pgx_go_9x9", "gpu")
    assert preset == "pgx_go_9x9:gpu" and config.network.to_dict() == own.network.to_dict()
    assert 0 < config.time_limit_minutes < own.time_limit_minutes
    assert config.evaluation.final and tuple(config.evaluation.opponents) == tuple(
        own.evaluation.opponents
    )  # the generic ladder
    limits = _limits(pgx_output)
    total = sum(int(seconds) for seconds in limits.values())
    assert total <= COMMAND_LIMIT_S, limits
    assert int(limits["pgx_go_9x9_gpu"]) >= config.time_limit_minutes * 60 + 20
    assert re.search(rf"Its phases' time limits sum to {total} s", SCRIPT.read_text()), total
