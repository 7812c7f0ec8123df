"""Where a training run reports: JSON lines, TensorBoard event files and the console.

Host-side only: it receives plain Python floats, fetched once per log interval.
"""

from __future__ import annotations

import json
import os
import sys
import time

from tensorboardX import SummaryWriter

METRICS_FILE = "metrics.jsonl"
TENSORBOARD_DIR = "tensorboard"


def read_metrics(workdir: str) -> list[dict]:
    """The records of a run's ``metrics.jsonl``, oldest first ([] before the first)."""
    path = os.path.join(workdir, METRICS_FILE)
    if not os.path.exists(path):
        return []
    with open(path) as file:
        return [json.loads(line) for line in file if line.strip()]


class MetricsLog:
    """A run's ``metrics.jsonl`` and TensorBoard events, one record per step.

    On resume, ``history`` (the records kept in the checkpoint) replaces the JSON-lines
    file, so that records written after the last checkpoint by an interrupted run vanish,
    and TensorBoard hides its events from the step after the last kept record on.

    Args:
      workdir: the run directory.
      history: the records so far (each holds ``step_key``).
      step_key: the record's key that is TensorBoard's step (``iteration``, ``episodes``).
      prefix: put before every TensorBoard scalar's name.
    """

    def __init__(
        self, workdir: str, history: list[dict], *, step_key: str = "iteration", prefix: str = ""
    ):
        self._path = os.path.join(workdir, METRICS_FILE)
        self._step_key, self._prefix = step_key, prefix
        with open(self._path, "w") as file:
            file.writelines(json.dumps(record) + "\n" for record in history)
        start = int(history[-1][step_key]) + 1 if history else 0
        self.writer = SummaryWriter(os.path.join(workdir, TENSORBOARD_DIR), purge_step=start)

    def append(self, record: dict) -> None:
        """Appends ``record`` to the file and its numbers to TensorBoard."""
        with open(self._path, "a") as file:
            file.write(json.dumps(record) + "\n")
        self.add_scalars(
            {
                name: value
                for name, value in record.items()
                if name != self._step_key and isinstance(value, int | float)
            },
            int(record[self._step_key]),
        )

    def add_scalars(self, values: dict[str, float], step: int) -> None:
        for name, value in values.items():
            self.writer.add_scalar(self._prefix + name, value, step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class RunLogger:
    """Writes one record per log interval to ``metrics.jsonl``, TensorBoard (``MetricsLog``)
    and stderr.

    In a multi-process run only process 0 (``primary``) writes files; the others print
    their progress lines, prefixed with their process index, so that they can be compared.
    With ``time_limit_minutes`` (> 0, counted from this logger's creation) each progress
    line also says the time left.
    """

    def __init__(
        self,
        workdir: str,
        *,
        total_iterations: int,
        history: list[dict],
        primary: bool = True,
        process_index: int = 0,
        time_limit_minutes: float = 0.0,
    ):
        self._log = MetricsLog(workdir, history) if primary else None
        self._prefix = "" if primary else f"process {process_index}: "
        self._total = total_iterations
        self._started = self._created = time.monotonic()
        self._limit = time_limit_minutes * 60
        self._first_iteration: int | None = None
        self._tty = sys.stderr.isatty()

    def write(self, record: dict) -> None:
        """Logs ``record``, which holds ``iteration`` and float metrics."""
        iteration = int(record["iteration"])
        if self._log is not None:
            self._log.append(record)
        self._progress(iteration, record)

    def write_evaluation(self, record: dict) -> None:
        """Logs an evaluation record (``run_evaluation.RunEvaluation.evaluate``) to
        TensorBoard and the console."""
        iteration = int(record["iteration"])
        if self._log is None:
            return
        self._log.add_scalars(_evaluation_scalars(record), iteration)
        scores = ", ".join(f"{name} {s:.0%}" for name, s in record["scores"].items())
        line = f"Elo {record['elo']:.0f} ± {record['elo_stderr']:.0f} at {iteration} ({scores})"
        for judged in record.get("perfect_play", {}).values():
            line += (
                f"; {judged['title']} mistakes {judged['mistake_rate']:.1%}, "
                f"value {judged['value_accuracy']:.1%}"
            )
        if "accepted" in record:
            verdict = "accepted" if record["accepted"] else "rejected"
            line += f"; gating: {verdict} (score {record['gating_score']:.0%} vs best)"
        sys.stderr.write(("\r" if self._tty else "") + line + "\n")
        sys.stderr.flush()

    def _progress(self, iteration: int, record: dict) -> None:
        if self._first_iteration is None:
            self._first_iteration, self._started = iteration, time.monotonic()
            eta = "?"
        else:
            rate = (iteration - self._first_iteration) / (time.monotonic() - self._started)
            eta = _duration((self._total - iteration) / rate) if rate > 0 else "?"
        done = iteration / max(self._total, 1)
        bar = "#" * int(20 * done) + "-" * (20 - int(20 * done))
        line = self._prefix + (
            f"[{bar}] {iteration}/{self._total} "
            f"{record.get('positions_per_s', 0.0):,.0f} pos/s "
            f"loss {record.get('loss', float('nan')):.3f} "
            f"(v {record.get('value_loss', float('nan')):.3f}, "
            f"p {record.get('policy_loss', float('nan')):.3f}) ETA {eta}"
        )
        if self._limit > 0:
            left = max(self._limit - (time.monotonic() - self._created), 0.0)
            line += f", {_duration(left)} left of the time limit"
        sys.stderr.write(("\r" + line) if self._tty else (line + "\n"))
        sys.stderr.flush()

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
        if self._tty:
            sys.stderr.write("\n")


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


def _evaluation_scalars(record: dict) -> dict[str, float]:
    values = {"elo/rating": record["elo"], "elo/stderr": record["elo_stderr"]}
    values.update((f"elo/score_vs_{name}", s) for name, s in record["scores"].items())
    for judged in record.get("perfect_play", {}).values():
        values[f"perfect_play/{judged['title']}/mistake_rate"] = judged["mistake_rate"]
        values[f"perfect_play/{judged['title']}/value_accuracy"] = judged["value_accuracy"]
    if "accepted" in record:
        values["gating/accepted"] = float(record["accepted"])
        values["gating/score"] = record["gating_score"]
    return values
