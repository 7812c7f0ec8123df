r"""Runs judged against perfect play, drawn together against training time.

    alphazero-judge curves --workdir=puct=runs/a,gumbel=runs/b \
        --output=runs/cmp

Each run of ``--workdir`` (``label=run``, or a run directory labelled by its name) must
have been judged by
``alphazero-judge checkpoints``. It draws their mistake rates against
training time on one figure, a panel per set (``mistake_curves.png``), with a Markdown
table of each run's rates at every checkpoint (``mistake_curves.md``): the curves training
settings are compared on (runs made on the same machine under the same load).
"""

from __future__ import annotations

import json
import os

from absl import flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_WORKDIR = flags.DEFINE_list(
    "workdir",
    None,
    "The judged run directories to draw together, each [label=]<run>, comma-separated.",
    required=True,
)
_OUTPUT = common.define_output("runs/compare_c4")
cli.define_old_name("runs", "workdir")

CURVES_PLOT, CURVES_TABLE = "mistake_curves.png", "mistake_curves.md"


def main(argv: list[str]) -> None:
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.training import plots

    cli.begin(argv)
    curves = {}
    for spec in _WORKDIR.value:
        label, _, workdir = spec.rpartition("=")
        path = os.path.join(workdir, perfect_play.CHECKPOINTS_FILE)
        if not os.path.exists(path):
            cli.fail(
                f"--workdir: expected judged runs, but {path} does not exist; judge the run "
                f"first with alphazero-judge checkpoints --workdir={workdir}."
            )
        with open(path) as file:
            curves[label or os.path.basename(os.path.normpath(workdir))] = json.load(file)
    os.makedirs(_OUTPUT.value, exist_ok=True)
    figure_path = os.path.join(_OUTPUT.value, CURVES_PLOT)
    plots.plot_mistake_curves(curves, figure_path)
    table = perfect_play.curves_table(curves)
    with open(os.path.join(_OUTPUT.value, CURVES_TABLE), "w") as file:
        file.write(table + "\n")
    print(table + f"\n\nWrote {figure_path} and {CURVES_TABLE} beside it")


def run() -> None:
    """``alphazero-judge curves``."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
