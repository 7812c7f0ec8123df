"""The comparison's figures: one per measure, its curves against minutes of training and
against iterations, each arm's mean with its 95% band."""

from __future__ import annotations

import os
import re


def draw(rows: list[dict], output: str) -> list[str]:
    """Draws ``report.curves``' rows into ``output/curves_<measure>.png``; returns the
    file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for measure in dict.fromkeys(r["measure"] for r in rows):
        figure, panels = plt.subplots(1, 2, figsize=(11, 4), squeeze=False)
        for panel, axis in zip(panels[0], ("minutes", "iteration")):
            for arm in dict.fromkeys(r["arm"] for r in rows):
                mine = [r for r in rows if r["measure"] == measure and r["arm"] == arm
                        and r["axis"] == axis]  # fmt: skip
                if not mine:
                    continue
                x = [r["x"] for r in mine]
                scale = 1 if measure == "ladder" else 100
                line = panel.plot(x, [r["value"] * scale for r in mine], marker=".", label=arm)
                panel.fill_between(
                    x,
                    [r["low"] * scale for r in mine],
                    [r["high"] * scale for r in mine],
                    color=line[0].get_color(),
                    alpha=0.2,
                )
            panel.set_xlabel("training minutes" if axis == "minutes" else "iteration")
            panel.set_ylabel("Elo" if measure == "ladder" else f"{measure} (%)")
            panel.grid(alpha=0.3)
        panels[0][0].legend()
        figure.suptitle(f"{measure}: mean over seeds, 95% interval")
        figure.tight_layout()
        name = file_name(measure)
        figure.savefig(os.path.join(output, name), dpi=100)
        plt.close(figure)
        names.append(name)
    return names


def file_name(measure: str) -> str:
    """The figure of ``measure``: ``curves_<measure>.png``, the name made of its words."""
    return "curves_" + re.sub(r"[^A-Za-z0-9]+", "_", measure).strip("_") + ".png"
