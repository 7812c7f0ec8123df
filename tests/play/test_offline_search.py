"""The offline page's search (alphazero_jax/play/static/offline/search.js) with an exported
network in onnxruntime-node against the agent in JAX: for every shipped agent, 50 positions
from random play, the same move and the same value (within 1e-4) at the agent's own search
settings, with no noise; and one Gumbel agent with its sigma steeper than mctx's defaults.

Node's packages come from the repository's package.json (``npm ci``; ``make test`` runs it).
Marked long: ``make test-long`` runs it (and CI, after ``make test`` has installed them).
"""

import json
import pathlib
import shutil
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games, search
from alphazero_jax.agents import alphazero, pretrained
from alphazero_jax.play import web_bundle

pytest.importorskip("onnx", reason="the export extra (onnx, onnxruntime)")
ROOT = pathlib.Path(__file__).parents[2]
NODE = shutil.which("node")
pytestmark = [
    pytest.mark.long,  # six searches compiled in JAX: minutes on two cores
    pytest.mark.skipif(NODE is None, reason="needs node (Node.js 18 or newer)"),
    pytest.mark.skipif(
        not (ROOT / "node_modules" / "onnxruntime-node").is_dir(),
        reason="needs onnxruntime-node: run `npm ci` in the repository (make test does)",
    ),
]
SEARCH = pathlib.Path(__file__).parent / "offline" / "search_positions.mjs"
NUM_POSITIONS = 50


def _game_of(key):
    described = json.loads((pretrained.directory() / key / pretrained.AGENT_FILE).read_text())
    return games.make(described["game"], **described["settings"])


def random_positions(game, count: int, seed: int):
    """``count`` positions of random legal play, each cut at a random length before its
    game's end (so that it is not finished): their move lists from the start, and the
    positions as one batch of states."""
    length = min(game.max_num_moves, 40)

    def play(key):
        def one_move(state, key):
            action = search.uniform_choice(key, game.legal_action_mask(state)[None])[0]
            return game.step(state, action), (state, action)

        cut_key, key = jax.random.split(key)
        _, (states, actions) = jax.lax.scan(one_move, game.init(key), jax.random.split(key, length))
        # The last state before the game ended, at most a random number of moves in.
        finished = jnp.argmax(jnp.append(states.terminal, True))
        cut = jnp.minimum(jax.random.randint(cut_key, (), 0, length), finished - 1)
        return jax.tree.map(lambda x: x[cut], states), actions, cut

    keys = jax.random.split(jax.random.key(seed), count)
    states, actions, cuts = jax.device_get(jax.jit(jax.vmap(play))(keys))
    return [[int(a) for a in actions[i, : cuts[i]]] for i in range(count)], states


# Gumbel's sigma off its defaults (a shipped Gumbel agent's network): the page reads it too.
STEEPER = ("quoridor-size5-walls3-distance_planes1", {"value_scale": 0.4, "maxvisit_init": 10.0})
# A PUCT agent's network searched by puct_forced: the page plays it with its PUCT search
# (no root noise: nothing forced), the same moves and values; its shares are the visits,
# where JAX's are the pruned target.
FORCED = ("connect_four-rows6-cols7-connect4", {"policy": "puct_forced"})


@pytest.mark.parametrize(
    ("key", "search_settings"),
    [*((key, {}) for key in pretrained.available()), STEEPER, FORCED],
)
def test_offline_search__moves_and_values_equal_jax(key, search_settings, tmp_path):
    game = _game_of(key)
    run = pretrained.load(game)
    if search_settings:
        config = run.config.copy_and_resolve_references()
        config.search.update(search_settings)
        run = run._replace(config=config)
    bundle = web_bundle.write_bundle(run, tmp_path)
    positions, batch = random_positions(game, NUM_POSITIONS, seed=len(key))
    assert not batch.terminal.any()
    analyse = alphazero.make_network_analysis_fn(
        game,
        run.apply_fn,
        run.config.search.to_dict(),
        num_simulations=int(run.config.search.num_simulations),
    )
    expected = jax.device_get(jax.jit(analyse)(run.variables, jax.random.key(1), batch))

    done = subprocess.run(
        [NODE, str(SEARCH)],
        input=json.dumps({"bundle": str(tmp_path / bundle["key"]), "positions": positions}),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for i, (actions, js) in enumerate(zip(positions, found)):
        where = f"{key} position {i} (moves {actions})"
        assert js["action"] == int(expected.action[i]), where
        assert js["value"] == pytest.approx(float(expected.value[i]), abs=1e-4), where
        if run.config.search.policy != "puct_forced":
            np.testing.assert_allclose(
                js["visitProbs"], expected.shares[i], atol=1e-6, err_msg=where
            )
