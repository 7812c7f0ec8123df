"""Arms, plans and training time, by hand."""

import pytest

from alphazero_jax.compare import arms, plan, timing


def test_parse_arm__name_config_and_overrides_with_or_without_the_prefix():
    arm = arms.parse_arm("gumbel=connect_four:cpu --config.search.policy=gumbel seed=3")
    assert arm == arms.Arm("gumbel", "connect_four:cpu", ("search.policy=gumbel", "seed=3"))
    assert arms.parse_arm(arm.text) == arm
    quoted = arms.parse_arm("o=othello:cpu \"--config.evaluation.opponents=('random', 'greedy')\"")
    assert quoted.overrides == ("evaluation.opponents=('random', 'greedy')",)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("connect_four:cpu", "expected 'NAME=GAME:PRESET"),
        ("--config.seed=1", "expected 'NAME=GAME:PRESET"),
        ("a b=connect_four:cpu", "expected 'NAME=GAME:PRESET"),
        ("a/b=connect_four:cpu", "got name 'a/b'"),
        ("a=", "got name 'a' and config ''"),
        ("a=connect_four:cpu search.policy", "got 'search.policy'"),
        ("a=connect_four:cpu 'unclosed", "No closing quotation"),
    ],
)
def test_parse_arm__a_bad_arm_is_one_line(text, said):
    with pytest.raises(arms.ArmError, match=said) as raised:
        arms.parse_arm(text)
    assert "\n" not in str(raised.value)


def _plan(**changes):
    base = plan.Plan(
        arms=(arms.Arm("a", "tic_tac_toe:smoke"), arms.Arm("b", "tic_tac_toe:smoke", ("x=1",))),
        seeds=(0, 1),
        budget=timing.Budget(iterations=3),
        slice_minutes=5.0,
        checkpoint_minutes=0.0,
        judges=("oracle",),
        simulations=-1,
    )
    return base._replace(**changes)


def test_plan__round_trips_through_json_and_names_its_first_difference():
    saved = _plan().as_dict()
    assert plan.Plan.from_dict(saved) == _plan()
    assert plan.check_same(saved, _plan()) is None
    line = plan.check_same(saved, _plan(seeds=(0,)))
    assert line.startswith(
        "the output directory's plan.json has seeds=[0, 1], this command seeds=[0]"
    )
    assert "\n" not in line
    more = _plan(arms=(*_plan().arms, arms.Arm("c", "tic_tac_toe:smoke")))
    assert plan.check_same(saved, more) is None  # arms appended: the others keep their work
    fewer = plan.check_same(more.as_dict(), _plan())
    assert fewer.startswith("the output directory's plan.json has arms=")
    reordered = _plan(arms=tuple(reversed(_plan().arms)))
    assert plan.check_same(saved, reordered).startswith(
        "the output directory's plan.json has arms="
    )
    assert [plan.unit_name(a, s) for a, s in _plan().units()] == [
        "a/seed0", "a/seed1", "b/seed0", "b/seed1"
    ]  # fmt: skip


def _records(*seconds):
    """History records of iterations 1, 2, ... taking ``seconds`` each (self-play 3/4)."""
    return [
        {"iteration": i, "time/selfplay": 0.75 * s, "time/learner": 0.25 * s, "time/evaluation": 9}
        for i, s in enumerate(seconds, start=1)
    ]


def test_training_seconds__a_slice_first_iteration_counts_at_the_median_of_the_others():
    # Slices started at 0 and 3: iterations 1 and 4 compiled (10 s, 8 s); the others took
    # 2, 3 and 2 s (median 2); evaluation is not training time.
    history = _records(10, 2, 3, 8, 2)
    assert timing.training_seconds(history, [0, 3]) == {1: 2, 2: 4, 3: 7, 4: 9, 5: 11}
    assert timing.typical_iteration(history, [0, 3]) == 2
    assert timing.training_seconds(_records(10), [0]) == {1: 10}  # nothing to compare with


def test_slice_minutes__a_minute_budget_gives_the_rest_plus_the_last_slice_overhead():
    budget = timing.Budget(minutes=10)
    left = timing.slice_minutes(budget, slice_minutes=3, seconds=540, overhead_seconds=30)
    assert left == pytest.approx(1.5)  # 60 s left + 30 s of start and compile


@pytest.mark.parametrize(
    ("seconds", "overhead", "expected"),
    [
        (0, 0, 5),  # the first slice
        (270, 30, 5.5 + 0.5),  # 4.5 minutes trained (the first slice compiled): on to 10
        (864, 30, 5.6 + 0.5),  # 14.4 minutes: on to 20, not 19.4
        (900, 20, 5 + 20 / 60),  # exactly 15: on to 20
        (744, 0, 2.6),  # 12.4 minutes, nearer 10 than 15: on to 15
        (1680, 30, 2 + 0.5),  # 28 minutes: on to the budget's 30, not 35
    ],
)
def test_slice_minutes__slices_end_at_multiples_of_the_slice_in_training_time(
    seconds, overhead, expected
):
    budget = timing.Budget(minutes=30)
    limit = timing.slice_minutes(
        budget, slice_minutes=5, seconds=seconds, overhead_seconds=overhead
    )
    assert limit == pytest.approx(expected)
    assert timing.slice_minutes(timing.Budget(iterations=5), slice_minutes=3, seconds=1e9,
                                overhead_seconds=0) == 3  # fmt: skip


def test_is_done__at_the_run_end_or_within_half_an_iteration_of_the_minutes():
    budget = timing.Budget(minutes=1)
    assert not timing.is_done(budget, iteration=5, num_iterations=9, seconds=58, typical=2)
    assert timing.is_done(budget, iteration=5, num_iterations=9, seconds=59, typical=2)
    assert timing.is_done(timing.Budget(iterations=9), iteration=9, num_iterations=9,
                          seconds=0, typical=0)  # fmt: skip


@pytest.mark.parametrize(
    ("limit", "every", "expected"),
    [
        (5.6, 5, 5.6),  # a slice with its compiling: one checkpoint, at its end
        (10.5, 5, 5.25),  # two, the second at the end
        (2.5, 5, 2.5),  # a short last slice: still its own checkpoint
        (5.6, 0, 0),  # every iteration
    ],
)
def test_checkpoint_minutes__a_whole_number_of_checkpoints_a_slice(limit, every, expected):
    assert timing.checkpoint_minutes(limit, every) == pytest.approx(expected)
