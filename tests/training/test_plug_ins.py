"""Plug points end to end, as a researcher uses them: modules outside the package (the
tutorials' ``forced_playouts.py`` and ``opponent_reply.py``, copied to a folder of their
own) register a search rule, a network and a loss term; a config file names them;
``alphazero-train --config=FILE.py`` trains and resumes with them; the run is exported and
played as an ``az:`` agent by a fresh process that only has the modules on its path."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
CONFIG = """\
from alphazero_jax import configs
from alphazero_jax.configs import settings

import forced_playouts  # noqa: F401  (registers the search policy "forced_playouts")
import opponent_reply  # noqa: F401  (registers "reply_mlp" and "opponent_reply")


def get_config():
    config = configs.get_config("tic_tac_toe", "smoke")  # a constant learning rate
    config.num_iterations = 1
    settings.plug(config, "network", "reply_mlp", hidden=16)
    settings.plug(config, "search", "forced_playouts", num_simulations=8, forced_k=2.0)
    config.learner.aux_weights = {"opponent_reply": 0.5}
    return config
"""
PLAY = """\
import sys
import jax
from alphazero_jax import agents, games
from alphazero_jax.evaluation import arena

game = games.make("tic_tac_toe")
agent = agents.from_spec(game, "az:" + sys.argv[1])
opponent = agents.from_spec(game, "random")
result = arena.play(game, agent, opponent, num_games=4, key=jax.random.key(0))
print("played", result.total.num_games, "games as", agent.name)
"""


def _run(args, folder, *, path=True, cwd=None):
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(folder) if path else "")
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd or folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


TRAIN = ["-m", "alphazero_jax.cli.train", "--config=plugged.py", "--workdir=run"]


@pytest.fixture(scope="module")
def plugged(tmp_path_factory):
    """A folder with the plug-in modules and the config file, and a run trained from it
    for one iteration."""
    folder = tmp_path_factory.mktemp("research")
    for name in ("forced_playouts.py", "opponent_reply.py"):
        shutil.copy(TUTORIALS / name, folder / name)
    (folder / "plugged.py").write_text(CONFIG)
    first = _run(TRAIN, folder)
    assert first.returncode == 0, first.stderr[-3000:]
    return folder


@pytest.mark.slow
@pytest.mark.long  # about a minute of two cores (five programs): make test-long
def test_plug_ins__train_resume_record_export_and_play(plugged):
    resumed = _run([*TRAIN, "--config.num_iterations=2"], plugged)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "Resuming from the checkpoint of iteration 1" in resumed.stdout
    config = json.loads((plugged / "run" / "config.json").read_text())
    assert config["imports"] == ["opponent_reply", "forced_playouts"]
    assert config["network"] == {"kind": "reply_mlp", "hidden": 16}
    assert config["search"]["policy"] == "forced_playouts" and config["search"]["forced_k"] == 2
    assert config["learner"]["aux_weights"] == {"opponent_reply": 0.5}
    records = [json.loads(line) for line in (plugged / "run" / "metrics.jsonl").open()]
    assert [r["iteration"] for r in records] == [1, 2]
    assert all(r["opponent_reply_loss"] > 0 for r in records)

    export = ["-m", "alphazero_jax.cli.export", "--workdir=run", "--output=agents", "--commit=x"]
    exported = _run(export, plugged)
    assert exported.returncode == 0, exported.stderr[-3000:]
    (folder,) = (plugged / "agents").iterdir()
    described = json.loads((folder / "agent.json").read_text())
    assert described["config"]["imports"] == ["opponent_reply", "forced_playouts"]

    (plugged / "play.py").write_text(PLAY)
    for where in (str(folder), "run"):  # the exported agent, and the run itself
        played = _run(["play.py", where], plugged)
        assert played.returncode == 0, played.stderr[-3000:]
        assert "played 4 games" in played.stdout


@pytest.mark.slow
def test_plug_ins__missing_modules_and_unregistered_names_end_in_one_line(plugged):
    elsewhere = plugged / "elsewhere"  # a folder without the modules, not on the path either
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "play.py").write_text(PLAY)
    stranger = _run(["play.py", str(plugged / "run")], plugged, path=False, cwd=elsewhere)
    assert stranger.returncode != 0
    assert "cannot import 'opponent_reply', the module that registers this run's plug-ins" in (
        stranger.stderr
    )
    (plugged / "unknown.py").write_text(
        CONFIG.replace('"network", "reply_mlp", hidden=16', '"network", "resnet"').replace(
            "return config", 'config.network.kind = "transformer"\n    return config'
        )
    )
    train = ["-m", "alphazero_jax.cli.train", "--config=unknown.py", "--workdir=other"]
    refused = _run(train, plugged)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, refused.stderr
    assert "config.network.kind must be a registered network kind, one of (" in lines[0]
    assert "'reply_mlp', 'resnet'" in lines[0] and "got 'transformer'" in lines[0]
