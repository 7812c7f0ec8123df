"""TD-MCTS's value table: a fixed-capacity, device-resident hash table of positions.

A position's key is two independent 32-bit hashes (``position_key``) of every word of its
State (bitboards, player to move, move count, ...), so transpositions share an entry. The
table is 4-way probed: a key's home slot is its first hash modulo the capacity (a power of
two) and the position lives in the first free one of the 4 slots from there (wrapping
around). Every slot stores the full 64-bit key, so a slot holding another position is
detected (a lookup goes on to the next slot; a miss after 4). Two positions with the same
64 bits would go undetected; with 10^6 positions the chance of that is about 3e-8. An
entry holds the value ``V`` of the position (float32, in [-1, 1], from the view of its
player to move) and its visits (int32; 0 marks an empty slot).

Replacement policy: **first come, first kept**. An entry is never evicted: a position
whose 4 slots are all held by other positions is not stored (a search starts it from
V = 0 and 0 visits every time) and is counted in ``num_collisions`` each time a search
tries to write it. Positions near the opening are written first and visited most, so the
table keeps the positions that matter most when it fills up; with a capacity well above
the number of positions (Tic-Tac-Toe has 5,478) nothing is dropped.

``merge`` writes the results of a whole batch of searches at once. Several games of a
batch may update the same position in one call; scatter with duplicate indices is
well-defined only for commutative combiners, so nothing relies on ``.set`` order:

- an empty slot claimed by several different new positions goes to the entry with the
  lowest index in the batch (a scatter-min of indices, deterministic); the others try
  their next slot;
- all entries of one stored position are combined by a visit-weighted mean (two
  scatter-adds): with ``w_i`` the visits game ``i`` added and ``V_i`` its value after its
  search, ``V = sum(w_i V_i) / sum(w_i)`` and ``visits += sum(w_i)``. One writer gets
  exactly its own result; several writers, each of whom started from the same old value,
  get the average of their independent TD updates (never an overshoot, V stays in
  [-1, 1]).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax import memory
from alphazero_jax.types import Array, State

# Seeds and multipliers of the two hashes (murmur3's finaliser constants and two others).
PROBES = 4  # a position lives in one of the 4 slots from its home slot on
_SEEDS = (np.uint32(0x9E3779B9), np.uint32(0x7F4A7C15))
_MULTIPLIERS = (
    (np.uint32(0x85EBCA6B), np.uint32(0xC2B2AE35)),
    (np.uint32(0xCC9E2D51), np.uint32(0x1B873593)),
)


@struct.dataclass
class ValueTable:
    """A 4-way probed hash table of position values, ``C`` slots (``C`` a power of two).

    Attributes:
      keys: uint32[C, 2], the full key of the position in each slot.
      value: float32[C], V from the view of the position's player to move.
      visits: int32[C], 0 for an empty slot.
      num_collisions: int32[], entries that ``merge`` could not store (cumulative).
    """

    keys: Array
    value: Array
    visits: Array
    num_collisions: Array

    @property
    def capacity(self) -> int:
        return self.value.shape[-1]


def empty_table(*, capacity: int) -> ValueTable:
    """A table with ``capacity`` empty slots (a power of two >= 1; fewer than 4 slots
    probe some slots twice, which is harmless). A table larger than this machine's memory
    budget (``memory.budget_bytes``) raises ``memory.MemoryBoundError``."""
    is_int = isinstance(capacity, int) and not isinstance(capacity, bool)
    if not is_int or capacity < 1 or capacity & (capacity - 1):
        raise ValueError(f"capacity must be a power of two >= 1, got {capacity!r}.")
    memory.check(  # two uint32 key words, a float32 value, an int32 count
        f"capacity={capacity:,}|for the TD-MCTS value table", capacity, bytes_per_unit=16
    )
    return ValueTable(
        keys=jnp.zeros((capacity, 2), jnp.uint32),
        value=jnp.zeros((capacity,), jnp.float32),
        visits=jnp.zeros((capacity,), jnp.int32),
        num_collisions=jnp.int32(0),
    )


def _words(state: State) -> Array:
    """uint32[K]: every leaf of an unbatched State, flattened and reinterpreted as words."""
    words = []
    for leaf in jax.tree.leaves(state):
        leaf = jnp.ravel(jnp.asarray(leaf))
        if leaf.dtype == jnp.bool_ or jnp.issubdtype(leaf.dtype, jnp.integer):
            if leaf.dtype != jnp.uint32:
                leaf = jax.lax.bitcast_convert_type(leaf.astype(jnp.int32), jnp.uint32)
        else:
            leaf = jax.lax.bitcast_convert_type(leaf.astype(jnp.float32), jnp.uint32)
        words.append(leaf)
    return jnp.concatenate(words)


def _hash(words: Array, seed: np.uint32, multipliers: tuple[np.uint32, np.uint32]) -> Array:
    first, second = multipliers

    def absorb(h, word):
        h = (h ^ word) * first
        h = (h ^ (h >> 15)) * second
        return h ^ (h >> 13), None

    h, _ = jax.lax.scan(absorb, jnp.uint32(seed), words)
    h = (h ^ (h >> 16)) * first  # murmur3's finaliser
    h = (h ^ (h >> 13)) * second
    return h ^ (h >> 16)


def position_key(state: State) -> Array:
    """uint32[2]: the key of one (unbatched) position, two independent 32-bit hashes."""
    words = _words(state)
    return jnp.stack([_hash(words, s, m) for s, m in zip(_SEEDS, _MULTIPLIERS)])


def _slots(table: ValueTable, key: Array) -> Array:
    """int32[..., PROBES]: the slots where ``key`` (uint32[..., 2]) may live."""
    home = key[..., 0:1] + jnp.arange(PROBES, dtype=jnp.uint32)
    return (home & jnp.uint32(table.capacity - 1)).astype(jnp.int32)


def _find(table_keys: Array, occupied: Array, slots: Array, key: Array) -> tuple[Array, Array]:
    """``(found bool[...], slot int32[...])``: where ``key`` is stored among its slots."""
    match = occupied[slots] & jnp.all(table_keys[slots] == key[..., None, :], axis=-1)
    slot = jnp.take_along_axis(slots, jnp.argmax(match, axis=-1)[..., None], axis=-1)[..., 0]
    return match.any(axis=-1), slot


def lookup(table: ValueTable, key: Array) -> tuple[Array, Array]:
    """``(value float32[], visits int32[])`` of the position ``key`` (uint32[2]); (0, 0)
    when it is not stored."""
    found, slot = _find(table.keys, table.visits > 0, _slots(table, key), key)
    return jnp.where(found, table.value[slot], 0.0), jnp.where(found, table.visits[slot], 0)


def merge(table: ValueTable, keys: Array, values: Array, added: Array) -> ValueTable:
    """Writes M search results into the table (see the module docstring for duplicates).

    Args:
      table: the table.
      keys: uint32[M, 2], the positions.
      values: float32[M], each position's V after its search.
      added: int32[M], the visits each search added to the position; 0 skips the entry.

    Returns:
      The table with the entries stored, and the entries that found all their slots held
      by other positions added to ``num_collisions``.
    """
    capacity, size = table.capacity, added.shape[0]
    slots = _slots(table, keys)  # int32[M, PROBES]
    valid = added > 0
    occupied = table.visits > 0
    found, _ = _find(table.keys, occupied, slots, keys)
    pending = valid & ~found
    new_keys, index = table.keys, jnp.arange(size, dtype=jnp.int32)
    for probe in range(PROBES):  # new positions claim the first free slot, lowest index first
        slot = slots[:, probe]
        claim = pending & ~occupied[slot]
        first = jnp.full((capacity,), size, jnp.int32)
        first = first.at[jnp.where(claim, slot, capacity)].min(index, mode="drop")
        winner = jnp.where(claim & (first[slot] == index), slot, capacity)
        new_keys = new_keys.at[winner].set(keys, mode="drop")
        occupied = occupied.at[winner].set(True, mode="drop")
        pending = pending & ~(occupied[slot] & jnp.all(new_keys[slot] == keys, axis=-1))
    stored, slot = _find(new_keys, occupied, slots, keys)
    stored = valid & stored
    weight = jnp.where(stored, added, 0)
    total = jnp.zeros((capacity,), jnp.int32).at[slot].add(weight)
    weighted = jnp.zeros((capacity,), jnp.float32).at[slot].add(weight * values)
    value = jnp.where(total > 0, weighted / jnp.maximum(total, 1), table.value)
    return ValueTable(
        keys=new_keys,
        value=value.astype(jnp.float32),
        visits=table.visits + total,
        num_collisions=table.num_collisions + jnp.sum(valid & ~stored).astype(jnp.int32),
    )


def num_positions(table: ValueTable) -> Array:
    """int32[]: the positions stored."""
    return jnp.sum(table.visits > 0).astype(jnp.int32)
