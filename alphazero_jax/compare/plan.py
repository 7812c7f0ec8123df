"""The plan of a comparison, kept as ``plan.json`` in its output directory, and where each
of its units (an arm on a seed) keeps its run, its slices and its judgements.

A rerun of the same command reads the plan back and goes on; a command whose plan differs
is refused in one line that names the first difference (``check_same``), since the runs
and judgements in the directory belong to the plan that made them. Arms may be appended
(the same ``--arm`` flags first, then new ones): the new arms are trained and judged, the
earlier ones keep what they have.

The output directory::

    plan.json            this plan
    anchors.json         the ladder's anchors and their ratings (with the ladder judge)
    slices.jsonl         one line as each slice of training starts and one as it ends
    runs/ARM/seedS/      each unit's training run (alphazero-train's workdir)
    judged/ARM/seedS.jsonl  each judged checkpoint's measures, one line each
    curves.csv, curves.json, curves_*.png, report.md   the report
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from alphazero_jax.compare.arms import Arm
from alphazero_jax.compare.timing import Budget, stopped_early

PLAN_FILE = "plan.json"
ANCHORS_FILE = "anchors.json"
SLICES_FILE = "slices.jsonl"


class Plan(NamedTuple):
    """Everything that decides what a comparison computes (not how long one call of the
    program works on it)."""

    arms: tuple[Arm, ...]
    seeds: tuple[int, ...]
    budget: Budget
    slice_minutes: float
    checkpoint_minutes: float  # 0: the arms' own checkpoint cadence
    judges: tuple[str, ...]
    simulations: int  # -1: each run's own
    sets: tuple[str, ...] = ()
    positions: int = 0
    anchors: tuple[str, ...] = ()
    anchor_games: int = 64
    ladder_games: int = 32
    judge_seed: int = 0

    def as_dict(self) -> dict:
        record = self._asdict()
        record.update(arms=[arm.as_dict() for arm in self.arms], budget=self.budget._asdict())
        return json.loads(json.dumps(record))  # tuples as lists

    @classmethod
    def from_dict(cls, record: dict) -> Plan:
        fields = dict(record)
        fields["arms"] = tuple(
            Arm(a["name"], a["config"], tuple(a["overrides"])) for a in record["arms"]
        )
        fields["budget"] = Budget(**record["budget"])
        for name in ("seeds", "judges", "sets", "anchors"):
            fields[name] = tuple(record[name])
        return cls(**fields)

    def units(self) -> list[tuple[Arm, int]]:
        """Every (arm, seed), arm by arm."""
        return [(arm, seed) for arm in self.arms for seed in self.seeds]


def unit_name(arm: Arm, seed: int) -> str:
    return f"{arm.name}/seed{seed}"


def run_dir(output: str, arm: Arm, seed: int) -> str:
    return os.path.join(output, "runs", arm.name, f"seed{seed}")


def judged_path(output: str, arm: Arm, seed: int) -> str:
    return os.path.join(output, "judged", arm.name, f"seed{seed}.jsonl")


def slice_starts(output: str, name: str) -> list[int]:
    """The iteration each slice of the unit ``name`` (``unit_name``) started from."""
    lines = read_lines(os.path.join(output, SLICES_FILE))
    return [r["start"] for r in lines if r.get("unit") == name and "start" in r]


def stopped_ends(output: str, name: str, num_iterations: int) -> set[int]:
    """The iterations at which a slice of the unit ``name`` stopped early
    (``timing.stopped_early``), from each slice's start and end records."""
    limit, ends = None, set()
    for record in read_lines(os.path.join(output, SLICES_FILE)):
        if record.get("unit") != name:
            continue
        if "start" in record:
            limit = record["limit_minutes"]
        elif "end" in record and limit is not None:
            if stopped_early(wall=record["wall"], limit_minutes=limit, end=record["end"],
                             num_iterations=num_iterations):  # fmt: skip
                ends.add(record["end"])
            limit = None
    return ends


def check_same(saved: dict, plan: Plan) -> str | None:
    """None if ``saved`` (a ``plan.json``) is ``plan`` or ``plan`` only appends arms to it
    (the arms compared so far keep their work), else one line naming the first difference
    and what to do."""
    now = plan.as_dict()
    for key in now:
        if key == "arms" and saved.get(key) == now[key][: len(saved.get(key) or [])]:
            continue
        if saved.get(key) != now[key]:
            return (
                f"the output directory's {PLAN_FILE} has {key}={json.dumps(saved.get(key))}, "
                f"this command {key}={json.dumps(now[key])}: rerun it with the flags that "
                "made it (see its plan.json) to continue, or choose another --output."
            )
    return None


def read_or_write(output: str, plan: Plan) -> str | None:
    """Writes ``plan.json`` (into a new output directory, or over one that ``plan`` only
    appends arms to); else returns ``check_same``'s line (None: go on)."""
    path = os.path.join(output, PLAN_FILE)
    if os.path.exists(path):
        with open(path) as file:
            different = check_same(json.load(file), plan)
        if different:
            return different
    os.makedirs(output, exist_ok=True)
    write_json(path, plan.as_dict())
    return None


def write_json(path: str, value) -> None:
    """Writes ``value`` as JSON, atomically."""
    with open(path + ".tmp", "w") as file:
        json.dump(value, file, indent=1)
    os.replace(path + ".tmp", path)


def read_lines(path: str) -> list[dict]:
    """The JSON lines of ``path`` ([] if there is none); a torn last line is skipped."""
    if not os.path.exists(path):
        return []
    records = []
    with open(path) as file:
        for line in file:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def write_lines(path: str, records: list[dict]) -> None:
    """Writes ``records`` as JSON lines, atomically."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w") as file:
        file.writelines(json.dumps(record) + "\n" for record in records)
    os.replace(path + ".tmp", path)


def append_line(path: str, record: dict) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a") as file:
        file.write(json.dumps(record) + "\n")
