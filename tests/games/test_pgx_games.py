"""pgx's games through the game contract (``games/pgx_games.py``): a differential against
pgx's own ``env.step`` over random games, their notation and pictures drawn by hand, and the
one-line refusal where pgx is not installed. ``check_game`` runs on each in
``test_game_conformance.py``.

The differential runs Tic-Tac-Toe and Connect Four in ``make test``; the others compile
pgx's rules for seconds (chess, shogi and Go 19x19 for a minute or more) and are ``long``."""

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest
from game_names import BUILT_IN, PGX, PGX_QUICK, marked

from alphazero_jax import games
from alphazero_jax.games import pgx_games

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV_IDS = {pgx_games.PREFIX + spec.env_id: spec.env_id for spec in pgx_games.GAMES}


def test_pgx_games__all_ten_are_registered_where_pgx_is_installed():
    assert set(PGX) == set(ENV_IDS) and len(PGX) == 10


# The differential: the same random games stepped by pgx's ``env.step`` and by ours.

DIFFERENTIAL = {  # (games, plies): every game to its end and one ply past it
    "pgx_tic_tac_toe": (16, 10),
    "pgx_connect_four": (16, 43),
}


def _random_legal(key, mask):
    """A uniformly random action where ``mask`` is True (any action where none is)."""
    logits = jnp.where(mask.any(), jnp.where(mask, 0.0, -jnp.inf), 0.0)
    return jax.random.categorical(key, logits).astype(jnp.int32)


def _bad_action(key, mask):
    """-1, ``len(mask)`` or an illegal action in range (-1 where every action is legal)."""
    kind_key, action_key = jax.random.split(key)
    illegal = _random_legal(action_key, ~mask)
    illegal = jnp.where(mask[illegal], -1, illegal)
    return jnp.stack([jnp.int32(-1), jnp.int32(mask.shape[0]), illegal])[
        jax.random.randint(kind_key, (), 0, 3)
    ]


def _kept(game, first, ours, theirs, before, fresh, bad_key):
    """Each rule at one position of B games: bool[B], True where it is kept. ``before`` is
    our state one ply earlier; ``fresh``: pgx's game was not over one ply earlier, so that
    this position came from a real step (or is the start)."""
    num_games = fresh.shape[0]
    done = theirs.terminated | theirs.truncated
    mask = jax.vmap(game.legal_action_mask)(ours)
    observed = jax.vmap(game.observe)(ours) == theirs.observation.astype(jnp.float32)
    pgx_by_colour = jnp.stack(
        [theirs.rewards[jnp.arange(num_games), p] for p in (first, 1 - first)], 1
    )
    unchanged = [
        (a == b).reshape(num_games, -1).all(1)
        for a, b in zip(jax.tree.leaves(ours), jax.tree.leaves(before))
    ]
    bad = jax.vmap(_bad_action)(jax.random.split(bad_key, num_games), mask)
    refused = jax.vmap(game.step)(ours, bad)
    loss = jnp.where(ours.current_player[:, None] == 0, jnp.float32([-1, 1]), jnp.float32([1, -1]))
    return {
        "legal_action_mask == pgx's": ~fresh | done | (mask == theirs.legal_action_mask).all(1),
        "observe == pgx's observation": ~fresh | observed.reshape(num_games, -1).all(1),
        "terminal == pgx's terminated | truncated": ~fresh | (ours.terminal == done),
        "rewards (by colour) == pgx's (by player id)": ~fresh
        | (ours.rewards == pgx_by_colour).all(1),
        "current_player == (pgx's != the first mover's)": ~fresh
        | (ours.current_player == (theirs.current_player != first)),
        "no legal action once over": ~ours.terminal | ~mask.any(1),
        "a finished state unchanged by any action": fresh | jnp.stack(unchanged).all(0),
        "a bad action a loss for the mover": ours.terminal
        | (refused.terminal & (refused.rewards == loss).all(1)),
    }


def _play_both(game, env, key, num_games, num_plies):
    """Steps pgx's states and ours with the same random legal actions for ``num_plies`` plies
    (ours, once pgx's game is over, with any action in ``[-1, A]``). Returns each rule's
    bool[T, B] over the T = ``num_plies + 1`` positions, True where kept; whether each game
    is over at the end, bool[B]; pgx's id of each game's first mover, int[B]."""
    keys = jax.random.split(key, num_games)
    ours, theirs = jax.vmap(game.init)(keys), jax.vmap(env.init)(keys)
    first = theirs.current_player  # pgx's id of the side that moves first

    def ply(carry, key):
        ours, theirs = carry
        pick_key, any_key, bad_key = jax.random.split(key, 3)
        done = theirs.terminated | theirs.truncated
        actions = jax.vmap(_random_legal)(
            jax.random.split(pick_key, num_games), theirs.legal_action_mask
        )
        any_action = jax.random.randint(any_key, (num_games,), -1, game.num_actions + 1)
        after = jax.vmap(game.step)(ours, jnp.where(done, any_action, actions))
        theirs_after = jax.vmap(env.step)(theirs, actions)
        return (after, theirs_after), _kept(game, first, after, theirs_after, ours, ~done, bad_key)

    start = _kept(game, first, ours, theirs, ours, jnp.ones(num_games, bool), key)
    plies = jax.random.split(jax.random.fold_in(key, 1), num_plies)
    (ours, _), kept = jax.lax.scan(ply, (ours, theirs), plies)
    kept = {rule: jnp.concatenate([start[rule][None], kept[rule]]) for rule in start}
    return kept, ours.terminal, first


@pytest.mark.parametrize("name", marked(PGX, PGX_QUICK, large=()))  # the largest: a minute each
def test_pgx_game__steps_as_pgx_does(name):
    """From the same keys, with the same random legal actions, our state agrees with pgx's
    at every ply (mask, observation, end, rewards by colour, colour to move); once over, it
    stays put under any action; a bad action at any live ply would lose for the mover."""
    game, env = games.make(name), pgx.make(ENV_IDS[name])
    num_games, num_plies = DIFFERENTIAL.get(name, (8, game.max_num_moves + 1))
    play = jax.jit(lambda key: _play_both(game, env, key, num_games, num_plies))
    kept, over, first = jax.device_get(play(jax.random.key(0)))
    assert set(first.tolist()) == {0, 1}, "either of pgx's player ids should move first"
    for rule, ok in kept.items():
        broken = np.argwhere(~ok)
        assert not broken.size, f"{name}: {rule} broken at (ply, game) {broken[:4].tolist()}"
    assert over.all(), "every game should end within the plies played, to try what follows"


# Notation and pictures, drawn by hand.


def test_pgx_tic_tac_toe__cells_are_named_from_the_top_left():
    game = games.make("pgx_tic_tac_toe")
    assert game.actions_from_text("b2 a1 c3") == [4, 0, 8]
    assert game.to_text(games.replay(game, "b2 a1 c3")) == (
        "1 O . .\n2 . X .\n3 . . X\n  a b c\nmove 3, the second player to move"
    )


def test_pgx_connect_four__columns_are_numbered_from_the_left_and_stones_fall():
    game = games.make("pgx_connect_four")
    assert game.actions_from_text("4 4 5") == [3, 3, 4]
    expected = [". . . . . . ."] * 4 + [". . . O . . .", ". . . X X . .", "1 2 3 4 5 6 7"]
    expected.append("move 3, the second player to move")
    assert game.to_text(games.replay(game, "4 4 5")) == "\n".join(expected)


def test_pgx_grid_game__json_names_the_move_of_each_cell():
    board = games.make("pgx_tic_tac_toe").to_json(
        games.replay(games.make("pgx_tic_tac_toe"), "b2 a1")
    )
    assert board["cells"] == [[2, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert board["cell_moves"] == [["a1", "b1", "c1"], ["a2", "b2", "c2"], ["a3", "b3", "c3"]]
    board = games.make("pgx_connect_four").to_json(
        games.replay(games.make("pgx_connect_four"), "4")
    )
    assert board["rows"] == 6 and board["cols"] == 7 and board["cells"][5][3] == 1
    assert board["cell_moves"][0] == board["cell_moves"][5] == [str(c) for c in range(1, 8)]


def test_pgx_game__a_wrong_move_is_refused_naming_it():
    with pytest.raises(ValueError, match="'d4' at index 1") as raised:
        games.make("pgx_tic_tac_toe").actions_from_text("b2 d4 a1")
    assert "\n" not in str(raised.value)
    with pytest.raises(ValueError, match="'8'"):
        games.make("pgx_connect_four").actions_from_text("4 8")


def test_pgx_go_9x9__the_pass_is_the_action_after_the_cells_and_every_symmetry_keeps_it():
    game = games.make("pgx_go_9x9")
    assert game.num_actions == 82
    assert game.actions_from_text("a1 i9 pass") == [0, 80, 81] and game.action_to_text(81) == "pass"
    assert len(game.symmetries) == 8
    for symmetry in game.symmetries:
        assert symmetry.action_permutation[81] == 81, symmetry.name
        assert sorted(symmetry.action_permutation) == list(range(82)), symmetry.name


def test_pgx_hex__the_swap_is_action_121_and_legal_only_at_the_second_move():
    game = games.make("pgx_hex")
    assert game.actions_from_text("swap") == [121] and game.action_to_text(121) == "swap"
    states = games.replay_batch(game, [game.actions_from_text(m) for m in ("", "f6", "f6 a1")])
    assert jax.vmap(game.legal_action_mask)(states)[:, 121].tolist() == [False, True, False]


@pytest.mark.long
def test_pgx_chess__the_text_of_the_start_holds_its_fen():
    game = games.make("pgx_chess")
    text = game.to_text(game.init(jax.random.key(0)))
    assert "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in text.splitlines()
    assert game.to_json(game.init(jax.random.key(0)))["num_moves"] == 0


# Where pgx is not installed: a subprocess in which ``import pgx`` fails.

HIDE_PGX = 'import sys\nsys.modules["pgx"] = None  # import pgx fails, find_spec("pgx") is None\n'
WITHOUT_PGX = """
import importlib.util
from alphazero_jax import games
assert importlib.util.find_spec("pgx") is None, "pgx should be hidden"
print(",".join(games.available()))
try:
    games.make("pgx_go_9x9")
except ValueError as error:
    print(error)
"""


def _without_pgx(tmp_path, *arguments):
    """Runs ``python *arguments`` where pgx cannot be imported (a ``sitecustomize`` hides it)."""
    (tmp_path / "sitecustomize.py").write_text(HIDE_PGX)
    path = os.pathsep.join([str(tmp_path), REPO])
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=path)
    command = [sys.executable, *arguments]
    return subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_pgx_game__without_pgx_is_refused_in_one_line_that_says_how_to_install_it(tmp_path):
    done = _without_pgx(tmp_path, "-c", WITHOUT_PGX)
    assert done.returncode == 0, done.stderr
    listed, refusal = done.stdout.splitlines()
    assert listed.split(",") == list(BUILT_IN)
    assert refusal.startswith("The game 'pgx_go_9x9' is one of pgx's")
    assert refusal.endswith('install it: pip install "alphazero_jax[pgx]".')


def test_train_entry_point__without_pgx_refuses_a_pgx_game_in_one_line(tmp_path):
    arguments = ["-m", "experiments.train", "--config=pgx_go_9x9:smoke", "--workdir=run"]
    done = _without_pgx(tmp_path, *arguments)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and 'pip install "alphazero_jax[pgx]"' in errors[0], done.stderr
    assert not (tmp_path / "run").exists()


def test_pgx_grid_game__its_move_pattern_admits_the_letters_of_its_board_only():
    from alphazero_jax.games import records
    from alphazero_jax.play import contract

    def admitted(name, text):
        return records.matches(games.record(name).one_move_pattern(), text)

    assert admitted("pgx_tic_tac_toe", "c3") and admitted("pgx_tic_tac_toe", "C3")
    assert not admitted("pgx_tic_tac_toe", "d1")
    # Hex's k, also as the Kelvin sign (U+212A), which Python lowercases to k and reads.
    assert games.make("pgx_hex").actions_from_text("\u212a5") == [4 * 11 + 10]
    assert admitted("pgx_hex", "\u212a5") and admitted("pgx_hex", "swap")
    assert not admitted("pgx_hex", "l1")
    assert not contract.is_move_text("z9")  # a cell of no board here: no game's notation
