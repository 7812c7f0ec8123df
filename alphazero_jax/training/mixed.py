"""Mixed board sizes (``config.game.mixed``): one network learning on other boards of its
game beside the main one, as KataGo trains one network on mixed board sizes (Wu, 2019).

Each other board has its own self-play (its move cap's plies a call: every slot finishes a
game, and a small board costs less) into its own replay memory, and the learner makes
``config.learner.mixed_updates`` updates on their positions, the boards in turn, before its
updates on the main board's. The network's variables must fit every board as they are (the
network kind ``resnet_any_size``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from alphazero_jax import runs
from alphazero_jax.configs import ConfigError
from alphazero_jax.configs.plan import Plan
from alphazero_jax.training import replay
from alphazero_jax.training import targets as targets_lib
from alphazero_jax.training.run_state import TrainingState, draw_key
from alphazero_jax.types import Game


@struct.dataclass
class MixedTrainingState(TrainingState):
    """A run's state with other boards: a replay memory for each (a run without them keeps
    ``TrainingState``, so that its checkpoints stay as they were)."""

    mixed_replay: tuple[replay.ReplayBuffer, ...] = ()


def boards(plan: Plan, variables: dict, key: jax.Array) -> tuple[tuple[Game, object], ...]:
    """``(game, apply_fn)`` of each other board: the network's apply function there.

    Raises:
      ConfigError: the main board's variables do not fit a board as they are.
    """
    return tuple(
        (other, _apply_fn(plan, index, other, variables, key))
        for index, other in enumerate(plan.mixed)
    )


def _apply_fn(plan: Plan, index: int, other: Game, variables: dict, key: jax.Array):
    try:
        other_apply_fn, other_variables = runs.make_network(plan.config, other, key=key)
    except ValueError as error:
        raise ConfigError(f"config.game.mixed[{index}]: {error}") from None
    if jax.tree.map(jnp.shape, other_variables) != jax.tree.map(jnp.shape, variables):
        raise ConfigError(
            f"config.game.mixed[{index}]: one network learns on every board, but network "
            f"kind {plan.config.network.get('kind', 'resnet')!r} has variables of other "
            f"shapes on {dict(other.settings)} than on the main board; use network.kind="
            "'resnet_any_size' (or a kind of one's own whose variables fit every size)."
        )
    return other_apply_fn


def play_other_boards(plays, state: MixedTrainingState, key_data, variables, target_names):
    """Each other board's self-play into its memory: ``(key data, memories, positions)``."""
    memories, positions = [], jnp.int32(0)
    for play, memory in zip(plays, state.mixed_replay, strict=True):
        key_data, play_key = draw_key(key_data)
        trajectory = play(variables, play_key)
        extra = targets_lib.compute(trajectory, target_names)
        memories.append(replay.add_trajectory(memory, trajectory, extra))
        positions += trajectory.valid.sum().astype(jnp.int32)
    return key_data, tuple(memories), positions


def make_updates(plan: Plan, others, updates, batch_sharding, first_index: int):
    """``learn(learner_state, state) -> (learner_state, losses)``: the iteration's updates
    on the other boards' memories, the boards in turn, each on a batch sampled with the
    iteration's key folded with its index (from ``first_index`` on, after the main
    board's)."""
    config = plan.config

    def step(board, learner_state, buffer, key_data, index):
        _, learn_key = draw_key(key_data)
        game = others[board][0]
        batch = replay.sample(
            buffer,
            jax.random.fold_in(learn_key, index),
            batch_size=config.learner.batch_size,
            symmetries=game.symmetries if config.replay.augment else (),
        )
        batch = jax.lax.with_sharding_constraint(batch, batch_sharding)
        return updates[board](learner_state, batch)

    steps = [
        jax.jit(lambda *args, board=board: step(board, *args), donate_argnums=0)
        for board in range(len(others))
    ]

    def learn(learner_state, state: MixedTrainingState):
        losses = []
        for index in range(config.learner.mixed_updates):
            board = index % len(steps)
            learner_state, metrics = steps[board](
                learner_state, state.mixed_replay[board], state.key, first_index + index
            )
            losses.append(metrics["loss"])
        return learner_state, losses

    return learn
