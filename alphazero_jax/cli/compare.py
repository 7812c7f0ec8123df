r"""Compares training settings: arms x seeds, the same budget each, every checkpoint judged.

    alphazero-compare --output=runs/compare_ttt --seeds=0,1 --iterations=30 \
        --arm="base=tic_tac_toe:cpu" \
        --arm="wide=tic_tac_toe:cpu --config.search.c_puct=2.5"

(``python -m alphazero_jax.cli.compare`` is the same program.) An arm is
``NAME=GAME:PRESET`` (or ``NAME=FILE.py[:ARG]``) followed by ``--config.KEY=VALUE``
overrides, as ``alphazero-train`` takes them. The budget is ``--minutes`` of training time
(self-play and learner, compilation left out) or ``--iterations``. The units (arm, seed)
take turns in slices of ``--slice_minutes``, the least-trained first, and each unit's new
checkpoints are judged between slices (``--judges``: perfect play for Connect Four, the
oracle for Tic-Tac-Toe, an anchor ladder for any game). Out come ``report.md``, curves
(``curves.csv``, ``curves.json``, ``curves_*.png``) with 95% intervals over seeds and
positions, tables at equal time and equal iterations, and each arm's paired verdict against
the first arm; the report is printed too. ``record.json`` keeps the comparison as data (its
plan, every judgement, the curves' points and the tables' rows: ``compare/record.py``),
small enough to commit; ``--title``, ``--question``, ``--source``, ``--machine`` and
``--kept`` fill its descriptive fields. Rerunning the same command continues where it
stopped; another plan for the same ``--output`` is refused (arms may be appended).
``--reuse=DIR`` takes over each unit that a comparison in DIR trained and judged exactly
as this one would, instead of training it again (a reference arm that several comparisons
share). ``--report_only`` writes and prints the report of what ``--output`` holds so far,
from its ``plan.json`` (with ``--arm`` flags, those must be its plan), training and judging
nothing: it reads a comparison that is running in another process. A bad
flag or arm prints one line, ``error: ...``, and exits with status 2 (docs/compare.md).
"""

from __future__ import annotations

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli import compare_flags

_FLAGS = compare_flags.define()


def main(argv: list[str]) -> None:
    cli.begin(argv)
    from alphazero_jax.compare import arms, judges, outputs, reuse, runner
    from alphazero_jax.compare import plan as plans

    if _FLAGS.report_only.value:
        output = _FLAGS.output.value
        try:
            plan = compare_flags.saved_plan(output, _FLAGS)
            about = compare_flags.about(_FLAGS, plan)
        except (arms.ArmError, ValueError) as error:
            cli.fail(error)
        print(outputs.write(output, plan, compare_flags.saved_ratings(output), about))
        return
    try:
        plan, game = compare_flags.read_plan(_FLAGS)
        sources = reuse.read_sources(_FLAGS.reuse.value)  # ReuseError: a ValueError
        about = compare_flags.about(_FLAGS, plan)
    except (arms.ArmError, ValueError) as error:
        cli.fail(error)
    output = cli.writable_directory(_FLAGS.output.value, "output")
    different = plans.read_or_write(output, plan)
    if different:
        cli.fail(different)
    ratings = None
    if judges.LADDER in plan.judges:
        ratings = compare_flags.anchor_ratings(output, plan, game)
    from alphazero_jax.configs import ConfigError
    from alphazero_jax.training import train
    from alphazero_jax.training.session import TrainingError

    if sources:
        reuse.take_over(
            plan,
            output,
            sources,
            unit_config=lambda arm, seed: runner.unit_config(
                plan, compare_flags.build_config, arm, seed
            ),
        )
    print(f"Comparing {len(plan.arms)} arms x {len(plan.seeds)} seeds in {output}: "
          f"{plan.budget.describe()} each, judged by {', '.join(plan.judges)}")  # fmt: skip
    try:
        done = runner.run(
            plan,
            output,
            config_fn=compare_flags.build_config,
            train_fn=train.train_and_evaluate,
            judge_fn=runner.make_judge_fn(plan),
            max_slices=_FLAGS.max_slices.value,
        )
    except KeyboardInterrupt:
        print("Interrupted; run the same command to go on.")
        done = False
    except ConfigError as error:
        cli.fail(error)
    except TrainingError as error:  # a non-finite loss, a full disk: one line, status 1
        cli.fail(error, status=1)
    print(outputs.write(output, plan, ratings, about))
    if not done:
        print("(not finished: the report covers what is judged so far)")


def run() -> None:
    """The ``alphazero-compare`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
