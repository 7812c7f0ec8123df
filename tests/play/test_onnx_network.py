"""The ONNX export of the networks (alphazero_jax/play/onnx_network.py, web_bundle.py): ONNX
Runtime computes what JAX computes, for every shipped agent and for ``resnet_any_size`` on
every game's action layout and several board sizes, and another network is refused in one
line."""

import json
import re
import shutil
import subprocess
import sys

import jax
import numpy as np
import pytest

from alphazero_jax import games, networks, search
from alphazero_jax.agents import pretrained
from alphazero_jax.configs import settings
from alphazero_jax.play import onnx_network, web_bundle

ort = pytest.importorskip("onnxruntime", reason="the export extra (onnx, onnxruntime)")
pytest.importorskip("onnx", reason="the export extra (onnx, onnxruntime)")

SHIPPED = pretrained.available()


def _game_of(key):
    described = json.loads((pretrained.directory() / key / pretrained.AGENT_FILE).read_text())
    return games.make(described["game"], **described["settings"])


def _session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_shipped_agents__are_the_six_the_page_offers():
    assert len(SHIPPED) == 6


@pytest.mark.parametrize("key", SHIPPED)
def test_onnx_network__agrees_with_jax_on_random_observations(key):
    game = _game_of(key)
    run = pretrained.load(game)
    model = onnx_network.network_to_onnx(
        jax.device_get(run.variables), run.config.network.to_dict(), game
    )
    rng = np.random.default_rng(0)
    # Uniform noise and the 0/1 planes of real positions (their first planes are stones).
    observations = np.concatenate(
        [
            rng.random((8, *game.observation_shape)),
            rng.integers(0, 2, (8, *game.observation_shape)),
        ]
    ).astype(np.float32)
    expected, _ = run.apply_fn(run.variables, observations)
    logits, value = _session(model).run(None, {"observations": observations})
    assert logits.shape == (16, game.num_actions) and value.shape == (16,)
    # float32 sums of hundreds of products differ in their last bits between runtimes:
    # 1e-5 of the logits' scale (they reach 100 on noise the network never saw).
    scale = max(1.0, float(np.abs(expected.logits).max()))
    np.testing.assert_allclose(logits, expected.logits, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(value, expected.value, rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    "settings",
    [
        {"activation": "leaky_relu"},
        {"normalization": "none"},
        {"kind": "resnet", "reply_head": True, "score_head": True},  # heads left out
    ],
)
def test_onnx_network__agrees_with_jax_for_the_other_settings(settings):
    game = games.make("tic_tac_toe")
    network = {"channels": 8, "blocks": 1, "value_hidden": 8, **settings}
    apply_fn, variables = networks.make(game, **network, key=jax.random.key(3))
    model = onnx_network.network_to_onnx(variables, network, game)
    observations = np.random.default_rng(1).random((4, 3, 3, 2)).astype(np.float32)
    expected, _ = apply_fn(variables, observations)
    logits, value = _session(model).run(None, {"observations": observations})
    np.testing.assert_allclose(logits, expected.logits, rtol=0, atol=1e-5)
    np.testing.assert_allclose(value, expected.value, rtol=0, atol=1e-5)


def _with_moved_statistics(variables, seed):
    """``variables`` with every batch norm's running mean and variance drawn at random, so
    that folding them into the convolutions is tested (a new network's are 0 and 1)."""
    rng = np.random.default_rng(seed)

    def draw(path, x):
        name = jax.tree_util.keystr(path)
        if name.endswith("['mean']"):
            return rng.normal(0.0, 0.5, x.shape).astype(np.float32)
        if name.endswith("['var']"):
            return rng.uniform(0.5, 2.0, x.shape).astype(np.float32)
        return np.asarray(x)

    return {
        "params": jax.tree_util.tree_map(np.asarray, variables["params"]),
        "batch_stats": jax.tree_util.tree_map_with_path(draw, variables["batch_stats"]),
    }


@pytest.mark.parametrize(
    ("game_name", "settings", "network"),
    [
        ("tic_tac_toe", {}, {}),  # cells
        ("tic_tac_toe", {"rows": 4, "cols": 5, "connect": 3}, {"activation": "leaky_relu"}),
        ("othello", {"size": 6}, {}),  # cells and a pass
        ("connect_four", {}, {}),  # columns
        ("connect_four", {"rows": 5, "cols": 4}, {"normalization": "none"}),
        ("quoridor", {"size": 5, "walls": 3}, {}),  # pawn moves and grooves
        ("quoridor", {"size": 9, "walls": 10}, {"reply_head": True, "score_head": True}),
    ],
)
def test_onnx_network__resnet_any_size_agrees_with_jax(game_name, settings, network):
    game = games.make(game_name, **settings)
    network = {"kind": "resnet_any_size", "channels": 8, "blocks": 1, "value_hidden": 8, **network}
    apply_fn, variables = networks.make(game, **network, key=jax.random.key(5))
    if "batch_stats" in variables:
        variables = _with_moved_statistics(variables, seed=len(game_name))
    model = onnx_network.network_to_onnx(variables, network, game)
    rng = np.random.default_rng(2)
    observations = rng.random((6, *game.observation_shape)).astype(np.float32)
    # Quoridor's plane 0 is the mover's pawn: one square, as in a real position.
    if game_name == "quoridor":
        observations[..., 0] = 0
        observations[np.arange(6), rng.integers(0, 5, 6), rng.integers(0, 5, 6), 0] = 1
    expected, _ = apply_fn(variables, observations)
    logits, value = _session(model).run(None, {"observations": observations})
    assert logits.shape == (6, game.num_actions) and value.shape == (6,)
    np.testing.assert_allclose(logits, expected.logits, rtol=0, atol=1e-5)
    np.testing.assert_allclose(value, expected.value, rtol=0, atol=1e-5)


def test_onnx_network__refuses_resnet_any_size_of_a_game_without_a_layout():
    game = games.make("tic_tac_toe")
    network = {"kind": "resnet_any_size", "channels": 4, "blocks": 0, "value_hidden": 4}
    _, variables = networks.make(game, **network, key=jax.random.key(0))
    nameless = game._replace(name="my_game")  # a game of one's own, no record
    with pytest.raises(ValueError, match="action_layout, and 'my_game' names none") as info:
        onnx_network.network_to_onnx(variables, network, nameless)
    assert "\n" not in str(info.value)


def test_check_exportable__refuses_another_network_kind_in_one_line():
    with pytest.raises(ValueError, match="network kind 'transformer' has no ONNX writer") as info:
        onnx_network.check_exportable({"kind": "transformer"}, {"params": {}})
    assert "\n" not in str(info.value)


def test_check_exportable__names_the_layers_a_network_lacks():
    settings = {"blocks": 1, "channels": 8, "activation": "relu"}
    with pytest.raises(ValueError, match="no layers block_0, policy_conv"):
        onnx_network.check_exportable(settings, {"params": {"stem_conv": {}}})
    with pytest.raises(ValueError, match=r"settings it does not know \(heads\)"):
        onnx_network.check_exportable({**settings, "heads": 4}, {"params": {}})


def test_describe__is_the_agents_play_search():
    run = pretrained.load(games.make("connect_four"))
    described = web_bundle.describe(run)
    # agent.json: c_puct 2.5 for self-play, play_c_puct 1.0 to play.
    assert described["search"]["c_puct"] == 1.0
    assert described["search"]["num_simulations"] == 64
    assert described["choice"] == "most_visited"
    assert described["observation_shape"] == [6, 7, 2] and described["num_actions"] == 7
    quoridor = web_bundle.describe(pretrained.load(games.make("quoridor", size=5, walls=3)))
    assert quoridor["choice"] == "sequential_halving"
    assert quoridor["search"]["heuristic_weight"] == 0.25
    # Its agent.json predates Gumbel's sigma settings: mctx's defaults, as its search has.
    assert (quoridor["search"]["value_scale"], quoridor["search"]["maxvisit_init"]) == (0.1, 50.0)


def test_describe__a_puct_forced_run_plays_on_the_page_with_its_puct_search():
    """``puct_forced`` registered the page's PUCT search: without root noise it forces
    nothing, and pruning never lowers the most visited move, so the page plays its moves."""
    run = pretrained.load(games.make("connect_four"))
    config = run.config.copy_and_resolve_references()
    settings.plug(config, "search", "puct_forced")
    described = web_bundle.describe(run._replace(config=config))
    assert described["search"]["policy"] == "puct" and described["choice"] == "most_visited"
    assert described["search"]["c_puct"] == config.search.play_c_puct


def test_describe__a_policy_without_a_page_search_is_refused_in_one_line():
    def make_mine(game, apply_fn, *, num_simulations=8, discount=1.0, heuristic_weight=0.0):
        return search.make_puct(game, apply_fn, num_simulations=num_simulations)

    search.register("mine", make_mine)
    run = pretrained.load(games.make("connect_four"))
    config = run.config.copy_and_resolve_references()
    settings.plug(config, "search", "mine")
    with pytest.raises(ValueError) as caught:
        web_bundle.describe(run._replace(config=config))
    message = str(caught.value)
    assert re.match(r"the search policy 'mine' \(\S*test_onnx_network\) has no search on", message)
    assert "registered page=None" in message and "\n" not in message


def test_describe__plays_with_play_value_scale():
    run = pretrained.load(games.make("quoridor", size=5, walls=3))
    config = run.config.copy_and_resolve_references()
    config.search.update(value_scale=0.2, play_value_scale=0.5, maxvisit_init=10.0)
    described = web_bundle.describe(run._replace(config=config))["search"]
    assert (described["value_scale"], described["maxvisit_init"]) == (0.5, 10.0)


def test_export_web_program__writes_a_bundle_per_agent(tmp_path):
    folder = pretrained.directory() / "tic_tac_toe-rows3-cols3-connect3"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "alphazero_jax.cli.export_web",
            f"--output={tmp_path}",
            f"--workdir={folder}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listed = json.loads((tmp_path / web_bundle.INDEX_FILE).read_text())["agents"]
    assert [a["key"] for a in listed] == ["tic_tac_toe-rows3-cols3-connect3"]
    onnx_bytes = (tmp_path / "tic_tac_toe-rows3-cols3-connect3.onnx").stat().st_size
    assert listed[0]["onnx_bytes"] == onnx_bytes > 4 * 20_000  # ~38k float32 weights


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], "error: --output: expected the folder to write, --output=<folder>; got none."),
        (
            ["--output={tmp}", "--page", "--onnxruntime_web={tmp}/none"],
            "ONNX Runtime Web's built files",
        ),
        (["--output={tmp}", "--workdir={tmp}/nothing"], "is no training run"),
    ],
)
def test_export_web_program__fails_in_one_line(tmp_path, arguments, expected):
    done = subprocess.run(
        [sys.executable, "-m", "alphazero_jax.cli.export_web"]
        + [a.format(tmp=tmp_path) for a in arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines


def test_export_web_program__refuses_a_game_without_rules_on_the_page_in_one_line(tmp_path):
    """An agent of pgx's Tic-Tac-Toe (the shipped Tic-Tac-Toe network relabelled: pgx's board
    has the same shapes) is refused: the page has JavaScript rules for its own four games."""
    pytest.importorskip("pgx")
    agent = tmp_path / "agent"
    shutil.copytree(pretrained.directory() / "tic_tac_toe-rows3-cols3-connect3", agent)
    described = json.loads((agent / pretrained.AGENT_FILE).read_text())
    described.update(game="pgx_tic_tac_toe", settings={})
    (agent / pretrained.AGENT_FILE).write_text(json.dumps(described))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "alphazero_jax.cli.export_web",
            f"--output={tmp_path / 'out'}",
            f"--workdir={agent}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: The offline page has JavaScript rules only for connect_four, othello, quoridor, "
        "tic_tac_toe, not for pgx_tic_tac_toe, so it cannot play this agent; play it with "
        "alphazero-serve or alphazero-play."
    ]
    assert not list((tmp_path / "out").glob("*"))  # no bundle written
