"""The report's curves, points of comparison and verdicts on hand-made judgements."""

import os

import pytest

from alphazero_jax.compare import arms, judges, plan, report, timing


def _point(iteration, minutes, mistakes):
    measure = judges.Measure("Middle-Medium", "lower", 1, mistakes)
    return report.Point(iteration, minutes, {measure.name: measure})


PLAN = plan.Plan(
    arms=(arms.Arm("base", "connect_four:cpu"), arms.Arm("idea", "connect_four:cpu", ("x=1",))),
    seeds=(0,),
    budget=timing.Budget(minutes=2),
    slice_minutes=1.0,
    checkpoint_minutes=0.0,
    judges=("perfect_play",),
    simulations=-1,
)
POINTS = {
    ("base", 0): [_point(1, 1.0, "1100"), _point(2, 2.0, "1000")],
    ("idea", 0): [_point(1, 0.5, "1111"), _point(2, 1.0, "0000"), _point(3, 1.5, "0000")],
}


def test_curves__a_point_per_judged_checkpoint_on_both_axes():
    rows = report.curves(PLAN, POINTS, None)
    idea = [(r["x"], r["value"]) for r in rows if r["arm"] == "idea" and r["axis"] == "minutes"]
    assert idea == [(0.5, 1.0), (1.0, 0.0), (1.5, 0.0)]
    base = [(r["x"], r["value"]) for r in rows if r["arm"] == "base" and r["axis"] == "iteration"]
    assert base == [(1, 0.5), (2, 0.25)]


def test_compare_at__equal_time_takes_each_arm_newest_checkpoint_by_then():
    # The least final time is idea's 1.5 minutes: base is at its iteration 1 then (1100),
    # idea at its iteration 3 (0000): base erred on two positions idea got right.
    minutes, iteration = report.final_points(POINTS)
    assert (minutes, iteration) == (1.5, 2)
    compared = report.compare_at(PLAN, POINTS, None, "minutes", minutes, 0.0)
    base, idea = compared.rows
    assert (base["iterations"], idea["iterations"]) == ([1], [3])
    paired = idea["paired"]
    assert (paired["a_higher"], paired["b_higher"]) == (2, 0)
    assert paired["p_value"] == pytest.approx(0.5)  # 2 x (1/2)^2
    assert paired["difference"] == pytest.approx(-0.5)
    line = report.verdict(idea, "base")
    assert line.startswith("idea not distinguishable from base: -50.0%")
    assert "p = 0.5 (2 vs 0 discordant of 4)" in line


def test_final_points__a_finished_run_does_not_hold_equal_time_back():
    # idea's schedule ended at 1.5 minutes: base's 2.0 is the equal time, where idea is at
    # its last checkpoint.
    minutes, iteration = report.final_points(POINTS, frozenset({("idea", 0)}))
    assert (minutes, iteration) == (2.0, 2)
    compared = report.compare_at(PLAN, POINTS, None, "minutes", minutes, 0.0)
    assert [r["iterations"] for r in compared.rows] == [[2], [3]]
    everyone = frozenset({("base", 0), ("idea", 0)})
    assert report.final_points(POINTS, everyone) == (2.0, 2)  # the latest end


def test_finished_units__those_judged_at_their_last_iteration(tmp_path):
    from alphazero_jax import runs
    from alphazero_jax.configs import settings

    for arm, num_iterations in zip(PLAN.arms, (5, 3), strict=True):
        workdir = plan.run_dir(str(tmp_path), arm, 0)
        config = settings.base_config()
        config.num_iterations = num_iterations
        os.makedirs(workdir)
        runs.write_config(workdir, config)
    assert report.finished_units(str(tmp_path), PLAN, POINTS) == {("idea", 0)}
    assert report.finished_units(str(tmp_path / "elsewhere"), PLAN, POINTS) == frozenset()


def test_compare_at__equal_iterations_and_a_significant_verdict():
    compared = report.compare_at(PLAN, POINTS, None, "iteration", 2, 0.0)
    assert [r["iterations"] for r in compared.rows] == [[2], [2]]
    many = {
        ("base", 0): [_point(1, 1.0, "1" * 12)],
        ("idea", 0): [_point(1, 1.0, "0" * 12)],
    }
    (_, idea) = report.compare_at(PLAN, many, None, "iteration", 1, 0.0).rows
    assert idea["paired"]["p_value"] == pytest.approx(2 / 4096)  # 12 of 12 one way
    assert report.verdict(idea, "base").startswith("idea better than base: -100.0%")


def test_arm_table__a_row_per_arm_marked_where_the_test_says():
    many = {
        ("base", 0): [_point(1, 1.0, "1" * 12)],
        ("idea", 0): [_point(1, 1.25, "0" * 12)],
    }
    compared = report.compare_at(PLAN, many, None, "iteration", 1, 0.0)
    assert report.judgement(compared.rows[0]) is None  # the reference has no test
    assert report.judgement(compared.rows[1]) == "better than"
    assert report.arm_table(compared).splitlines() == [
        "| arm | iterations | minutes | Middle-Medium |",
        "| --- | ---: | ---: | ---: |",
        "| base | 1 | 1 | 100.0% |",
        "| idea | 1 | 1.25 | 0.0% (better) |",
    ]
