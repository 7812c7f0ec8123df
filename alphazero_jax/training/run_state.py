"""What a run's checkpoint holds (``TrainingState``) and the one way its key is drawn."""

from __future__ import annotations

import jax
from flax import struct

from alphazero_jax.training import learner, replay
from alphazero_jax.types import Array


@struct.dataclass
class TrainingState:
    """Everything a run needs to continue exactly: what a checkpoint holds."""

    learner: learner.TrainState
    replay: replay.ReplayBuffer
    key: Array  # uint32[2]: raw PRNG key data.
    iteration: Array  # int32[]: iterations completed.
    num_positions: Array  # int32[]: self-play positions generated so far.


def draw_key(key_data: Array) -> tuple[Array, jax.Array]:
    """The run's key advanced once: ``(the next key's data, a key for one use)``.

    The only place the run's key is split. Each half of an iteration draws its own key with
    it and carries the next one on: self-play in its program; the learner's K updates each
    draw the same key (and fold in their index), and ``end_fn`` carries the next one on.
    So a half called on its own (a benchmark's repeated self-play) plays new games.
    """
    key, subkey = jax.random.split(jax.random.wrap_key_data(key_data))
    return jax.random.key_data(key), subkey
