"""The Tic-Tac-Toe oracle: known counts, hand-checked positions, and agreement with the
JAX game on every reachable position."""

import jax
import numpy as np

from alphazero_jax import games
from alphazero_jax.solvers import tic_tac_toe as oracle


def test_oracle__counts_and_the_empty_board_is_a_draw():
    positions = oracle.reachable_positions()
    assert len(positions) == 5478
    assert sum(not oracle.is_over(b) for b in positions) == 4520
    assert oracle.value((-1,) * 9) == 0
    assert oracle.optimal_moves((-1,) * 9) == set(range(9))  # every first move draws


def test_oracle__hand_checked_positions():
    game = games.make("tic_tac_toe")

    def board(text):
        return oracle.board_after(game.actions_from_text(text))

    # X threatens c1: O's only saving move is to block it (c1 is action 8).
    assert oracle.optimal_moves(board("a1 b2 b1")) == {8}
    # After a1 a2 b1 every move of O loses: blocking c1 lets X fork with b2.
    assert set(oracle.move_values(board("a1 a2 b1")).values()) == {-1}
    # X to move wins at once on c1.
    assert oracle.optimal_moves(board("a1 a2 b1 b2")) == {8}


def test_oracle__agrees_with_the_jax_game_on_every_live_position():
    game = games.make("tic_tac_toe")
    boards = [b for b in oracle.reachable_positions() if not oracle.is_over(b)]
    states = games.replay_batch(game, [oracle.moves_to(b) for b in boards])
    assert not np.asarray(states.terminal).any()
    legal = np.asarray(jax.vmap(game.legal_action_mask)(states))
    np.testing.assert_array_equal(legal, np.array(boards) < 0)
