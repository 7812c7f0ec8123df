r"""A fault soak for training: SIGKILL it again and again, then check that nothing was lost.

    python -m experiments.stress.soak --kills=20

Trains a small run straight through (the reference), then trains the same run in another
directory while killing it ``--kills`` times with SIGKILL: some kills at a random moment
of the process's life (starting, compiling, playing, learning, evaluating), the others
the moment a checkpoint write is seen in progress (orbax's temporary directory, or a step
being saved again after an evaluation). After each kill the run is restarted, and it must
resume from the newest complete checkpoint on disk, which it names in its first lines.
At the end the soaked run's network must equal the reference's bit for bit.

Prints one line per kill and a summary; exits with status 1 if anything was lost. The
test suite runs a short version (``tests/test_soak.py``); docs/testing.md reports the full one.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from absl import app, flags, logging

_KILLS = flags.DEFINE_integer("kills", 20, "SIGKILLs to survive.")
_WRITE_SHARE = flags.DEFINE_float("write_share", 0.4, "Share of kills inside a checkpoint write.")
_ITERATIONS = flags.DEFINE_integer("iterations", 120, "Iterations of the run (tic_tac_toe smoke).")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the kill schedule.")
_WORKDIR = flags.DEFINE_string("workdir", None, "Where the two runs go (default: a temp dir).")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_STARTED = re.compile(r"Resuming from the checkpoint of iteration (\d+)|Starting a new run")


def training_command(workdir: str, iterations: int) -> list[str]:
    """Tic-Tac-Toe's smoke run, saving after every iteration and evaluating every other
    one (so that steps are also saved again, which replaces them)."""
    return [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=tic_tac_toe:smoke",
        f"--workdir={workdir}",
        f"--config.num_iterations={iterations}",
        "--config.checkpoint_every_minutes=1e-9",
        "--config.max_to_keep=2",
        "--config.evaluation.every=2",
        "--config.evaluation.games=2",
        "--config.evaluation.opponents=('random',)",
        "--host_devices=1",
    ]


def complete_steps(workdir: str) -> list[int]:
    """The checkpoints a restart can resume from: complete step directories, also one
    left in the staging directory of a replacement."""
    directory = os.path.join(workdir, "checkpoints")
    names = os.listdir(directory) if os.path.isdir(directory) else []
    staging = os.path.join(directory, ".replacing")
    if os.path.isdir(staging):
        names += [name.removesuffix(".old") for name in os.listdir(staging)]
    return sorted({int(name) for name in names if name.isdigit()})


def _writes(workdir: str) -> set[tuple[str, int]]:
    """The checkpoint writes in progress (or left by a kill): orbax's temporary
    directories and the staging directory of a replacement, as (name, inode)."""
    directory = os.path.join(workdir, "checkpoints")
    marks = set()
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if "orbax-checkpoint-tmp" in entry.name or entry.name == ".replacing":
                    marks.add((entry.name, entry.inode()))
    except FileNotFoundError:
        pass
    return marks


@dataclasses.dataclass
class Kill:
    moment: str  # "random" or "in a write"
    after_s: float
    newest_step: int | None  # complete on disk after the kill


@dataclasses.dataclass
class Result:
    kills: list[Kill]
    # (newest complete step, resumed from: None for a new run, "-" if killed before saying)
    resumed: list[tuple[int | None, int | str | None]]
    identical: bool
    iterations: int
    seconds: float

    @property
    def lost(self) -> list[str]:
        problems = [
            f"restart {i + 1} resumed from {got}, but step {want} was complete"
            for i, (want, got) in enumerate(self.resumed)
            if want != got and got != "-"
        ]
        if not self.identical:
            problems.append("the final network differs from the uninterrupted run's")
        return problems


def soak(
    workdir: str,
    *,
    kills: int,
    iterations: int,
    write_share: float = 0.4,
    seed: int = 0,
    window_iterations: int = 10,
    log=print,
) -> Result:
    """Runs the soak in ``workdir`` (``reference/`` and ``soaked/``); see the module doc.
    Random kills fall within a process's start-up and its first ``window_iterations``
    iterations (at the reference run's pace)."""
    started = time.monotonic()
    rng = random.Random(seed)
    reference, soaked = os.path.join(workdir, "reference"), os.path.join(workdir, "soaked")
    for path in (reference, soaked):
        shutil.rmtree(path, ignore_errors=True)
    _, startup, total = _run_to_end(reference, iterations)
    # Random kills fall in a process's first `window` seconds: its start-up (imports,
    # restoring, compiling) and a few iterations, so that most restarts make progress and
    # few runs finish before the kills are done.
    window = startup + window_iterations * (total - startup) / iterations
    log(
        f"reference: {iterations} iterations uninterrupted in {total:.1f} s "
        f"({startup:.1f} s to the first checkpoint); random kills within {window:.1f} s"
    )
    in_writes = round(kills * write_share)
    schedule = [True] * in_writes + [False] * (kills - in_writes)
    rng.shuffle(schedule)  # which kills wait for a checkpoint write
    done, resumed, attempts = [], [], 0
    while len(done) < kills:
        attempts += 1
        if attempts > 5 * kills:
            raise RuntimeError(f"only {len(done)} of {kills} kills landed in {attempts} starts")
        expected = max(complete_steps(soaked), default=None)
        in_write = schedule[len(done)]
        left_behind = _writes(soaked)  # by the previous kill: not a write of this life
        process = _Life(soaked, iterations)
        begun = time.monotonic()
        deadline = begun + (2 * window if in_write else rng.uniform(0.0, window))
        while time.monotonic() < deadline and process.poll() is None:
            if in_write and _writes(soaked) - left_behind:
                break
            time.sleep(0.001 if in_write else 0.01)
        if process.poll() is not None:  # finished first: the run is complete, nothing to kill
            output = process.output()
            resumed.append((expected, _resumed_from(output)))
            if process.process.returncode != 0:
                raise RuntimeError(f"training failed:\n{output[-2000:]}")
            log(f"restart {len(resumed)} finished the run; starting it over for the next kills")
            shutil.rmtree(soaked)
            continue
        process.kill()
        output = process.output()
        resumed.append((expected, _resumed_from(output)))
        kill = Kill(
            # a write the kill interrupted leaves its temporary directory behind
            "in a write" if in_write and _writes(soaked) - left_behind else "random",
            time.monotonic() - begun,
            max(complete_steps(soaked), default=None),
        )
        done.append(kill)
        log(
            f"kill {len(done):2d}: {kill.moment:<10} after {kill.after_s:5.1f} s; "
            f"resumed from {resumed[-1][1]}, newest complete step now {kill.newest_step}"
        )
    expected = max(complete_steps(soaked), default=None)
    output, _, _ = _run_to_end(soaked, iterations)
    resumed.append((expected, _resumed_from(output)))
    identical = _same_network(reference, soaked)
    return Result(done, resumed, identical, iterations, time.monotonic() - started)


class _Life:
    """One training process, its output going to a file (a pipe nobody reads while the
    soak waits would fill up and stall it)."""

    def __init__(self, workdir: str, iterations: int):
        # The soak's own compilation cache: restarts load what the reference run
        # compiled, so that more of each life is training and saving. Unbuffered: a killed
        # process has printed which step it resumed from.
        cache = os.path.join(os.path.dirname(workdir), "compilation_cache")
        env = dict(os.environ, ALPHAZERO_JAX_CACHE_DIR=cache, PYTHONUNBUFFERED="1")
        self._log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            training_command(workdir, iterations),
            cwd=REPO,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def poll(self) -> int | None:
        return self.process.poll()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)

    def output(self) -> str:
        """Waits for the process to end; everything it printed."""
        self.process.wait()
        self._log.seek(0)
        text = self._log.read()
        self._log.close()
        return text


def _run_to_end(workdir: str, iterations: int) -> tuple[str, float, float]:
    """Trains ``workdir`` to the end: its output, the seconds until its first checkpoint
    was complete, and its seconds in all."""
    started, first = time.monotonic(), None
    process = _Life(workdir, iterations)
    while process.poll() is None:
        if first is None and complete_steps(workdir):
            first = time.monotonic() - started
        time.sleep(0.05)
    output = process.output()
    if process.process.returncode != 0:
        raise RuntimeError(f"training {workdir} failed:\n{output[-2000:]}")
    total = time.monotonic() - started
    return output, total if first is None else first, total


def _resumed_from(output: str) -> int | str | None:
    """The iteration a restart resumed from (None: it started a new run), or ``"-"`` if
    it was killed before it said."""
    match = _STARTED.search(output)
    if not match:
        return "-"
    return int(match.group(1)) if match.group(1) else None


def _same_network(a: str, b: str) -> bool:
    import jax
    import numpy as np

    from alphazero_jax import runs

    first, second = runs.restore_network(a), runs.restore_network(b)
    leaves_a, leaves_b = jax.tree.leaves(first.variables), jax.tree.leaves(second.variables)
    return (
        first.iteration == second.iteration
        and len(leaves_a) == len(leaves_b)
        and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(leaves_a, leaves_b))
    )


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments {argv[1:]}")
    if not flags.FLAGS["verbosity"].present:
        logging.set_verbosity(logging.WARNING)  # orbax logs every restore at INFO
    workdir = _WORKDIR.value or tempfile.mkdtemp(prefix="soak-")
    result = soak(
        workdir,
        kills=_KILLS.value,
        iterations=_ITERATIONS.value,
        write_share=_WRITE_SHARE.value,
        seed=_SEED.value,
    )
    in_writes = sum(kill.moment == "in a write" for kill in result.kills)
    print(
        f"{len(result.kills)} kills survived ({in_writes} inside a checkpoint write), "
        f"restarts that resumed from the newest complete step: "
        f"{sum(want == got for want, got in result.resumed)} of "
        f"{sum(got != '-' for _, got in result.resumed)} that got that far; final "
        f"network {'identical to' if result.identical else 'DIFFERENT from'} the "
        f"uninterrupted run's ({result.iterations} iterations, {result.seconds:.0f} s)"
    )
    if result.lost:
        print("LOST: " + "; ".join(result.lost), file=sys.stderr)
        sys.exit(1)
    if not _WORKDIR.value:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    app.run(main)
