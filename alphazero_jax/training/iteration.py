"""One training iteration's two halves, built once per run from its plan.

The first half is self-play of a batch of games (one XLA program, the batch split over all
devices) whose positions go into the replay memory; the second is K optimiser updates on
batches sampled from it. The K updates are K calls of one jitted update, dispatched from the
host without waiting, not a ``lax.scan`` over them (docs/design.md, "Why the K updates are
not a ``lax.scan``": XLA's CPU backend runs a convolution's gradient far slower inside a
rolled loop body). Each half draws its own key from the run's key and advances it
(``run_state.draw_key``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from alphazero_jax.configs.plan import Plan
from alphazero_jax.training import learner, mixed, replay, run_selfplay
from alphazero_jax.training import targets as targets_lib
from alphazero_jax.training.run_state import TrainingState, draw_key
from alphazero_jax.types import Array

BATCH_AXIS = "batch"


class Iteration(NamedTuple):
    """An iteration's halves (``make_iteration``)."""

    # jitted (TrainingState, play_variables | None) -> (state, metrics): self-play and replay
    # insertion; it draws its key.
    selfplay_fn: Any
    # (TrainingState) -> (state, metrics): K calls of ``update_fn`` from the host and one of
    # ``end_fn`` (the mean metrics, the next key and iteration).
    learn_fn: Any
    update_fn: Any  # jitted (learner state, replay, key data, index, positions) -> (state, metrics)
    end_fn: Any  # jitted (key data, iteration, [metrics] * K) -> (key data, iteration, means)


def make_iteration(plan: Plan, apply_fn, schedule, optimizer, mesh: Mesh, others=()) -> Iteration:
    """The halves of an iteration of ``plan``'s run; ``others``: ``(game, apply_fn)`` of the
    other boards (``training.mixed``). With simulation stages, each stage's self-play is
    compiled once, here, and ``selfplay_fn`` calls the one of the state's iteration."""
    config = plan.config
    boards = ((plan.game, apply_fn), *others)
    updates = [
        learner.make_update(
            board_apply_fn,
            optimizer,
            l2_weight=config.learner.l2_weight,
            value_weight=config.learner.value_weight,
            aux_weights=tuple(config.learner.aux_weights.items()),
            schedule=schedule,
        )
        for _, board_apply_fn in boards
    ]
    batch_sharding = NamedSharding(mesh, P(BATCH_AXIS))
    update_fn, end_fn, learn_fn = _make_learn(plan, updates, others, batch_sharding)
    plays = [_stage_plays(plan, boards, mesh, sims) for _, sims in plan.stages]
    halves = [jax.jit(_play_half(plan, play_set), donate_argnums=0) for play_set in plays]
    if len(halves) == 1:
        return Iteration(halves[0], learn_fn, update_fn, end_fn)

    def selfplay_fn(state: TrainingState, play_variables: dict | None = None):
        """The self-play of the stage of ``state.iteration`` (read once an iteration; the
        session waits for the previous iteration there anyway)."""
        stage = run_selfplay.stage_of(plan.stages, int(state.iteration))
        return halves[stage](state, play_variables)

    return Iteration(selfplay_fn, learn_fn, update_fn, end_fn)


def _stage_plays(plan: Plan, boards, mesh: Mesh, simulations: int) -> tuple:
    """Each board's self-play at a stage's simulations: the main board's for
    ``config.selfplay.num_moves`` plies, another's for its move cap's."""
    main = boards[0][0]
    return tuple(
        run_selfplay.make_device_selfplay(
            plan,
            board,
            board_apply_fn,
            mesh,
            BATCH_AXIS,
            num_simulations=simulations,
            num_moves=plan.config.selfplay.num_moves if board is main else board.max_num_moves,
            score_fn=targets_lib.recorder(plan.targets, board),
        )
        for board, board_apply_fn in boards
    )


def _play_half(plan: Plan, play_set: tuple):
    """``play_half(state, play_variables)``: self-play with ``play_variables`` (gating's best
    network) or, when None, the network being trained; its positions go into the replay
    memory (each other board's into its own)."""

    def play_half(state: TrainingState, play_variables: dict | None = None):
        key_data, play_key = draw_key(state.key)
        if play_variables is None:
            play_variables = state.learner.variables
        trajectory = play_set[0](play_variables, play_key)
        num_positions = trajectory.valid.sum().astype(jnp.int32)
        metrics = dict(selfplay_metrics(trajectory), positions=num_positions)
        extra = targets_lib.compute(trajectory, plan.targets)
        new_state = state.replace(
            key=key_data,
            replay=replay.add_trajectory(state.replay, trajectory, extra),
            num_positions=state.num_positions + num_positions,
        )
        if len(play_set) == 1:
            return new_state, metrics
        key_data, memories, positions = mixed.play_other_boards(
            play_set[1:], state, key_data, play_variables, plan.targets
        )
        metrics["mixed_positions"] = positions
        return new_state.replace(key=key_data, mixed_replay=memories), metrics

    return play_half


def _make_learn(plan: Plan, updates, others, batch_sharding):
    """``(update_fn, end_fn, learn_fn)``: the main board's update, the iteration's end, and
    the learner's half (the other boards' updates first, then K on the main board's)."""
    config = plan.config
    symmetries = plan.game.symmetries if config.replay.augment else ()
    window_start, num_updates = config.replay.window_start, config.learner.updates_per_iteration

    def window_of(num_positions):
        return replay.growing_window(num_positions, window_start) if window_start else None

    def update_step(learner_state, buffer, key_data, index, num_positions, merged=None):
        """The iteration's ``index``-th update, on a batch sampled with its own key (and
        with ``merged``, the targets averaged over duplicates, ``replay.merge_duplicates``)."""
        _, learn_key = draw_key(key_data)
        batch = replay.sample(
            buffer,
            jax.random.fold_in(learn_key, index),
            batch_size=config.learner.batch_size,
            symmetries=symmetries,
            window=window_of(num_positions),
            merged=merged,
        )
        return updates[0](learner_state, jax.lax.with_sharding_constraint(batch, batch_sharding))

    def end(key_data, iteration, metrics):
        key_data, _ = draw_key(key_data)
        means = jax.tree.map(lambda *values: jnp.mean(jnp.stack(values)), *metrics)
        return key_data, iteration + 1, means

    update_fn, end_fn = jax.jit(update_step, donate_argnums=0), jax.jit(end)
    merge_fn = None
    if config.replay.merge_duplicates:  # once an iteration: the memory is the same for all K
        merge_fn = jax.jit(lambda buffer, n: replay.merge_duplicates(buffer, window_of(n)))
    learn_others = None
    if others:
        learn_others = mixed.make_updates(plan, others, updates[1:], batch_sharding, num_updates)

    def learn_half(state: TrainingState):
        """K updates, dispatched without waiting; the state's learner is consumed."""
        learner_state, metrics, mixed_losses = state.learner, [], []
        if learn_others is not None:  # the other boards in turn, first
            learner_state, mixed_losses = learn_others(learner_state, state)
        extra = () if merge_fn is None else (merge_fn(state.replay, state.num_positions),)
        for index in range(num_updates):
            learner_state, step_metrics = update_fn(
                learner_state, state.replay, state.key, index, state.num_positions, *extra
            )
            metrics.append(step_metrics)
        key, iteration, means = end_fn(state.key, state.iteration, metrics)
        if mixed_losses:
            means = dict(means, mixed_loss=jnp.mean(jnp.stack(mixed_losses)))
        return state.replace(learner=learner_state, key=key, iteration=iteration), means

    return update_fn, end_fn, learn_half


def selfplay_metrics(trajectory) -> dict[str, Array]:
    """Statistics of the games that ended: length, first player's wins, draws."""
    ended = trajectory.ended
    num_games = jnp.maximum(ended.sum(), 1)
    # A position's game finished if a game ends at or after it in its slot.
    finished = jnp.flip(jnp.cumsum(jnp.flip(ended, 0), 0), 0) > 0
    first_player = trajectory.outcome
    return {
        "games": ended.sum(),
        "game_length": finished.sum() / num_games,
        "first_player_wins": ((first_player > 0) & ended).sum() / num_games,
        "draws": ((first_player == 0) & ended).sum() / num_games,
    }
