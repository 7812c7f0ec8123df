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

import numpy as np

from alphazero_jax.compare import plan as plans
from alphazero_jax.compare import report

RECORD_FILE = "record.json"
FORMAT = 1


class RecordError(ValueError):
    """A record that is not one (one line: which record, what was expected, what was found)."""


_STR, _OPT_STR, _LIST, _DICT = (str,), (str, type(None)), (list,), (dict,)
_NUMBER = (int, float)
# field -> the types it may have; every record has these.
REQUIRED = {"format": (int,), "title": _STR, "question": _STR, "source": _OPT_STR,
            "game": _STR, "machine": _STR, "kept": _DICT, "plan": _DICT}  # fmt: skip
# A computed record has these; a transcribed one has the others.
COMPUTED = {"judgements": _LIST, "curves": _LIST, "comparisons": _LIST}
TRANSCRIBED = {"transcribed": _DICT, "tables": _LIST, "effects": _LIST}
OPTIONAL = {"figure": _STR, "command": _STR, "conclusion": _STR, "shown": _DICT}
JUDGEMENT = {"unit": _STR, "checkpoint": _STR, "minutes": _NUMBER, "iteration": (int,),
             "measure": _STR, "value": _NUMBER, "items": (int,)}  # fmt: skip
TABLE = {"caption": _STR, "columns": _LIST, "rows": _LIST}
EFFECT = {"idea": _STR, "arm": _STR, "measure": _STR, "effect": _STR}
EFFECT_OPTIONAL = {"source": _OPT_STR, "kept": (bool, type(None)), "seeds": _LIST}
SHOWN = {"table": (int,)}
ARM = {"name": _STR, "config": _STR, "overrides": _LIST}


def _names(types: tuple) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types)


def _check_fields(where: str, value, fields: dict, *, exact: bool = False) -> None:
    """Raises RecordError unless ``value`` is a dict with ``fields`` of their types."""
    if not isinstance(value, dict):
        raise RecordError(f"{where}: expected an object, found {type(value).__name__}")
    for key, types in fields.items():
        if key not in value:
            raise RecordError(f"{where}: expected a field {key!r} ({_names(types)}), found none")
        found = value[key]
        if not isinstance(found, types) or (isinstance(found, bool) and bool not in types):
            raise RecordError(
                f"{where}.{key}: expected {_names(types)}, found {json.dumps(found)[:60]}"
            )
    if exact and set(value) - set(fields):
        raise RecordError(f"{where}: unexpected fields {sorted(set(value) - set(fields))}")


def validate(record, name: str = "record") -> None:
    """Raises RecordError (one line, naming the record ``name``) unless ``record`` keeps
    the schema of the module's docstring."""
    _check_fields(name, record, REQUIRED)
    if record["format"] != FORMAT:
        raise RecordError(f"{name}.format: expected {FORMAT}, found {record['format']}")
    kind = TRANSCRIBED if "transcribed" in record else COMPUTED
    other = COMPUTED if kind is TRANSCRIBED else TRANSCRIBED
    _check_fields(name, record, kind)
    allowed = set(REQUIRED) | set(kind) | set(OPTIONAL)
    if set(record) - allowed:
        what = "a transcribed" if kind is TRANSCRIBED else "a computed"
        extra = sorted(set(record) - allowed)
        known = " (a field of the other kind)" if set(extra) & set(other) else ""
        raise RecordError(f"{name}: {what} record has no fields {extra}{known}")
    _check_fields(name, record, {k: t for k, t in OPTIONAL.items() if k in record})
    _check_fields(f"{name}.plan", record["plan"], {"arms": _LIST, "seeds": _LIST})
    arms = [arm.get("name") if isinstance(arm, dict) else None for arm in record["plan"]["arms"]]
    for index, arm in enumerate(record["plan"]["arms"]):
        _check_fields(f"{name}.plan.arms[{index}]", arm, ARM)
    for arm, kept in record["kept"].items():
        if arm not in arms or kept not in (True, False, None):
            raise RecordError(
                f"{name}.kept: expected an arm of the plan ({', '.join(arms)}) -> true, false "
                f"or null, found {arm!r} -> {json.dumps(kept)}"
            )
    if kind is TRANSCRIBED:
        _check_fields(f"{name}.transcribed", record["transcribed"],
                      {"from": _STR, "commit": _STR}, exact=True)  # fmt: skip
        _check_items(f"{name}.tables", record["tables"], TABLE)
        _check_items(f"{name}.effects", record["effects"], EFFECT, EFFECT_OPTIONAL)
        for index, found in enumerate(record["tables"]):
            _check_table(f"{name}.tables[{index}]", found)
    else:
        _check_items(f"{name}.judgements", record["judgements"], JUDGEMENT)
    if "shown" in record:
        _check_shown(f"{name}.shown", record["shown"], record.get("tables", []))


def _check_items(where: str, items: list, fields: dict, optional: dict | None = None) -> None:
    for index, item in enumerate(items):
        _check_fields(f"{where}[{index}]", item, fields)
        if optional is not None:
            _check_fields(f"{where}[{index}]", item, {k: t for k, t in optional.items()
                                                      if k in item})  # fmt: skip
            if set(item) - set(fields) - set(optional):
                extra = sorted(set(item) - set(fields) - set(optional))
                raise RecordError(f"{where}[{index}]: unexpected fields {extra}")


def _check_shown(where: str, shown, tables: list) -> None:
    """``shown`` names a transcribed table, and columns and rows it has, by index."""
    _check_fields(where, shown, SHOWN)
    if set(shown) - {"table", "columns", "rows", "headers"}:
        extra = sorted(set(shown) - {"table", "columns", "rows", "headers"})
        raise RecordError(f"{where}: unexpected fields {extra}")
    if not 0 <= shown["table"] < len(tables):
        raise RecordError(f"{where}.table: expected an index of its {len(tables)} tables, "
                          f"found {shown['table']}")  # fmt: skip
    table = tables[shown["table"]]
    for key, count in (("columns", len(table["columns"])), ("rows", len(table["rows"]))):
        indices = shown.get(key, [])
        if not isinstance(indices, list) or not all(
            type(i) is int and 0 <= i < count for i in indices
        ):
            raise RecordError(f"{where}.{key}: expected indices below {count}, "
                              f"found {json.dumps(indices)[:60]}")  # fmt: skip
    width = len(shown.get("columns") or table["columns"])
    headers = shown.get("headers", [""] * width)
    if (
        not isinstance(headers, list)
        or len(headers) != width
        or not all(isinstance(header, str) for header in headers)
    ):
        raise RecordError(f"{where}.headers: expected {width} strings (its columns), "
                          f"found {json.dumps(headers)[:60]}")  # fmt: skip


def _check_table(where: str, found: dict) -> None:
    width = len(found["columns"])
    for index, row in enumerate(found["rows"]):
        if not isinstance(row, list) or len(row) != width:
            raise RecordError(
                f"{where}.rows[{index}]: expected a list of {width} cells (its columns), "
                f"found {json.dumps(row)[:60]}"
            )


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
