"""Self-play: value targets worked out by hand on a scripted game, and the invariants of
real self-play trajectories."""

import functools

import jax
import jax.numpy as jnp
import mctx
import numpy as np

from alphazero_jax import games, networks, search, selfplay


def test_value_targets__by_hand():
    # Game 0: the first player won. Game 1: a draw. Game 2: the second player won.
    final_rewards = jnp.array([[1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]])
    player = jnp.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]])
    valid = jnp.array([[True, True, True], [True, True, False], [True, False, False]])
    targets = selfplay.value_targets(final_rewards, player, valid)
    expected = [[1.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    np.testing.assert_array_equal(np.asarray(targets), expected)


def _scripted_search(script):
    """A stand-in search that plays ``script[num_moves]`` with all its weight there."""

    def search_fn(variables, key, states):
        del variables, key
        action = jnp.asarray(script)[jnp.minimum(states.num_moves, len(script) - 1)]
        weights = jax.nn.one_hot(action, 9)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=None)

    return search_fn


def test_selfplay__records_a_hand_played_game():
    """Tic-Tac-Toe a1 a2 b1 b2 c1: X wins on the fifth move."""
    game = games.make("tic_tac_toe")
    script = game.actions_from_text("a1 a2 b1 b2 c1")
    play = selfplay.make_selfplay(
        game, _scripted_search(script), policy="puct", batch_size=2, num_sampling_moves=9
    )
    trajectory = jax.jit(play)({}, jax.random.key(0))
    assert trajectory.valid.shape == (9, 2)
    np.testing.assert_array_equal(np.asarray(trajectory.valid[:, 0]), [1] * 5 + [0] * 4)
    np.testing.assert_array_equal(np.asarray(trajectory.player[:5, 0]), [0, 1, 0, 1, 0])
    # X (player 0) won: +1 at X's moves, -1 at O's, 0 after the end.
    np.testing.assert_array_equal(np.asarray(trajectory.value[:, 0]), [1, -1, 1, -1, 1, 0, 0, 0, 0])
    # The fifth position: X to move with a1 and b1 (own plane), O on a2 and b2.
    fifth = np.asarray(trajectory.observation[4, 0])
    assert fifth[2, 0, 0] == 1 and fifth[2, 1, 0] == 1 and fifth[..., 0].sum() == 2
    assert fifth[1, 0, 1] == 1 and fifth[1, 1, 1] == 1 and fifth[..., 1].sum() == 2
    np.testing.assert_array_equal(np.asarray(trajectory.policy[4, 0]), np.eye(9)[script[4]])


@functools.cache
def _tiny_selfplay(policy):
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, channels=8, blocks=1)
    search_fn = search.make_search(game, apply_fn, policy=policy, num_simulations=8)
    play = selfplay.make_selfplay(
        game, search_fn, policy=policy, batch_size=16, num_sampling_moves=2
    )
    return jax.jit(play), variables


def test_selfplay__trajectories_are_consistent_for_both_policies():
    for policy in search.POLICIES:
        play, variables = _tiny_selfplay(policy)
        t = jax.tree.map(np.asarray, play(variables, jax.random.key(3)))
        valid = t.valid
        # A game is a prefix of valid positions, and every game has at least 5 moves.
        assert (np.diff(valid.astype(int), axis=0) <= 0).all() and (valid.sum(0) >= 5).all()
        np.testing.assert_array_equal(
            t.player[valid], np.broadcast_to(np.arange(9)[:, None] % 2, valid.shape)[valid]
        )
        sums = t.policy.sum(-1)
        np.testing.assert_allclose(sums[valid], 1.0, atol=1e-5)
        assert (t.policy[~t.legal_action_mask & valid[..., None]] == 0).all()
        # Consecutive valid positions differ by exactly one stone.
        stones = t.observation.sum((2, 3, 4))
        np.testing.assert_array_equal(stones[valid], np.nonzero(valid)[0])
        # Targets: the first position's value is the first player's result, signs alternate.
        v = t.value
        assert set(np.unique(v)) <= {-1.0, 0.0, 1.0}
        np.testing.assert_array_equal(v[1:][valid[1:]], -v[:-1][valid[1:]])


def test_selfplay__compiles_once_across_calls():
    play, variables = _tiny_selfplay("puct")
    for seed in range(3):
        jax.block_until_ready(play(variables, jax.random.key(seed)))
    assert play._cache_size() == 1
