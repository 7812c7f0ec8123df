"""The offline page's rules (alphazero_jax/play/static/offline/*.js) against the library's:
random games played by JAX, replayed through the JavaScript in Node, equal state by state
(legal masks, observations, outcomes, and Quoridor's heuristic, which its agents' search
uses)."""

import json
import pathlib
import shutil
import subprocess

import jax
import numpy as np
import pytest

from alphazero_jax import games, search
from alphazero_jax.play import web_bundle

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node (Node.js 18 or newer)")
REPLAY = pathlib.Path(__file__).parent / "offline" / "replay_games.mjs"

# (game, settings, games played): every shipped agent's game, Othello with enough games for
# passes to come up.
CASES = [
    ("connect_four", {"rows": 6, "cols": 7, "connect": 4}, 24),
    ("tic_tac_toe", {"rows": 3, "cols": 3, "connect": 3}, 24),
    ("othello", {"size": 6, "legal_plane": 1}, 24),
    ("othello", {"size": 8, "legal_plane": 1}, 8),
    ("quoridor", {"size": 5, "walls": 3, "distance_planes": 1}, 8),
    ("quoridor", {"size": 9, "walls": 10, "distance_planes": 1}, 3),
]


def random_games(game, num_games: int, seed: int):
    """Random legal play by JAX: per game, its actions and per state (the start to the end)
    the legal mask, observation, terminal flag, rewards, mover and heuristic."""

    def play(key):
        def one_move(state, key):
            legal = game.legal_action_mask(state)
            action = search.uniform_choice(key, legal[None])[0]
            seen = (
                legal,
                game.observe(state),
                state.terminal,
                state.rewards,
                state.current_player,
                game.heuristic(state),
            )
            return game.step(state, action), (action, seen)

        keys = jax.random.split(key, game.max_num_moves + 1)
        _, (actions, seen) = jax.lax.scan(one_move, game.init(key), keys)
        return actions, seen

    keys = jax.random.split(jax.random.key(seed), num_games)
    actions, seen = jax.device_get(jax.jit(jax.vmap(play))(keys))
    played = []
    for g in range(num_games):
        terminal = seen[2][g]
        length = int(np.argmax(terminal)) if terminal.any() else len(terminal) - 1
        states = [tuple(np.asarray(part[g][t]) for part in seen) for t in range(length + 1)]
        played.append(([int(a) for a in actions[g][:length]], states))
    return played


def replay_in_node(name: str, settings: dict, actions: list[list[int]]):
    done = subprocess.run(
        [NODE, str(REPLAY)],
        input=json.dumps({"game": name, "settings": settings, "games": actions}),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("name", "settings", "num_games"), CASES)
def test_offline_rules__equal_jax_state_by_state_in_random_games(name, settings, num_games):
    game = games.make(name, **settings)
    played = random_games(game, num_games, seed=len(name) + sum(settings.values()))
    replayed = replay_in_node(name, settings, [actions for actions, _ in played])
    passes = 0
    for g, ((actions, states), js_states) in enumerate(zip(played, replayed)):
        assert len(js_states) == len(states), f"game {g}: {len(js_states)} states in JS"
        for t, ((legal, observation, terminal, rewards, player, heuristic), js) in enumerate(
            zip(states, js_states)
        ):
            where = f"{name} {settings} game {g} after {actions[:t]}"
            assert js["legal"] == "".join("1" if x else "0" for x in legal), where
            np.testing.assert_array_equal(
                np.asarray(js["observation"], np.float32), observation.reshape(-1), where
            )
            assert (js["terminal"], js["rewards"], js["player"]) == (
                bool(terminal),
                rewards.tolist(),
                int(player),
            ), where
            if js["heuristic"] is not None:
                assert js["heuristic"] == pytest.approx(float(heuristic), abs=1e-6), where
        assert states[-1][2], f"game {g} did not end within the move cap"
        passes += sum(a == game.num_actions - 1 for a in actions) if name == "othello" else 0
    if name == "othello" and settings["size"] == 6:
        assert passes > 0, "no pass in the random Othello games: play more"


def test_offline_rules__refuse_a_game_without_rules():
    printed = _node(".then(m => m.makeGame('chess', {})).catch(e => { console.log(e.message); })")
    assert printed.startswith("No rules for the game chess in the page")


def test_offline_rules__are_for_the_games_the_export_lets_through():
    printed = _node(".then(m => console.log(JSON.stringify(Object.keys(m.MAKERS))))")
    assert sorted(json.loads(printed)) == sorted(web_bundle.PAGE_GAMES)


def _node(then: str) -> str:
    """What node prints after importing the page's games.js and running ``then`` on it."""
    script = "import('./alphazero_jax/play/static/offline/games.js')" + then
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=pathlib.Path(__file__).parents[2],
    )
    return done.stdout
