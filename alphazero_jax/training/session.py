"""One training session's mutable side, kept out of ``train.py``'s loop: the training
state with its history, evaluation and training time, restored from and saved to
checkpoints together; and the Ctrl-C handler that turns a signal into a clean stop.
"""

from __future__ import annotations

import signal
import time

import jax

from alphazero_jax import runs
from alphazero_jax.training.run_evaluation import RunEvaluation


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
        self.state, self.history, self._seconds, metadata = components.initial_state, [], 0.0, {}
        step = runs.latest_step(manager)
        if step is not None:
            self.state, metadata = runs.restore(manager, self.state)
            self.history = metadata["history"]
            self._seconds = metadata.get("seconds", sum(r["seconds"] for r in self.history))
        self.iteration = int(self.state.iteration)
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
            if step is not None:
                template = self.evaluation.arrays()
                arrays = template and runs.restore_evaluation(manager, template, step)
                self.evaluation.restore(metadata.get("evaluation", {}), arrays)
            self._update_play_variables()
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
        self.saved = False
        seconds = {"selfplay": played - started, "learner": time.monotonic() - played}
        return dict(learn_metrics, **metrics), seconds

    def evaluation_pending(self) -> bool:
        return self.evaluation is not None and self.evaluation.pending(self.iteration)

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
        metadata = {"history": self.history, "seconds": self.seconds}
        arrays = None
        if self.evaluation is not None:
            metadata["evaluation"] = self.evaluation.metadata()
            arrays = self.evaluation.arrays()
        runs.save(self._manager, self.iteration, self.state, metadata, arrays)
        self.saved = True


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
