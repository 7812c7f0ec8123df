"""Taking over another comparison's units (``--reuse``), on hand-made output directories:
which units are taken, what is copied and renamed, and what is left alone."""

import os

import pytest

from alphazero_jax import runs
from alphazero_jax.cli import compare_flags
from alphazero_jax.compare import arms, plan, reuse, runner, timing

BASE = arms.Arm("base", "tic_tac_toe:smoke")
WIDE = arms.Arm("wide", "tic_tac_toe:smoke", ("network.channels=24",))


def _plan(*units_arms, **changes):
    made = plan.Plan(
        arms=units_arms,
        seeds=(0, 1),
        budget=timing.Budget(minutes=30.0),
        slice_minutes=10.0,
        checkpoint_minutes=10.0,
        judges=("oracle",),
        simulations=-1,
    )
    return made._replace(**changes)


def _config(the_plan):
    return lambda arm, seed: runner.unit_config(the_plan, compare_flags.build_config, arm, seed)


def _take(now, output, source, log):
    sources = reuse.read_sources([source])
    return reuse.take_over(now, output, sources, unit_config=_config(now), log=log)


def _source(directory, the_plan, trained):
    """A comparison in ``directory`` whose units ``trained`` have a run (its config.json, a
    checkpoint file), a judged line and two slice records each."""
    os.makedirs(directory)
    plan.write_json(os.path.join(directory, plan.PLAN_FILE), the_plan.as_dict())
    for arm, seed in trained:
        workdir = plan.run_dir(directory, arm, seed)
        os.makedirs(os.path.join(workdir, "checkpoints", "29"))
        config = _config(the_plan)(arm, seed)
        config.time_limit_minutes = 9.8  # set per slice: not a difference
        runs.write_config(workdir, config)
        name = plan.unit_name(arm, seed)
        plan.append_line(plan.judged_path(directory, arm, seed), {"iteration": 29, "of": name})
        slices = os.path.join(directory, plan.SLICES_FILE)
        plan.append_line(slices, {"unit": name, "start": 0, "limit_minutes": 10.0})
        plan.append_line(slices, {"unit": name, "end": 29, "wall": 611.0, "seconds_before": 0})


def test_take_over__the_same_config_and_seed_under_another_name_is_copied_and_renamed(tmp_path):
    source, output = str(tmp_path / "old"), str(tmp_path / "new")
    reference = arms.Arm("reference", "tic_tac_toe:smoke")  # BASE under another name
    _source(source, _plan(WIDE, reference), [(WIDE, 0), (reference, 0), (reference, 1)])
    now = _plan(BASE, arms.Arm("fast", "tic_tac_toe:smoke", ("learner.learning_rate=0.01",)))
    said = []
    taken = _take(now, output, source, said.append)

    assert taken == [f"base/seed0 <- {source} reference/seed0",
                     f"base/seed1 <- {source} reference/seed1"]  # fmt: skip
    assert said == [f"reused {line}" for line in taken]
    assert os.path.isdir(os.path.join(output, "runs", "base", "seed0", "checkpoints", "29"))
    assert not os.path.exists(os.path.join(output, "runs", "fast"))  # WIDE is not fast
    assert not os.path.exists(os.path.join(output, "runs", "base", "seed0.reusing"))
    assert plan.read_lines(plan.judged_path(output, BASE, 1)) == [
        {"iteration": 29, "of": "reference/seed1"}
    ]
    records = plan.read_lines(os.path.join(output, plan.SLICES_FILE))
    assert [r["unit"] for r in records] == ["base/seed0"] * 3 + ["base/seed1"] * 3
    assert records[0] == {"unit": "base/seed0", "reused": source, "from": "reference/seed0"}
    assert records[2] == {"unit": "base/seed0", "end": 29, "wall": 611.0, "seconds_before": 0}
    assert plan.slice_starts(output, "base/seed1") == [0]  # the runner reads it as its own

    again = _take(now, output, source, said.append)
    assert again == []  # a unit with a run keeps it
    assert len(plan.read_lines(os.path.join(output, plan.SLICES_FILE))) == 6


@pytest.mark.parametrize(
    "change",
    [
        {"judges": ("ladder",)},
        {"budget": timing.Budget(minutes=60.0)},
        {"checkpoint_minutes": 5.0},
        {"seeds": (1,)},  # a unit on seed 0 finds no seed 0 there
    ],
)
def test_take_over__a_plan_that_judges_budgets_or_seeds_otherwise_gives_nothing(tmp_path, change):
    source, output = str(tmp_path / "old"), str(tmp_path / "new")
    _source(source, _plan(BASE, **change), [(BASE, s) for s in change.get("seeds", (0,))])
    now = _plan(BASE, seeds=(0,))
    assert _take(now, output, source, print) == []
    assert not os.path.exists(os.path.join(output, "runs"))


def test_take_over__a_run_of_other_settings_is_not_taken_and_an_interrupted_copy_is_redone(
    tmp_path,
):
    source, output = str(tmp_path / "old"), str(tmp_path / "new")
    _source(source, _plan(WIDE, BASE), [(WIDE, 0), (BASE, 0)])
    now = _plan(arms.Arm("wide", "tic_tac_toe:smoke", ("network.channels=48",)), seeds=(0,))
    assert _take(now, output, source, print) == []

    now = _plan(BASE, seeds=(0,))  # an earlier copy stopped before its run was in place:
    plan.append_line(os.path.join(output, plan.SLICES_FILE), {"unit": "base/seed0", "start": 0})
    os.makedirs(os.path.join(output, "runs", "base", "seed0.reusing", "stale"))
    assert len(_take(now, output, source, print)) == 1
    assert not os.path.exists(os.path.join(output, "runs", "base", "seed0", "stale"))
    records = plan.read_lines(os.path.join(output, plan.SLICES_FILE))
    assert [r.get("start", r.get("end", "reused")) for r in records] == ["reused", 0, 29]


def test_read_sources__a_directory_without_a_plan_is_one_line(tmp_path):
    _source(str(tmp_path / "old"), _plan(BASE), [])
    assert reuse.read_sources([str(tmp_path / "old")]) == [(str(tmp_path / "old"), _plan(BASE))]
    with pytest.raises(reuse.ReuseError, match=r"holds no plan\.json") as raised:
        reuse.read_sources([str(tmp_path / "old"), str(tmp_path)])
    assert "\n" not in str(raised.value) and repr(str(tmp_path)) in str(raised.value)
