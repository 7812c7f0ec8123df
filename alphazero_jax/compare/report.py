"""The report of a comparison: curves with 95% intervals, tables at equal training time
and at equal iterations, and a paired verdict of every arm against the first.

A curve's k-th point (``curves``) is, for each seed, its judged checkpoint nearest k
times the plan's checkpoint cadence in minutes (the seeds of an arm take the same
slices), drawn at the mean of their minutes of training (or iterations), and last the
seeds' final checkpoints once their schedules ended. A checkpoint that a stop left
(Ctrl-C or SIGTERM mid-slice, ``timing.stopped_early``) has an age no other seed's
shares: it is judged and in the tables, and on a curve only where it falls at a cadence's
minutes (a stop seconds before a slice's end), so that a stop of one seed does not pair
its checkpoints with the other seeds' later ones.
Its value is the mean over seeds and items with the interval of ``stats`` (the bootstrap
over seeds and positions); for the ladder it is the Elo fitted on every seed's games
against the anchors' fixed ratings, with +-1.96 standard errors of that fit.

Equal time is the least final training time of any unit still training, equal iterations
the least final iteration. A unit whose run reached its schedule's last iteration
(``num_iterations``) before the budget's minutes is finished: its last network stands for
every later time, so it does not hold the equal time back (with every unit finished, equal
time is the latest end). There each seed contributes its newest judged checkpoint at or
before that point (for time, up to ``time_slack`` past it: a slice ends with the iteration
during which its limit passed; for iterations, within ``iteration_slack`` of it either
way, an arm with none there left out of that table and named), and each arm is set
against the first on the same seeds and items (``stats.paired``: the exact McNemar / sign
test and the bootstrap interval of the difference).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from alphazero_jax import runs
from alphazero_jax.compare import judges as judging
from alphazero_jax.compare import plan as plans
from alphazero_jax.compare import stats, timing
from alphazero_jax.training import run_logging

AXES = ("minutes", "iteration")
SIGNIFICANCE = 0.05


class Point(NamedTuple):
    """A judged checkpoint of one unit."""

    iteration: int
    minutes: float
    measures: dict[str, judging.Measure]
    stopped: bool = False  # saved by a stop mid-slice (see the module)


def load_points(output: str, plan: plans.Plan) -> dict[tuple[str, int], list[Point]]:
    """Every unit's judged checkpoints, oldest first, with their minutes of training."""
    points = {}
    for arm, seed in plan.units():
        name = plans.unit_name(arm, seed)
        history = run_logging.read_metrics(plans.run_dir(output, arm, seed))
        seconds = timing.training_seconds(history, plans.slice_starts(output, name))
        stops = plans.stopped_ends(output, name, _num_iterations(output, arm, seed))
        found = {}
        for record in plans.read_lines(plans.judged_path(output, arm, seed)):
            step = record["iteration"]
            spent = max((s for i, s in seconds.items() if i <= step), default=0.0)
            measures = {m["name"]: judging.Measure.from_dict(m) for m in record["measures"]}
            found[step] = Point(step, spent / 60, measures, step in stops)
        points[arm.name, seed] = [found[step] for step in sorted(found)]
    return points


def _num_iterations(output: str, arm, seed: int) -> int:
    """The run's ``num_iterations`` (its ``config.json``); 0 before it has one."""
    workdir = plans.run_dir(output, arm, seed)
    if not os.path.exists(os.path.join(workdir, runs.CONFIG_FILE)):
        return 0
    return int(runs.read_config(workdir).num_iterations)


def at(
    points: Sequence[Point], axis: str, x: float, slack: float = 0.0, reach: float = math.inf
) -> Point | None:
    """The newest point at or before ``x`` (+ ``slack``) on ``axis``; None if none, or if
    that point lies more than ``reach`` before ``x``."""
    chosen = [p for p in points if getattr(p, axis) <= x + slack]
    return chosen[-1] if chosen and getattr(chosen[-1], axis) >= x - reach else None


def iteration_slack(iteration: int) -> int:
    """How far from the equal iteration a checkpoint may lie, either way: a tenth of it,
    at least one (checkpoints are spaced in minutes, so the arms' iterations rarely meet;
    without a floor, an arm's checkpoint half as far in would be paired with the others')."""
    return max(1, round(iteration / 10))


def summarise(
    measures: Sequence[judging.Measure], ratings: dict | None
) -> tuple[float, float, float]:
    """``(value, low, high)`` of one measure over seeds (a ``Measure`` each)."""
    first = measures[0]
    if first.name == judging.LADDER:
        pooled = first._replace(
            values="".join(m.values for m in measures),
            groups=tuple(g for m in measures for g in m.groups),
        )
        rating = judging.ladder_rating(pooled, ratings)
        return (
            rating.rating,
            rating.rating - 1.96 * rating.stderr,
            rating.rating + 1.96 * rating.stderr,
        )
    rows = np.stack([m.array() for m in measures])
    low, high = stats.bootstrap_interval(rows)
    return float(rows.mean()), low, high


def measure_names(points: dict) -> list[str]:
    names = {}
    for unit_points in points.values():
        for point in unit_points:
            names.update(dict.fromkeys(point.measures))
    return list(names)


def curves(plan, points, ratings, finished: frozenset = frozenset()) -> list[dict]:
    """The curve rows: measure, arm, axis, x, value, low, high, seeds.

    With a checkpoint cadence in minutes (``plan.checkpoint_minutes``), the k-th point of
    an arm's curve is, for each seed, its checkpoint nearest k cadences of training (within
    a tenth of one; a unit ``finished`` at its schedule's end before then keeps its last
    one), drawn at the mean of their minutes (or iterations), as long as every seed has
    one; then, if every seed is ``finished``, their last checkpoints. So a checkpoint a stop
    left mid-slice is not drawn, and seeds whose slices ended a few seconds apart are
    drawn together. Without one, the k-th judged checkpoint of each seed (as far as every
    seed has one; those a stop left are not drawn)."""
    rows = []
    for name in measure_names(points):
        for arm in plan.arms:
            units = [points[arm.name, seed] for seed in plan.seeds]
            ended = [(arm.name, seed) in finished for seed in plan.seeds]
            for chosen in _curve_points(units, ended, plan.checkpoint_minutes):
                if any(name not in c.measures for c in chosen):
                    continue
                value, low, high = summarise([c.measures[name] for c in chosen], ratings)
                for axis in AXES:
                    x = float(np.mean([getattr(c, axis) for c in chosen]))
                    rows.append(dict(measure=name, arm=arm.name, axis=axis, x=x, value=value,
                                     low=low, high=high, seeds=len(chosen)))  # fmt: skip
    return rows


def _curve_points(units: list[list[Point]], ended: list[bool], cadence: float) -> list[list]:
    """The seeds' checkpoints of each point of one arm's curve (see ``curves``)."""
    if not cadence:
        units = [[p for p in unit if not p.stopped] for unit in units]
        return [[unit[k] for unit in units] for k in range(min(map(len, units)))]
    drawn, k = [], 1
    while True:
        chosen, fresh = [], False
        for unit, done in zip(units, ended):
            near = [p for p in unit if abs(p.minutes - k * cadence) <= cadence / 10]
            if near:
                chosen.append(min(near, key=lambda p: (abs(p.minutes - k * cadence), -p.minutes)))
                fresh = True
            elif done and unit and unit[-1].minutes < k * cadence:
                chosen.append(unit[-1])
            else:
                break
        if len(chosen) < len(units) or not fresh:
            break
        drawn.append(chosen)
        k += 1
    if all(ended) and all(units):
        last = [unit[-1] for unit in units]
        if not drawn or _steps(drawn[-1]) != _steps(last):
            drawn.append(last)
    return drawn


def _steps(chosen: list[Point]) -> list[int]:
    return [p.iteration for p in chosen]


class Comparison(NamedTuple):
    """Where the arms are compared: ``axis`` at ``x``, and the rows there."""

    axis: str
    x: float
    rows: list[dict]  # measure, arm, value, low, high, and vs the first arm: the paired test
    reach: float = math.inf  # how far before x a checkpoint may lie
    missing: tuple[str, ...] = ()  # arms with a seed that has no checkpoint there (left out)


def compare_at(
    plan, points, ratings, axis: str, x: float, slack: float, reach: float = math.inf
) -> Comparison:
    """Each arm's newest checkpoints at or before ``x`` + ``slack`` (and no more than
    ``reach`` before ``x``) on ``axis``, each against the first arm's on the same seeds."""
    rows = []
    chosen = {
        arm.name: [at(points[arm.name, seed], axis, x, slack, reach) for seed in plan.seeds]
        for arm in plan.arms
    }
    missing = tuple(arm for arm, picked in chosen.items() if None in picked)
    reference = plan.arms[0].name
    for name in measure_names(points):
        for arm in plan.arms:
            picked = chosen[arm.name]
            if any(p is None or name not in p.measures for p in picked):
                continue
            measures = [p.measures[name] for p in picked]
            value, low, high = summarise(measures, ratings)
            row = dict(measure=name, arm=arm.name, value=value, low=low, high=high,
                       better=measures[0].better,
                       iterations=[p.iteration for p in picked],
                       minutes=[float(f"{p.minutes:.3g}") for p in picked])  # fmt: skip
            base = chosen[reference]
            if arm.name != reference and all(p is not None and name in p.measures for p in base):
                a = np.stack([p.measures[name].array() for p in base])
                b = np.stack([m.array() for m in measures])
                if a.shape == b.shape:
                    row["paired"] = stats.paired(a, b)._asdict()
            rows.append(row)
    return Comparison(axis, x, rows, reach, missing)


def judgement(row: dict) -> str | None:
    """``"better than"``, ``"worse than"`` or ``"not distinguishable from"`` the reference
    (better or worse: p < SIGNIFICANCE and the interval excludes 0); None without a test."""
    paired = row.get("paired")
    if paired is None:
        return None
    difference, (low, high), p = paired["difference"], paired["interval"], paired["p_value"]
    improves = difference < 0 if row["better"] == "lower" else difference > 0
    if p < SIGNIFICANCE and (low > 0 or high < 0):
        return "better than" if improves else "worse than"
    return "not distinguishable from"


def verdict(row: dict, reference: str) -> str:
    """One line: the arm against the reference, its difference, interval and p-value."""
    word = judgement(row)
    if word is None:
        return ""
    paired = row["paired"]
    difference, (low, high), p = paired["difference"], paired["interval"], paired["p_value"]
    what = "mean game score " if row["measure"] == judging.LADDER else ""
    return (
        f"{row['arm']} {word} {reference}: {what}{difference:+.1%} [{low:+.1%}, {high:+.1%}], "
        f"exact sign/McNemar p = {p:.3g} ({paired['a_higher']} vs {paired['b_higher']} "
        f"discordant of {paired['items']})"
    )


def _value(name: str, value: float) -> str:
    return f"{value:.0f}" if name == judging.LADDER else f"{value:.1%}"


def table(comparison: Comparison, reference: str) -> str:
    """Markdown: a row per measure and arm at ``comparison``'s point, with the verdict."""
    unit = "minutes" if comparison.axis == "minutes" else "iterations"
    caption = (
        f"At equal {'training time' if unit == 'minutes' else 'iterations'}: "
        f"{comparison.x:.3g} {unit}"
    )
    if comparison.reach < math.inf:
        caption += f", each seed's newest checkpoint within {comparison.reach:.3g} of it"
    if comparison.missing:
        caption += f" (none there for {', '.join(comparison.missing)}, so left out)"
    rows = []
    for row in comparison.rows:
        name = row["measure"]
        low, high = _value(name, row["low"]), _value(name, row["high"])
        interval = f"{_value(name, row['value'])} [{low}, {high}]"
        rows.append([name, row["arm"], interval, row["iterations"], row["minutes"],
                     verdict(row, reference)])  # fmt: skip
    columns = ["measure", "arm", "value [95%]", "iterations", "minutes", "against the first arm"]
    return caption + "\n\n" + markdown_table(columns, rows)


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence], right: int = 0) -> str:
    """A Markdown table: a row of ``columns``, then each row's cells as text (``str``);
    the columns from ``right`` on (when > 0) aligned right. Every table of a report, and
    of a record transcribed from a page (``record``), is written by it."""
    rule = ["---:" if right and k >= right else "---" for k in range(len(columns))]
    lines = ["| " + " | ".join(columns) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines)


_MARKS = {"better than": " (better)", "worse than": " (worse)"}


def _ended(finished: frozenset) -> str:
    """The equal-time caption's note on the units whose schedule ended before it."""
    if not finished:
        return ""
    names = ", ".join(f"{arm}/seed{seed}" for arm, seed in sorted(finished))
    return f" ({names}: each at the last iteration of a schedule that ended earlier)"


def _chance(comparison: Comparison) -> str:
    """How many of the table's marks chance alone would make, were no arm different."""
    tests = sum("paired" in row for row in comparison.rows)
    return f"{tests} tests: about {tests * SIGNIFICANCE:.1f} marks by chance alone"


def arm_table(comparison: Comparison) -> str:
    """Markdown: a row per arm and a column per measure at ``comparison``'s point, each value
    marked ``(better)`` or ``(worse)`` where the paired test says so against the first arm
    (``table`` has the intervals and tests)."""
    names = list(dict.fromkeys(r["measure"] for r in comparison.rows))
    found = {(r["arm"], r["measure"]): r for r in comparison.rows}
    lines = []
    for arm in dict.fromkeys(r["arm"] for r in comparison.rows):
        first = next(r for r in comparison.rows if r["arm"] == arm)
        cells = []
        for name in names:
            row = found.get((arm, name))
            mark = _MARKS.get(judgement(row) or "", "") if row else ""
            cells.append(f"{_value(name, row['value'])}{mark}" if row else "")
        iterations = "/".join(map(str, first["iterations"]))
        minutes = "/".join(f"{m:.3g}" for m in first["minutes"])
        lines.append([arm, iterations, minutes, *cells])
    return markdown_table(["arm", "iterations", "minutes", *names], lines, right=1)


def curve_text(rows: list[dict], *, max_rows: int = 8) -> str:
    """The curves against training time as text, at most ``max_rows`` points an arm."""
    lines = []
    for name in dict.fromkeys(r["measure"] for r in rows):
        lines.append(f"{name} against minutes of training (mean [95% interval] over seeds):")
        for arm in dict.fromkeys(r["arm"] for r in rows):
            mine = [r for r in rows if r["measure"] == name and r["arm"] == arm
                    and r["axis"] == "minutes"]  # fmt: skip
            keep = np.unique(np.linspace(0, len(mine) - 1, min(max_rows, len(mine))).round())
            cells = [
                f"{mine[int(k)]['x']:.3g}: {_value(name, mine[int(k)]['value'])}"
                f" [{_value(name, mine[int(k)]['low'])}, {_value(name, mine[int(k)]['high'])}]"
                for k in keep
            ]
            lines.append(f"  {arm:<12} " + "; ".join(cells))
    return "\n".join(lines)


def final_points(points, finished: frozenset = frozenset()) -> tuple[float, int]:
    """Equal time and equal iterations: the least final minutes of any unit not in
    ``finished`` (the latest final minutes when all are), and the least final iteration of
    any unit."""
    finals = {unit: judged[-1] for unit, judged in points.items() if judged}
    training = [p.minutes for unit, p in finals.items() if unit not in finished]
    minutes = min(training) if training else max(p.minutes for p in finals.values())
    return minutes, min(p.iteration for p in finals.values())


def finished_units(output: str, plan: plans.Plan, points) -> frozenset:
    """The units ``(arm name, seed)`` whose newest judged checkpoint is their run's last
    iteration (``num_iterations`` in its ``config.json``)."""
    done = set()
    for arm, seed in plan.units():
        judged, workdir = points.get((arm.name, seed)), plans.run_dir(output, arm, seed)
        if judged and os.path.exists(os.path.join(workdir, runs.CONFIG_FILE)):
            if judged[-1].iteration >= _num_iterations(output, arm, seed):
                done.add((arm.name, seed))
    return frozenset(done)


def slack_minutes(output: str, plan: plans.Plan) -> float:
    """``time_slack`` of the units' typical iterations in ``output``."""
    typical = [
        timing.typical_iteration(
            run_logging.read_metrics(plans.run_dir(output, arm, seed)),
            plans.slice_starts(output, plans.unit_name(arm, seed)),
        )
        for arm, seed in plan.units()
    ]
    return time_slack(typical, plan.checkpoint_minutes)


def time_slack(typical_seconds: Sequence[float], cadence: float) -> float:
    """Minutes: the largest typical iteration of any unit (``typical_seconds``), since a
    slice ends with the iteration during which its limit passed, and with a checkpoint
    cadence in minutes at least a tenth of it, the curves' own tolerance (``curves``)."""
    return max(max(typical_seconds, default=0.0) / 60, cadence / 10)


class Report(NamedTuple):
    """What a comparison's report says: the curves' rows (``curves``), the comparisons at
    equal time and at equal iterations (``compare_at``) and the units whose schedule ended
    before equal time; a record (``record``) keeps it, and ``render`` writes its text."""

    curves: list[dict]
    comparisons: list[Comparison]
    finished: frozenset


def assemble(output: str, plan: plans.Plan, ratings: dict | None, points=None) -> Report | None:
    """The report of what ``output`` holds (``points``: ``load_points``' if given); None
    while nothing is judged."""
    points = load_points(output, plan) if points is None else points
    if not any(points.values()):
        return None
    slack = slack_minutes(output, plan)
    finished = finished_units(output, plan, points)
    minutes, iteration = final_points(points, finished)
    near = iteration_slack(iteration)
    comparisons = [
        compare_at(plan, points, ratings, "minutes", minutes, slack),
        compare_at(plan, points, ratings, "iteration", iteration, near, reach=near),
    ]
    return Report(curves(plan, points, ratings, finished), comparisons, finished)


def tables(plan: plans.Plan, made: Report) -> list[str]:
    """The report's tables: each arm at equal time with its marks, then ``table`` at equal
    time and at equal iterations."""
    reference, first = plan.arms[0].name, made.comparisons[0]
    marked = (
        f"Each arm at equal training time, {first.x:.3g} minutes"
        + _ended(made.finished)
        + f", marked where the paired test against {reference} finds it better or worse ("
        + _chance(first)
        + "):\n\n"
        + arm_table(first)
    )
    return [marked, *(table(c, reference) for c in made.comparisons)]


def render(plan: plans.Plan, made: Report) -> str:
    """``report.md``'s text."""
    from alphazero_jax.compare import plots

    figures = [plots.file_name(name) for name in dict.fromkeys(r["measure"] for r in made.curves)]
    return "\n\n".join(
        [
            f"# Comparison: {', '.join(a.name for a in plan.arms)} on seeds "
            f"{', '.join(map(str, plan.seeds))}, {plan.budget.describe()} each",
            curve_text(made.curves),
            *tables(plan, made),
            "Figures: " + ", ".join(figures),
        ]
    )
