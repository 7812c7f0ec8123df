"""Self-play: value targets worked out by hand on a scripted game, and the invariants of
real self-play trajectories."""

import functools
import types

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest
import selfplay_parts

from alphazero_jax import games, networks, search
from alphazero_jax.training import openings, selfplay


def test_episode_targets__by_hand():
    # Slot 0: a game of 2 moves won by the first player (the move at t=1 ends it), then a
    # game of 2 moves (t=2, 3) unfinished at the end. Slot 1: one 3-move game, drawn at t=2,
    # then an unfinished one.
    ended = jnp.array([[False, False], [True, False], [False, True], [False, False]])
    first_player_outcome = jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    player = jnp.array([[0, 0], [1, 1], [0, 0], [1, 0]])
    value, valid = selfplay.episode_targets(ended, first_player_outcome, player)
    np.testing.assert_array_equal(np.asarray(valid), [[1, 1], [1, 1], [0, 1], [0, 0]])
    # Slot 0: +1 for the first player at t=0, -1 for the second at t=1.
    np.testing.assert_array_equal(np.asarray(value), [[1, 0], [-1, 0], [0, 0], [0, 0]])


def test_episode_targets__discounted_by_hand():
    # Slot 0: X moves at t=0, O at t=1, X at t=2 and wins; then an unfinished game. Slot 1:
    # a draw at t=1, then an unfinished game. With discount 0.5 the winning move's position
    # gets +1 (X), the one before -0.5 (O's view, one ply earlier), the first +0.25 (X's).
    ended = jnp.array([[False, False], [False, True], [True, False], [False, False]])
    first_player_outcome = jnp.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    player = jnp.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    value, valid = selfplay.episode_targets(ended, first_player_outcome, player, discount=0.5)
    np.testing.assert_array_equal(np.asarray(valid), [[1, 1], [1, 1], [1, 0], [0, 0]])
    np.testing.assert_array_equal(np.asarray(value), [[0.25, 0], [-0.5, 0], [1, 0], [0, 0]])
    # The undiscounted targets of the same games: the plain outcome everywhere.
    value, _ = selfplay.episode_targets(ended, first_player_outcome, player)
    np.testing.assert_array_equal(np.asarray(value), [[1, 0], [-1, 0], [1, 0], [0, 0]])


def _scripted_search(script):
    """A stand-in search that plays ``script[num_moves]`` with all its weight there, and
    values the root at 0.1 x the moves played (its only tree statistic: ``node_values``)."""

    def search_fn(variables, key, states):
        del variables, key
        action = jnp.asarray(script)[jnp.minimum(states.num_moves, len(script) - 1)]
        weights = jax.nn.one_hot(action, 9)
        root_value = 0.1 * states.num_moves.astype(jnp.float32)
        tree = types.SimpleNamespace(node_values=root_value[:, None])
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=tree)

    return search_fn


def _play_script(*, batch_size=2, num_moves=9, **options):
    """Self-play of Tic-Tac-Toe a1 a2 b1 b2 c1 (X wins on the fifth move) by a scripted
    search, jitted; ``options`` go to ``make_selfplay``."""
    game = games.make("tic_tac_toe")
    script = game.actions_from_text("a1 a2 b1 b2 c1")
    play = selfplay_parts.build(
        game,
        options.pop("searches", _scripted_search(script)),
        batch_size=batch_size,
        num_moves=num_moves,
        num_sampling_moves=9,
        **options,
    )
    return jax.jit(play), script


def test_selfplay__records_a_hand_played_game():
    """Tic-Tac-Toe a1 a2 b1 b2 c1: X wins on the fifth move."""
    play, script = _play_script()
    trajectory = play({}, jax.random.key(0))
    assert trajectory.valid.shape == (9, 2)
    # The game ends with the fifth move; the slot restarts the same script, which is four
    # moves into that game (unfinished, so not valid) when the nine moves are up.
    ended = [0, 0, 0, 0, 1, 0, 0, 0, 0]
    np.testing.assert_array_equal(np.asarray(trajectory.ended[:, 0]), ended)
    np.testing.assert_array_equal(np.asarray(trajectory.valid[:, 0]), [1] * 5 + [0] * 4)
    players = [0, 1, 0, 1, 0, 0, 1, 0, 1]
    np.testing.assert_array_equal(np.asarray(trajectory.player[:, 0]), players)
    # X (player 0) won: +1 at X's moves, -1 at O's, 0 for the unfinished game.
    np.testing.assert_array_equal(np.asarray(trajectory.value[:, 0]), [1, -1, 1, -1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(trajectory.outcome[:, 0]), [0, 0, 0, 0, 1, 0, 0, 0, 0])
    # The fifth position: X to move with a1 and b1 (own plane), O on a2 and b2.
    fifth = np.asarray(trajectory.observation[4, 0])
    assert fifth[2, 0, 0] == 1 and fifth[2, 1, 0] == 1 and fifth[..., 0].sum() == 2
    assert fifth[1, 0, 1] == 1 and fifth[1, 1, 1] == 1 and fifth[..., 1].sum() == 2
    np.testing.assert_array_equal(np.asarray(trajectory.policy[4, 0]), np.eye(9)[script[4]])


def test_selfplay__root_value_mixed_into_targets_by_hand():
    """The game of the test above with ``root_value_weight=0.25``: each finished position's
    target is 0.75 x its outcome + 0.25 x the search's root value (0.1 x its ply)."""
    play, _ = _play_script(root_value_weight=0.25)
    value = np.asarray(play({}, jax.random.key(0)).value[:, 0])
    # Ply 0: 0.75 x 1 + 0.25 x 0.0; ply 1: 0.75 x -1 + 0.25 x 0.1; ...; unfinished: 0.
    expected = [0.75, -0.725, 0.8, -0.675, 0.85, 0, 0, 0, 0]
    np.testing.assert_allclose(value, expected, atol=1e-6)
    with pytest.raises(ValueError, match=r"root_value_weight must be in \[0, 1\], got 1.5"):
        _play_script(root_value_weight=1.5)


def _uniform_scripted_search(script):
    """``_scripted_search``'s moves, with a uniform policy: the mark of a fast search."""
    scripted = _scripted_search(script)

    def search_fn(variables, key, states):
        output = scripted(variables, key, states)
        return output.replace(action_weights=jnp.full_like(output.action_weights, 1 / 9))

    return search_fn


def test_selfplay__playout_cap_keeps_only_fully_searched_positions():
    """Playout-cap randomisation on the scripted game, 60 moves of 4 slots (12 finished
    games each): the games are the same, a coin per move picks the search, and exactly the
    finished positions whose search was the full one (one-hot policy) are kept, with
    their outcomes; the game-length metric still counts every move."""
    from alphazero_jax.training import iteration

    script = games.make("tic_tac_toe").actions_from_text("a1 a2 b1 b2 c1")
    play, _ = _play_script(
        batch_size=4,
        num_moves=60,
        searches={8: _scripted_search(script), 4: _uniform_scripted_search(script)},
        budget="playout_cap",
        budget_settings={"full_search_probability": 0.25, "fast_simulations": 4},
    )
    t = jax.tree.map(np.asarray, play({}, jax.random.key(0)))
    np.testing.assert_array_equal(t.ended[:, 0], np.arange(1, 61) % 5 == 0)
    full = t.policy.max(-1) == 1.0  # one-hot: the full search; else uniform 1/9
    assert (full == full[:, :1]).all()  # one coin per move for every slot
    assert 5 <= full[:, 0].sum() <= 25  # 60 moves at 1 in 4: 15 expected
    np.testing.assert_array_equal(t.valid, full)  # the last game ends with move 60
    outcome = np.tile([1, -1, 1, -1, 1], 12)[:, None]
    np.testing.assert_array_equal(t.value, np.where(full, outcome, 0))
    metrics = iteration.selfplay_metrics(jax.tree.map(jnp.asarray, t))
    assert float(metrics["game_length"]) == 5.0 and int(metrics["games"]) == 48
    # Every game is X's win, whichever search played its last move.
    assert float(metrics["first_player_wins"]) == 1.0 and float(metrics["draws"]) == 0.0


@functools.cache
def _tiny_selfplay(policy):
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, channels=8, blocks=1)
    search_fn = search.make_search(game, apply_fn, policy=policy, num_simulations=8)
    play = selfplay_parts.build(
        game, search_fn, policy=policy, batch_size=16, num_moves=20, num_sampling_moves=2
    )
    return jax.jit(play), variables


def test_selfplay__trajectories_are_consistent_for_both_policies():
    for policy in ("puct", "gumbel"):
        play, variables = _tiny_selfplay(policy)
        t = jax.tree.map(np.asarray, play(variables, jax.random.key(3)))
        valid, stones = t.valid, t.observation.sum((2, 3, 4))
        # Valid positions come first in each slot (finished games, then the unfinished one),
        # and with 20 moves of games of at most 9, every slot finishes at least one game.
        assert (np.diff(valid.astype(int), axis=0) <= 0).all() and valid[0].all()
        # A position is either a new game or one stone more than the one before it.
        assert (stones[0] == 0).all()
        assert ((stones[1:] == 0) | (stones[1:] == stones[:-1] + 1)).all()
        assert ((stones == 0)[1:] == t.ended[:-1]).all()
        np.testing.assert_array_equal(t.player, stones % 2)
        np.testing.assert_allclose(t.policy.sum(-1), 1.0, atol=1e-5)
        assert (t.policy[~t.legal_action_mask] == 0).all()
        # Targets: +-1 or 0, and within a game the sign alternates from move to move.
        v = t.value
        assert set(np.unique(v)) <= {-1.0, 0.0, 1.0}
        same_game = (stones[1:] > 0) & valid[1:]
        np.testing.assert_array_equal(v[1:][same_game], -v[:-1][same_game])
        assert (v[~valid] == 0).all()


def test_selfplay__compiles_once_across_calls():
    play, variables = _tiny_selfplay("puct")
    for seed in range(3):
        jax.block_until_ready(play(variables, jax.random.key(seed)))
    assert play._cache_size() == 1


def _first_free_cell_search(game):
    """A stand-in search that plays the first legal action with all its weight there."""

    def search_fn(variables, key, states):
        del variables, key
        legal = jax.vmap(game.legal_action_mask)(states)
        action = jnp.argmax(legal, axis=-1).astype(jnp.int32)
        return mctx.PolicyOutput(
            action=action, action_weights=jax.nn.one_hot(action, 9), search_tree=None
        )

    return search_fn


def test_selfplay__handicap_moves_are_one_sides_opening_moves():
    """Against a search that always takes the first free cell, a move anywhere else is a
    random one: with ``handicap_moves=2`` they come only from one side per game and only
    among that side's first two moves; with 0 there are none."""
    game = games.make("tic_tac_toe")
    deviating_sides = set()
    for handicap in (0, 2):
        play = selfplay_parts.build(
            game,
            _first_free_cell_search(game),
            batch_size=64,
            num_moves=9,
            opening="handicap",
            opening_settings={"handicap_moves": handicap},
        )
        t = jax.tree.map(np.asarray, jax.jit(play)({}, jax.random.key(0)))
        for slot in range(64):
            first_game_end = int(np.argmax(t.ended[:, slot])) if t.ended[:, slot].any() else 8
            deviations = []
            for ply in range(first_game_end):  # the cell played: legal before, not after
                played = np.flatnonzero(
                    t.legal_action_mask[ply, slot] & ~t.legal_action_mask[ply + 1, slot]
                )
                assert len(played) == 1
                if played[0] != np.argmax(t.legal_action_mask[ply, slot]):
                    deviations.append(ply)
            if handicap == 0:
                assert deviations == []
                continue
            assert all(ply < 4 for ply in deviations), (slot, deviations)
            assert len({ply % 2 for ply in deviations}) <= 1, (slot, deviations)
            deviating_sides |= {ply % 2 for ply in deviations}
    assert deviating_sides == {0, 1}  # both sides take the handicap in some of the games


def test_selfplay__handicap_moves_must_not_be_negative():
    with pytest.raises(ValueError, match="handicap_moves must be >= 0, got -1"):
        openings.make("handicap", games.make("tic_tac_toe"), handicap_moves=-1)
