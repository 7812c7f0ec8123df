"""One training session's mutable side, kept out of ``train.py``'s loop: the training
state with its history, evaluation, training time and the machines it ran on, restored
from and saved to checkpoints together; and the Ctrl-C handler that turns a signal into
a clean stop.

A non-finite loss or parameter stops training with a ``TrainingError`` before anything of
it is saved, and so does a checkpoint that cannot be written: the newest checkpoint on
disk stays the last good one.
"""

from __future__ import annotations

import math
import os
import signal
import time
from typing import NoReturn

import jax
import jax.numpy as jnp

from alphazero_jax import checkpoints, runs
from alphazero_jax.training.run_evaluation import RunEvaluation


class TrainingError(RuntimeError):
    """Training cannot go on; the message says why and which checkpoint holds its work."""


@jax.jit
def _all_finite(tree) -> jax.Array:
    leaves = [x for x in jax.tree.leaves(tree) if jnp.issubdtype(x.dtype, jnp.inexact)]
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(x)) for x in leaves]))


class Session:
    """The mutable side of ``train_and_evaluate``: the state, its history and evaluation,
    the training time, and saving them together.

    Args:
      components: ``train.build``'s result.
      config: the run's (completed) config.
      workdir: the run directory.
      manager: the run's checkpoint manager; the newest checkpoint, if any, is restored.
    """

    def __init__(self, components, config, workdir: str, manager):
        self._components, self._manager = components, manager
        self.state, self.history, self._seconds = components.initial_state, [], 0.0
        self.machines: list[str] = []  # each machine that trained the run, once
        self.evaluation = None
        self._play_variables = None
        if components.evaluator is not None:
            self.evaluation = RunEvaluation(
                components.evaluator,
                workdir,
                components.initial_state.learner.variables,
                every=config.evaluation.every,
                num_past=config.evaluation.num_past,
                gating=(config.gating.rule, config.gating.threshold, config.gating.games),
                seed=config.seed,
            )
        if checkpoints.latest_step(manager) is not None:  # resume from the newest good checkpoint
            evaluation_template = self.evaluation and self.evaluation.arrays()
            try:
                _, (self.state, metadata, arrays) = checkpoints.restore_checkpoint(
                    manager, self.state, evaluation_template, set_aside=True
                )
            except checkpoints.CorruptCheckpointError as error:
                raise TrainingError(
                    f"Cannot resume the run in {workdir}: {error}. Nothing was changed; move "
                    f"its checkpoints aside (mv {workdir}/checkpoints "
                    f"{workdir}/checkpoints.unreadable) to start it again, or choose another "
                    "--workdir."
                ) from error
            self.history = metadata["history"]
            self._seconds = metadata.get("seconds", sum(r["seconds"] for r in self.history))
            self.machines = list(metadata.get("machines", []))
            if self.evaluation is not None:
                self.evaluation.restore(metadata.get("evaluation", {}), arrays)
        machine = runs.describe_machine()
        if machine not in self.machines:
            self.machines.append(machine)
        self._update_play_variables()
        self.iteration = int(self.state.iteration)
        self._started = time.monotonic()
        self.saved = True  # whether the newest checkpoint holds everything done so far

    @property
    def seconds(self) -> float:
        """Training time so far, over every session of the run."""
        return self._seconds + time.monotonic() - self._started

    def step(self) -> tuple[dict, dict[str, float]]:
        """One iteration: its metrics (device arrays, not fetched) and its seconds of
        self-play and of the learner (each half waited for once: no sync per move)."""
        started = time.monotonic()
        self.state, metrics = self._components.selfplay_fn(self.state, self._play_variables)
        jax.block_until_ready(self.state)
        played = time.monotonic()
        self.state, learn_metrics = self._components.learn_fn(self.state)
        jax.block_until_ready(self.state)
        self.iteration += 1
        loss = float(learn_metrics["loss"])
        if not math.isfinite(loss):
            self._stop(f"the loss of iteration {self.iteration} is {loss}")
        self.saved = False
        seconds = {"selfplay": played - started, "learner": time.monotonic() - played}
        return dict(learn_metrics, **metrics), seconds

    def evaluation_pending(self) -> bool:
        return self.evaluation is not None and self.evaluation.pending(self.iteration)

    def final_evaluation_due(self) -> bool:
        """Whether the last network has had no evaluation, with evaluations on."""
        return self.evaluation is not None and self.evaluation.unevaluated(self.iteration)

    def evaluate(self, should_stop) -> dict | None:
        """The pending evaluation's record, or None if ``should_stop()`` stopped it."""
        record = self.evaluation.evaluate(
            self.state.learner.variables, self.iteration, self.seconds, should_stop=should_stop
        )
        if record is not None:
            self._update_play_variables()
            self.saved = False
        return record

    def _update_play_variables(self) -> None:
        if self.evaluation is not None and self.evaluation.gating:
            sharding = jax.tree.leaves(self.state.learner.variables)[0].sharding
            self._play_variables = jax.device_put(self.evaluation.best, sharding)

    def save(self) -> None:
        metadata = {"history": self.history, "seconds": self.seconds, "machines": self.machines}
        arrays = None
        if self.evaluation is not None:
            metadata["evaluation"] = self.evaluation.metadata()
            arrays = self.evaluation.arrays()
        if not bool(_all_finite(self.state.learner)):
            self._stop(f"a parameter is not finite after iteration {self.iteration}")
        try:
            checkpoints.save(self._manager, self.iteration, self.state, metadata, arrays)
        except Exception as error:  # a full disk, a lost mount: orbax raises many kinds
            self._stop(f"iteration {self.iteration} could not be saved ({error})", error)
        self.saved = True

    def _stop(self, reason: str, cause: Exception | None = None) -> NoReturn:
        """Raises ``TrainingError`` for ``reason``, naming the checkpoint kept."""
        step = max(self._manager.all_steps(read=True), default=None)
        kept = (
            f"the newest checkpoint, {os.path.join(os.fspath(self._manager.directory), str(step))}"
            f", is intact and training resumes from it"
            if step is not None
            else "no checkpoint was saved"
        )
        raise TrainingError(f"Training stopped: {reason}; {kept}.") from cause


class StopRequest:
    """Turns the first Ctrl-C (or SIGTERM) into a request to save and stop."""

    def __init__(self):
        self.requested = False
        self._previous = {}

    def _handle(self, signum, frame):
        del frame
        if self.requested:  # A second Ctrl-C stops at once.
            raise KeyboardInterrupt
        self.requested = True
        print(f"\nSignal {signum}: saving a checkpoint and stopping...", flush=True)

    def __enter__(self):
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except ValueError:  # Not the main thread: leave signals alone.
                pass
        return self

    def __exit__(self, *exc):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
