"""The play-settings comparison against perfect play: one-line errors for bad flags, and the
paired table it prints and writes."""

import os
import pathlib
import subprocess
import sys

import pytest
from tiers import one_of_a_kind

REPO = str(pathlib.Path(__file__).resolve().parents[4])


def _play_settings(*flags):
    command = [sys.executable, "-m", "experiments.strength.perfect_play.play_settings", *flags]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("flag", "message"),
    one_of_a_kind(
        [("--vary=c_puckt:1", "--vary: expected <config.search key>:<value>,..., with a key")],
        [
            ("--agent=minimax:2", "expected az:<run, checkpoint or agent folder>"),
            ("--vary=play_c_puct:one", "--vary: play_c_puct takes values of type float"),
            ("--vary=c_puct:1,2", "c_puct is replaced in play by this network's play_c_puct=1.0"),
            ("--sets=Test_L9", "--sets: unknown sets ['Test_L9']"),
            ("--validation_seed=0", "--validation_seed=0: seed 0 draws Random-Play itself"),
        ],
    ),
)
def test_play_settings__bad_flags_get_one_line_errors(tmp_path, flag, message):
    done = _play_settings(flag, f"--output={tmp_path}")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())


@pytest.mark.long
def test_play_settings__prints_and_writes_the_paired_table(tmp_path):
    done = _play_settings(
        "--agent=az:pretrained:4",
        "--vary=play_c_puct:3",
        "--validation_positions=20",
        "--sets=Test_L3_R1",
        "--positions=10",
        f"--output={tmp_path}",
    )
    assert done.returncode == 0, done.stderr
    assert "| setting | validation | End-Easy |" in done.stdout
    own, other = [line for line in done.stdout.splitlines() if line.startswith("| play_c_puct=")]
    assert " (own) | " in own and other.startswith("| play_c_puct=3.0 | ")
    assert ", +" in other and " p=" in other and ", +" not in own
    assert (tmp_path / "play_settings.md").read_text().splitlines()[2] == own
    assert len((tmp_path / "validation_seed1.labels").read_text().splitlines()) == 20
