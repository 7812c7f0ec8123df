"""``alphazero-compare``'s flags, and turning them into a ``compare.plan.Plan``: each arm's
config built as ``alphazero-train`` builds it, the judges and anchors checked, the
anchors' ratings computed once and kept in the output directory."""

from __future__ import annotations

import os
import types

from absl import flags

from alphazero_jax.cli import common as cli

flags.disclaim_key_flags()  # the flags belong to the program that asks for them


def define() -> types.SimpleNamespace:
    """Defines the program's flags; returns their holders by name."""
    d = flags
    return types.SimpleNamespace(
        arm=d.DEFINE_multi_string(
            "arm", None, "An arm, repeated: NAME=GAME:PRESET [--config.KEY=VALUE ...]."
        ),
        seeds=d.DEFINE_list("seeds", ["0"], "The seeds every arm is trained on."),
        minutes=d.DEFINE_float("minutes", 0.0, "Budget: minutes of training time per unit."),
        iterations=d.DEFINE_integer("iterations", 0, "Budget: iterations per unit instead."),
        slice_minutes=d.DEFINE_float(
            "slice_minutes",
            0.0,
            "Training time a unit gets per turn (0: a tenth of --minutes, at least 1; "
            "under --iterations, 5).",
        ),
        checkpoint_minutes=d.DEFINE_float(
            "checkpoint_minutes", 0.0, "Minutes between checkpoints (0: the arms' own)."
        ),
        judges=d.DEFINE_list("judges", None, "perfect_play, oracle, ladder (default: by game)."),
        simulations=cli.define_simulations("The judges play every checkpoint with it."),
        sets=d.DEFINE_list("sets", None, "Perfect-play sets (default: all)."),
        positions=d.DEFINE_integer("positions", 0, "First positions of each set (0: all)."),
        anchors=d.DEFINE_list(
            "anchors", None, "Ladder anchors (default: the first arm's evaluation.opponents)."
        ),
        anchor_games=d.DEFINE_integer("anchor_games", 64, "Games per pair of anchors."),
        ladder_games=d.DEFINE_integer("ladder_games", 32, "Games of a checkpoint per anchor."),
        judge_seed=d.DEFINE_integer("judge_seed", 0, "The judges' randomness."),
        output=d.DEFINE_string("output", None, "The comparison's directory.", required=True),
        reuse=d.DEFINE_list(
            "reuse",
            [],
            "Other comparisons' output directories: a unit without a run takes over one "
            "of theirs that trained and was judged exactly as it would be (same config, "
            "seed, budget and judges), instead of training again.",
        ),
        max_slices=d.DEFINE_integer("max_slices", 0, "Stop after this many slices (0: never)."),
        title=d.DEFINE_string("title", "", "The record's title (default: its arms and game)."),
        question=d.DEFINE_string("question", "", "The record's question, one sentence."),
        source=d.DEFINE_string("source", "", "The paper the idea comes from: author year."),
        machine=d.DEFINE_string("machine", "", "The machine, in words (default: this one's)."),
        kept=d.DEFINE_list("kept", [], "The arms the preset kept (the record's kept)."),
        report_only=d.DEFINE_bool(
            "report_only",
            False,
            "Write and print the report of what --output holds so far (its plan.json), "
            "training and judging nothing; safe while the comparison runs.",
        ),
    )


def build_config(arm, extra: tuple[str, ...] = ()):
    """The training config of ``arm`` with its overrides, then ``extra`` ones (the
    runner's), parsed as ``alphazero-train --config`` parses them.

    Raises:
      compare.arms.ArmError: an unknown game, preset or file, a key the config lacks, a
        bad value; one line.
    """
    from ml_collections import config_flags

    from alphazero_jax.cli import config_flag
    from alphazero_jax.compare.arms import ArmError

    argv = ["compare", f"--config={arm.config}", *(f"--config.{o}" for o in arm.overrides + extra)]
    values = flags.FlagValues()
    config_flags.DEFINE_config_file("config", None, "arm", flag_values=values, sys_argv=argv)
    values["config"].parser = config_flag._PresetParser(values["config"].parser)
    try:
        values(argv)
        config = values.config
        config.to_dict()  # a file that failed to load raises here, on first use
    except (AttributeError, KeyError) as error:  # an override's unknown key
        while error.args and isinstance(error.args[0], Exception):
            error = error.args[0]
        detail = error.args[0] if error.args else error
        raise ArmError(
            f"arm {arm.name}: an override names no key of {arm.config}: {detail}"
        ) from None
    except (flags.Error, OSError, ValueError) as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [repr(error)]
        detail = " ".join(dict.fromkeys([lines[0], lines[-1]]))
        raise ArmError(f"arm {arm.name}: {detail}") from None
    return config


def _checked(arm, config):
    """``config``, checked as training will check it (ConfigError: one line)."""
    import jax

    from alphazero_jax.configs import plan

    try:
        plan.read(config, num_devices=jax.local_device_count())
    except ValueError as error:
        raise ValueError(f"arm {arm.name}: {error}") from None
    return config


def _ints(values: list[str], flag: str) -> tuple[int, ...]:
    if not values or not all(v.strip().isdigit() for v in values):
        raise ValueError(f"--{flag}: expected integers >= 0 such as 0,1; got {values}.")
    return tuple(int(v) for v in values)


def read_plan(holders: types.SimpleNamespace):
    """``(plan, game)`` of the flags.

    Raises:
      ValueError: (``ArmError`` too) a flag or arm that cannot be used; one line.
    """
    from alphazero_jax import games
    from alphazero_jax.compare import arms, judges, plan, timing

    if not holders.arm.value:
        raise ValueError("--arm: expected at least one arm, NAME=GAME:PRESET [--config.K=V].")
    parsed = tuple(arms.parse_arm(text) for text in holders.arm.value)
    names = [arm.name for arm in parsed]
    if len(set(names)) != len(names):
        raise ValueError(f"--arm: expected distinct arm names, got {names}.")
    extra = (f"num_iterations={holders.iterations.value}",) if holders.iterations.value > 0 else ()
    configs = [_checked(arm, build_config(arm, extra)) for arm in parsed]
    made = {(c.game.name, tuple(sorted(c.game.settings.to_dict().items()))) for c in configs}
    if len(made) != 1:
        raise ValueError(f"--arm: every arm must play the same game, got {sorted(made)}.")
    game = games.make(configs[0].game.name, **configs[0].game.settings)
    minutes, iterations = holders.minutes.value, holders.iterations.value
    if (minutes > 0) == (iterations > 0) or minutes < 0 or iterations < 0:
        raise ValueError(
            f"expected one budget, --minutes > 0 or --iterations > 0; got --minutes={minutes} "
            f"and --iterations={iterations}."
        )
    slice_minutes = holders.slice_minutes.value or (max(minutes / 10, 1.0) if minutes else 5.0)
    if slice_minutes <= 0 or holders.checkpoint_minutes.value < 0:
        raise ValueError("--slice_minutes and --checkpoint_minutes: expected numbers > 0.")
    chosen = tuple(holders.judges.value or judges.default_judges(game))
    judges.check_judges(game, chosen)
    anchors = tuple(holders.anchors.value or configs[0].evaluation.opponents)
    if judges.LADDER not in chosen:
        anchors = ()
    result = plan.Plan(
        arms=parsed,
        seeds=_ints(holders.seeds.value, "seeds"),
        budget=timing.Budget(minutes=minutes, iterations=iterations),
        slice_minutes=slice_minutes,
        checkpoint_minutes=holders.checkpoint_minutes.value,
        judges=chosen,
        simulations=holders.simulations.value,
        sets=tuple(holders.sets.value or ()),
        positions=holders.positions.value,
        anchors=anchors,
        anchor_games=holders.anchor_games.value,
        ladder_games=holders.ladder_games.value,
        judge_seed=holders.judge_seed.value,
    )
    _check_judging(result, game)
    return result, game


def saved_plan(output: str, holders: types.SimpleNamespace | None = None):
    """The plan kept in ``output`` (``--report_only``), which reads a comparison as far as
    it has gone, also while it runs. With ``holders`` whose ``--arm`` flags are given, the
    plan they make must be the saved one (or append arms to it: the report covers the
    saved arms).

    Raises:
      ValueError: no comparison there, a plan.json that cannot be read, or flags of
        another plan; one line.
    """
    import json

    from alphazero_jax.compare import plan as plans

    path = os.path.join(output, plans.PLAN_FILE)
    if not os.path.isfile(path):
        raise ValueError(
            f"--report_only: expected a comparison's directory in --output, but {output} "
            f"holds no {plans.PLAN_FILE}."
        )
    try:
        with open(path) as file:
            saved = json.load(file)
        plan = plans.Plan.from_dict(saved)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"--report_only: {path} cannot be read as a plan ({error}).") from None
    if holders is not None and holders.arm.value:
        different = plans.check_same(saved, read_plan(holders)[0])
        if different:
            raise ValueError(different)
    return plan


def saved_ratings(output: str) -> dict[str, float] | None:
    """The anchors' ratings kept in ``output``, None if they were never computed."""
    import json

    from alphazero_jax.compare import plan as plans

    path = os.path.join(output, plans.ANCHORS_FILE)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return json.load(file)["ratings"]


def _check_judging(plan, game) -> None:
    from alphazero_jax import agents
    from alphazero_jax.solvers import benchmark_sets

    for name in plan.sets:
        benchmark_sets.check_set(name)
    for spec in plan.anchors:
        agents.from_spec(game, spec)  # SpecError (a ValueError): one line
    for flag, count in (("anchor_games", plan.anchor_games), ("ladder_games", plan.ladder_games)):
        if count < 2 or count % 2:
            raise ValueError(f"--{flag}: expected an even number >= 2, got {count}.")
    if plan.anchors and len(plan.anchors) < 2:
        raise ValueError(f"--anchors: expected at least two anchors, got {list(plan.anchors)}.")


def anchor_ratings(output: str, plan, game) -> dict[str, float]:
    """The anchors' ratings, from ``anchors.json`` in ``output`` or, the first time, from a
    round robin among them (then kept there)."""
    from alphazero_jax.compare import judges
    from alphazero_jax.compare import plan as plans

    saved = saved_ratings(output)
    if saved is not None:
        return saved
    path = os.path.join(output, plans.ANCHORS_FILE)
    print(f"Rating the anchors {', '.join(plan.anchors)} ({plan.anchor_games} games a pair)...")
    ratings, results = judges.anchor_ratings(
        game, plan.anchors, games_per_pair=plan.anchor_games, seed=plan.judge_seed
    )
    for result in results:
        print("  " + result.summary())
    print("  ratings: " + ", ".join(f"{name} {value:.0f}" for name, value in ratings.items()))
    plans.write_json(path, {"anchors": list(plan.anchors), "ratings": ratings})
    return ratings


def about(holders: types.SimpleNamespace, plan) -> dict:
    """The record's descriptive fields from the flags (``record.from_report``); an arm of
    ``--kept`` is kept, the others not, and with no ``--kept`` none is decided."""
    kept = holders.kept.value
    names = [arm.name for arm in plan.arms]
    unknown = [name for name in kept if name not in names]
    if unknown:
        raise ValueError(f"--kept: expected arms of the plan ({', '.join(names)}), got {unknown}")
    return dict(
        title=holders.title.value,
        question=holders.question.value,
        source=holders.source.value,
        machine=holders.machine.value,
        kept={name: (name in kept) if kept else None for name in names},
    )
