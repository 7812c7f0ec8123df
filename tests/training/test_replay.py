"""Replay buffer: ring order slot by slot, masks, overflow, trajectories, sampling and
symmetry augmentation, each checked against examples numbered by hand."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games
from alphazero_jax.training import replay
from alphazero_jax.types import Sample, Trajectory

OBS_SHAPE = (2, 3, 1)
NUM_ACTIONS = 4


def _numbered(values):
    """Samples that carry their number n in the value, every observation cell (n / 8,
    exact in bfloat16) and one-hot policy on action n % NUM_ACTIONS."""
    values = np.asarray(values, np.float32)
    observation = np.broadcast_to(values[:, None, None, None] / 8, (len(values), *OBS_SHAPE))
    policy = np.eye(NUM_ACTIONS, dtype=np.float32)[values.astype(int) % NUM_ACTIONS]
    return Sample(jnp.asarray(observation), jnp.asarray(policy), jnp.asarray(values / 8))


def _stored_numbers(buffer):
    """The number held in every slot, read from the value and checked against the rest."""
    numbers = np.asarray(buffer.value, np.float32) * 8
    observation = np.asarray(buffer.observation, np.float32) * 8
    np.testing.assert_array_equal(
        observation, np.broadcast_to(numbers[:, None, None, None], observation.shape)
    )
    return numbers.astype(int).tolist()


def _empty(capacity):
    return replay.init(capacity=capacity, observation_shape=OBS_SHAPE, num_actions=NUM_ACTIONS)


def test_replay__init_is_empty_with_compact_dtypes():
    buffer = _empty(5)
    assert buffer.observation.shape == (5, *OBS_SHAPE)
    assert buffer.policy.shape == (5, NUM_ACTIONS)
    assert buffer.value.shape == (5,)
    assert buffer.observation.dtype == jnp.bfloat16
    assert int(buffer.size) == 0 and int(buffer.cursor) == 0
    assert buffer.capacity == 5


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"capacity": 0}, "capacity"),
        ({"capacity": 2.5}, "capacity"),
        ({"observation_shape": (6, 7)}, "observation_shape"),
        ({"observation_shape": (6, 0, 2)}, "observation_shape"),
        ({"num_actions": -1}, "num_actions"),
    ],
)
def test_replay__init_rejects_bad_arguments(kwargs, word):
    settings = {"capacity": 4, "observation_shape": OBS_SHAPE, "num_actions": NUM_ACTIONS}
    with pytest.raises(ValueError, match=word):
        replay.init(**{**settings, **kwargs})


def test_replay__wraps_around_overwriting_the_oldest():
    add = jax.jit(replay.add)
    buffer = add(_empty(5), _numbered([1, 2, 3]))
    assert _stored_numbers(buffer) == [1, 2, 3, 0, 0]
    assert int(buffer.size) == 3 and int(buffer.cursor) == 3
    buffer = add(buffer, _numbered([4, 5, 6, 7]))
    # 4, 5 fill slots 3, 4; 6, 7 overwrite 1, 2 in slots 0, 1; slot 2 (3) is now oldest.
    assert _stored_numbers(buffer) == [6, 7, 3, 4, 5]
    assert int(buffer.size) == 5 and int(buffer.cursor) == 2
    policy = np.asarray(buffer.policy, np.float32)
    np.testing.assert_array_equal(policy.argmax(-1), [2, 3, 3, 0, 1])  # n % 4


def test_replay__invalid_entries_are_not_written_and_do_not_move_the_cursor():
    add = jax.jit(replay.add)
    valid = jnp.array([False, True, False, True, False])
    buffer = add(_empty(5), _numbered([1, 2, 3, 4, 5]), valid)
    assert _stored_numbers(buffer) == [2, 4, 0, 0, 0]
    assert int(buffer.size) == 2 and int(buffer.cursor) == 2
    buffer = add(buffer, _numbered([6, 7, 8, 9, 10]), jnp.zeros(5, bool))
    assert _stored_numbers(buffer) == [2, 4, 0, 0, 0]
    assert int(buffer.size) == 2 and int(buffer.cursor) == 2


def test_replay__more_valid_samples_than_capacity_keeps_the_last_ones():
    add = jax.jit(replay.add)
    buffer = add(_empty(3), _numbered([1]))  # cursor 1
    valid = jnp.array([True, True, False, True, True, True, False])
    buffer = add(buffer, _numbered([2, 3, 4, 5, 6, 7, 8]), valid)
    # Valid: 2, 3, 5, 6, 7 (five); the last three are 5, 6, 7. The cursor moves 1 -> 6 % 3
    # = 0, and the oldest kept (5) sits at the cursor.
    assert _stored_numbers(buffer) == [5, 6, 7]
    assert int(buffer.size) == 3 and int(buffer.cursor) == 0


def test_replay__add_trajectory_stores_valid_steps_in_time_major_order():
    # Step (t, b) is numbered 1 + 2 t + b: t0 = [1, 2], t1 = [3, 4], t2 = [5, 6].
    numbered = _numbered(np.arange(1, 7))
    trajectory = Trajectory(
        observation=numbered.observation.reshape(3, 2, *OBS_SHAPE),
        legal_action_mask=jnp.ones((3, 2, NUM_ACTIONS), bool),
        policy=numbered.policy.reshape(3, 2, NUM_ACTIONS),
        player=jnp.zeros((3, 2), jnp.int32),
        ended=jnp.array([[False, False], [True, False], [False, False]]),
        valid=jnp.array([[True, True], [True, False], [False, False]]),
        value=numbered.value.reshape(3, 2),
        outcome=jnp.zeros((3, 2)),
    )
    buffer = jax.jit(replay.add_trajectory)(_empty(6), trajectory)
    assert _stored_numbers(buffer) == [1, 2, 3, 0, 0, 0]
    assert int(buffer.size) == 3 and int(buffer.cursor) == 3


def test_replay__add_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="policy"):
        replay.add(_empty(4), Sample(jnp.zeros((2, *OBS_SHAPE)), jnp.zeros((2, 5)), jnp.zeros(2)))
    with pytest.raises(ValueError, match="valid"):
        replay.add(_empty(4), _numbered([1, 2]), jnp.ones(3, bool))


def test_replay__sample_returns_only_stored_examples_as_float32():
    buffer = replay.add(_empty(8), _numbered([1, 2, 3]))
    sample = jax.jit(functools.partial(replay.sample, batch_size=64))
    batch = sample(buffer, jax.random.key(0))
    assert batch.observation.shape == (64, *OBS_SHAPE)
    assert batch.policy.shape == (64, NUM_ACTIONS) and batch.value.shape == (64,)
    assert {batch.observation.dtype, batch.policy.dtype, batch.value.dtype} == {
        np.dtype(np.float32)
    }
    numbers = np.asarray(batch.value) * 8
    assert set(numbers.tolist()) <= {1.0, 2.0, 3.0}
    np.testing.assert_array_equal(np.asarray(batch.observation)[:, 0, 0, 0] * 8, numbers)
    again = sample(buffer, jax.random.key(0))
    np.testing.assert_array_equal(np.asarray(again.value), np.asarray(batch.value))


def test_replay__sample_is_roughly_uniform():
    buffer = replay.add(_empty(10), _numbered([1, 2, 3, 4]))
    batch = jax.jit(functools.partial(replay.sample, batch_size=4000))(buffer, jax.random.key(1))
    counts = np.bincount((np.asarray(batch.value) * 8).astype(int), minlength=5)
    assert counts[0] == 0
    assert all(800 <= c <= 1200 for c in counts[1:]), counts


def test_replay__a_window_samples_only_the_newest_examples_around_the_ring():
    buffer = replay.add(_empty(5), _numbered([1, 2, 3, 4, 5, 6, 7]))  # slots: 6 7 3 4 5
    sample = jax.jit(functools.partial(replay.sample, batch_size=2000))
    for window, newest in [(1, {7}), (3, {5, 6, 7}), (5, {3, 4, 5, 6, 7}), (50, {3, 4, 5, 6, 7})]:
        batch = sample(buffer, jax.random.key(window), window=jnp.int32(window))
        numbers = (np.asarray(batch.value) * 8).astype(int)
        assert set(numbers.tolist()) == newest, window
        counts = np.bincount(numbers)[sorted(newest)]
        assert counts.min() > 0.7 * 2000 / len(newest), counts  # uniform within the window
    not_full = replay.add(_empty(8), _numbered([1, 2, 3]))  # newest: slot 2, then 1
    batch = sample(not_full, jax.random.key(0), window=jnp.int32(2))
    assert set((np.asarray(batch.value) * 8).astype(int).tolist()) == {2, 3}


def test_replay__growing_window_keeps_everything_then_lags_behind():
    window = jax.jit(replay.growing_window, static_argnums=1)
    # Up to start, every position; then start * (1 + 0.4 ((N / start)^0.75 - 1) / 0.75):
    # at N = 16 start, (16)^0.75 = 8, so 1000 * (1 + 0.4 * 7 / 0.75) = 4733 of 16,000.
    got = [int(window(jnp.int32(n), 1000)) for n in (0, 1, 999, 1000, 16_000, 10**6)]
    assert got[:4] == [1, 1, 999, 1000]
    assert got[4] == 4733
    assert got[5] == int(1000 * (1 + 0.4 * (1000**0.75 - 1) / 0.75))  # 95,308 of 1,000,000
    with pytest.raises(ValueError, match="start must be an int >= 1, got 0"):
        replay.growing_window(jnp.int32(5), 0)


def test_replay__sample_from_an_empty_buffer_returns_zeros():
    batch = jax.jit(functools.partial(replay.sample, batch_size=4))(_empty(3), jax.random.key(0))
    assert not np.any(np.asarray(batch.observation))
    assert not np.any(np.asarray(batch.policy)) and not np.any(np.asarray(batch.value))


def test_replay__symmetries_transform_observation_and_policy_together():
    game = games.make("connect_four")
    assert [s.name for s in game.symmetries] == ["identity", "flip_lr"]
    rows, cols, channels = game.observation_shape
    observation = np.zeros((2, rows, cols, channels), np.float32)
    observation[:, rows - 1, 0, 0] = 1.0  # one stone, bottom of column 0
    policy = np.zeros((2, cols), np.float32)
    policy[:, 0] = 1.0
    samples = Sample(jnp.asarray(observation), jnp.asarray(policy), jnp.array([1.0, -1.0]))
    buffer = replay.add(
        replay.init(capacity=4, observation_shape=(rows, cols, channels), num_actions=cols),
        samples,
    )
    sample = functools.partial(replay.sample, batch_size=2000, symmetries=game.symmetries)
    batch = jax.jit(sample)(buffer, jax.random.key(2))
    stones = np.asarray(batch.observation)
    assert np.all(stones.sum(axis=(1, 2, 3)) == 1)  # one stone, nothing else
    stone_column = stones[:, rows - 1, :, 0].argmax(-1)
    policy_action = np.asarray(batch.policy).argmax(-1)
    assert set(stone_column.tolist()) == {0, cols - 1}
    np.testing.assert_array_equal(stone_column, policy_action)  # transformed together
    np.testing.assert_array_equal(np.asarray(batch.policy).sum(-1), 1.0)
    mirrored = np.mean(stone_column == cols - 1)
    assert 0.4 <= mirrored <= 0.6, mirrored


def test_replay__jitted_add_with_donation_traces_once():
    traces = []

    def counted_add(buffer, samples, valid):
        traces.append(1)
        return replay.add(buffer, samples, valid)

    add = jax.jit(counted_add, donate_argnums=0)
    buffer = _empty(5)
    for start in range(1, 13, 3):
        valid = jnp.array([True, start % 2 == 1, True])
        buffer = add(buffer, _numbered([start, start + 1, start + 2]), valid)
    # Added: 1 2 3 | 4 6 | 7 8 9 | 10 12, ten valid; the k-th goes to slot k % 5.
    assert len(traces) == 1
    assert int(buffer.size) == 5 and int(buffer.cursor) == 0
    assert _stored_numbers(buffer) == [7, 8, 9, 10, 12]


def test_replay__further_targets_are_stored_sampled_and_permuted_with_the_board():
    """A reply target over the actions moves with the stone under the mirror; a number per
    position (plies to the end) comes back as written; a plain buffer keeps its layout."""
    game = games.make("connect_four")
    rows, cols, channels = game.observation_shape
    observation = np.zeros((1, rows, cols, channels), np.float32)
    observation[:, rows - 1, 0, 0] = 1.0  # one stone, bottom of column 0
    policy = np.eye(cols, dtype=np.float32)[[0]]
    reply = np.eye(cols, dtype=np.float32)[[1]]  # the reply: column 1, beside the stone
    samples = Sample(
        jnp.asarray(observation),
        jnp.asarray(policy),
        jnp.array([1.0]),
        {"reply_policy": jnp.asarray(reply), "plies_to_end": jnp.array([7.0])},
    )
    buffer = replay.init(
        capacity=3,
        observation_shape=(rows, cols, channels),
        num_actions=cols,
        targets={"reply_policy": (cols,), "plies_to_end": ()},
        over_actions=("reply_policy",),
    )
    assert isinstance(buffer, replay.TargetReplayBuffer)
    assert not isinstance(_empty(3), replay.TargetReplayBuffer)
    buffer = replay.add(buffer, samples)
    sample = functools.partial(replay.sample, batch_size=200, symmetries=game.symmetries)
    batch = jax.jit(sample)(buffer, jax.random.key(0))
    stone = np.asarray(batch.observation)[:, rows - 1, :, 0].argmax(-1)
    answer = np.asarray(batch.targets["reply_policy"]).argmax(-1)
    assert set(stone.tolist()) == {0, cols - 1}
    # Unmirrored the reply is column 1; mirrored, column cols - 2: beside the stone still.
    np.testing.assert_array_equal(answer, np.where(stone == 0, 1, cols - 2))
    np.testing.assert_array_equal(np.asarray(batch.targets["plies_to_end"]), 7.0)
