"""Othello: hand-drawn positions, notation, symmetries, and random games move by move
against OpenSpiel's ``othello`` (an independent C++ implementation).

OpenSpiel's rules map onto ours one to one on 8x8: the same 65 actions (cells in reading
order from a1 at the top-left, then the pass as 64), a pass that is the only legal action
when the mover cannot place, and an end as soon as neither player can place. Its
observation tensor, from player 0's view, is (empty, Black, White) planes.
"""

import random

import jax
import jax.numpy as jnp
import numpy as np
import positions
import pytest
from replaying import every_state

from alphazero_jax import agents, games
from alphazero_jax.games import othello

GAME = games.make("othello")
STEP = jax.jit(GAME.step)
LEGAL = jax.jit(GAME.legal_action_mask)


def _picture(state):
    return [line.split(" ", 1)[1].replace(" ", "") for line in GAME.to_text(state).splitlines()[:8]]


def _legal_text(state):
    legal = np.asarray(LEGAL(state))
    return sorted(GAME.action_to_text(a) for a in np.flatnonzero(legal))


def test_start__four_discs_and_four_moves():
    state = GAME.init(jax.random.key(0))
    assert _picture(state)[3:5] == ["...OX...", "...XO..."]
    assert _legal_text(state) == ["c4", "d3", "e6", "f5"]
    assert GAME.observation_shape == (8, 8, 3) and GAME.num_actions == 65


def test_a_placement_flips_every_bracketed_line_in_all_8_directions():
    # Black (X) plays d4: every O on the star around it is bracketed by an X.
    state = positions.othello(
        8,
        [
            "X..X..X.",
            ".O.O.O..",
            "..OOO...",
            "XOO.OOX.",
            "..OOO...",
            ".O.O.O..",
            "X..X..X.",
            ".......O",
        ],
        player=0,
    )
    assert "d4" in _legal_text(state)
    after = STEP(state, GAME.actions_from_text("d4")[0])
    assert _picture(after) == [
        "X..X..X.",
        ".X.X.X..",
        "..XXX...",
        "XXXXXXX.",
        "..XXX...",
        ".X.X.X..",
        "X..X..X.",
        ".......O",  # not bracketed: stays
    ]
    # White keeps only the h8 corner, which nothing can bracket: the game is over.
    assert bool(after.terminal) and after.rewards.tolist() == [1.0, -1.0]


def test_runs_that_reach_the_edge_or_an_empty_cell_do_not_flip():
    state = positions.othello(
        8,
        [
            "........",
            "........",
            "...OOOOO",
            "..O.....",
            "..O.O...",
            ".....X..",
            "..X.....",
            "........",
        ],
        player=0,
    )
    legal = _legal_text(state)
    # c3: east, d3..h3 run into the edge; south, c4 and c5 run into the empty c6.
    # c6: north, c5 and c4 run into the empty c3 (c7's X is on the other side).
    assert "c3" not in legal and "c6" not in legal
    # d4 brackets only e5 (closed by f6); its lines through d3, c4, e3 and c5 are open.
    assert "d4" in legal
    after = STEP(state, GAME.actions_from_text("d4")[0])
    assert _picture(after)[2:6] == ["...OOOOO", "..OX....", "..O.X...", ".....X.."]
    # An illegal placement ends the game as a loss for the mover.
    lost = STEP(state, GAME.actions_from_text("c3")[0])
    assert bool(lost.terminal) and lost.rewards.tolist() == [-1.0, 1.0]


# White to move: a1's lines run along full rows of X into the edge (b2 is empty), and
# f5's only neighbour, e5, starts a run of X into the edge. Black can close f5 with g5.
MUST_PASS = [
    "OXXXXXXX",
    "X.......",
    "X.......",
    "X.......",
    "XXXXXO..",
    "X.......",
    "X.......",
    "X.......",
]


def test_forced_pass_then_the_opponent_moves():
    state = positions.othello(8, MUST_PASS, player=1)
    assert _legal_text(state) == ["pass"] and not bool(state.terminal)
    after = STEP(state, 64)
    assert int(after.current_player) == 0 and not bool(after.terminal)
    assert _picture(after) == MUST_PASS and int(after.num_moves) == int(state.num_moves) + 1
    assert _legal_text(after) == ["g5"]
    # A placement by the player who must pass, and a pass by one who can place, are
    # illegal: each loses at once.
    assert STEP(state, GAME.actions_from_text("g5")[0]).rewards.tolist() == [1.0, -1.0]
    assert STEP(after, 64).rewards.tolist() == [-1.0, 1.0]


def test_game_ends_early_when_neither_side_can_place():
    state = STEP(positions.othello(8, MUST_PASS, player=1), 64)
    over = STEP(state, GAME.actions_from_text("g5")[0])
    # White keeps only its corner, which no line can bracket: nobody can place, with 41
    # empty cells left. Black has 18 + 2 discs.
    assert bool(over.terminal) and _legal_text(over) == []
    assert othello.count_discs(over).tolist() == [20, 1]
    assert over.rewards.tolist() == [1.0, -1.0]


def _play(text):
    state = GAME.init(jax.random.key(0))
    for move in GAME.actions_from_text(text):
        assert not bool(state.terminal)
        assert np.asarray(LEGAL(state))[move], GAME.action_to_text(move)
        state = STEP(state, move)
    return state


def test_shortest_game_is_a_nine_move_wipe_out():
    # Our perft at ply 9 finds 172 finished games; this is one (OpenSpiel agrees below).
    state = _play("e6 d6 c3 f5 g6 f6 c6 c5 b5")
    assert bool(state.terminal) and int(state.num_moves) == 9
    assert othello.count_discs(state).tolist() == [13, 0]
    assert state.rewards.tolist() == [1.0, -1.0]


# A random game (drawn by OpenSpiel's engine) that fills the board 32 to 32, with White's
# pass just before Black's last move.
FULL_BOARD_DRAW = (
    "c4 c3 f5 f4 g4 c5 b2 c2 b4 g5 h6 g3 d6 a2 g6 h4 h2 g7 g8 c6 b6 e6 d7 b7 b3 b5 c7 e7 a5 "
    "f2 a3 f3 d3 f7 a7 a4 h3 h1 g2 e2 d2 b8 a1 f1 g1 c8 b1 h5 e1 h7 f8 e8 a8 d1 d8 e3 c1 a6 "
    "f6 pass h8"
)


def test_full_board_draw():
    state = _play(FULL_BOARD_DRAW)
    assert bool(state.terminal) and int(state.num_moves) == 61
    assert othello.count_discs(state).tolist() == [32, 32]
    assert state.rewards.tolist() == [0.0, 0.0]
    assert _picture(state)[0] == "XXXOOOOO"


def test_the_hand_played_games_end_the_same_in_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    for text, returns in [
        ("e6 d6 c3 f5 g6 f6 c6 c5 b5", [1.0, -1.0]),
        (FULL_BOARD_DRAW, [0.0, 0.0]),
    ]:
        state = pyspiel.load_game("othello").new_initial_state()
        for move in GAME.actions_from_text(text):
            state.apply_action(move)
        assert state.is_terminal() and state.returns() == returns


def test_notation_round_trips_and_errors():
    assert GAME.actions_from_text("f5 D6, c3 pass") == [37, 43, 18, 64]
    assert GAME.actions_to_text([37, 43, 18, 64]) == "f5 d6 c3 pass"
    with pytest.raises(ValueError, match="'i5' at index 1"):
        GAME.actions_from_text("f5 i5")
    with pytest.raises(ValueError, match=r"row 1\.\.8"):
        GAME.actions_from_text("a9")
    with pytest.raises(ValueError, match="pass 64"):
        GAME.action_to_text(65)


@pytest.mark.parametrize("size", [4, 6, 8, 10, 16])
def test_every_size_starts_with_four_centre_discs_and_four_moves(size):
    game = games.make("othello", size=size)
    state = game.init(jax.random.key(0))
    assert othello.count_discs(state).tolist() == [2, 2]
    assert int(game.legal_action_mask(state).sum()) == 4
    assert game.num_actions == size * size + 1


def test_odd_or_out_of_range_sizes_are_refused():
    for size in (3, 5, 7, 18):
        with pytest.raises(ValueError, match="size"):
            games.make("othello", size=size)


def test_symmetries_map_positions_and_moves():
    """For a mid-game position P and each symmetry T: the position drawn as T(P) has the
    transformed observation and legal moves, and playing the mapped move commutes."""
    rng = np.random.default_rng(3)
    state = GAME.init(jax.random.key(0))
    for _ in range(12):
        state = STEP(state, int(rng.choice(np.flatnonzero(np.asarray(LEGAL(state))))))
    cells = np.array(othello.grid(8, state))
    for symmetry in GAME.symmetries:
        drawn = symmetry.transform_observation(cells[..., None])[..., 0]
        transformed = positions.othello(8, drawn.tolist(), int(state.current_player))
        np.testing.assert_array_equal(
            np.asarray(GAME.observe(transformed)),
            np.asarray(symmetry.transform_observation(GAME.observe(state))),
        )
        perm = symmetry.action_permutation
        legal = np.asarray(LEGAL(state))
        np.testing.assert_array_equal(np.asarray(LEGAL(transformed)), legal[perm])
        inverse = np.argsort(perm)
        action = int(np.flatnonzero(legal)[0])
        moved, moved_transformed = STEP(state, action), STEP(transformed, int(inverse[action]))
        np.testing.assert_array_equal(
            symmetry.transform_observation(np.array(othello.grid(8, moved))[..., None])[..., 0],
            np.array(othello.grid(8, moved_transformed)),
        )


def test_greedy_flips_takes_the_most_discs():
    # Black (3 discs) to move: d4 flips three (e3 closed by f2, c5 by b6, d5 by d6); no
    # other move flips more than two.
    state = positions.othello(
        8,
        [
            "........",
            ".....X..",
            "....O...",
            "..O.O...",
            "..OO....",
            ".X.X....",
            "........",
            "........",
        ],
        player=0,
    )
    legal = np.flatnonzero(np.asarray(LEGAL(state)))
    gains = {
        GAME.action_to_text(a): int(othello.count_discs(STEP(state, int(a)))[0]) for a in legal
    }
    assert gains["d4"] == 3 + 1 + 3 and max(gains.values()) == gains["d4"]
    assert sorted(gains.values()).count(gains["d4"]) == 1
    agent = agents.from_spec(GAME, "greedy:flips")
    batch = jax.tree.map(lambda x: jnp.stack([x] * 16), state)
    assert set(np.asarray(agent.act(jax.random.key(0), batch)).tolist()) == {27}  # d4
    with pytest.raises(ValueError, match="Othello"):
        agents.from_spec(games.make("tic_tac_toe"), "greedy:flips")


# --- OpenSpiel differential -------------------------------------------------------------

NUM_GAMES = 2000


def _openspiel_games(num_games, seed):
    """Random games through OpenSpiel: actions, legal actions, boards and returns."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("othello")
    assert game.num_distinct_actions() == GAME.num_actions
    rng = random.Random(seed)
    records = []
    for _ in range(num_games):
        state = game.new_initial_state()
        actions, legals, boards = [], [], []
        while True:
            planes = np.asarray(state.observation_tensor(0)).reshape(3, 8, 8)
            boards.append(planes[1] + 2 * planes[2])  # 1 Black, 2 White
            if state.is_terminal():
                break
            legal = state.legal_actions()
            legals.append(legal)
            action = rng.choice(legal)
            actions.append(action)
            state.apply_action(action)
        records.append((actions, legals, np.stack(boards), state.returns()))
    return records, game


def _our_games(move_lists):
    """Every state of each move list through our step: [B, T+1] (padded moves skipped)."""
    states = every_state(GAME, move_lists)
    legal = jax.jit(jax.vmap(jax.vmap(GAME.legal_action_mask)))(states)
    planes = np.asarray(jax.jit(jax.vmap(jax.vmap(GAME.observe)))(states))
    black_moves = (np.asarray(states.current_player) == 0)[..., None, None]
    black = np.where(black_moves, planes[..., 0], planes[..., 1])
    white = np.where(black_moves, planes[..., 1], planes[..., 0])
    return jax.tree.map(np.asarray, states), np.asarray(legal), black + 2 * white


@pytest.mark.long
def test_random_games_match_openspiel_move_by_move():
    records, spiel_game = _openspiel_games(NUM_GAMES, seed=0)
    state = spiel_game.new_initial_state()
    for action in range(GAME.num_actions):  # the same notation, pass included
        assert state.action_to_string(0, action) == GAME.action_to_text(action)
    states, legal, cells = _our_games([r[0] for r in records])
    passes = early_ends = 0
    for i, (actions, legals, boards, returns) in enumerate(records):
        n = len(actions)
        for t in range(n):
            np.testing.assert_array_equal(np.flatnonzero(legal[i, t]), legals[t], f"game {i}")
        np.testing.assert_array_equal(cells[i, : n + 1], boards, f"game {i}")
        assert states.terminal[i, n] and not states.terminal[i, n - 1]
        assert not legal[i, n].any()
        np.testing.assert_array_equal(states.rewards[i, n], returns)
        passes += actions.count(64)
        early_ends += int((boards[-1] == 0).any())
    # The random games cover the rare rules too.
    assert passes > 500 and early_ends > 5  # 852 and 16 with this seed
