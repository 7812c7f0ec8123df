"""PNG plots: a ladder of ratings, training's Elo curve by iteration and by wall time,
mistake rates against perfect play (by iteration, or of several agents), training's
losses, speed and where its time went, and TD-MCTS's win rate and table size by training
episode.

Drawn with matplotlib's Agg canvas (no display, no pyplot state) and written atomically;
every function also returns its ``Figure`` (a notebook shows it inline), and with
``path=None`` writes nothing.
Error bars and bands are 95%: ±1.96 standard errors, or Wilson intervals for rates.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from alphazero_jax.evaluation import elo

Z95 = 1.96
_HISTORY_KEYS = ("iteration", "seconds", "elo", "elo_stderr")


def _save(figure: Figure, path: str | None) -> Figure:
    """Writes ``figure`` as a PNG at ``path`` via ``path.tmp`` (never a half-written file),
    unless ``path`` is None; returns it."""
    FigureCanvasAgg(figure)
    if path is None:
        return figure
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    figure.savefig(path + ".tmp", format="png", dpi=120, bbox_inches="tight")
    os.replace(path + ".tmp", path)
    return figure


def plot_ladder(ladder: elo.Ladder, path: str | None, *, title: str = "") -> Figure:
    """Horizontal bars of each agent's rating with 95% error bars, best at the top.

    Args:
      ladder: ``elo.fit_ladder``'s ratings (best first).
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    ratings = ladder.ratings
    if not ratings:
        raise ValueError("plot_ladder: the ladder has no ratings; expected at least one.")
    values = np.array([r.rating for r in ratings])
    errors = Z95 * np.array([r.stderr for r in ratings])
    rows = np.arange(len(ratings))[::-1]  # the best (first) on the top row
    figure = Figure(figsize=(7, 1.2 + 0.45 * len(ratings)))
    ax = figure.add_subplot()
    ax.barh(rows, values, xerr=errors, color="tab:blue", alpha=0.8, capsize=3)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(rows, [r.name for r in ratings])
    for row, value, error in zip(rows, values, errors):
        ax.annotate(
            f"{value:.0f} ± {error:.0f}",
            (max(value + error, 0.0), row),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.margins(x=0.15)
    anchors = [r.name for r in ratings if r.stderr == 0.0 and r.rating == 0.0]
    ax.set_xlabel(f"Elo ({anchors[0]} = 0)" if len(anchors) == 1 else "Elo")
    ax.set_title(f"{title or 'Elo ladder'} (±1.96 stderr)")
    ax.grid(axis="x", alpha=0.3)
    return _save(figure, path)


def plot_elo_history(records: Sequence[Mapping], path: str | None, *, title: str = "") -> Figure:
    """Training's Elo against iteration and against wall time, each with a 95% band.

    Args:
      records: dicts with ``iteration``, ``seconds`` (training time so far), ``elo`` and
        ``elo_stderr``; optionally ``opponents``, ``{name: fixed rating}`` of baselines,
        drawn as labelled dashed lines (the latest record's value per name wins).
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    if not records:
        raise ValueError(
            "plot_elo_history: records is empty; expected at least one dict with keys "
            f"{', '.join(_HISTORY_KEYS)}."
        )
    for index, record in enumerate(records):
        missing = [key for key in _HISTORY_KEYS if key not in record]
        if missing:
            raise ValueError(
                f"plot_elo_history: record {index} lacks {', '.join(missing)}; expected keys "
                f"{', '.join(_HISTORY_KEYS)} (and optionally opponents), got {sorted(record)}."
            )
    records = sorted(records, key=lambda record: record["iteration"])
    elo_values = np.array([float(r["elo"]) for r in records])
    band = Z95 * np.array([float(r["elo_stderr"]) for r in records])
    opponents = {}
    for record in records:
        opponents.update(record.get("opponents") or {})
    seconds = np.array([float(r["seconds"]) for r in records])
    hours = seconds.max() >= 2 * 3600
    axes_x = {
        "iteration": np.array([r["iteration"] for r in records], dtype=float),
        "wall time (hours)" if hours else "wall time (minutes)": seconds / (3600 if hours else 60),
    }
    figure = Figure(figsize=(11, 4.2))
    for k, (label, x) in enumerate(axes_x.items()):
        ax = figure.add_subplot(1, 2, k + 1)
        if len(records) == 1:
            ax.errorbar(x, elo_values, yerr=band, fmt="o", capsize=4, color="tab:blue")
        else:
            ax.fill_between(x, elo_values - band, elo_values + band, color="tab:blue", alpha=0.2)
            ax.plot(x, elo_values, marker="o", markersize=3, color="tab:blue")
        for name, rating in opponents.items():
            ax.axhline(rating, color="gray", linestyle="--", linewidth=0.8)
            ax.text(
                1.0,
                rating,
                f"{name} ",
                transform=ax.get_yaxis_transform(),
                ha="right",
                va="bottom",
                fontsize=8,
                color="dimgray",
            )
        if label == "iteration":
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(label)
        ax.set_ylabel("Elo (random = 0)")
        ax.grid(alpha=0.3)
    figure.suptitle(f"{title or 'Elo during training'} (band: ±1.96 stderr)")
    return _save(figure, path)


def plot_mistake_rates(records: Sequence[Mapping], path: str | None, *, title: str = "") -> Figure:
    """Mistake rate against perfect play by iteration, one line per set, with the
    95% (Wilson) interval as a band; and the value accuracy when the records have it.

    Args:
      records: dicts with ``iteration`` and ``perfect_play``, ``{set name: dict}`` as
        ``perfect_play.SetResult.as_dict`` makes them; records without it are skipped.
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    records = sorted(
        (r for r in records if r.get("perfect_play")), key=lambda record: record["iteration"]
    )
    if not records:
        raise ValueError(
            "plot_mistake_rates: no record has 'perfect_play'; expected dicts with "
            "'iteration' and 'perfect_play' ({set: SetResult.as_dict()})."
        )
    sets = list(dict.fromkeys(name for r in records for name in r["perfect_play"]))
    has_value = any("value_accuracy" in s for r in records for s in r["perfect_play"].values())
    figure = Figure(figsize=(11 if has_value else 6, 4.2))
    mistakes_axes = figure.add_subplot(1, 2 if has_value else 1, 1)
    value_axes = figure.add_subplot(1, 2, 2) if has_value else None
    for name in sets:
        rows = [
            (r["iteration"], r["perfect_play"][name]) for r in records if name in r["perfect_play"]
        ]
        x = np.array([iteration for iteration, _ in rows], dtype=float)
        rate = 100 * np.array([s["mistake_rate"] for _, s in rows])
        low, high = (100 * np.array([s["interval"][i] for _, s in rows]) for i in (0, 1))
        label = f"{rows[-1][1]['title']} ({rows[-1][1]['positions']})"
        (line,) = mistakes_axes.plot(x, rate, marker="o", markersize=3, label=label)
        mistakes_axes.fill_between(x, low, high, color=line.get_color(), alpha=0.15)
        if value_axes is not None and "value_accuracy" in rows[-1][1]:
            accuracy = 100 * np.array([s.get("value_accuracy", np.nan) for _, s in rows])
            value_axes.plot(x, accuracy, marker="o", markersize=3, label=label)
    for axes, ylabel in (
        (mistakes_axes, "mistake rate (%)"),
        (value_axes, "value W/D/L accuracy (%)"),
    ):
        if axes is None:
            continue
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("iteration")
        axes.set_ylabel(ylabel)
        axes.set_ylim(bottom=0)
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8)
    figure.suptitle(f"{title or 'Against perfect play'} (band: 95% interval)")
    return _save(figure, path)


def plot_mistake_curves(
    runs: Mapping[str, Sequence[Mapping]], path: str | None, *, title: str = ""
) -> Figure:
    """Several runs' mistake rates against their training time: one panel per set, one
    line per run, with the 95% (Wilson) interval as a band. The curves a comparison of
    training settings is judged on (same machine, same load for every run).

    Args:
      runs: ``{run label: records}``, each record a dict with ``seconds`` (the run's
        training time at that checkpoint) and ``perfect_play`` (``{set name:
        SetResult.as_dict()}``), as ``alphazero-judge checkpoints`` writes
        them.
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    curves = {
        label: sorted(
            (r for r in records if r.get("perfect_play") and "seconds" in r),
            key=lambda record: record["seconds"],
        )
        for label, records in runs.items()
    }
    empty = [label for label, records in curves.items() if not records]
    if not curves or empty:
        raise ValueError(
            f"plot_mistake_curves: expected records with 'seconds' and 'perfect_play' for "
            f"every run; none for {empty or 'any run'}."
        )
    sets = list(
        dict.fromkeys(n for records in curves.values() for r in records for n in r["perfect_play"])
    )
    figure = Figure(figsize=(4.2 * len(sets), 4.0), layout="constrained")
    for index, name in enumerate(sets):
        axes = figure.add_subplot(1, len(sets), index + 1)
        for label, records in curves.items():
            rows = [
                (r["seconds"], r["perfect_play"][name])
                for r in records
                if name in r["perfect_play"]
            ]
            if not rows:
                continue
            minutes = np.array([seconds / 60 for seconds, _ in rows])
            rate = 100 * np.array([s["mistake_rate"] for _, s in rows])
            low, high = (100 * np.array([s["interval"][i] for _, s in rows]) for i in (0, 1))
            (line,) = axes.plot(minutes, rate, marker="o", markersize=3, label=label)
            axes.fill_between(minutes, low, high, color=line.get_color(), alpha=0.12)
            title_of_set = f"{rows[-1][1]['title']} ({rows[-1][1]['positions']} positions)"
        axes.set_title(title_of_set, fontsize=10)
        axes.set_xlabel("training time (minutes)")
        axes.set_ylabel("mistake rate (%)")
        axes.set_ylim(bottom=0)
        axes.grid(alpha=0.3)
        axes.legend(fontsize=7)
    figure.suptitle(f"{title or 'Mistakes against perfect play'} (band: 95% interval)")
    return _save(figure, path)


def plot_agents_mistake_rates(
    rows: Mapping[str, Sequence], path: str | None, *, title: str = ""
) -> Figure:
    """Bars of each agent's mistake rate on each set, with 95% (Wilson) intervals.

    Args:
      rows: ``{agent name: [perfect_play.SetResult, ...]}``, the same sets for every agent.
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    if not rows:
        raise ValueError("plot_agents_mistake_rates: rows is empty; expected {agent: results}.")
    names = list(rows)
    sets = [result.title for result in rows[names[0]]]
    width = 0.8 / len(names)
    figure = Figure(figsize=(max(6, 1.6 * len(sets)), 4.2))
    ax = figure.add_subplot()
    x = np.arange(len(sets))
    for index, name in enumerate(names):
        rates = np.array([100 * r.mistake_rate for r in rows[name]])
        low, high = (np.array([100 * r.interval()[i] for r in rows[name]]) for i in (0, 1))
        ax.bar(
            x + (index - (len(names) - 1) / 2) * width,
            rates,
            width,
            yerr=(rates - low, high - rates),
            capsize=3,
            label=name,
        )
    ax.set_xticks(x, sets, rotation=20)
    ax.set_ylabel("mistake rate (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{title or 'Mistakes against perfect play'} (95% interval)")
    return _save(figure, path)


TIME_PARTS = ("selfplay", "learner", "evaluation", "checkpoint")


def plot_training(records: Sequence[Mapping], path: str | None, *, title: str = "") -> Figure:
    """Training's losses, positions per second and where its time went, by iteration.

    Args:
      records: ``metrics.jsonl``'s records: ``iteration``, ``loss``, ``value_loss``,
        ``policy_loss``, ``positions_per_s`` and (since the time breakdown) ``time/<part>``.
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    if not records:
        raise ValueError("plot_training: records is empty; expected metrics.jsonl's records.")
    x = np.array([r["iteration"] for r in records], dtype=float)
    figure = Figure(figsize=(15, 4.2))
    losses, speed, times = (figure.add_subplot(1, 3, k) for k in (1, 2, 3))
    for name in ("loss", "value_loss", "policy_loss"):
        losses.plot(x, [r.get(name, np.nan) for r in records], label=name)
    losses.set_ylabel("loss")
    losses.legend(fontsize=8)
    speed.plot(x, [r.get("positions_per_s", np.nan) for r in records], color="tab:green")
    speed.set_ylabel("self-play positions / s")
    bottom = np.zeros(len(records))
    for part in TIME_PARTS:
        seconds = np.array([r.get(f"time/{part}", 0.0) for r in records])
        times.bar(x, seconds, bottom=bottom, label=part, width=0.9)
        bottom += seconds
    times.set_ylabel("seconds per record")
    times.legend(fontsize=8)
    for axes in (losses, speed, times):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("iteration")
        axes.grid(alpha=0.3)
    figure.suptitle(title or "Training")
    return _save(figure, path)


def plot_tdmcts_history(records: Sequence[Mapping], path: str | None, *, title: str = "") -> Figure:
    """The two plots of a TD-MCTS run: the tournament win rate (and score, a draw
    counting half) against training episodes, and the positions in the table.

    Args:
      records: dicts with ``episodes``, ``win_rate``, ``score`` and ``positions``.
      path: the PNG to write (None: none).
      title: the figure's title.
    """
    keys = ("episodes", "win_rate", "score", "positions")
    for index, record in enumerate(records):
        missing = [key for key in keys if key not in record]
        if missing:
            raise ValueError(
                f"plot_tdmcts_history: record {index} lacks {', '.join(missing)}; expected "
                f"keys {', '.join(keys)}, got {sorted(record)}."
            )
    if not records:
        raise ValueError("plot_tdmcts_history: records is empty; expected at least one.")
    records = sorted(records, key=lambda record: record["episodes"])
    episodes = np.array([r["episodes"] for r in records], dtype=float)
    figure = Figure(figsize=(11, 4.2))
    ax = figure.add_subplot(1, 2, 1)
    ax.plot(episodes, [100 * r["win_rate"] for r in records], marker="o", markersize=3)
    ax.plot(episodes, [100 * r["score"] for r in records], linestyle="--", label="score")
    ax.set_ylim(0, 100)
    ax.set_xlabel("training episodes")
    ax.set_ylabel("tournament win rate (%)")
    ax.legend(["wins", "score (draw = 1/2)"], loc="best")
    ax.grid(alpha=0.3)
    ax = figure.add_subplot(1, 2, 2)
    ax.plot(episodes, [r["positions"] for r in records], marker="o", markersize=3)
    ax.set_xlabel("training episodes")
    ax.set_ylabel("positions in the table")
    ax.grid(alpha=0.3)
    figure.suptitle(title or "TD-MCTS training")
    return _save(figure, path)
