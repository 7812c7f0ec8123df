"""Stored training targets (``training.targets``) on a trajectory written by hand: two
slots, the first finishing a 2-move game and starting another, the second one long game."""

import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax.training import targets
from alphazero_jax.types import Trajectory

# T = 4 moves, B = 2 slots, A = 3 actions; the policy at (t, b) is one-hot on (t + b) % 3.
ENDED = np.array([[False, False], [True, False], [False, False], [False, True]])
POLICY = np.eye(3, dtype=np.float32)[(np.arange(4)[:, None] + np.arange(2)) % 3]


def _trajectory() -> Trajectory:
    zeros = jnp.zeros((4, 2))
    return Trajectory(
        observation=jnp.zeros((4, 2, 1, 1, 1)),
        legal_action_mask=jnp.ones((4, 2, 3), bool),
        policy=jnp.asarray(POLICY),
        player=jnp.asarray(np.arange(4)[:, None] % 2 * np.ones((1, 2), int)),
        ended=jnp.asarray(ENDED),
        valid=jnp.asarray(ENDED | True),
        value=zeros,
        outcome=zeros,
    )


def test_reply_policy__is_the_next_ply_s_policy_and_zero_after_a_game_s_last_move():
    reply = np.asarray(targets.reply_policy(_trajectory()))
    # Slot 0: moves 0-1 are a game (move 1 ends it), moves 2-3 the next one.
    np.testing.assert_array_equal(reply[0, 0], POLICY[1, 0])
    np.testing.assert_array_equal(reply[1, 0], 0.0)  # its game ended: no reply
    np.testing.assert_array_equal(reply[2, 0], POLICY[3, 0])
    np.testing.assert_array_equal(reply[3, 0], 0.0)  # the trajectory's end
    # Slot 1: one game ending with move 3.
    np.testing.assert_array_equal(reply[:3, 1], POLICY[1:, 1])
    np.testing.assert_array_equal(reply[3, 1], 0.0)


def test_plies_to_end__counts_the_moves_left_in_each_game():
    counts = np.asarray(targets.plies_to_end(_trajectory()))
    np.testing.assert_array_equal(counts[:, 0][:2], [2, 1])  # the first game of slot 0
    np.testing.assert_array_equal(counts[:, 1], [4, 3, 2, 1])


def test_targets__registry_computes_by_name_and_refuses_unknown_names():
    computed = targets.compute(_trajectory(), ("plies_to_end", "reply_policy"))
    assert computed["reply_policy"].shape == (4, 2, 3)
    assert targets.shapes(("plies_to_end", "reply_policy"), 3) == {
        "plies_to_end": (),
        "reply_policy": (3,),
    }
    with pytest.raises(ValueError, match=r"Unknown target 'no_such'; registered: .*plies_to_end"):
        targets.get("no_such")
    with pytest.raises(ValueError, match="taken by"):
        targets.register("plies_to_end", lambda trajectory: trajectory.value)
