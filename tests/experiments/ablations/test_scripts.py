"""The ablation scripts (experiments/ablations/*.sh): every arm they hand
``alphazero-compare`` builds a config that training accepts, so that a comparison of
hours does not stop at its first slice of an arm; the Connect Four hour runs train exactly the
screen's arms; the other games' `stages` rise as Connect Four's does and their `lean64` is
`make train`'s recipe on their presets; and an unknown arm or game is refused in one line.

Each script runs with ``BIN`` set to a stand-in for ``alphazero-compare`` that prints the
arguments it gets, one a line."""

import pathlib
import shutil
import subprocess

import pytest

from alphazero_jax import configs
from alphazero_jax.cli import compare_flags
from alphazero_jax.compare import arms

SCRIPTS = pathlib.Path(__file__).parents[3] / "experiments" / "ablations"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture(name="bin_dir")
def _bin_dir(tmp_path):
    stand_in = tmp_path / "alphazero-compare"
    stand_in.write_text('#!/usr/bin/env bash\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
    stand_in.chmod(0o755)
    return tmp_path


def _arguments(bin_dir, script: str, *arguments: str) -> list[str]:
    done = subprocess.run(
        ["bash", str(SCRIPTS / script), *arguments],
        env={"BIN": str(bin_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def _arms(lines: list[str]) -> list[arms.Arm]:
    return [
        arms.parse_arm(line.removeprefix("--arm=")) for line in lines if line.startswith("--arm=")
    ]


@pytest.mark.parametrize(
    ("script", "arguments", "count"),
    [
        ("connect_four_screen.sh", ("out",), 26),
        ("connect_four_hour.sh", ("out", "stages", "merge", "reply", "score"), 6),
        (
            "connect_four_hour.sh",
            ("out", "--reference=lean64_hour", "lean64_rising", "lean64_replay"),
            4,
        ),
        (
            "connect_four_hour.sh",
            ("out", "--apart", "--reference=lean64_hour", "lean64_rising", "lean64_outcome"),
            3,
        ),
        ("quoridor_wall_game.sh", ("5x5", "out"), 6),
        ("quoridor_wall_game.sh", ("9x9", "out"), 7),
        ("games_lean64.sh", ("othello", "out"), 4),
        ("games_lean64.sh", ("quoridor", "out"), 4),
    ],
)
def test_ablation_script__every_arm_builds_a_config_training_accepts(
    bin_dir, script, arguments, count
):
    found = _arms(_arguments(bin_dir, script, *arguments))
    assert len(found) == count
    assert len({arm.name for arm in found}) == count
    for arm in found:
        config = compare_flags.build_config(arm)
        compare_flags._checked(arm, config)  # ValueError, naming the arm, if not


def test_ablation_hour__trains_the_screens_arms_and_all_of_them_together(bin_dir):
    screen = {arm.name: arm for arm in _arms(_arguments(bin_dir, "connect_four_screen.sh", "out"))}
    hour = _arguments(
        bin_dir, "connect_four_hour.sh", "out", "reply", "score", "--", "--max_slices=1"
    )
    found = {arm.name: arm for arm in _arms(hour)}
    assert list(found) == ["preset", "reply", "score", "together"]
    for name in ("preset", "reply", "score"):
        assert found[name] == screen[name]
    assert "--seeds=0,1" in hour and "--minutes=60" in hour and hour[-1] == "--max_slices=1"
    together = found["together"].overrides
    assert "network.reply_head=True" in together and "network.score_head=True" in together
    # One weight for each head's loss term, in one setting.
    assert [o for o in together if "aux_weights" in o] == [
        "learner.aux_weights={'reply':0.15,'score':0.5}"
    ]
    # A setting two arms share goes in once.
    arms = _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "gumbel_jl", "openings"))
    (both,) = [a for a in arms if a.name == "together"]
    assert both.overrides == screen["gumbel_jl"].overrides
    one = _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "stages"))
    assert [arm.name for arm in one] == ["preset", "stages"]  # no `together` of one arm


def test_ablation_hour__together_alone_is_the_preset_and_the_arms_together(bin_dir):
    both = _arguments(bin_dir, "connect_four_hour.sh", "out", "reply", "score")
    pair = _arguments(
        bin_dir, "connect_four_hour.sh", "out", "--together", "reply", "score", "--", "--seeds=0"
    )
    assert [arm.name for arm in _arms(pair)] == ["preset", "together"]
    assert _arms(pair) == [a for a in _arms(both) if a.name in ("preset", "together")]
    # absl keeps a flag's last value: the pair trains seed 0 only.
    assert pair[-1] == "--seeds=0"


def _value(config, key):  # a dict whether the config file's parser made it one or not
    import functools

    found = functools.reduce(getattr, key.split("."), config)
    return found.to_dict() if hasattr(found, "to_dict") else found


def _changes(config, reference) -> dict:
    from alphazero_jax.configs import settings

    return {
        key: _value(config, key)
        for key, _ in settings.leaves()
        if _value(config, key) != _value(reference, key)
    }


def test_ablation_hour__over_a_reference_each_arm_changes_one_thing_of_it_and_together_all(bin_dir):
    """``--reference=lean64_hour``: that arm in the preset's place, each arm after it
    differing from it in the settings its comment names only, and ``together`` in all of
    them at once."""
    lines = _arguments(
        bin_dir, "connect_four_hour.sh", "out", "--reference=lean64_hour",
        "lean64_rising", "lean64_outcome", "lean64_replay",
    )  # fmt: skip
    found = {arm.name: compare_flags.build_config(arm) for arm in _arms(lines)}
    assert list(found) == ["lean64_hour", "lean64_rising", "lean64_outcome", "lean64_replay",
                           "together"]  # fmt: skip
    reference = found["lean64_hour"]
    rising = {"selfplay.simulation_stages": ((0, 16), (120, 32)), "num_iterations": 165}
    outcome = {"selfplay.root_value_weight": 0.0}
    replay = {"replay.capacity": 400_000}
    assert _changes(found["lean64_rising"], reference) == rising
    assert _changes(found["lean64_outcome"], reference) == outcome
    assert _changes(found["lean64_replay"], reference) == replay
    assert _changes(found["together"], reference) == rising | outcome | replay
    updates16 = _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "--reference=lean64_hour",
                                 "lean64_updates16"))  # fmt: skip
    assert [arm.name for arm in updates16] == ["lean64_hour", "lean64_updates16"]
    assert _changes(compare_flags.build_config(updates16[1]), reference) == {
        "learner.updates_per_iteration": 16, "num_iterations": 220,
    }  # fmt: skip
    deep = _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "--reference=lean64_hour",
                            "lean64_deep"))  # fmt: skip
    assert _changes(compare_flags.build_config(deep[1]), reference) == {
        "network.channels": 48, "network.blocks": 6, "network.value_hidden": 48,
    }  # fmt: skip
    apart = ("connect_four_hour.sh", "out", "--apart", "--reference=lean64_hour")
    heads = _arms(_arguments(bin_dir, *apart, "lean64_score", "lean64_reply"))
    assert [arm.name for arm in heads] == ["lean64_hour", "lean64_score", "lean64_reply"]
    assert _changes(compare_flags.build_config(heads[1]), reference) == {
        "network.score_head": True, "learner.aux_weights": {"score": 0.5},
    }  # fmt: skip
    assert _changes(compare_flags.build_config(heads[2]), reference) == {
        "network.reply_head": True, "learner.aux_weights": {"reply": 0.15},
    }  # fmt: skip
    openings = _arms(_arguments(bin_dir, *apart, "lean64_open4", "lean64_open8"))
    assert [arm.name for arm in openings] == ["lean64_hour", "lean64_open4", "lean64_open8"]
    for arm, plies in zip(openings[1:], (4, 8), strict=True):
        assert _changes(compare_flags.build_config(arm), reference) == {
            "opening.random_plies": plies,
        }  # fmt: skip
    sigma = _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "--reference=lean64_hour",
                             "lean64_sigma"))  # fmt: skip
    assert [arm.name for arm in sigma] == ["lean64_hour", "lean64_sigma"]
    assert _changes(compare_flags.build_config(sigma[1]), reference) == {
        "search.value_scale": 0.2,
    }  # fmt: skip
    apart = _arguments(
        bin_dir, "connect_four_hour.sh", "out", "--apart", "--reference=lean64_hour",
        "lean64_rising", "lean64_outcome", "lean64_replay",
    )  # fmt: skip
    assert _arms(apart) == [a for a in _arms(lines) if a.name != "together"]
    # The reference is the arm as the screen trains it.
    screen = {arm.name: arm for arm in _arms(_arguments(bin_dir, "connect_four_screen.sh", "out"))}
    assert _arms(lines)[0] == screen["lean64_hour"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (("out", "bogus"), "Unknown Connect Four ablation arm 'bogus': expected one of gumbel_jl"),
        (("out", "--reference=bogus", "stages"), "Unknown Connect Four ablation arm 'bogus'"),
        (
            ("out", "--reference=lean64_hour", "lean64_hour"),
            "Arm 'lean64_hour' is the reference already; name the arms to compare with it.",
        ),
        (("out",), "Give at least one arm after the output directory"),
        (("out", "--together", "stages"), "--together needs two or more arms; got 1: stages."),
        (("out", "--together", "stages", "bogus"), "Unknown Connect Four ablation arm 'bogus'"),
        (("out", "--apart", "--together", "a", "b"), "--together and --apart exclude each other"),
        (
            ("out", "gumbel_jl", "forced"),
            "Arms gumbel_jl forced cannot go together: they set search.policy to two values "
            "(gumbel and puct_forced).",
        ),
    ],
)
def test_ablation_hour__refuses_in_one_line(bin_dir, arguments, expected):
    done = subprocess.run(
        ["bash", str(SCRIPTS / "connect_four_hour.sh"), *arguments],
        env={"BIN": str(bin_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(expected)


@pytest.mark.parametrize("game", ["othello", "quoridor"])
def test_ablation_games__stages_rise_to_the_presets_budget_as_connect_fours_do(bin_dir, game):
    found = {arm.name: arm for arm in _arms(_arguments(bin_dir, "games_lean64.sh", game, "out"))}
    assert list(found) == ["preset", "stages", "score", "lean64"]
    preset = compare_flags.build_config(found["preset"])
    stages = compare_flags.build_config(found["stages"]).selfplay.simulation_stages
    full, iterations = preset.search.num_simulations, preset.num_iterations
    # Connect Four's arm: 16, 32, 64 of the preset's 64 from iterations 0, 60 and 150 of 480.
    connect_four = compare_flags.build_config(
        _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "stages"))[1]
    ).selfplay.simulation_stages
    assert [tuple(s) for s in connect_four] == [(0, 16), (60, 32), (150, 64)]
    assert [s for _, s in stages] == [full // 4, full // 2, full]
    # From the same fractions of the schedule, to the nearest iteration.
    for (start, _), (c4_start, _) in zip(stages, connect_four, strict=True):
        assert abs(start - c4_start * iterations / 480) <= 0.5


@pytest.mark.parametrize("game", ["othello", "quoridor"])
def test_ablation_games__lean64_is_make_trains_recipe_on_the_games_preset(bin_dir, game):
    found = {arm.name: arm for arm in _arms(_arguments(bin_dir, "games_lean64.sh", game, "out"))}
    preset = compare_flags.build_config(found["preset"])
    lean = compare_flags.build_config(found["lean64"])
    connect_four = configs.get_config("connect_four", "cpu")
    # Connect Four's `cpu`: Gumbel, every move searched with 16 of its 64 simulations and
    # kept, sampled to the game's end, on the 64 x 4 network.
    assert [tuple(s) for s in connect_four.selfplay.simulation_stages] == [(0, 16)]
    assert connect_four.search.num_simulations == 64
    assert lean.search.policy == "gumbel"
    assert [tuple(s) for s in lean.selfplay.simulation_stages] == [
        (0, preset.search.num_simulations // 4)
    ]
    assert lean.search.num_simulations == preset.search.num_simulations  # judged as the preset
    assert lean.budget.kind == "full"
    assert lean.selfplay.num_sampling_moves >= lean.selfplay.num_moves
    assert lean.network.to_dict() == connect_four.network.to_dict()
    assert lean.learner.to_dict() == preset.learner.to_dict()
    assert lean.replay.to_dict() == preset.replay.to_dict()
    # Random starts where the preset has none; Quoridor's handicap openings stay.
    if game == "othello":
        assert (lean.opening.kind, lean.opening.random_plies) == ("random", 2)
    else:
        assert lean.opening.to_dict() == preset.opening.to_dict()
        assert (lean.opening.kind, lean.opening.handicap_moves) == ("handicap", 3)


def test_ablation_games__arms_named_are_the_preset_and_those_and_flags_pass_through(bin_dir):
    lines = _arguments(bin_dir, "games_lean64.sh", "othello", "out", "lean64", "--seeds=0,1")
    assert [arm.name for arm in _arms(lines)] == ["preset", "lean64"]
    assert lines[-1] == "--seeds=0,1"
    after = _arguments(
        bin_dir, "games_lean64.sh", "quoridor", "out", "score", "--", "--max_slices=1"
    )
    assert [arm.name for arm in _arms(after)] == ["preset", "score"]
    assert after[-1] == "--max_slices=1"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (("othello", "out", "wider"), "Unknown arm 'wider' of games_lean64.sh: expected stages, "
         "score or lean64.\n"),
        (("chess", "out"), "Unknown game 'chess': expected othello or quoridor.\n"),
    ],
)  # fmt: skip
def test_ablation_games__refuses_an_unknown_arm_or_game_in_one_line(bin_dir, arguments, expected):
    done = subprocess.run(
        ["bash", str(SCRIPTS / "games_lean64.sh"), *arguments],
        env={"BIN": str(bin_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == expected


def test_connect_four_cpu__is_the_arm_lean64_hour_but_for_its_schedule_and_evaluations(bin_dir):
    """``make train``'s preset is the ablation arm it was chosen from: every setting of
    ``lean64_hour`` as connect_four_hour.sh hands it to the runner (its overrides on
    ``playout_cap``), but for the number of iterations, the evaluations' cadence, the
    search's sigma when the trained network plays and its budget (where it stops)."""
    found = {
        arm.name: arm
        for arm in _arms(_arguments(bin_dir, "connect_four_hour.sh", "out", "lean64_hour"))
    }
    measured = compare_flags.build_config(found["lean64_hour"])
    cpu = configs.get_config("connect_four", "cpu")
    assert _changes(measured, cpu) == {
        "num_iterations": 180,
        "evaluation.every": 20,
        "search.play_value_scale": 0.0,  # how the trained network plays, not how it trains
        "time_limit_minutes": 0.0,  # the budget: where the run stops, not how it trains
        "evaluation.final": False,
    }
