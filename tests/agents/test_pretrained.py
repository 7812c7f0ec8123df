"""Shipped agents: a run exported into a folder loads back bit for bit and plays."""

import json
import os
import shutil

import jax
import ml_collections
import numpy as np
import pytest

from alphazero_jax import agents, configs, games, runs
from alphazero_jax.agents import pretrained
from alphazero_jax.training import train


def _plan(workdir, *, num_iterations: int) -> None:
    """Sets the iterations a run's config.json plans."""
    path = workdir / "config.json"
    config = json.loads(path.read_text())
    config["num_iterations"] = num_iterations
    path.write_text(json.dumps(config))


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """``(workdir, final state)`` of the Tic-Tac-Toe smoke run (three iterations), trained
    for two on "the training machine" and resumed there for its last on "another machine"."""
    config = configs.get_config("tic_tac_toe", "smoke")  # a constant learning rate
    assert config.num_iterations == 3
    workdir = tmp_path_factory.mktemp("trained") / "run"
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(runs, "describe_machine", lambda: "the training machine")
        with config.unlocked():
            config.num_iterations = 2
        train.train_and_evaluate(config, str(workdir))
        monkeypatch.setattr(runs, "describe_machine", lambda: "another machine")
        with config.unlocked():
            config.num_iterations = 3
        state = train.train_and_evaluate(config, str(workdir))  # resumed for its last iteration
    return workdir, state


def test_export__a_run_loads_back_with_its_settings_and_provenance(tmp_path, trained_run):
    run, state = trained_run
    shutil.copytree(run, tmp_path / "run")  # its config.json changes here
    folder = tmp_path / "agents"
    _plan(tmp_path / "run", num_iterations=4)  # a run stopped before its last iteration
    with pytest.raises(ValueError, match=r"has trained 3 of its 4 iterations; run its command"):
        pretrained.export(str(tmp_path / "run"), folder=folder, require_complete=True)
    assert not folder.exists()
    _plan(tmp_path / "run", num_iterations=3)
    path = pretrained.export(
        str(tmp_path / "run"),
        folder=folder,
        command="make train",
        machine="a laptop",
        commit="abc123",
        require_complete=True,
    )
    game = games.make("tic_tac_toe")
    assert path == folder / "tic_tac_toe-rows3-cols3-connect3" == folder / pretrained.key_of(game)
    assert pretrained.available(folder) == ("tic_tac_toe-rows3-cols3-connect3",)
    described = json.loads((path / "agent.json").read_text())
    assert described["game"] == "tic_tac_toe" and described["iteration"] == 3
    assert set(described["config"]) == {"game", "network", "search"}
    trained = described["trained"]
    assert trained["command"] == "make train" and trained["machine"] == "a laptop"
    assert trained["commit"] == "abc123"
    assert trained["iterations"] == 3 and trained["minutes"] >= 0 and trained["run"] == "run"

    loaded = pretrained.load(game, folder)
    assert loaded.game is game and loaded.iteration == 3
    expected = jax.tree.leaves(state.learner.variables)
    for a, b in zip(jax.tree.leaves(loaded.variables), expected, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_export__names_the_machines_that_trained_the_run_not_the_one_exporting(
    tmp_path, trained_run, monkeypatch
):
    workdir, _ = trained_run
    monkeypatch.setattr(runs, "describe_machine", lambda: "the exporting machine")
    path = pretrained.export(str(workdir), folder=tmp_path / "agents")
    machine = json.loads((path / "agent.json").read_text())["trained"]["machine"]
    assert machine == "the training machine; another machine"


def test_describe_machine__names_the_processor_the_cores_and_jax_devices():
    described = runs.describe_machine()
    assert f", {os.cpu_count()} cores, {jax.device_count()} x " in described
    assert not described.startswith(",")


def test_load__a_game_without_an_agent_names_the_shipped_ones(tmp_path):
    game = games.make("connect_four", rows=5, cols=6)
    with pytest.raises(ValueError, match=r"No pretrained agent for connect_four .*shipped: none"):
        pretrained.load(game, tmp_path)
    with pytest.raises(ValueError, match=r"shipped: .*tic_tac_toe-rows3-cols3-connect3"):
        pretrained.load(game)


def test_load_folder__an_exported_agent_anywhere_loads_and_plays_as_the_shipped_one(tmp_path):
    game = games.make("tic_tac_toe")
    shipped = pretrained.directory() / pretrained.key_of(game)
    snapshot = tmp_path / "snapshot_of_some_iteration"  # not named after its game
    shutil.copytree(shipped, snapshot)
    loaded, expected = pretrained.load_folder(snapshot), pretrained.load(game)
    assert loaded.game is game and loaded.iteration == expected.iteration
    leaves = jax.tree.leaves(loaded.variables), jax.tree.leaves(expected.variables)
    for a, b in zip(*leaves, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # X on 0 and 1, O on 3 and 4: X must take 2 (and O would win on 5 otherwise).
    states = games.replay_batch(game, [[0, 3, 1, 4]])
    for spec in (f"az:{snapshot}:16", "az:pretrained:16"):
        agent = agents.from_spec(game, spec)
        assert int(agent.act_fn(agent.params, jax.random.key(0), states)[0]) == 2, spec
    with pytest.raises(FileNotFoundError, match=r"expected an exported agent's folder"):
        pretrained.load_folder(tmp_path)


def test_load_folder__a_damaged_folder_gets_one_line_naming_the_file(tmp_path):
    shipped = pretrained.directory() / "tic_tac_toe-rows3-cols3-connect3"
    other = pretrained.directory() / "connect_four-rows6-cols7-connect4"
    folder = tmp_path / "agent"
    shutil.copytree(shipped, folder)
    variables = folder / "variables.msgpack"
    variables.write_bytes(variables.read_bytes()[:100])  # cut short
    with pytest.raises(ValueError, match=r"variables.msgpack: expected the variables .*Unpack"):
        pretrained.load_folder(folder)
    shutil.copy(other / "variables.msgpack", variables)  # another network's
    with pytest.raises(ValueError, match=r"'channels': 32.*got arrays of other shapes"):
        pretrained.load_folder(folder)
    (folder / "agent.json").write_text('{"game": "tic_tac_toe"')
    with pytest.raises(ValueError, match=r"agent.json: expected the JSON that alphazero-export"):
        pretrained.load_folder(folder)
    (folder / "agent.json").write_text('{"game": "tic_tac_toe"}')
    with pytest.raises(ValueError, match=r"agent.json: expected the keys settings, config"):
        pretrained.load_folder(folder)


def test_load__every_shipped_agent_loads_with_the_shapes_of_its_network():
    for key in pretrained.available():
        described = json.loads((pretrained.directory() / key / "agent.json").read_text())
        game = games.make(described["game"], **described["settings"])
        assert pretrained.load(game).game is game, key


def test_shipped_agents__each_made_by_make_agent_with_its_recipes_settings():
    """Every shipped agent was trained by ``make agent GAME=g [RECIPE=r]`` at a named commit
    and carries the game, network and search of the preset ``g:r`` (``agent`` unless
    named), keys added since included: what the command would make now is what ships,
    play-time settings too."""
    from alphazero_jax.configs import settings

    checked = []
    for key in pretrained.available():
        described = json.loads((pretrained.directory() / key / "agent.json").read_text())
        command = described["trained"]["command"].split()
        assert command[:2] == ["make", "agent"], (key, described["trained"]["command"])
        commit = described["trained"]["commit"]
        assert len(commit) >= 7 and all(c in "0123456789abcdef" for c in commit), (key, commit)
        words = dict(word.split("=", 1) for word in command[2:])
        preset = configs.get_config(words["GAME"], words.get("RECIPE", "agent"))
        shipped = settings.complete(ml_collections.ConfigDict(described["config"]))
        for section in ("network", "search"):
            assert shipped[section].to_dict() == preset[section].to_dict(), (key, section)
        assert shipped.game.name == preset.game.name, key
        assert dict(shipped.game.settings) == dict(preset.game.settings), key
        checked.append(key)
    assert len(checked) == 6, checked  # Tic-Tac-Toe, Connect Four, Othello and Quoridor (two)
