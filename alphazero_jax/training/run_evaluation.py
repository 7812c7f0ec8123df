"""The evaluation side of a training run: when to evaluate, what to remember, what to write.

Host-side bookkeeping around ``evaluator``: the baselines' ratings, the Elo history, the
last few evaluated networks (opponents for the next evaluations) and, with gating, the
network self-play uses. Its JSON part goes into each checkpoint's metadata and into
``elo.json``; its networks go into the checkpoint's ``evaluation`` item, so that a resumed
run evaluates and gates exactly as an uninterrupted one. Each evaluation also redraws
``elo.png`` (and ``perfect_play.png`` when it judges the network against perfect play).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from alphazero_jax.evaluation import gating as gating_rules
from alphazero_jax.training import evaluator, plots

ELO_FILE = "elo.json"
ELO_PLOT = "elo.png"
PERFECT_PLAY_PLOT = "perfect_play.png"


class RunEvaluation:
    """Evaluates a run's network every ``every`` iterations (and gates, if configured).

    Args:
      evaluator_: from ``evaluator.make_evaluator``.
      workdir: the run directory (``elo.json`` and ``elo.png`` go there).
      initial_variables: the network's first variables (the first best network, and the
        shape of the networks kept in checkpoints).
      every: iterations between evaluations.
      num_past: earlier evaluated networks kept as opponents.
      gating: ``(rule, threshold, games)``; rule ``"none"`` turns gating off, threshold 0
        is the rule's own (``evaluation.gating.gating_threshold``).
      seed: evaluation randomness (the same seed replays the same games).
    """

    def __init__(
        self,
        evaluator_: evaluator.Evaluator,
        workdir: str,
        initial_variables: dict,
        *,
        every: int,
        num_past: int,
        gating: tuple[str, float, int],
        seed: int,
    ):
        self._evaluator = evaluator_
        self._workdir = workdir
        self._every = every
        self._num_past = num_past
        self._rule, threshold, self._gating_games = gating
        if self._rule != "none":  # 0: the rule's own threshold
            threshold = gating_rules.gating_threshold(self._rule, threshold)
        self._threshold = threshold
        self._key = jax.random.key(seed)
        template = jax.device_get(initial_variables)
        self._template = template
        self.baselines: dict[str, float] = {}
        self.history: list[dict] = []
        self.past: list[dict] = []  # {"name", "iteration", "rating"}, oldest first
        self._past_variables: list[Any] = []
        self.best = template if self.gating else None

    @property
    def gating(self) -> bool:
        return self._rule != "none"

    def pending(self, iteration: int) -> bool:
        """Whether the network after ``iteration`` is due for an evaluation it has not had
        (one stopped by a time limit or Ctrl-C is still pending when the run resumes)."""
        due = self._every > 0 and iteration > 0 and iteration % self._every == 0
        return due and (not self.history or self.history[-1]["iteration"] < iteration)

    def unevaluated(self, iteration: int) -> bool:
        """Whether the network after ``iteration`` has had no evaluation (and evaluations
        are on): the test of the final evaluation (``evaluation.final``)."""
        done = self.history and self.history[-1]["iteration"] >= iteration
        return self._every > 0 and iteration > 0 and not done

    def evaluate(
        self,
        variables: dict,
        iteration: int,
        seconds: float,
        *,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> dict | None:
        """Rates ``variables`` (the network after ``iteration``) and gates it.

        ``should_stop`` is asked between two matches; once it says True the evaluation is
        abandoned, nothing of it is recorded, and the result is None.

        Returns the record appended to the history: iteration, training seconds, Elo with
        its standard error, the score against each opponent, with gating whether the
        network was accepted, and with perfect-play sets the network's mistake rate and
        value accuracy on each (``perfect_play.SetResult.as_dict``).
        """
        try:
            return self._evaluate(variables, iteration, seconds, should_stop)
        except _Stopped:
            return None

    def _evaluate(self, variables, iteration, seconds, should_stop) -> dict:
        def check(*_) -> None:
            if should_stop():
                raise _Stopped

        key = jax.random.fold_in(self._key, iteration)
        baseline_key, rate_key, gate_key, judge_key = jax.random.split(key, 4)
        check()
        if not self.baselines:
            self.baselines = evaluator.rate_baselines(
                self._evaluator, baseline_key, on_result=check
            )
        variables = jax.device_get(variables)
        ratings = dict(self.baselines)
        ratings.update((p["name"], p["rating"]) for p in self.past)
        past = [(p["name"], v) for p, v in zip(self.past, self._past_variables)]
        name = f"iteration {iteration}"
        result = evaluator.rate_network(
            self._evaluator,
            variables,
            name=name,
            ratings=ratings,
            past=past,
            key=rate_key,
            on_result=check,
        )
        record = {
            "iteration": iteration,
            "seconds": seconds,
            "elo": result.rating.rating,
            "elo_stderr": result.rating.stderr,
            "scores": {r.opponent: r.score for r in result.results},
            "opponents": dict(self.baselines),
        }
        if self._evaluator.perfect_play:
            check()
            judged = evaluator.judge_perfect_play(self._evaluator, variables, judge_key)
            record["perfect_play"] = {r.set_name: r.as_dict() for r in judged}
        if self.gating:
            check()
            accepted, match = evaluator.gate(
                self._evaluator,
                variables,
                self.best,
                rule=self._rule,
                threshold=self._threshold,
                num_games=self._gating_games,
                key=gate_key,
            )
            record.update(accepted=accepted, gating_score=match.score)
            if accepted:
                self.best = variables
        self.past.append({"name": name, "iteration": iteration, "rating": record["elo"]})
        self._past_variables.append(variables)
        if len(self.past) > self._num_past:
            self.past.pop(0)
            self._past_variables.pop(0)
        self.history.append(record)
        self._write()
        return record

    def metadata(self) -> dict:
        """The JSON part of the state, for a checkpoint."""
        return {"baselines": self.baselines, "history": self.history, "past": self.past}

    def arrays(self) -> dict | None:
        """The networks of the state as a fixed-structure pytree (None if there are none)."""
        slots = {f"past_{i}": self._template for i in range(self._num_past)}
        slots.update((f"past_{i}", v) for i, v in enumerate(self._past_variables))
        if self.gating:
            slots["best"] = self.best
        return slots or None

    def restore(self, metadata: dict, arrays: dict | None) -> None:
        """Continues from a checkpoint's ``metadata()`` and ``arrays()``."""
        self.baselines = dict(metadata.get("baselines", {}))
        self.history = list(metadata.get("history", []))
        if arrays is not None:  # None: written with evaluation off; no opponents kept yet
            self.past = list(metadata.get("past", []))
            slots = [arrays[f"past_{i}"] for i in range(len(self.past))]
            self._past_variables = jax.device_get(slots)
            if self.gating:
                self.best = jax.device_get(arrays["best"])
        self._write()

    def _write(self) -> None:
        path = os.path.join(self._workdir, ELO_FILE)
        with open(path + ".tmp", "w") as file:
            json.dump(self.metadata(), file, indent=1, default=_plain)
        os.replace(path + ".tmp", path)
        if self.history:
            plots.plot_elo_history(
                self.history, os.path.join(self._workdir, ELO_PLOT), title=self._title()
            )
        if any("perfect_play" in record for record in self.history):
            plots.plot_mistake_rates(
                self.history,
                os.path.join(self._workdir, PERFECT_PLAY_PLOT),
                title="Connect Four: mistakes against perfect play",
            )

    def _title(self) -> str:
        game = self._evaluator.game
        return f"{game.name} {dict(game.settings)}: Elo ({self._evaluator.anchor} = 0)"


def read_history(workdir: str) -> list[dict]:
    """The evaluation records of a run's ``elo.json`` (iteration, seconds, Elo, scores and
    mistake rates), oldest first; [] when it has none."""
    path = os.path.join(workdir, ELO_FILE)
    if not os.path.exists(path):
        return []
    with open(path) as file:
        return json.load(file).get("history", [])


class _Stopped(Exception):
    """Raised between two matches of an evaluation that was asked to stop."""


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value)} is not JSON serialisable")
