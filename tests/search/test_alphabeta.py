"""Alpha-beta minimax: known answers on hand-drawn positions, the same moves as a plain
full-width negamax written here independently, and perfect Tic-Tac-Toe at full depth."""

import functools

import jax
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.evaluation import arena
from alphazero_jax.search import alphabeta
from alphazero_jax.solvers import tic_tac_toe as oracle

# Tic-Tac-Toe cells in reading order: a3 b3 c3 / a2 b2 c2 / a1 b1 c1 = 0..8.
EDGES = {1, 3, 5, 7}


def _states(game, moves, copies=1):
    return games.replay_batch(game, [game.actions_from_text(moves)] * copies)


@functools.cache
def _act(game, depth):
    return jax.jit(agents.minimax_agent(game, depth=depth).act_fn)


@functools.cache
def _negamax(game, depth):
    return jax.jit(alphabeta.make_negamax(game, depth=depth))


def _choices(game, depth, moves, num_keys=32):
    act = _act(game, depth)
    states = _states(game, moves, copies=num_keys)
    return set(np.asarray(act(None, jax.random.key(0), states)).tolist())


@pytest.mark.parametrize(
    ("moves", "depth", "answer", "why"),
    [
        ("414141", 1, 3, "X has three stacked in column 4 and wins there at once"),
        ("414141", 3, 3, "the immediate win beats every slower one"),
        ("41414", 2, 3, "O must block X's three in column 4"),
        ("17273", 2, 3, "O must block X's bottom-row three in column 4"),
    ],
)
def test_minimax__connect_four_known_answers(moves, depth, answer, why):
    game = games.make("connect_four")
    assert _choices(game, depth, moves) == {answer}, why


def test_minimax__prefers_the_faster_win():
    game = games.make("connect_four")
    values, _ = _negamax(game, 3)(games.replay(game, "414141"))
    values = np.asarray(values)
    # A win now is worth 2 - 1/4; a win two moves later at most 2 - 3/4.
    assert values[3] == pytest.approx(2 - 1 / 4)
    assert np.all(np.delete(values, 3) <= 2 - 3 / 4 + 1e-6)


def test_minimax__greedy_takes_an_immediate_win():
    game = games.make("connect_four")
    greedy = agents.from_spec(game, "greedy")
    states = _states(game, "414141", copies=32)
    moves = jax.jit(greedy.act_fn)(None, jax.random.key(0), states)
    assert set(np.asarray(moves).tolist()) == {3}


def test_minimax__hand_checked_tic_tac_toe_position_and_random_ties():
    # X a1, O b2, X c3: O must take an edge; a corner loses to X's fork. The four edges
    # all draw, so the choice among them is random.
    game = games.make("tic_tac_toe")
    moves = "a1 b2 c3"
    board = oracle.board_after(game.actions_from_text(moves))
    assert oracle.optimal_moves(board) == EDGES
    assert _choices(game, 9, moves, num_keys=64) == EDGES


@pytest.mark.long
def test_minimax__full_depth_tic_tac_toe_never_loses_to_random():
    game = games.make("tic_tac_toe")
    perfect = agents.from_spec(game, "minimax:9")
    result = arena.play(
        game, perfect, agents.from_spec(game, "random"), num_games=1000, key=jax.random.key(0)
    )
    assert result.total.losses == 0, result.summary()
    assert result.total.wins > 800, result.summary()


class _FullWidth:
    """Plain full-width negamax with the same value conventions, one state at a time."""

    def __init__(self, game, depth):
        self.depth = depth
        self.num_actions = game.num_actions
        self.step = jax.jit(game.step)
        self.heuristic = jax.jit(game.heuristic)
        self.legal = jax.jit(game.legal_action_mask)

    def value(self, state, ply):
        if bool(state.terminal) or ply == self.depth:
            h = float(self.heuristic(state))
            return h * (2 - ply / (self.depth + 1)) if bool(state.terminal) else h
        legal = np.flatnonzero(np.asarray(self.legal(state)))
        return max(-self.value(self.step(state, a), ply + 1) for a in legal)

    def root_values(self, state):
        legal = np.asarray(self.legal(state))
        return np.array(
            [
                -self.value(self.step(state, a), 1) if legal[a] else -np.inf
                for a in range(self.num_actions)
            ]
        )


@pytest.mark.parametrize("depth", [2, 3])
def test_minimax__same_best_moves_as_full_width_negamax(depth):
    game = games.make("connect_four")
    reference = _FullWidth(game, depth)
    search = _negamax(game, depth)
    rng = np.random.default_rng(depth)
    checked = 0
    while checked < 6:
        moves = "".join(str(c) for c in rng.integers(1, 8, size=rng.integers(2, 16)))
        try:
            state = games.replay(game, moves)
        except ValueError:  # a full column: draw another
            continue
        if bool(state.terminal):
            continue
        expected = reference.root_values(state)
        values, legal = search(state)
        ours = np.flatnonzero(np.asarray(alphabeta.best_moves(values, legal)))
        theirs = np.flatnonzero(expected >= expected.max() - 1e-5)
        np.testing.assert_array_equal(ours, theirs, err_msg=f"position {moves}")
        np.testing.assert_allclose(np.asarray(values)[ours], expected[ours], atol=1e-5)
        checked += 1


def test_minimax__finished_games_get_a_move_and_no_nan():
    game = games.make("connect_four")
    states = _states(game, "4141414", copies=2)  # X has won
    assert bool(states.terminal.all())
    values, _ = jax.vmap(_negamax(game, 2))(states)
    assert np.all(np.isfinite(np.asarray(values)))
    moves = _act(game, 2)(None, jax.random.key(0), states)
    assert moves.dtype == np.int32 and moves.shape == (2,)


def test_minimax__rejects_a_bad_depth():
    game = games.make("connect_four")
    for depth in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="depth must be an int >= 1"):
            alphabeta.make_negamax(game, depth=depth)
