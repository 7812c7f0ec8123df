r"""Runs judged against perfect play, drawn together against training time.

    python -m experiments.strength.perfect_play.compare --runs=puct=runs/a,gumbel=runs/b \
        --output=runs/cmp

Each run (``label=workdir``, or a workdir labelled by its name) must have been judged by
``experiments.strength.perfect_play.checkpoints``. It draws their mistake rates against
training time on one figure, a panel per set (``mistake_curves.png``), with a Markdown
table of each run's rates at every checkpoint (``mistake_curves.md``): the curves training
settings are compared on (runs made on the same machine under the same load).
"""

from __future__ import annotations

import json
import os

from absl import flags

from alphazero_jax.cli import common as cli
from experiments.strength.perfect_play import common

_RUNS = flags.DEFINE_list("runs", None, "Judged runs to draw together: [label=]workdir.")
_OUTPUT = common.define_output("runs/compare_c4")
flags.mark_flag_as_required("runs")

CURVES_PLOT, CURVES_TABLE = "mistake_curves.png", "mistake_curves.md"


def curves_table(curves: dict[str, list[dict]]) -> str:
    """Markdown: a row per run and checkpoint, its minutes of training and mistake rates."""
    titles = {  # set name -> title, in the order the sets first appear
        n: r["perfect_play"][n]["title"]
        for rs in curves.values()
        for r in rs
        for n in r["perfect_play"]
    }
    sets = list(titles)
    lines = [
        "| run | iteration | minutes | " + " | ".join(titles[n] for n in sets) + " |",
        "| --- | ---: | ---: | " + " | ".join("---:" for _ in sets) + " |",
    ]
    for label, records in curves.items():
        for record in sorted(records, key=lambda r: r["iteration"]):
            minutes = f"{record['seconds'] / 60:.1f}" if "seconds" in record else "?"
            rates = [
                f"{record['perfect_play'][n]['mistake_rate']:.1%}"
                if n in record["perfect_play"]
                else ""
                for n in sets
            ]
            lines.append(
                f"| {label} | {record['iteration']} | {minutes} | " + " | ".join(rates) + " |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    from alphazero_jax.training import plots

    cli.begin(argv)
    curves = {}
    for spec in _RUNS.value:
        label, _, workdir = spec.rpartition("=")
        path = os.path.join(workdir, common.CHECKPOINTS_FILE)
        if not os.path.exists(path):
            cli.fail(
                f"--runs: {path} does not exist; judge the run first with "
                f"python -m experiments.strength.perfect_play.checkpoints --run={workdir}."
            )
        with open(path) as file:
            curves[label or os.path.basename(os.path.normpath(workdir))] = json.load(file)
    os.makedirs(_OUTPUT.value, exist_ok=True)
    figure_path = os.path.join(_OUTPUT.value, CURVES_PLOT)
    plots.plot_mistake_curves(curves, figure_path)
    table = curves_table(curves)
    with open(os.path.join(_OUTPUT.value, CURVES_TABLE), "w") as file:
        file.write(table + "\n")
    print(table + f"\n\nWrote {figure_path} and {CURVES_TABLE} beside it")


if __name__ == "__main__":
    cli.run(main, __name__)
