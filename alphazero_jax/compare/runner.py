"""The comparison's round robin: slices of training, each unit's new checkpoints judged
between them, resumable at any point.

Each step picks the unit (arm, seed) with the least training time that has budget left
(ties: plan order) and trains it for one slice (``time_limit_minutes``) in this process,
through ``training.train.train_and_evaluate`` on the unit's own workdir, which resumes it
exactly. So the units take turns on the same machine, and an arm that is faster per
iteration gets more iterations, not more time. After every slice, each checkpoint the
unit's run holds that has not been judged yet is judged and its measures appended to
``judged/ARM/seedS.jsonl``; how many checkpoints a slice leaves is the arm's
``checkpoint_every_minutes`` and ``max_to_keep`` (the plan's ``checkpoint_minutes`` sets
both). Everything the runner knows is on disk: a rerun (after Ctrl-C, a lost machine or
``max_slices``) judges what was left unjudged and goes on with the least-trained unit.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable

import jax

from alphazero_jax import runs
from alphazero_jax.compare import plan as plans
from alphazero_jax.compare import timing
from alphazero_jax.compare.arms import Arm
from alphazero_jax.training import run_logging

ConfigFn = Callable[[Arm, tuple[str, ...]], object]  # (arm, extra overrides) -> ConfigDict


def unit_overrides(plan: plans.Plan, seed: int, gating: str) -> tuple[str, ...]:
    """What the runner sets in every unit's config: the seed, a metrics record per
    iteration, the iteration budget, the checkpoint cadence, and no evaluation during
    training where no gating needs it (the runner judges; evaluation only takes time), nor
    a final one at the end of a slice (a preset's budget: ``evaluation.final``)."""
    extra = [f"seed={seed}", "log_every=1", "evaluation.final=False"]
    if plan.budget.iterations:
        extra.append(f"num_iterations={plan.budget.iterations}")
    if plan.checkpoint_minutes:
        keep = math.ceil(plan.slice_minutes / plan.checkpoint_minutes) + 2
        extra += [f"checkpoint_every_minutes={plan.checkpoint_minutes}", f"max_to_keep={keep}"]
    if gating == "none":
        extra.append("evaluation.every=0")
    return tuple(extra)


def unit_config(plan: plans.Plan, config_fn: ConfigFn, arm: Arm, seed: int):
    """The config the unit (arm, seed) trains with: the arm's, and ``unit_overrides``."""
    gating = config_fn(arm, ()).gating.rule
    return config_fn(arm, unit_overrides(plan, seed, gating))


def progress(output: str, arm: Arm, seed: int) -> tuple[int, float, float]:
    """A unit's newest checkpoint's iteration, its training seconds and a typical
    iteration's seconds (0, 0, 0 before its first)."""
    workdir = plans.run_dir(output, arm, seed)
    steps = runs.checkpoint_steps(workdir) if os.path.isdir(workdir) else []
    if not steps:
        return 0, 0.0, 0.0
    history = run_logging.read_metrics(workdir)
    starts = plans.slice_starts(output, plans.unit_name(arm, seed))
    seconds = timing.training_seconds(history, starts)
    newest = steps[-1]
    done = max((s for i, s in seconds.items() if i <= newest), default=0.0)
    return newest, done, timing.typical_iteration(history, starts)


def judge_new(output: str, arm: Arm, seed: int, judge_fn, log: Callable[[str], None]) -> int:
    """Judges every checkpoint of the unit not judged yet; returns how many."""
    workdir, path = plans.run_dir(output, arm, seed), plans.judged_path(output, arm, seed)
    if not os.path.isdir(workdir):
        return 0
    judged = {r["iteration"] for r in plans.read_lines(path)}
    count = 0
    for step in runs.checkpoint_steps(workdir):
        if step in judged:
            continue
        started = time.monotonic()
        network = runs.restore_network(workdir, step)
        measures = judge_fn(arm, network)(network.variables)
        plans.append_line(path, {"iteration": step, "measures": [m.as_dict() for m in measures]})
        shown = ", ".join(f"{m.name} {m.array().mean():.1%}" for m in measures)
        log(f"  judged {plans.unit_name(arm, seed)} iteration {step}: {shown} "
            f"({time.monotonic() - started:.0f} s)")  # fmt: skip
        count += 1
    return count


def _overhead(output: str, name: str, seconds_now: float) -> float:
    """Seconds the unit's last slice spent outside training (0 before one ended)."""
    lines = plans.read_lines(os.path.join(output, plans.SLICES_FILE))
    ends = [r for r in lines if r.get("unit") == name and "wall" in r]
    if not ends:
        return 0.0
    last = ends[-1]
    return max(last["wall"] - (seconds_now - last["seconds_before"]), 0.0)


def run(
    plan: plans.Plan,
    output: str,
    *,
    config_fn: ConfigFn,
    train_fn: Callable,
    judge_fn: Callable,
    max_slices: int = 0,
    log: Callable[[str], None] = print,
) -> bool:
    """Trains and judges until every unit is through its budget, or ``max_slices``
    slices (0: no limit) were trained by this call; returns whether all are done.

    Args:
      plan: the comparison (``plan.read_or_write`` has accepted it for ``output``).
      output: its directory.
      config_fn: ``(arm, extra overrides) -> config``, as the train program builds it.
      train_fn: ``(config, workdir)``: ``training.train.train_and_evaluate``.
      judge_fn: ``(arm, restored network) -> judge``, one judge held per arm
        (``judges.make_judge``), so that an arm's judging compiles once.
      max_slices: stop after this many slices of training.
      log: where progress lines go.
    """
    configs = {(arm, seed): unit_config(plan, config_fn, arm, seed) for arm, seed in plan.units()}
    slices = 0
    while True:
        waiting = []
        for number, (arm, seed) in enumerate(plan.units()):
            judge_new(output, arm, seed, judge_fn, log)
            iteration, seconds, typical = progress(output, arm, seed)
            config = configs[arm, seed]
            if not timing.is_done(
                plan.budget,
                iteration=iteration,
                num_iterations=config.num_iterations,
                seconds=seconds,
                typical=typical,
            ):
                waiting.append((seconds, number, arm, seed, iteration))
        if not waiting:
            return True
        if max_slices and slices >= max_slices:
            log(f"Stopped after {slices} slices as asked; run the same command to go on.")
            return False
        seconds, _, arm, seed, iteration = min(waiting)
        name = plans.unit_name(arm, seed)
        limit = timing.slice_minutes(
            plan.budget,
            slice_minutes=plan.slice_minutes,
            seconds=seconds,
            overhead_seconds=_overhead(output, name, seconds),
        )
        _train_slice(output, arm, seed, configs[arm, seed], limit, train_fn, log)
        slices += 1
        if progress(output, arm, seed)[0] <= iteration:
            raise RuntimeError(f"{name}: a slice of {limit:.2f} minutes trained no iteration.")


def _train_slice(output, arm, seed, config, minutes, train_fn, log) -> None:
    name, workdir = plans.unit_name(arm, seed), plans.run_dir(output, arm, seed)
    iteration, seconds, _ = progress(output, arm, seed)
    slices_path = os.path.join(output, plans.SLICES_FILE)
    log(f"{name}: training {minutes:.2f} min from iteration {iteration} ({seconds / 60:.1f} min)")
    plans.append_line(slices_path, {"unit": name, "start": iteration, "limit_minutes": minutes})
    config = config.copy_and_resolve_references()
    config.time_limit_minutes = minutes
    config.checkpoint_every_minutes = timing.checkpoint_minutes(
        minutes, config.checkpoint_every_minutes
    )
    started = time.monotonic()
    os.makedirs(workdir, exist_ok=True)
    train_fn(config, workdir)
    wall = time.monotonic() - started
    jax.clear_caches()  # the slice's programs: the next unit builds its own
    end = progress(output, arm, seed)[0]
    stopped = timing.stopped_early(
        wall=wall, limit_minutes=minutes, end=end, num_iterations=config.num_iterations
    )
    plans.append_line(
        slices_path, {"unit": name, "end": end, "wall": wall, "seconds_before": seconds}
    )
    if stopped:  # Ctrl-C (or SIGTERM) reached training, which saved and stopped
        raise KeyboardInterrupt


def make_judge_fn(plan: plans.Plan) -> Callable:
    """``judge_fn(arm, network)`` for ``run``: builds a judge (``judges.make_judge``) for
    each network and search settings from the first network restored with them, and holds
    it: arms that differ only in how they train share its compiled programs."""
    from alphazero_jax.compare import judges

    held = {}  # arms whose network and search are the same share a judge

    def judge_fn(arm: Arm, network: runs.RestoredNetwork):
        del arm
        search = network.config.search.to_dict()
        key = json.dumps([network.config.network.to_dict(), search], sort_keys=True)
        if key not in held:
            simulations = plan.simulations
            if simulations < 0:
                simulations = int(search["num_simulations"])
            held[key] = judges.make_judge(
                network.game,
                network.apply_fn,
                search,
                judges=plan.judges,
                num_simulations=simulations,
                sets=plan.sets,
                positions=plan.positions,
                anchors=plan.anchors,
                ladder_games=plan.ladder_games,
                seed=plan.judge_seed,
            )
        return held[key]

    return judge_fn
