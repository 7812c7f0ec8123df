"""``train_and_evaluate(config, workdir)``: the only loop over iterations.

The config is read once (``configs.plan.read``: checked, completed, its game and plug-ins
built) into a plan that everything here reads; ``build`` makes the network, the initial
state and the iteration's two halves (``training.iteration``) from it. The loop around them
logs, checkpoints every few minutes, on Ctrl-C and at the end, and resumes exactly from the
newest checkpoint.

Where the time goes: the session waits for self-play and for the updates to finish
(``block_until_ready``, once each per iteration, never per move or update) and the loop
logs the seconds of self-play, learner, evaluation and checkpointing of every log interval
as ``time/*``.

A plug-in that fails (raises when built, or in its first compiled call) ends the run with a
``PlugInError`` whose first line names it and its module; the run's last checkpoint is left
as it was, and resumes.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from alphazero_jax import runs
from alphazero_jax.configs import plan as plans
from alphazero_jax.configs.plan import ConfigError, Plan, updates_per_iteration
from alphazero_jax.training import evaluator, learner, mixed, plugin_faults, replay, session
from alphazero_jax.training import targets as targets_lib
from alphazero_jax.training.iteration import BATCH_AXIS, make_iteration
from alphazero_jax.training.mixed import MixedTrainingState
from alphazero_jax.training.run_logging import RunLogger
from alphazero_jax.training.run_state import TrainingState
from alphazero_jax.types import Game

__all__ = [
    "TIME_KEYS",
    "Components",
    "ConfigError",
    "MixedTrainingState",
    "TrainingState",
    "build",
    "train_and_evaluate",
]


class Components(NamedTuple):
    plan: Plan  # the config read: ``plan.config`` is the completed config the run uses
    game: Game
    apply_fn: Any
    initial_state: TrainingState
    # jitted (TrainingState, play_variables | None) -> (state, metrics): an iteration's first
    # half, self-play and replay insertion; it draws its key.
    selfplay_fn: Any
    # (TrainingState) -> (state, metrics): its second half, K calls of ``update_fn`` from the
    # host and one of ``end_fn`` (the mean metrics, the next key and iteration).
    learn_fn: Any
    update_fn: Any  # jitted (learner state, replay, key data, index) -> (learner state, metrics)
    end_fn: Any  # jitted (key data, iteration, [metrics] * K) -> (key data, iteration, means)
    evaluator: evaluator.Evaluator | None  # None when evaluation and gating are off

    @property
    def config(self) -> ml_collections.ConfigDict:
        """The run's config, completed (``plan.config``)."""
        return self.plan.config


def _make_schedule(config):
    return learner.make_schedule(
        learning_rate=config.learner.learning_rate,
        schedule=config.learner.schedule,
        warmup_steps=config.learner.warmup_steps,
        total_steps=config.num_iterations * updates_per_iteration(config),
        decay_rate=config.learner.decay_rate,
        decay_steps=tuple(config.learner.decay_steps),
    )


def build(config: ml_collections.ConfigDict, *, workdir: str | None = None) -> Components:
    """Reads ``config`` (``configs.plan.read``; with ``workdir``, a run there must be one it
    continues) and builds the network, initial state and iteration.

    A config written before a section existed gets that section's defaults: the
    ``Components``' ``config`` is the completed one, what the run uses from then on."""
    devices = jax.devices()
    plan = plans.read(config, num_devices=len(devices), workdir=workdir)
    config = plan.config
    mesh = Mesh(np.array(devices), (BATCH_AXIS,))
    net_key, run_key = jax.random.split(jax.random.key(config.seed))
    try:
        apply_fn, variables = runs.make_network(config, plan.game, key=net_key)
    except ValueError as error:
        raise ConfigError(f"config.network: {error}") from None
    others = mixed.boards(plan, variables, net_key)
    schedule = _make_schedule(config)
    optimizer = learner.make_optimizer(schedule, name=config.learner.optimizer)
    state = _initial_state(plan, variables, optimizer, run_key, others)
    state = jax.device_put(state, NamedSharding(mesh, P()))
    iteration = make_iteration(plan, apply_fn, schedule, optimizer, mesh, others)
    return Components(
        plan=plan,
        game=plan.game,
        apply_fn=apply_fn,
        initial_state=state,
        selfplay_fn=plugin_faults.named(plan, iteration.selfplay_fn),
        learn_fn=plugin_faults.named(plan, iteration.learn_fn),
        update_fn=iteration.update_fn,
        end_fn=iteration.end_fn,
        evaluator=_make_evaluator(plan, apply_fn),
    )


def _initial_state(plan: Plan, variables, optimizer, run_key, others) -> TrainingState:
    """A new run's state: fresh optimiser, empty replay memories (one per board), its key."""
    config = plan.config

    def memory(board: Game) -> replay.ReplayBuffer:
        return replay.init(
            capacity=config.replay.capacity,
            observation_shape=board.observation_shape,
            num_actions=board.num_actions,
            targets=targets_lib.shapes(plan.targets, board.num_actions),
            over_actions=tuple(n for n in plan.targets if targets_lib.get(n).over_actions),
        )

    fields = dict(
        learner=learner.init_train_state(variables, optimizer),
        replay=memory(plan.game),
        key=jax.random.key_data(run_key),
        iteration=jnp.int32(0),
        num_positions=jnp.int32(0),
    )
    if others:
        return MixedTrainingState(**fields, mixed_replay=tuple(memory(g) for g, _ in others))
    return TrainingState(**fields)


def _make_evaluator(plan: Plan, apply_fn) -> evaluator.Evaluator | None:
    config = plan.config
    evaluation = config.evaluation
    if not evaluation.every and config.gating.rule == "none":
        return None
    return evaluator.make_evaluator(
        plan.game,
        apply_fn,
        config.search.to_dict(),
        num_simulations=(
            config.search.num_simulations if evaluation.simulations < 0 else evaluation.simulations
        ),
        baselines=plan.opponents,
        num_games=evaluation.games,
        opening_moves=evaluation.opening_moves,
        perfect_play_sets=tuple(evaluation.perfect_play_sets),
        perfect_play_positions=evaluation.perfect_play_positions,
    )


def _check_writable(workdir: str, state: TrainingState) -> None:
    """Refuses, before any work, a workdir that cannot be written or has no room for a
    checkpoint of ``state`` (twice: a step being replaced exists twice for a moment)."""
    probe = os.path.join(workdir, f".writable-{jax.process_index()}")
    try:
        os.makedirs(workdir, exist_ok=True)
        with open(probe, "w") as file:
            file.write("ok")
        os.remove(probe)
    except OSError as error:
        raise session.TrainingError(
            f"Cannot write to the work directory {workdir} "
            f"({error.strerror or error}); nothing was trained."
        ) from error
    needed = 2 * sum(leaf.nbytes for leaf in jax.tree.leaves(state))
    free = shutil.disk_usage(workdir).free
    if free < needed:
        raise session.TrainingError(
            f"The work directory {workdir} has {free / 2**20:.0f} MiB free, but this run "
            f"needs about {needed / 2**20:.0f} MiB for its checkpoints; nothing was trained."
        )


# Seconds of each log interval (summed over its iterations), logged as ``time/<name>``:
# self-play with replay insertion, the learner's updates, evaluation (Elo, mistake rates,
# gating) before the interval's iterations, and checkpoints saved since the previous record.
TIME_KEYS = ("selfplay", "learner", "evaluation", "checkpoint")


def train_and_evaluate(config: ml_collections.ConfigDict, workdir: str) -> TrainingState:
    """Trains (or resumes training) until ``config.num_iterations``; returns the state.

    ``workdir`` receives ``config.json``, ``checkpoints/``, ``metrics.jsonl`` and
    ``tensorboard/``, and with evaluation on ``elo.json`` and ``elo.png``. Each record of
    ``metrics.jsonl`` (and TensorBoard) also says where its interval's time went:
    ``time/selfplay``, ``time/learner``, ``time/evaluation`` and ``time/checkpoint``. If
    ``workdir`` already holds a run, the run continues from its newest checkpoint, exactly
    as if it had never stopped; its config may differ only in its evaluation, logging,
    checkpoint cadence and time limit (and, under a constant learning rate, its
    ``num_iterations``), else ``ConfigError``. Ctrl-C (SIGINT or SIGTERM), or
    ``config.time_limit_minutes`` of this call, saves a checkpoint and stops, within a
    match of an evaluation (an evaluation stopped that way runs again on resume). With
    ``config.evaluation.final``, a run that stops at its last iteration or its time limit
    first evaluates its last network if it has no evaluation yet (only Ctrl-C cuts that
    one short), so that a run on a budget ends judged. The progress line shows the time
    left under a time limit.

    Launched as several processes (``jax.distributed.initialize`` called first), every
    process runs this with the same arguments and a shared ``workdir``: the mesh spans all
    processes' devices, each plays its devices' share of the games, orbax writes each
    checkpoint once, process 0 writes the files, and the processes agree once per
    iteration on stopping and saving (any process's Ctrl-C or time limit stops all).
    """
    components = build(config, workdir=workdir)
    config = components.config
    primary = jax.process_index() == 0
    _check_writable(workdir, components.initial_state)
    manager = runs.checkpoint_manager(workdir, max_to_keep=config.max_to_keep)
    run = session.Session(components, config, workdir, manager)
    if primary:
        runs.write_config(workdir, config)
        if run.iteration:
            print(f"Resuming from the checkpoint of iteration {run.iteration} in {workdir}.")
        else:
            print(f"Starting a new run in {workdir}.")
    logger = RunLogger(
        workdir,
        total_iterations=config.num_iterations,
        history=run.history,
        time_limit_minutes=config.time_limit_minutes,
        primary=primary,
        process_index=jax.process_index(),
    )
    try:
        with session.StopRequest() as stop:
            _loop(run, config, logger, stop)
            if not run.saved:
                run.save()
    finally:
        logger.close()
        manager.close()
    return run.state


class _Interval:
    """The metrics and seconds summed over a log interval's iterations."""

    def __init__(self):
        self.sums, self.count, self.started = None, 0, time.monotonic()
        self.seconds = dict.fromkeys(TIME_KEYS, 0.0)

    def add(self, metrics: dict, step_seconds: dict) -> None:
        self.sums = metrics if self.sums is None else jax.tree.map(jnp.add, self.sums, metrics)
        self.count += 1
        for name, value in step_seconds.items():
            self.seconds[name] += value

    def record(self, iteration: int) -> dict:
        record = _record(iteration, jax.device_get(self.sums), self.count, self.started)
        record.update((f"time/{name}", value) for name, value in self.seconds.items())
        return record


def _loop(run: session.Session, config, logger: RunLogger, stop: session.StopRequest) -> None:
    """Iterations until ``config.num_iterations``, a stop request or the time limit: each
    saves when due, evaluates when pending, steps, and logs every ``log_every``; then,
    with ``evaluation.final`` and no stop request, the last network's evaluation."""
    _iterate(run, config, logger, stop)
    (interrupted,) = _agree(stop.requested)
    if config.evaluation.final and not interrupted and run.final_evaluation_due():
        evaluation_started = time.monotonic()
        record = run.evaluate(lambda: stop.requested)
        if record is not None:
            logger.write_evaluation(record)
            print(
                f"Final evaluation of iteration {run.iteration}: "
                f"{time.monotonic() - evaluation_started:.0f} s.",
                flush=True,
            )


def _iterate(run: session.Session, config, logger: RunLogger, stop: session.StopRequest) -> None:
    """The iterations of ``_loop``."""
    interval = _Interval()
    started = last_save = time.monotonic()
    limit = config.time_limit_minutes * 60 or float("inf")

    def stopping() -> bool:
        return stop.requested or time.monotonic() - started >= limit

    while True:
        save_due = (time.monotonic() - last_save) / 60 >= config.checkpoint_every_minutes
        stop_now, save_now = _agree(stopping(), save_due)
        if save_now and not run.saved:
            save_started = time.monotonic()
            run.save()
            interval.seconds["checkpoint"] += time.monotonic() - save_started
            last_save = time.monotonic()
        if stop_now:
            return
        if run.evaluation_pending():
            evaluation_started = time.monotonic()
            record = run.evaluate(stopping)
            if record is None:  # stopped between two matches; pending on resume
                return
            logger.write_evaluation(record)
            elapsed = time.monotonic() - evaluation_started
            interval.seconds["evaluation"] += elapsed
            interval.started += elapsed  # not in pos/s
        if run.iteration >= config.num_iterations:
            return
        interval.add(*run.step())
        if run.iteration % config.log_every == 0 or run.iteration == config.num_iterations:
            record = interval.record(run.iteration)
            run.history.append(record)
            logger.write(record)
            interval = _Interval()


def _agree(*decisions: bool) -> tuple[bool, ...]:
    """The host-side decisions of the loop, each True if any process's is: processes of a
    multi-process run stop and save at the same iteration (one tiny collective per
    iteration; nothing with one process)."""
    if jax.process_count() == 1:
        return decisions
    gathered = multihost_utils.process_allgather(np.array(decisions, np.int32))
    return tuple(bool(value) for value in np.asarray(gathered).reshape(-1, len(decisions)).max(0))


def _record(iteration: int, sums: dict, count: int, started: float) -> dict:
    seconds = time.monotonic() - started
    record = {"iteration": iteration, "seconds": seconds}
    for name, value in sums.items():
        total = float(np.asarray(value))
        record[name] = total if name in ("positions", "games") else total / count
    record["positions_per_s"] = record["positions"] / max(seconds, 1e-9)
    return record
