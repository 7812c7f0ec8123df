"""Units taken over from other comparisons (``alphazero-compare --reuse=DIR``), so that a
reference arm compared with new ideas is not trained again for every comparison.

A unit of this plan that has no run yet takes over a unit of a comparison in ``DIR`` when
both would compute the same thing: the source's run would go on exactly under this unit's
config (``training.train.check_workdir``: every setting but those a resumed run may change,
so the same seed, game, network, search and schedule; the arm's name and its preset's name
may differ), and the two plans budget, slice, checkpoint and judge alike (``SAME``). Its
run, its judged checkpoints and its slice records are copied, the records renamed to this
unit, after a line that says where they came from. The source is only read; take over
from a comparison that is not running, or take a snapshot of an unfinished unit.

The copy is put in place last (its run directory renamed into ``runs/``), so a copy that
was interrupted leaves a unit without a run, which the next call copies again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable

from alphazero_jax.compare import plan as plans
from alphazero_jax.compare.arms import Arm

# What a source's plan must share with this one for its judged checkpoints to be this
# plan's (the arms and seeds are matched unit by unit).
SAME = (
    "budget",
    "slice_minutes",
    "checkpoint_minutes",
    "judges",
    "simulations",
    "sets",
    "positions",
    "anchors",
    "anchor_games",
    "ladder_games",
    "judge_seed",
)


class ReuseError(ValueError):
    """A ``--reuse`` directory that holds no comparison; one line."""


def read_sources(directories: list[str]) -> list[tuple[str, plans.Plan]]:
    """Each directory with the plan its ``plan.json`` holds.

    Raises:
      ReuseError: a directory without a ``plan.json``; one line.
    """
    sources = []
    for directory in directories:
        path = os.path.join(directory, plans.PLAN_FILE)
        if not os.path.exists(path):
            raise ReuseError(f"--reuse: expected a comparison's output directory, got "
                             f"{directory!r}, which holds no {plans.PLAN_FILE}.")  # fmt: skip
        with open(path) as file:
            sources.append((directory, plans.Plan.from_dict(json.load(file))))
    return sources


def take_over(
    plan: plans.Plan,
    output: str,
    sources: list[tuple[str, plans.Plan]],
    *,
    unit_config: Callable[[Arm, int], object],
    log: Callable[[str], None] = print,
) -> list[str]:
    """Copies into ``output`` each unit without a run that a comparison of ``sources``
    (``read_sources``, searched in order) has; returns the lines it logged, one a unit,
    ``ARM/seedS <- DIR ARM/seedS``.

    Args:
      plan: this comparison.
      output: its directory.
      sources: other comparisons' output directories and plans.
      unit_config: ``(arm, seed) -> config`` of this plan's unit, as the runner trains it.
      log: where the lines go.
    """
    from alphazero_jax.configs import ConfigError
    from alphazero_jax.configs.plan import check_workdir

    found = [
        (source, saved)
        for source, saved in sources
        if all(getattr(saved, key) == getattr(plan, key) for key in SAME)
    ]
    taken = []
    for arm, seed in plan.units():
        if os.path.isdir(plans.run_dir(output, arm, seed)):
            continue  # it has work of its own
        config = unit_config(arm, seed)
        for source, saved in found:
            for other in saved.arms:
                run = plans.run_dir(source, other, seed)
                if seed not in saved.seeds or not os.path.isdir(run):
                    continue
                try:
                    check_workdir(run, config)
                except ConfigError:
                    continue
                _copy(source, other, output, arm, seed)
                line = f"{plans.unit_name(arm, seed)} <- {source} {plans.unit_name(other, seed)}"
                log(f"reused {line}")
                taken.append(line)
                break
            else:
                continue
            break
    return taken


def _copy(source: str, other: Arm, output: str, arm: Arm, seed: int) -> None:
    name, other_name = plans.unit_name(arm, seed), plans.unit_name(other, seed)
    target = plans.run_dir(output, arm, seed)
    staged = target + ".reusing"
    shutil.rmtree(staged, ignore_errors=True)
    shutil.copytree(plans.run_dir(source, other, seed), staged)
    judged = plans.read_lines(plans.judged_path(source, other, seed))
    plans.write_lines(plans.judged_path(output, arm, seed), judged)
    # This unit's records: any it has are from an interrupted copy (it has no run).
    slices_path = os.path.join(output, plans.SLICES_FILE)
    kept = [r for r in plans.read_lines(slices_path) if r.get("unit") != name]
    copied = [
        {**r, "unit": name}
        for r in plans.read_lines(os.path.join(source, plans.SLICES_FILE))
        if r.get("unit") == other_name
    ]
    reused = {"unit": name, "reused": os.path.abspath(source), "from": other_name}
    plans.write_lines(slices_path, [*kept, reused, *copied])
    os.replace(staged, target)
