"""TD-MCTS (Swayne (2020)): the TD backup on a path worked out on paper, the hash table's
insert, lookup, duplicate and collision behaviour, a sign check on a position with one
right move, tournament mode never writing, and the untrained agent's spec. (Its training:
tests/training/test_tdmcts.py.)"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.search import td_table, tdmcts

TTT = games.make("tic_tac_toe")


def _keys(*pairs):
    return jnp.array(pairs, jnp.uint32)


def _lookup(table, pair):
    """(value, visits) of the position with key ``pair`` as Python numbers."""
    value, visits = td_table.lookup(table, jnp.asarray(pair, jnp.uint32))
    return float(value), int(visits)


def test_td_backup__three_node_path_worked_on_paper():
    # Path root A -> B -> leaf C, gamma 0.9, no floor. Before: A (V 0.5, 3 visits),
    # B (V -0.2, 1 visit), C new (V 0, 0 visits). C's playout: C's mover wins after 2
    # moves, so C's target is 0.9 ** 2 * (+1) = 0.81.
    #   C: visits 1, alpha 1/1:   V = 0 + 1 * (0.81 - 0)                        = 0.81
    #   B: visits 2, alpha 1/2:   target -(0 + 0.9 * 0.81) = -0.729
    #                             V = -0.2 + 0.5 * (-0.729 + 0.2) = -0.2 - 0.2645 = -0.4645
    #   A: visits 4, alpha 1/4:   target -(0.9 * -0.4645) = 0.41805
    #                             V = 0.5 + 0.25 * (0.41805 - 0.5) = 0.5 - 0.0204875 = 0.4795125
    # The fourth entry is padding beyond the path and stays as it is.
    value = jnp.array([0.5, -0.2, 0.0, 0.7])
    visits = jnp.array([3, 1, 0, 9])
    new_value, new_visits = tdmcts.td_backup(
        value, visits, length=jnp.int32(3), leaf_return=jnp.float32(0.81), gamma=0.9, floor=0.0
    )
    np.testing.assert_allclose(new_value, [0.4795125, -0.4645, 0.81, 0.7], rtol=1e-6)
    np.testing.assert_array_equal(new_visits, [4, 2, 1, 9])
    # With a floor of 0.5: C's alpha max(1, 0.5) = 1 and B's max(1/2, 0.5) = 0.5 as before,
    # A's max(1/4, 0.5) = 0.5: V = 0.5 + 0.5 * (0.41805 - 0.5) = 0.459025.
    floored, _ = tdmcts.td_backup(
        value, visits, length=jnp.int32(3), leaf_return=jnp.float32(0.81), gamma=0.9, floor=0.5
    )
    np.testing.assert_allclose(floored[:3], [0.459025, -0.4645, 0.81], rtol=1e-6)


def test_table__insert_lookup_and_probing():
    table = td_table.empty_table(capacity=8)
    # (1, 7) lives in its home slot 1; (9, 3) has home 9 & 7 = 1 too, so it takes slot 2;
    # (2, 5) has home 2, now taken, so it takes slot 3.
    table = td_table.merge(table, _keys((1, 7), (9, 3)), jnp.array([0.5, -0.25]), jnp.array([2, 1]))
    table = td_table.merge(table, _keys((2, 5)), jnp.array([0.125]), jnp.array([4]))
    np.testing.assert_array_equal(table.visits, [0, 2, 1, 4, 0, 0, 0, 0])
    assert _lookup(table, (1, 7)) == (0.5, 2)
    assert _lookup(table, (9, 3)) == (-0.25, 1)
    assert _lookup(table, (2, 5)) == (0.125, 4)
    # Same home slot and first hash as a stored position, another second hash: a miss.
    assert _lookup(table, (1, 8)) == (0.0, 0)
    assert int(td_table.num_positions(table)) == 3 and int(table.num_collisions) == 0


def test_table__one_writer_sets_its_value_and_several_average_by_visits():
    table = td_table.merge(
        td_table.empty_table(capacity=8), _keys((3, 1)), jnp.array([0.2]), jnp.array([4])
    )
    # One search moved V from 0.2 to 0.3 with 2 visits: V = 0.3, visits 4 + 2 = 6.
    one = td_table.merge(table, _keys((3, 1)), jnp.array([0.3]), jnp.array([2]))
    assert _lookup(one, (3, 1)) == (pytest.approx(0.3), 6)
    # Two searches of the same position in one batch: V 0.5 with 1 visit and -0.1 with 3:
    # V = (1 * 0.5 + 3 * -0.1) / 4 = 0.2 / 4 = 0.05, visits 4 + 1 + 3 = 8. An entry with
    # 0 visits added (a game that does not learn) changes nothing.
    two = td_table.merge(
        table, _keys((3, 1), (3, 1), (3, 1)), jnp.array([0.5, -0.1, 0.9]), jnp.array([1, 3, 0])
    )
    value, visits = _lookup(two, (3, 1))
    assert value == pytest.approx(0.05) and visits == 8


def test_table__new_positions_claim_slots_lowest_index_first_and_full_probes_collide():
    # Capacity 4: five new positions, all with home slot 0, in one batch. The lowest index
    # takes slot 0, the next slot 1, ... (4 probes), and the fifth finds all 4 taken.
    keys = _keys((0, 10), (4, 11), (8, 12), (12, 13), (16, 14))
    table = td_table.merge(
        td_table.empty_table(capacity=4),
        keys,
        jnp.array([0.1, 0.2, 0.3, 0.4, 0.5]),
        jnp.ones(5, jnp.int32),
    )
    np.testing.assert_allclose(table.value, [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_array_equal(table.keys[:, 1], [10, 11, 12, 13])
    assert int(table.num_collisions) == 1
    assert _lookup(table, keys[4]) == (0.0, 0)
    # First come, first kept: writing the fifth again evicts nobody and counts again.
    again = td_table.merge(table, keys[4:], jnp.array([0.9]), jnp.array([7]))
    np.testing.assert_array_equal(again.value, table.value)
    assert int(again.num_collisions) == 2


def test_table__transpositions_share_a_key_and_other_positions_do_not():
    def play(moves):
        state = TTT.init(jax.random.key(0))
        for move in TTT.actions_from_text(moves):
            state = TTT.step(state, move)
        return td_table.position_key(state)

    np.testing.assert_array_equal(play("a1 b2 c3"), play("c3 b2 a1"))
    assert not np.array_equal(play("a1 b2 c3"), play("a1 c3 b2"))
    assert not np.array_equal(play("a1 b2"), play("b2 a1"))


# 3 X . O            X to move: c1 completes the diagonal a3-b2-c1 (action 8).
# 2 . X .
# 1 O . .
WIN = ("b2 a1 a3 c3", 8)


def _states(moves: str, copies: int):
    state = TTT.init(jax.random.key(0))
    for move in TTT.actions_from_text(moves):
        state = TTT.step(state, move)
    return jax.tree.map(lambda x: jnp.stack([x] * copies), state)


@pytest.fixture(scope="module")
def search():
    return tdmcts.make_tdmcts(TTT, num_simulations=30)


def test_tdmcts__takes_the_win_and_learns_only_in_training_mode(search):
    moves, right = WIN
    states = _states(moves, 8)
    table = td_table.empty_table(capacity=256)
    act = jax.jit(search.act_fn)
    learn = jax.jit(search.search_and_learn)
    key = jax.random.key(3)
    np.testing.assert_array_equal(act(table, key, states), [right] * 8)
    # Not learning: the table comes back unchanged; the moves are those of act_fn.
    same, moves_same = learn(table, key, states, jnp.zeros(8, bool))
    jax.tree.map(np.testing.assert_array_equal, same, table)
    np.testing.assert_array_equal(moves_same, act(table, key, states))
    # Learning: the root holds 8 x 30 visits and a value near a win for the mover.
    learned, _ = learn(table, key, states, jnp.ones(8, bool))
    root = td_table.position_key(jax.tree.map(lambda x: x[0], states))
    value, visits = td_table.lookup(learned, root)
    assert visits == 8 * 30 and value > 0.5


def test_tdmcts__bad_settings_say_what_was_expected():
    with pytest.raises(ValueError, match="num_simulations must be an int >= 1, got 0"):
        tdmcts.make_tdmcts(TTT, num_simulations=0)
    with pytest.raises(ValueError, match=r"gamma must be a number in \[0, 1\], got 1.5"):
        tdmcts.make_tdmcts(TTT, num_simulations=5, gamma=1.5)
    with pytest.raises(ValueError, match="capacity must be a power of two"):
        td_table.empty_table(capacity=6)


def test_spec__builds_untrained_agents_and_refuses_bad_specs():
    assert agents.from_spec(TTT, "tdmcts:5").name == "tdmcts:5"
    agent = agents.from_spec(TTT, "tdmcts:5:c=0.25:gamma=0.9:floor=0.01")
    assert int(td_table.num_positions(agent.params)) == 0
    for spec in ("tdmcts", "tdmcts:0", "tdmcts:5:x=1", "tdmcts:5:c=abc", "tdmcts:5:/none"):
        with pytest.raises(ValueError, match="tdmcts:<simulations>"):
            agents.from_spec(TTT, spec)
