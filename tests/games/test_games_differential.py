"""Random move sequences on random board shapes, checked move by move against a small,
obviously correct pure-Python reference of k-in-a-row with and without gravity."""

import functools

import jax
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from alphazero_jax import games


class Reference:
    """Plain lists; a line is found by trying every start cell and direction."""

    def __init__(self, rows, cols, connect, gravity):
        self.rows, self.cols, self.connect, self.gravity = rows, cols, connect, gravity
        self.cells = [[None] * cols for _ in range(rows)]  # row 0 is the top row
        self.player, self.winner, self.over, self.moves = 0, None, False, 0

    def legal(self):
        if self.over:
            return [False] * (self.cols if self.gravity else self.rows * self.cols)
        if self.gravity:
            return [self.cells[0][c] is None for c in range(self.cols)]
        return [self.cells[r][c] is None for r in range(self.rows) for c in range(self.cols)]

    def play(self, action):
        if self.gravity:
            col = action
            row = max(r for r in range(self.rows) if self.cells[r][col] is None)
        else:
            row, col = divmod(action, self.cols)
        self.cells[row][col] = self.player
        self.moves += 1
        if self.has_line(self.player):
            self.winner, self.over = self.player, True
        elif self.moves == self.rows * self.cols:
            self.over = True
        self.player = 1 - self.player

    def has_line(self, player):
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(self.connect)]
                    if all(
                        0 <= y < self.rows and 0 <= x < self.cols and self.cells[y][x] == player
                        for y, x in cells
                    ):
                        return True
        return False

    def rewards(self):
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def planes(self):
        own = [[float(v == self.player) for v in row] for row in self.cells]
        other = [[float(v == 1 - self.player) for v in row] for row in self.cells]
        return np.stack([np.array(own), np.array(other)], axis=-1)


@functools.cache
def _jitted(game):
    return jax.jit(game.step), jax.jit(game.observe), jax.jit(game.legal_action_mask)


@st.composite
def shapes_and_moves(draw):
    name = draw(st.sampled_from(["connect_four", "tic_tac_toe"]))
    low = 4 if name == "connect_four" else 3
    rows, cols = draw(st.integers(low, 10)), draw(st.integers(low, 10))
    longest = min(rows, cols) if name == "connect_four" else max(rows, cols)
    connect = draw(st.integers(3, longest))
    choices = draw(st.lists(st.integers(0, 1000), min_size=rows * cols, max_size=rows * cols))
    return name, rows, cols, connect, choices


@settings(max_examples=40, deadline=None, derandomize=True)
@given(shapes_and_moves())
def test_games__match_a_pure_python_reference_move_by_move(case):
    name, rows, cols, connect, choices = case
    game = games.make(name, rows=rows, cols=cols, connect=connect)
    step, observe, legal_action_mask = _jitted(game)
    reference = Reference(rows, cols, connect, gravity=name == "connect_four")
    state = game.init(jax.random.key(0))
    for choice in choices:
        legal = np.asarray(legal_action_mask(state))
        np.testing.assert_array_equal(legal, reference.legal())
        assert bool(state.terminal) == reference.over
        np.testing.assert_array_equal(np.asarray(state.rewards), reference.rewards())
        assert int(state.current_player) == reference.player
        np.testing.assert_array_equal(np.asarray(observe(state)), reference.planes())
        if reference.over:
            break
        action = int(np.flatnonzero(legal)[choice % legal.sum()])
        state = step(state, action)
        reference.play(action)
    assert reference.over
