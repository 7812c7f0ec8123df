"""A fixed-capacity replay memory on the device: pure ``init`` / ``add`` / ``sample``.

The buffer is a ring of ``N`` slots held in a ``flax.struct.dataclass``. Writing and
sampling keep fixed shapes: ``add`` scatters each valid example to its slot and sends
the rest out of bounds (dropped), so one compiled ``add`` serves every batch of the same
size, whatever its mask. Examples are stored in bfloat16 (observations are 0/1 planes and
value targets -1/0/1, exact in bfloat16; policies keep about three significant digits)
and come back from ``sample`` as float32.

The caller jits::

    buffer = replay.init(capacity=100_000, observation_shape=(6, 7, 2), num_actions=7)
    add = jax.jit(replay.add_trajectory, donate_argnums=0)
    sample = jax.jit(functools.partial(
        replay.sample, batch_size=256, symmetries=game.symmetries))
    buffer = add(buffer, trajectory)
    batch = sample(buffer, key)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.types import Array, PRNGKey, Sample, Symmetry, Trajectory

STORAGE_DTYPE = jnp.bfloat16


@struct.dataclass
class ReplayBuffer:
    """A ring of ``N`` training examples; slot ``cursor`` is the next to be written.

    When the ring is full (``size == N``), slot ``cursor`` holds the oldest example.
    """

    observation: Array  # bfloat16[N, H, W, C]
    policy: Array  # bfloat16[N, A]
    value: Array  # bfloat16[N]
    size: Array  # int32[]: number of filled slots, <= N.
    cursor: Array  # int32[]: next slot to write, in [0, N).

    @property
    def capacity(self) -> int:
        """``N``, the number of slots (a static Python int)."""
        return self.value.shape[0]


@struct.dataclass
class TargetReplayBuffer(ReplayBuffer):
    """A ``ReplayBuffer`` that also keeps further targets (``training.targets``) of each
    example, for a run whose loss terms read them; a run without them keeps the plain
    buffer, so its checkpoints keep their layout.
    """

    targets: dict  # name -> float32[N, ...]
    over_actions: tuple[str, ...] = struct.field(pytree_node=False, default=())


def init(
    *,
    capacity: int,
    observation_shape: tuple[int, int, int],
    num_actions: int,
    targets: dict[str, tuple[int, ...]] | None = None,
    over_actions: tuple[str, ...] = (),
) -> ReplayBuffer:
    """An empty buffer, all slots zero.

    Args:
      capacity: ``N``, the number of examples kept (>= 1).
      observation_shape: ``(H, W, C)``, e.g. ``game.observation_shape``.
      num_actions: ``A``, e.g. ``game.num_actions``.
      targets: further targets to keep, name -> shape per example (``targets.shapes``);
        with any, the buffer is a ``TargetReplayBuffer`` (float32 targets).
      over_actions: those of ``targets`` over the actions, permuted with the board by
        symmetry augmentation.

    Returns:
      A ``ReplayBuffer`` with ``size == cursor == 0``.

    Raises:
      ValueError: if an argument is not a positive int (or three of them).
    """
    if not _is_positive_int(capacity):
        raise ValueError(f"capacity must be an int >= 1, got {capacity!r}.")
    shape = tuple(observation_shape) if isinstance(observation_shape, Sequence) else None
    if shape is None or len(shape) != 3 or not all(_is_positive_int(d) for d in shape):
        raise ValueError(
            f"observation_shape must be three positive ints (H, W, C), got {observation_shape!r}."
        )
    if not _is_positive_int(num_actions):
        raise ValueError(f"num_actions must be an int >= 1, got {num_actions!r}.")
    buffer = ReplayBuffer(
        observation=jnp.zeros((capacity, *shape), STORAGE_DTYPE),
        policy=jnp.zeros((capacity, num_actions), STORAGE_DTYPE),
        value=jnp.zeros((capacity,), STORAGE_DTYPE),
        size=jnp.int32(0),
        cursor=jnp.int32(0),
    )
    if not targets:
        return buffer
    return TargetReplayBuffer(
        **{field: getattr(buffer, field) for field in _FIELDS},
        targets={name: jnp.zeros((capacity, *s), jnp.float32) for name, s in targets.items()},
        over_actions=tuple(over_actions),
    )


_FIELDS = ("observation", "policy", "value", "size", "cursor")


def add(buffer: ReplayBuffer, samples: Sample, valid: Array | None = None) -> ReplayBuffer:
    """Writes the valid examples, in order, into the ring, overwriting the oldest.

    With ``K`` valid examples, the ``k``-th (0-based) goes to slot
    ``(cursor + k) % N``, the cursor moves on by ``K`` and ``size`` grows to at most
    ``N``. If ``K > N``, only the last ``N`` valid examples are written (the earlier
    ones would be overwritten within this call anyway, so they are dropped rather than
    left to the unspecified order of a scatter with repeated slots); the oldest of them
    lands at the new cursor. Invalid examples are never written and move nothing.

    Args:
      buffer: the buffer to write to (it may be donated).
      samples: a ``Sample`` with ``observation[M, H, W, C]``, ``policy[M, A]`` and
        ``value[M]`` (a time-major ``Trajectory`` goes through ``add_trajectory``).
      valid: bool[M], True for examples to keep; all are kept when None.

    Returns:
      The buffer with the examples written.

    Raises:
      ValueError: if shapes do not match the buffer's, or ``valid`` is not bool[M].
    """
    num_samples = _check_samples(buffer, samples)
    if valid is None:
        valid = jnp.ones((num_samples,), jnp.bool_)
    _check_valid(valid, (num_samples,))

    count = valid.astype(jnp.int32)
    rank = jnp.cumsum(count) - 1  # int32[M]: position among the valid examples.
    num_valid = count.sum()
    capacity = buffer.capacity
    kept = valid & (rank >= num_valid - capacity)
    slot = jnp.where(kept, (buffer.cursor + rank) % capacity, capacity)  # capacity: dropped

    def write(stored: Array, new: Array) -> Array:
        return stored.at[slot].set(new.astype(stored.dtype), mode="drop")

    extra = {}
    if isinstance(buffer, TargetReplayBuffer):
        extra["targets"] = {
            name: write(stored, samples.targets[name]) for name, stored in buffer.targets.items()
        }
    return buffer.replace(
        **extra,
        observation=write(buffer.observation, samples.observation),
        policy=write(buffer.policy, samples.policy),
        value=write(buffer.value, samples.value),
        size=jnp.minimum(buffer.size + num_valid, capacity).astype(jnp.int32),
        cursor=((buffer.cursor + num_valid) % capacity).astype(jnp.int32),
    )


def add_trajectory(
    buffer: ReplayBuffer, trajectory: Trajectory, targets: dict[str, Array] | None = None
) -> ReplayBuffer:
    """Adds the valid steps of a time-major trajectory, in time-major order.

    The ``[T, B]`` steps are flattened to ``T * B`` examples ordered ``(t=0, b=0),
    (t=0, b=1), ..., (t=1, b=0), ...`` and passed to ``add`` with ``trajectory.valid``.

    Args:
      buffer: the buffer to write to (it may be donated).
      trajectory: ``observation[T, B, H, W, C]``, ``policy[T, B, A]``, ``value[T, B]``
        and ``valid[T, B]`` are used; the other fields are ignored.
      targets: the further targets ``[T, B, ...]`` a ``TargetReplayBuffer`` keeps
        (``targets.compute``).

    Returns:
      The buffer with the trajectory's valid steps written.
    """
    if trajectory.valid.ndim != 2:
        raise ValueError(
            "trajectory must be time-major [T, B, ...]; got valid of shape "
            f"{trajectory.valid.shape}."
        )

    def flat(x: Array) -> Array:
        return x.reshape((-1, *x.shape[2:]))

    samples = Sample(
        observation=flat(trajectory.observation),
        policy=flat(trajectory.policy),
        value=flat(trajectory.value),
        targets={name: flat(x) for name, x in (targets or {}).items()},
    )
    return add(buffer, samples, flat(trajectory.valid))


def growing_window(
    num_positions: Array, start: int, *, exponent: float = 0.75, growth: float = 0.4
) -> Array:
    """KataGo's replay window (Wu, 2019): how many of the newest positions to sample from
    after ``num_positions`` have been added.

    All of them up to ``start`` positions; after that the window grows sublinearly,
    ``start * (1 + growth * ((N / start) ** exponent - 1) / exponent)``, so that early
    positions of a weak network leave the window sooner than a fixed capacity would drop
    them (Wu used ``start`` = 250,000 Go positions, 0.75 and 0.4; Clausen, 2020, measured a
    slowly growing window on Connect Four). ``sample`` caps it at the buffer's size.

    Args:
      num_positions: int32[], positions added so far (a run's ``num_positions``).
      start: positions before the window starts to lag behind (a static int >= 1).
      exponent, growth: the curve's shape (static).

    Returns:
      int32[]: the window, at least 1.
    """
    if not _is_positive_int(start):
        raise ValueError(f"start must be an int >= 1, got {start!r}.")
    ratio = jnp.maximum(num_positions.astype(jnp.float32) / start, 1.0)
    grown = start * (1 + growth * (ratio**exponent - 1) / exponent)
    window = jnp.where(num_positions <= start, num_positions, grown.astype(jnp.int32))
    return jnp.maximum(window, 1).astype(jnp.int32)


def sample(
    buffer: ReplayBuffer,
    key: PRNGKey,
    *,
    batch_size: int,
    symmetries: Sequence[Symmetry] = (),
    window: Array | None = None,
    merged: Merged | None = None,
) -> Sample:
    """Draws examples uniformly, with replacement, from the filled slots (or, with
    ``window``, from the newest ``window`` of them).

    With ``symmetries``, each drawn example gets one of them, chosen uniformly (the
    identity counts as one if it is in the list), applied to its observation and its
    policy together. All ``S`` transforms are computed and one is selected per example,
    so shapes stay fixed.

    An empty buffer (``size == 0``) does not fail: every draw is slot 0, which holds
    zeros until the first ``add``.

    With ``merged`` (``merge_duplicates`` of the same buffer and window), a drawn
    example's targets are the means over its copies (Clausen (2020)).

    Args:
      buffer: the buffer to draw from.
      key: a PRNG key.
      batch_size: ``B``, the number of examples drawn (static).
      symmetries: e.g. ``game.symmetries`` (static); empty for no augmentation.
      window: int32[] or None: draw from the newest ``window`` examples (clipped to
        ``[1, size]``, e.g. ``growing_window``); None: from all of them.
      merged: each slot's targets averaged over its duplicates (``merge_duplicates``),
        read in place of the slot's own; None: the slot's own.

    Returns:
      A float32 ``Sample``: ``observation[B, H, W, C]``, ``policy[B, A]``, ``value[B]``.

    Raises:
      ValueError: if ``batch_size`` is not a positive int, or a symmetry does not fit
        the buffer's shapes.
    """
    if not _is_positive_int(batch_size):
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}.")
    index_key, symmetry_key = jax.random.split(key)
    if window is None:
        index = jax.random.randint(index_key, (batch_size,), 0, jnp.maximum(buffer.size, 1))
    else:  # back from the newest, slot cursor - 1, around the ring
        newest = jnp.clip(window, 1, jnp.maximum(buffer.size, 1))
        age = jax.random.randint(index_key, (batch_size,), 0, newest)
        index = (buffer.cursor - 1 - age) % buffer.capacity
    observation = buffer.observation[index].astype(jnp.float32)
    policy = buffer.policy[index].astype(jnp.float32)
    value = buffer.value[index].astype(jnp.float32)
    targets, over_actions = {}, ()
    if isinstance(buffer, TargetReplayBuffer):
        targets = {name: stored[index] for name, stored in buffer.targets.items()}
        over_actions = buffer.over_actions
    if merged is not None:
        policy, value = merged.policy[index], merged.value[index]
        targets = {name: stored[index] for name, stored in merged.targets.items()}
    if symmetries:
        choice = jax.random.randint(symmetry_key, (batch_size,), 0, len(symmetries))
        observation, policy = _apply_symmetries(symmetries, choice, observation, policy)
        for name in over_actions:
            targets[name] = _permute_actions(symmetries, choice, targets[name])
    return Sample(observation=observation, policy=policy, value=value, targets=targets)


def observation_hashes(observation: Array) -> Array:
    """uint32[N, 2]: two 32-bit hashes of each stored observation ``[N, H, W, C]`` (its
    bfloat16 bits times fixed odd multipliers, summed with wrap-around)."""
    bits = jax.lax.bitcast_convert_type(observation.astype(STORAGE_DTYPE), jnp.uint16)
    bits = bits.reshape(bits.shape[0], -1).astype(jnp.uint32)
    size = bits.shape[1]
    multipliers = np.random.default_rng(20_191_010).integers(0, 2**31, (size, 2), np.uint32)
    multipliers = jnp.asarray(multipliers * 2 + 1, jnp.uint32)  # odd: no bit is lost
    # (bits + 1): a zero cell still counts, so two boards differing only where one is
    # empty hash apart; sums of products wrap around modulo 2^32.
    return jnp.sum((bits + 1)[:, :, None] * multipliers[None], axis=1, dtype=jnp.uint32)


class Merged(NamedTuple):
    """Each slot's targets averaged over the slots with the same observation (float32)."""

    policy: Array  # [N, A]
    value: Array  # [N]
    targets: dict  # name -> [N, ...]


def merge_duplicates(buffer: ReplayBuffer, window: Array | None = None) -> Merged:
    """Each slot's targets (policy, value and further targets) averaged over every slot
    that ``sample`` could draw (the filled ones, or the newest ``window``) and that holds
    the same observation, itself included: a position's targets averaged over its games
    (Clausen (2020) measures 30-80% of Connect Four's positions in the memory to be
    duplicates, and merging them worth 2.5 points). Pass it to ``sample`` as ``merged``;
    a position is still drawn as often as it has copies.

    Shapes stay fixed: the slots are sorted by the first 32 bits of a 64-bit hash of their
    observation (``observation_hashes``) and each run of equal 64-bit hashes is summed
    (``segment_sum``). Two positions merge only if all 64 bits agree (about one chance in
    2^64 a pair); two whose first 32 bits agree (a few pairs among 150,000 positions) may
    interleave and leave a copy's mean over part of its copies. The buffer changes only when
    self-play adds to it, so a training iteration merges once for all its updates. One
    sort key, not two: XLA's CPU sort of two keys took about four times as long.

    Args:
      buffer: the buffer.
      window: as ``sample``'s.

    Returns:
      ``Merged``: float32 ``[N, ...]``; a slot that cannot be drawn keeps its own targets.
    """
    capacity = buffer.capacity
    slots = jnp.arange(capacity)
    filled = jnp.maximum(buffer.size, 1)
    if window is None:
        drawable = slots < filled
    else:
        newest = jnp.clip(window, 1, filled)
        drawable = (buffer.cursor - 1 - slots) % capacity < newest
    hashes = observation_hashes(buffer.observation)
    _, order = jax.lax.sort((hashes[:, 0], slots), num_keys=1)
    ordered = hashes[order]
    starts = jnp.concatenate([jnp.ones((1,), bool), jnp.any(ordered[1:] != ordered[:-1], axis=-1)])
    segment = jnp.cumsum(starts) - 1  # the run of equal hashes of each sorted slot
    weight = drawable[order].astype(jnp.float32)
    count = jax.ops.segment_sum(weight, segment, num_segments=capacity)

    def mean(stored: Array) -> Array:
        flat = stored.reshape(capacity, -1).astype(jnp.float32)[order]
        sums = jax.ops.segment_sum(flat * weight[:, None], segment, num_segments=capacity)
        means = sums[segment] / jnp.maximum(count[segment], 1.0)[:, None]
        means = jnp.where(weight[:, None] > 0, means, flat)
        unsorted = jnp.zeros_like(flat).at[order].set(means)
        return unsorted.reshape((capacity, *stored.shape[1:]))

    targets = {}
    if isinstance(buffer, TargetReplayBuffer):
        targets = {name: mean(stored) for name, stored in buffer.targets.items()}
    return Merged(mean(buffer.policy), mean(buffer.value), targets)


def _apply_symmetries(
    symmetries: Sequence[Symmetry], choice: Array, observation: Array, policy: Array
) -> tuple[Array, Array]:
    """Applies ``symmetries[choice[b]]`` to example ``b``: [B, H, W, C] and [B, A]."""
    transformed = []
    for symmetry in symmetries:
        moved = symmetry.transform_observation(observation)
        if moved.shape != observation.shape:
            raise ValueError(
                f"Symmetry {symmetry.name!r} maps observations of shape "
                f"{observation.shape} to {moved.shape}; augmentation needs shape-preserving "
                "symmetries (e.g. no transpose on a non-square board)."
            )
        transformed.append(moved)
    stacked = jnp.stack(transformed)  # [S, B, H, W, C]
    observation = stacked[choice, jnp.arange(choice.shape[0])]
    return observation, _permute_actions(symmetries, choice, policy)


def _permute_actions(symmetries: Sequence[Symmetry], choice: Array, policy: Array) -> Array:
    """Applies ``symmetries[choice[b]]``'s action permutation to row ``b`` of [B, A]."""
    permutations = np.stack([np.asarray(s.action_permutation) for s in symmetries])
    if permutations.shape[1] != policy.shape[-1]:
        raise ValueError(
            f"Symmetry action permutations have {permutations.shape[1]} entries, but the "
            f"buffer holds {policy.shape[-1]} actions."
        )
    gather = jnp.asarray(permutations, jnp.int32)[choice]  # [B, A]
    return jnp.take_along_axis(policy, gather, axis=-1)


def _is_positive_int(x: object) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool) and x >= 1


def _check_samples(buffer: ReplayBuffer, samples: Sample) -> int:
    """Checks the samples' shapes against the buffer's; returns ``M``."""
    num_samples = samples.value.shape[0] if samples.value.ndim == 1 else None
    expected = {
        "observation": (num_samples, *buffer.observation.shape[1:]),
        "policy": (num_samples, *buffer.policy.shape[1:]),
        "value": (num_samples,),
    }
    for name, shape in expected.items():
        received = getattr(samples, name).shape
        if num_samples is None or received != shape:
            raise ValueError(
                f"samples.{name} must have shape [M, ...] = "
                f"{('M', *shape[1:])} with M = len(samples.value) matching this buffer; "
                f"got observation {samples.observation.shape}, policy "
                f"{samples.policy.shape}, value {samples.value.shape}."
            )
    return num_samples


def _check_valid(valid: Array, shape: tuple[int, ...]) -> None:
    if valid.shape != tuple(shape) or valid.dtype != jnp.bool_:
        raise ValueError(f"valid must be bool{list(shape)}; got {valid.dtype}{list(valid.shape)}.")
