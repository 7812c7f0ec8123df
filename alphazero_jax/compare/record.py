"""A comparison as data: ``record.json``, small enough to commit, from which its tables and
curves are rendered again (``docs/results/records/`` holds the published ones).

A record written by ``alphazero-compare`` (``from_report``) holds:

- what it is about: ``title``, ``question``, ``source`` (the paper an idea comes from, by
  author and year, or null), ``game``, ``machine``, and ``kept``: per arm, whether the
  preset kept it (null: not decided);
- ``plan``: the comparison's ``plan.json`` (arms with their preset and overrides, seeds,
  budget, judges, ...);
- ``judgements``: every judged checkpoint's measures: unit, checkpoint, training minutes,
  iteration, measure, value (the mean over its items) and ``items`` (the sample size);
- ``curves``: the curves' points (``report.curves``), and ``comparisons``: the rows at
  equal time and at equal iterations with their paired tests (``report.compare_at``), from
  which ``render_tables`` writes the report's tables again, with report.py's own code.

A record whose runs are gone is transcribed once from the page that published its tables:
``transcribed`` says from which page and at which commit, ``tables`` holds those tables as
they were printed (``caption``, ``columns``, ``rows``), and it has no ``judgements``,
``curves`` or ``comparisons`` (there is no data to compute them from); ``effects`` holds
the effect of each idea at equal training time as the page gave it (an effect may name its
own ``source``, ``kept`` and ``seeds`` where the record's do not fit it: a play-time
setting judged on an arm's network, a second seed run in another comparison). ``figure``
may name the committed image of its curves, and ``shown`` which of its tables a page
renders, which of its columns and rows (all of either by default) and, optionally, the
shown columns' ``headers``
(``{"table": 0, "columns": [0, 2], "rows": [1, 4], "headers": ["minutes", "preset"]}``):
the one that answers the question; the record keeps every table whole.

``read`` checks a record against this schema and refuses a bad one in one line
(``RecordError``).
"""

from __future__ import annotations

import json
import math
import os
import platform
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alphazero_jax.compare import plan as plans
from alphazero_jax.compare import report

RECORD_FILE = "record.json"
FORMAT = 1


class RecordError(ValueError):
    """A record that is not one (one line: which record, what was expected, what was found)."""


class _Fields(BaseModel):
    """Fields of the types given, strictly (no string read as a number); others allowed."""

    model_config = ConfigDict(strict=True)


class _Only(_Fields):
    """Exactly the fields given."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Arm(_Fields):
    name: str
    config: str
    overrides: list


class Plan(_Fields):
    arms: list[Arm]
    seeds: list


class Judgement(_Fields):
    unit: str
    checkpoint: str
    minutes: int | float
    iteration: int
    measure: str
    value: int | float
    items: int


class Table(_Fields):
    caption: str
    columns: list
    rows: list

    @model_validator(mode="after")
    def _rows_as_wide_as_the_columns(self):
        for index, row in enumerate(self.rows):
            if not isinstance(row, list) or len(row) != len(self.columns):
                raise ValueError(
                    f"rows[{index}]: expected a list of {len(self.columns)} cells (its "
                    f"columns), found {json.dumps(row)[:60]}"
                )
        return self


class Effect(_Only):
    idea: str
    arm: str
    measure: str
    effect: str
    source: str | None = None
    kept: bool | None = None
    seeds: list | None = None


class Shown(_Only):
    table: int
    columns: list[int] = []
    rows: list[int] = []
    headers: list[str] | None = None


class Transcription(_Only):
    from_: str = Field(alias="from")
    commit: str


class _Record(_Only):
    format: Literal[1]
    title: str
    question: str
    source: str | None
    game: str
    machine: str
    kept: dict[str, bool | None]
    plan: Plan
    figure: str | None = None
    command: str | None = None
    conclusion: str | None = None
    shown: Shown | None = None

    @model_validator(mode="after")
    def _kept_names_arms(self):
        arms = [arm.name for arm in self.plan.arms]
        for arm in self.kept:
            if arm not in arms:
                raise ValueError(
                    f"kept: expected an arm of the plan ({', '.join(arms)}), found {arm!r}"
                )
        return self


class Computed(_Record):
    """A record ``alphazero-compare`` wrote."""

    judgements: list[Judgement]
    curves: list
    comparisons: list


class Transcribed(_Record):
    """A record transcribed from a page's tables."""

    transcribed: Transcription
    tables: list[Table]
    effects: list[Effect]

    @model_validator(mode="after")
    def _shown_in_its_tables(self):
        if self.shown is not None:
            _check_shown(self.shown, self.tables)
        return self


def _check_shown(shown: Shown, tables: list[Table]) -> None:
    """``shown`` names a table, and columns and rows it has, by index."""
    if not 0 <= shown.table < len(tables):
        raise ValueError(f"shown.table: expected an index of its {len(tables)} tables, "
                         f"found {shown.table}")  # fmt: skip
    table = tables[shown.table]
    for key, count in (("columns", len(table.columns)), ("rows", len(table.rows))):
        indices = getattr(shown, key)
        if not all(0 <= i < count for i in indices):
            raise ValueError(f"shown.{key}: expected indices below {count}, found {indices}")
    width = len(shown.columns or table.columns)
    if shown.headers is not None and len(shown.headers) != width:
        raise ValueError(f"shown.headers: expected {width} strings (its columns), "
                         f"found {json.dumps(shown.headers)[:60]}")  # fmt: skip


def _where(name: str, location: tuple) -> str:
    return name + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location)


def validate(record, name: str = "record") -> None:
    """Raises RecordError (one line, naming the record ``name``) unless ``record`` keeps
    the schema of the module's docstring (``Computed`` or ``Transcribed``)."""
    if not isinstance(record, dict):
        raise RecordError(f"{name}: expected an object, found {type(record).__name__}")
    kind, other = (Transcribed, Computed) if "transcribed" in record else (Computed, Transcribed)
    extra = sorted(set(record) - set(kind.model_fields))
    if extra:
        what = "a transcribed" if kind is Transcribed else "a computed"
        known = " (a field of the other kind)" if set(extra) & set(other.model_fields) else ""
        raise RecordError(f"{name}: {what} record has no fields {extra}{known}")
    try:
        kind.model_validate(record)
    except ValidationError as error:
        first = error.errors()[0]
        where = _where(name, first["loc"])
        if first["type"] == "value_error":  # a rule of ours: it names its own field
            message = f"{where}.{first['msg'].removeprefix('Value error, ')}"
        elif first["type"] == "missing":
            message = f"{where}: {first['msg']}"
        else:
            found = json.dumps(first.get("input"), default=str)[:60]
            message = f"{where}: {first['msg']}, found {found}"
        raise RecordError(message) from None


def read(path: str) -> dict:
    """The record at ``path``, checked (``validate``); RecordError (one line) if it is not
    one."""
    try:
        with open(path) as file:
            record = json.load(file)
    except (OSError, ValueError) as error:
        raise RecordError(f"{path}: expected a comparison record (JSON), {error}") from None
    validate(record, os.path.basename(path))
    return record


def plain(value):
    """``value`` as JSON holds it (numpy numbers as Python's, tuples as lists)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write(path: str, record: dict) -> None:
    """Writes ``record`` (checked first: a bad one is never written) atomically, with one
    field a line at the top, so that a committed record diffs by field."""
    record = plain(record)
    validate(record, os.path.basename(path))
    plans.write_json(path, record)


def judgements(output: str, plan: plans.Plan, points: dict) -> list[dict]:
    """Every judged checkpoint's measures, unit by unit (``report.load_points``' points)."""
    found = []
    for arm, seed in plan.units():
        for point in points.get((arm.name, seed), []):
            for name, measure in point.measures.items():
                values = measure.array()
                checkpoint = os.path.join(plans.run_dir("", arm, seed), "checkpoints")
                found.append(dict(unit=plans.unit_name(arm, seed),
                                  checkpoint=f"{checkpoint}/{point.iteration}",
                                  minutes=round(point.minutes, 4), iteration=point.iteration,
                                  measure=name, value=float(values.mean()),
                                  items=int(values.size)))  # fmt: skip
    return found


def machine() -> str:
    """This machine in a few words: its processor's architecture and CPU count, and the
    accelerator JAX uses where it has one."""
    words = f"{platform.machine() or 'unknown'}, {os.cpu_count()} CPU cores"
    import sys

    if "jax" in sys.modules:  # never started only to be described
        device = sys.modules["jax"].devices()[0]
        if device.platform != "cpu":
            words += f", {device.device_kind}"
    return words


def from_report(output: str, plan: plans.Plan, points: dict, made: report.Report,
                about: dict) -> dict:  # fmt: skip
    """The record of a comparison (``report.assemble``'s ``made``); ``about`` may give its
    title, question, source, machine and kept (the rest defaults)."""
    game = plan.arms[0].config.split(":")[0]
    record = {
        "format": FORMAT,
        "title": about.get("title") or f"{', '.join(a.name for a in plan.arms)} on {game}",
        "question": about.get("question") or "",
        "source": about.get("source") or None,
        "game": game,
        "machine": about.get("machine") or machine(),
        "kept": {arm.name: about.get("kept", {}).get(arm.name) for arm in plan.arms},
        "plan": plan.as_dict(),
        "judgements": judgements(output, plan, points),
        "curves": made.curves,
        "comparisons": [c._asdict() for c in made.comparisons],
    }
    # The units that ended early, named in the equal-time table's caption.
    record["comparisons"][0]["finished"] = [list(unit) for unit in sorted(made.finished)]
    return record


def _report(record: dict) -> report.Report:
    """The ``report.Report`` a computed record keeps."""
    comparisons, finished = [], frozenset()
    for kept in record["comparisons"]:
        fields = {k: v for k, v in kept.items() if k != "finished"}
        fields["missing"] = tuple(fields.get("missing", ()))
        fields["reach"] = math.inf if fields.get("reach") is None else fields["reach"]
        comparisons.append(report.Comparison(**fields))
        finished |= {tuple(unit) for unit in kept.get("finished", ())}
    return report.Report(record["curves"], comparisons, frozenset(finished))


def plan_of(record: dict) -> plans.Plan:
    return plans.Plan.from_dict(record["plan"])


def shown_table(record: dict) -> str:
    """The table a page shows of a transcribed record: ``shown``'s columns and rows of
    it under its headers (all, and the table's own, where ``shown`` names none), with
    ``report.markdown_table``."""
    shown = record.get("shown", {"table": 0})
    found = record["tables"][shown["table"]]
    columns = shown.get("columns") or range(len(found["columns"]))
    rows = [found["rows"][i] for i in shown["rows"]] if "rows" in shown else found["rows"]
    headers = shown.get("headers") or [found["columns"][i] for i in columns]
    table = report.markdown_table(headers, [[row[i] for i in columns] for row in rows])
    return (found["caption"] + "\n\n" if found["caption"] else "") + table


def render_tables(record: dict) -> list[str]:
    """The record's tables as Markdown: a computed record's with ``report.tables`` (the
    same text as its report.md), a transcribed one's with ``report.markdown_table``."""
    if "transcribed" in record:
        return [
            (found["caption"] + "\n\n" if found["caption"] else "")
            + report.markdown_table(found["columns"], found["rows"])
            for found in record["tables"]
        ]
    return report.tables(plan_of(record), _report(record))


def render_report(record: dict) -> str:
    """A computed record's report.md, rendered from the record alone."""
    return report.render(plan_of(record), _report(record))


def effects(record: dict) -> list[dict]:
    """Each arm's effect against the first at equal training time: ``idea``, ``arm``,
    ``measure`` and ``effect`` (the difference with its 95% interval); a transcribed
    record's as it was published."""
    if "transcribed" in record:
        return record["effects"]
    found = []
    for row in record["comparisons"][0]["rows"]:
        paired = row.get("paired")
        if paired is None:
            continue
        low, high = paired["interval"]
        unit = " points of game score" if row["measure"] == "ladder" else " points"
        found.append(dict(idea=row["arm"], arm=row["arm"], measure=row["measure"],
                          effect=f"{paired['difference'] * 100:+.1f}{unit} "
                                 f"[{low * 100:+.1f}, {high * 100:+.1f}]"))  # fmt: skip
    return found
