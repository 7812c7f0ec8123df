"""Tic-Tac-Toe and m,n,k boards: hand-drawn positions, notation, symmetries and errors."""

import textwrap

import numpy as np
import pytest

from alphazero_jax import games


def _picture(text):
    return textwrap.dedent(text).strip("\n")


# (settings, moves, picture, rewards)
HAND_DRAWN = {
    "row": (
        {},
        "a1 a2 b1 b2 c1",
        """
         3 . . .
         2 O O .
         1 X X X
           a b c
        """,
        [1.0, -1.0],
    ),
    "column-second-player": (
        {},
        "a1 b1 a2 b2 c3 b3",
        """
         3 . O X
         2 X O .
         1 X O .
           a b c
        """,
        [-1.0, 1.0],
    ),
    "diagonal": (
        {},
        "a1 a2 b2 a3 c3",
        """
         3 O . X
         2 O X .
         1 X . .
           a b c
        """,
        [1.0, -1.0],
    ),
    "anti-diagonal": (
        {},
        "c1 a1 b2 b1 a3",
        """
         3 X . .
         2 . X .
         1 O O X
           a b c
        """,
        [1.0, -1.0],
    ),
    "draw": (
        {},
        "b2 a1 c3 a3 a2 c2 b1 b3 c1",
        """
         3 O O X
         2 X X O
         1 O X X
           a b c
        """,
        [0.0, 0.0],
    ),
    "4x5-connect-4-diagonal": (
        {"rows": 4, "cols": 5, "connect": 4},
        "b1 a1 c2 a2 d3 a3 e4",
        """
         4 . . . . X
         3 O . . X .
         2 O . X . .
         1 O X . . .
           a b c d e
        """,
        [1.0, -1.0],
    ),
}


@pytest.mark.parametrize("case", HAND_DRAWN)
def test_tic_tac_toe__hand_drawn_endings(case):
    settings, moves, picture, rewards = HAND_DRAWN[case]
    game = games.make("tic_tac_toe", **settings)
    state = games.replay(game, moves)
    assert game.to_text(state) == _picture(picture)
    assert bool(state.terminal)
    assert not bool(games.replay(game, moves.rsplit(" ", 1)[0]).terminal)
    np.testing.assert_array_equal(np.asarray(state.rewards), rewards)


def test_tic_tac_toe__cells_are_numbered_in_reading_order():
    game = games.make("tic_tac_toe")
    assert game.actions_from_text("a3 b3 c3 a2 b2 c2 a1 b1 c1") == list(range(9))
    assert game.actions_to_text([4, 0]) == "b2 a3"


def test_tic_tac_toe__square_boards_have_eight_symmetries_rectangles_four():
    square = games.make("tic_tac_toe")
    assert len(square.symmetries) == 8
    # Rotating the board a quarter turn counter-clockwise moves the top-left corner (action
    # 0) to the bottom-left (action 6): the new policy's entry 6 is the old entry 0.
    rot90 = next(s for s in square.symmetries if s.name == "rot90")
    assert rot90.action_permutation[6] == 0
    assert len(games.make("tic_tac_toe", rows=3, cols=4).symmetries) == 4


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("b2 z9", r"Move 'z9' at index 1 .* not a cell"),
        ("b2 b2", r"Move 'b2' at index 1 .* illegal in this position"),
        ("a1 a2 b1 b2 c1 c2", r"Move 'c2' at index 5 .* after the game has ended"),
    ],
)
def test_tic_tac_toe__bad_move_text_names_the_move_and_its_index(moves, message):
    with pytest.raises(ValueError, match=message):
        games.replay(games.make("tic_tac_toe"), moves)
