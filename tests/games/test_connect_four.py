"""Connect Four: hand-drawn wins on several shapes, Pons' positions as an exact oracle,
notation and errors."""

import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games
from alphazero_jax.solvers import pons


def _picture(text):
    return textwrap.dedent(text).strip("\n")


# (settings, Pons-style moves, picture after the last move, winner: 0 = X, 1 = O)
HAND_DRAWN_WINS = {
    "horizontal-6x7": (
        {},
        "4455667",
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . O O O .
        . . . X X X X
        1 2 3 4 5 6 7
        """,
        0,
    ),
    "vertical-6x7": (
        {},
        "1212121",
        """
        . . . . . . .
        . . . . . . .
        X . . . . . .
        X O . . . . .
        X O . . . . .
        X O . . . . .
        1 2 3 4 5 6 7
        """,
        0,
    ),
    "rising-diagonal-6x7": (
        {},
        "12234334544",
        """
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . X O . . .
        . X O O . . .
        X O O X X . .
        1 2 3 4 5 6 7
        """,
        0,
    ),
    "falling-diagonal-5x4-connect-3": (
        {"rows": 5, "cols": 4, "connect": 3},
        "3142211",
        """
        . . . .
        . . . .
        X . . .
        O X . .
        O O X X
        1 2 3 4
        """,
        0,
    ),
    "vertical-5x4-connect-3-second-player": (
        {"rows": 5, "cols": 4, "connect": 3},
        "121232",
        """
        . . . .
        . . . .
        . O . .
        X O . .
        X O X .
        1 2 3 4
        """,
        1,
    ),
    "horizontal-8x9-connect-5-second-player": (
        {"rows": 8, "cols": 9, "connect": 5},
        "1223344556",
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X X X X . . . .
        X O O O O O . . .
        1 2 3 4 5 6 7 8 9
        """,
        1,
    ),
    "vertical-8x9-connect-5": (
        {"rows": 8, "cols": 9, "connect": 5},
        "545454545",
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . O X . . . .
        . . . O X . . . .
        . . . O X . . . .
        . . . O X . . . .
        1 2 3 4 5 6 7 8 9
        """,
        0,
    ),
}


@pytest.mark.parametrize("case", HAND_DRAWN_WINS)
def test_connect_four__hand_drawn_wins(case):
    settings, moves, picture, winner = HAND_DRAWN_WINS[case]
    game = games.make("connect_four", **settings)
    before = games.replay(game, moves[:-1])
    after = games.replay(game, moves)
    assert game.to_text(after) == _picture(picture)
    assert not bool(before.terminal), "the win must come with the last move"
    assert bool(after.terminal)
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    np.testing.assert_array_equal(np.asarray(after.rewards), expected)


def test_connect_four__full_board_without_a_line_is_a_draw():
    game = games.make("connect_four")
    moves = "452132145671363423737227774246535165114566"
    state = games.replay(game, moves)
    picture = """
        O O O X O O O
        X X O X O X X
        O O O X X X O
        O X X O X O X
        X O X O X O X
        O X X X O O X
        1 2 3 4 5 6 7
        """
    assert game.to_text(state) == _picture(picture)  # no four in a row, checked by eye
    assert bool(state.terminal) and int(state.num_moves) == 42
    np.testing.assert_array_equal(np.asarray(state.rewards), [0.0, 0.0])
    assert not bool(games.replay(game, moves[:-1]).terminal)


def _immediate_wins(game):
    def wins(state):
        children = jax.vmap(game.step, (None, 0))(state, jnp.arange(game.num_actions))
        return jnp.any(children.winner == state.current_player)

    return jax.jit(jax.vmap(wins))


@pytest.mark.parametrize("set_name", list(pons.SETS))
def test_connect_four__pons_positions_replay_and_agree_on_immediate_wins(set_name):
    """Score == (43 - moves played) // 2 exactly when the mover can win at once."""
    game = games.make("connect_four")
    positions = pons.load(set_name)
    assert len(positions) == 1000
    states = games.replay_batch(game, [game.actions_from_text(p.moves) for p in positions])
    assert not np.asarray(states.terminal).any()
    played = np.array([len(p.moves) for p in positions])
    np.testing.assert_array_equal(np.asarray(states.num_moves), played)
    best_possible = np.array([p.score for p in positions]) == (43 - played) // 2
    np.testing.assert_array_equal(np.asarray(_immediate_wins(game)(states)), best_possible)


def test_connect_four__pons_files_match_their_provenance():
    """Git blob hashes of the shipped sets, as listed in data/pons/README.md."""
    import hashlib
    from importlib import resources

    expected = {
        "Test_L3_R1": "180daa64dc3f52f3ac931be95c99c964945554b2",
        "Test_L2_R1": "66089b7cf493c00e44f23ddcf12ad1ea0fe8a1a8",
        "Test_L2_R2": "bca30d2284f2e2adcfb77f840b0f0862be82edc0",
        "Test_L1_R1": "125e3d872dfec4ea13fe09641606dff992f152ee",
        "Test_L1_R2": "481876168e3690e6bf080c56683b9d506e5ddd58",
        "Test_L1_R3": "c6e598e8f17adb32b509f5960d443934371f31fb",
    }
    for name, blob in expected.items():
        data = resources.files("alphazero_jax").joinpath("data", "pons", name).read_bytes()
        digest = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        assert digest == blob, name


def test_connect_four__pons_notation_round_trips():
    game = games.make("connect_four")
    assert game.actions_from_text("4453") == [3, 3, 4, 2]
    assert game.actions_to_text([3, 3, 4, 2]) == "4453"
    wide = games.make("connect_four", cols=10)
    assert wide.actions_from_text("1a") == [0, 9]
    assert wide.actions_to_text([9]) == "a"


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("4485", r"Move '8' at index 2 .* not a column: expected one of 1 2 3 4 5 6 7"),
        ("440", r"Move '0' at index 2"),
        ("4444444", r"Move '4' at index 6 .* illegal in this position"),
        ("4455667" + "1", r"Move '1' at index 7 .* after the game has ended"),
    ],
)
def test_connect_four__bad_move_text_names_the_move_and_its_index(moves, message):
    game = games.make("connect_four")
    with pytest.raises(ValueError, match=message):
        games.replay(game, moves)


def test_connect_four__bad_settings_say_what_is_accepted():
    with pytest.raises(ValueError, match=r"connect must be an integer in \[3, 4\], got 5"):
        games.make("connect_four", rows=4, cols=6, connect=5)
    with pytest.raises(ValueError, match=r"rows must be an integer in \[4, 10\], got 11"):
        games.make("connect_four", rows=11)
    with pytest.raises(ValueError, match=r"accepted settings .*rows=6, cols=7, connect=4"):
        games.make("connect_four", width=7)
    expected = (
        r"Unknown game 'chess'; registered: connect_four, othello, (pgx_\w+, )*quoridor, tic_"
    )
    with pytest.raises(ValueError, match=expected):
        games.make("chess")


def test_registry__a_game_this_installation_cannot_offer_is_refused_saying_how_to_install_it():
    from alphazero_jax import plugs

    plugs.GAMES.unavailable("needs_extra", "The game 'needs_extra' needs pip install extra.")
    try:
        with pytest.raises(ValueError, match=r"^The game 'needs_extra' needs pip install extra\.$"):
            games.make("needs_extra")
        assert "needs_extra" not in games.available()
    finally:
        plugs.GAMES._missing.pop("needs_extra")


def test_connect_four__observation_is_from_the_movers_view():
    game = games.make("connect_four")
    state = games.replay(game, "45")  # X in column 4, O in column 5; X to move.
    planes = np.asarray(game.observe(state))
    assert planes[5, 3, 0] == 1 and planes[5, 4, 1] == 1 and planes.sum() == 2
    swapped = np.asarray(game.observe(games.replay(game, "454")))  # now O to move
    assert swapped[5, 4, 0] == 1 and swapped[5, 3, 1] == 1 and swapped[4, 3, 1] == 1


def test_connect_four__state_is_at_most_32_bytes():
    state = games.make("connect_four").init(jax.random.key(0))
    assert sum(leaf.nbytes for leaf in jax.tree.leaves(state)) <= 32


def test_connect_four__heuristic_prefers_the_centre_and_open_threes():
    game = games.make("connect_four")
    heuristic = jax.jit(game.heuristic)
    # After X plays the centre, O (to move) is worse off than after X plays an edge.
    assert heuristic(games.replay(game, "4")) < heuristic(games.replay(game, "1"))
    # X has an open three on the bottom row (columns 3-5) and O, to move, faces it.
    assert float(heuristic(games.replay(game, "33445"))) < -0.1
