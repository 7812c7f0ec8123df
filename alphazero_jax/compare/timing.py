"""A run's training time as a comparison counts it, and the length of its next slice.

Training time is the seconds of self-play and of the learner that ``metrics.jsonl`` (and
a checkpoint's history) records for every iteration (``time/selfplay``, ``time/learner``;
the runner logs every iteration). Left out: evaluation, checkpoints, starting the
program, and compilation: the first iteration of every slice compiles the self-play and
learner programs, so it is counted at the median of the run's other iterations (kept as
recorded while there are none). Every arm is thereby charged for the work it does, not
for how often it was stopped and started again.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import NamedTuple

TIME_PARTS = ("time/selfplay", "time/learner")


def iteration_seconds(history: Sequence[dict]) -> dict[int, float]:
    """``{iteration: seconds}`` of self-play and learner per record of ``history`` (the
    last record of an iteration logged twice counts); a record spanning several
    iterations (``log_every`` > 1) is counted at its last one."""
    return {int(r["iteration"]): sum(float(r.get(p, 0.0)) for p in TIME_PARTS) for r in history}


def training_seconds(history: Sequence[dict], slice_starts: Iterable[int]) -> dict[int, float]:
    """``{iteration: training seconds up to and including it}`` (see the module).

    Args:
      history: the run's records, ``metrics.jsonl`` or a checkpoint's ``history``.
      slice_starts: the iteration each slice of training started from (0 for the first):
        the iteration after each is counted at the median of the others.

    Returns:
      Cumulative seconds, by iteration, in increasing order.
    """
    seconds = iteration_seconds(history)
    first = {start + 1 for start in slice_starts} & set(seconds)
    others = [value for iteration, value in seconds.items() if iteration not in first]
    typical = statistics.median(others) if others else None
    total, cumulative = 0.0, {}
    for iteration in sorted(seconds):
        value = seconds[iteration]
        total += typical if iteration in first and typical is not None else value
        cumulative[iteration] = total
    return cumulative


def typical_iteration(history: Sequence[dict], slice_starts: Iterable[int]) -> float:
    """The median seconds of an iteration that did not compile (0 before any)."""
    seconds = iteration_seconds(history)
    first = {start + 1 for start in slice_starts}
    others = [value for iteration, value in seconds.items() if iteration not in first]
    return statistics.median(others) if others else 0.0


class Budget(NamedTuple):
    """What every unit (arm, seed) gets: ``minutes`` of training time (0: no limit) or,
    with ``iterations`` > 0, that many iterations (the arm's ``num_iterations``)."""

    minutes: float = 0.0
    iterations: int = 0

    def describe(self) -> str:
        if self.iterations:
            return f"{self.iterations} iterations"
        return f"{self.minutes:g} minutes of training"


def is_done(budget: Budget, *, iteration: int, num_iterations: int, seconds: float,
            typical: float) -> bool:  # fmt: skip
    """Whether a unit is through its budget: at its run's last iteration, or (a budget in
    minutes) within half a typical iteration of the minutes."""
    if iteration >= num_iterations:
        return True
    return bool(budget.minutes) and seconds >= budget.minutes * 60 - typical / 2


def stopped_early(*, wall: float, limit_minutes: float, end: int, num_iterations: int) -> bool:
    """Whether a slice ended before its limit for a stop (Ctrl-C, SIGTERM at a session's
    end), not for its schedule's last iteration: training saves a checkpoint there, at
    whatever age the unit had reached."""
    return wall < limit_minutes * 60 and end < num_iterations


def slice_minutes(
    budget: Budget, *, slice_minutes: float, seconds: float, overhead_seconds: float
) -> float:
    """The time limit of a unit's next slice, in minutes of the clock.

    With a budget in minutes, the slice takes the unit's training time to the next multiple
    of ``slice_minutes`` after the one nearest its time now (at most to the budget), plus
    what its last slice spent outside training (starting, compiling, saving). So every
    unit's slices end at about the same minutes of training, 5, 10, 15, ... for slices of
    5, and a report read halfway sets checkpoints of the same age against each other, where
    slices of a fixed clock time would drift apart by each arm's compiling. Without one,
    ``slice_minutes``."""
    if not budget.minutes:
        return slice_minutes
    step = slice_minutes * 60
    target = min((round(seconds / step) + 1) * step, budget.minutes * 60)
    return (max(target - seconds, 0.0) + max(overhead_seconds, 0.0)) / 60


def checkpoint_minutes(limit_minutes: float, every_minutes: float) -> float:
    """The checkpoint cadence of a slice of ``limit_minutes``: ``every_minutes`` stretched
    so that the slice holds a whole number of them (at least one) and its last falls at its
    end, where training saves anyway. A slice a little longer than ``every_minutes`` (it
    adds its start and compiling) then saves once, not twice seconds apart, and every
    checkpoint judged is one of a lined-up age. 0 (a checkpoint every iteration) stays 0."""
    if every_minutes <= 0:
        return every_minutes
    return limit_minutes / max(1, round(limit_minutes / every_minutes))
