"""What a comparison writes into its output directory, from what it judged so far: the
report (``report.md``), its curves (``curves.csv``, ``curves.json``, a figure per measure)
and the comparison's record (``record.json``, ``record``), the one a results page renders."""

from __future__ import annotations

import csv
import os

from alphazero_jax.compare import plan as plans
from alphazero_jax.compare import plots, record, report


def write(output: str, plan: plans.Plan, ratings: dict | None, about: dict | None = None) -> str:
    """Writes ``curves.csv``, ``curves.json``, ``report.md``, a figure per measure
    (``curves_<measure>.png``) and the comparison's record (``record.json``, with the
    descriptive fields ``about``: ``record.from_report``) into ``output``; returns the
    report's text."""
    points = report.load_points(output, plan)
    made = report.assemble(output, plan, ratings, points)
    if made is None:
        return "Nothing judged yet."
    rows = made.curves
    with open(os.path.join(output, "curves.csv"), "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plans.write_json(os.path.join(output, "curves.json"), rows)
    plots.draw(rows, output)
    text = report.render(plan, made)
    with open(os.path.join(output, "report.md"), "w") as file:
        file.write(text + "\n")
    made_record = record.from_report(output, plan, points, made, about or {})
    record.write(os.path.join(output, record.RECORD_FILE), made_record)
    return text
