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


def test_compare_at__equal_iterations_pairs_no_checkpoint_from_far_before():
    # The openings comparison of 2026-12-03: checkpoints every 15 minutes, at iterations 68
    # and 129 (base), 63 and 121 (idea). The least final iteration is 121; base's newest
    # checkpoint at or before it is its 68th, which the old table set against idea's 121st
    # and called idea better. Within 12 either way, base is at 129.
    three = PLAN._replace(arms=(*PLAN.arms, arms.Arm("late", "connect_four:cpu")))
    points = {
        ("base", 0): [_point(68, 15.0, "1100"), _point(129, 30.3, "1000")],
        ("idea", 0): [_point(63, 15.1, "1110"), _point(121, 30.2, "0000")],
        ("late", 0): [_point(60, 15.0, "1111"), _point(140, 30.0, "1111")],
    }
    _, iteration = report.final_points(points)
    assert (iteration, report.iteration_slack(iteration)) == (121, 12)
    compared = report.compare_at(three, points, None, "iteration", 121, 12, reach=12)
    assert [r["iterations"] for r in compared.rows] == [[129], [121]]
    assert compared.missing == ("late",)  # 60 is too far before and 140 too far past
    assert report.table(compared, "base").splitlines()[0] == (
        "At equal iterations: 121 iterations, each seed's newest checkpoint within 12 of it"
        " (none there for late, so left out)"
    )
    # Without the reach (the old rule), base's 68th is taken.
    unbounded = report.compare_at(three, points, None, "iteration", 121, 0.0)
    assert [r["iterations"] for r in unbounded.rows] == [[68], [121], [60]]
    assert report.iteration_slack(5) == 1


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


def test_stopped_ends__the_slices_a_stop_cut_short_not_the_schedules_end(tmp_path):
    # The Othello 6x6 comparison of 2026-11-29, lean64/seed0 and preset/seed0: a SIGTERM at
    # a session's end cut lean64's second slice after 70 s of its 10.17 minutes; the
    # preset's last slice ended after 160 s at its schedule's 240th iteration.
    records = [
        {"unit": "lean64/seed0", "start": 0, "limit_minutes": 10.0},
        {"unit": "preset/seed0", "start": 106, "limit_minutes": 10.16},
        {"unit": "preset/seed0", "end": 213, "wall": 614.0, "seconds_before": 598.6},
        {"unit": "lean64/seed0", "end": 81, "wall": 606.5, "seconds_before": 0.0},
        {"unit": "lean64/seed0", "start": 81, "limit_minutes": 10.17},
        {"unit": "lean64/seed0", "end": 90, "wall": 70.2, "seconds_before": 598.1},
        {"unit": "lean64/seed0", "start": 90, "limit_minutes": 9.04},
        {"unit": "lean64/seed0", "end": 169, "wall": 553.3, "seconds_before": 662.8},
        {"unit": "preset/seed0", "start": 213, "limit_minutes": 10.0},
        {"unit": "preset/seed0", "end": 240, "wall": 159.7, "seconds_before": 1205.8},
    ]
    for record in records:
        plan.append_line(os.path.join(tmp_path, plan.SLICES_FILE), record)
    assert plan.stopped_ends(str(tmp_path), "lean64/seed0", 250) == {90}
    assert plan.stopped_ends(str(tmp_path), "preset/seed0", 240) == set()
    # Had the preset's schedule been longer, its last slice would have been a stop.
    assert plan.stopped_ends(str(tmp_path), "preset/seed0", 480) == {240}


def test_curves__a_checkpoint_a_stop_left_is_in_the_tables_but_not_on_the_curve():
    # Seed 0 was stopped at 11.1 minutes (iteration 90) and judged there; without that
    # checkpoint its k-th checkpoints line up with seed 1's: 10, 20 and 30 minutes.
    two_seeds = PLAN._replace(arms=PLAN.arms[:1], seeds=(0, 1))
    points = {
        ("base", 0): [
            _point(81, 10.0, "1111"),
            report.Point(90, 11.1, _point(90, 11.1, "1100").measures, stopped=True),
            _point(169, 20.0, "1100"),
            _point(250, 30.0, "1000"),
        ],
        ("base", 1): [
            _point(78, 10.0, "1111"),
            _point(166, 20.0, "1100"),
            _point(250, 30.0, "0000"),
        ],
    }
    rows = report.curves(two_seeds, points, None)
    drawn = [(r["x"], r["value"]) for r in rows if r["axis"] == "minutes"]
    assert drawn == [(10.0, 1.0), (20.0, 0.5), (30.0, 0.125)]
    assert [r["x"] for r in rows if r["axis"] == "iteration"] == [79.5, 167.5, 250.0]
    # At equal time the stop's checkpoint is seed 0's newest by 15 minutes.
    compared = report.compare_at(two_seeds, points, None, "minutes", 15.0, 0.0)
    assert compared.rows[0]["iterations"] == [90, 78]


def _stop(iteration, minutes, mistakes):
    return _point(iteration, minutes, mistakes)._replace(stopped=True)


def test_curves__with_a_cadence_each_point_is_the_seeds_checkpoints_nearest_its_minutes():
    # The Quoridor 5x5 comparison of 2026-11-29, lean64: seed 1 was stopped at iteration
    # 149 (13.2 minutes) and again 3 s before its second slice's end (226, 19.9 minutes);
    # both seeds ended their schedules (280) at about 25. Paired by order, seed 0's 20
    # minutes would meet seed 1's 25.
    cadence = PLAN._replace(arms=PLAN.arms[:1], seeds=(0, 1), checkpoint_minutes=10.0)
    points = {
        ("base", 0): [_point(113, 9.95, "1111"), _point(227, 20.15, "1100"),
                      _point(280, 25.1, "1000")],
        ("base", 1): [_point(112, 9.9, "1111"), _stop(149, 13.2, "1110"),
                      _stop(226, 19.9, "1100"), _point(280, 24.8, "0000")],
    }  # fmt: skip
    finished = frozenset({("base", 0), ("base", 1)})
    rows = report.curves(cadence, points, None, finished)
    drawn = [(round(r["x"], 3), r["value"]) for r in rows if r["axis"] == "minutes"]
    assert drawn == [(9.925, 1.0), (20.025, 0.5), (24.95, 0.125)]
    assert [r["x"] for r in rows if r["axis"] == "iteration"] == [112.5, 226.5, 280.0]
    # Not finished, the ends are not drawn: they are no cadence's checkpoints.
    assert len(report.curves(cadence, points, None)) == 2 * 2
    # A seed not judged yet: no curve (both finished or not).
    early = {**points, ("base", 1): []}
    assert report.curves(cadence, early, None, finished) == []
    assert report.curves(cadence, early, None) == []

    # A stop a minute after a cadence's checkpoint is not drawn in its place (the
    # Othello 6x6 comparison's seed 0), nor anywhere.
    points[("base", 0)] = [_point(81, 10.0, "1111"), _stop(90, 11.1, "0000"),
                           _point(169, 20.0, "1100"), _point(250, 29.6, "1000")]  # fmt: skip
    points[("base", 1)] = [_point(78, 10.0, "1111"), _point(166, 20.0, "1100"),
                           _point(250, 29.8, "0000")]  # fmt: skip
    rows = report.curves(cadence, points, None, finished)
    drawn = [(round(r["x"], 3), r["value"]) for r in rows if r["axis"] == "minutes"]
    assert drawn == [(10.0, 1.0), (20.0, 0.5), (29.7, 0.125)]  # the ends are the third


def test_curves__a_seed_whose_schedule_ended_keeps_its_last_checkpoint_for_later_points():
    cadence = PLAN._replace(arms=PLAN.arms[:1], seeds=(0, 1), checkpoint_minutes=10.0)
    points = {
        ("base", 0): [_point(106, 9.9, "1111"), _point(200, 17.7, "1100")],  # ended
        ("base", 1): [_point(109, 10.1, "1111"), _point(216, 20.0, "0000")],  # goes on
    }
    rows = report.curves(cadence, points, None, frozenset({("base", 0)}))
    assert [(round(r["x"], 3), r["value"]) for r in rows if r["axis"] == "minutes"] == [
        (10.0, 1.0),
        (18.85, 0.25),
    ]


def test_compare_at__equal_time_takes_a_last_checkpoint_that_ran_a_little_past_it():
    # The comparison of lean64_hour and lean64_rising of 2026-12-01 (seed 0, 60 minutes, a
    # checkpoint every 15): lean64_rising's last slice ended at 60.1 minutes, lean64_hour's
    # at 60.3, its last iteration of about 22 s ending 12 s past its limit. Half an
    # iteration of slack paired lean64_rising's hour with lean64_hour's 45 minutes.
    points = {
        ("base", 0): [_point(123, 45.2, "1100"), _point(163, 60.3, "1000")],
        ("idea", 0): [_point(121, 45.1, "1110"), _point(146, 60.1, "1000")],
    }
    minutes, _ = report.final_points(points)
    assert minutes == 60.1
    slack = report.time_slack([22.0, 24.0], 15.0)
    assert slack == pytest.approx(1.5)  # a tenth of the cadence, more than an iteration
    compared = report.compare_at(PLAN, points, None, "minutes", minutes, slack)
    assert [r["iterations"] for r in compared.rows] == [[163], [146]]
    assert report.time_slack([22.0, 24.0], 0.0) == pytest.approx(0.4)  # one iteration
    tight = report.compare_at(PLAN, points, None, "minutes", minutes, 0.1)
    assert tight.rows[0]["iterations"] == [123]
