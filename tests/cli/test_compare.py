"""``alphazero-compare`` end to end: two arms x two seeds of ``tic_tac_toe:smoke``,
stopped after two slices and run again (it goes on, redoing nothing), and its refusals."""

import json
import pathlib
import re
import subprocess
import sys

import pytest
from tiers import one_of_a_kind

ARMS = [
    "--arm=base=tic_tac_toe:smoke",
    "--arm=fast=tic_tac_toe:smoke --config.learner.learning_rate=0.01",
]
PLAN = ["--seeds=0,1", "--iterations=2", "--checkpoint_minutes=0.0001", *ARMS]


def _compare(*arguments: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "alphazero_jax.cli.compare", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def _slices(output: pathlib.Path) -> list[dict]:
    lines = (output / "slices.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
@pytest.mark.long  # a minute of two cores: make test-long
def test_compare__two_arms_two_seeds_resume_and_report(tmp_path):
    output = tmp_path / "cmp"
    first = _compare(f"--output={output}", *PLAN, "--max_slices=2")
    assert first.returncode == 0, first.stderr[-2000:]
    assert "Stopped after 2 slices" in first.stdout
    started = [r["unit"] for r in _slices(output) if "start" in r]
    assert started == ["base/seed0", "base/seed1"]  # the least-trained unit goes next

    looked = _compare(f"--output={output}", "--report_only")  # its plan.json, nothing trained
    assert looked.returncode == 0, looked.stderr[-2000:]
    assert "optimal moves against minutes of training" in looked.stdout
    assert "base " in looked.stdout and (output / "report.md").stat().st_size > 0
    assert len(_slices(output)) == 4  # two slices, each a start and an end line: no more
    assert not (output / "judged" / "fast").exists()

    second = _compare(f"--output={output}", *PLAN)
    assert second.returncode == 0, second.stderr[-2000:]
    started = [r["unit"] for r in _slices(output) if "start" in r]
    assert started == ["base/seed0", "base/seed1", "fast/seed0", "fast/seed1"]  # none again
    assert "judged fast/seed1 iteration 2" in second.stdout
    assert "judged base/" not in second.stdout  # judged by the first call, not again
    for arm in ("base", "fast"):
        for seed in (0, 1):
            lines = (output / "judged" / arm / f"seed{seed}.jsonl").read_text().splitlines()
            judged = [json.loads(line) for line in lines]
            assert [r["iteration"] for r in judged] == [1, 2]  # every checkpoint, once
            measure = judged[-1]["measures"][0]
            assert measure["name"] == "optimal moves" and len(measure["values"]) == 4520
    report = second.stdout
    assert "optimal moves against minutes of training" in report
    assert "At equal training time" in report and "At equal iterations: 2 iterations" in report
    assert "Each arm at equal training time" in report
    assert re.search(r"^\| fast \| [12]/[12] \| ", report, re.MULTILINE)  # iterations per seed
    assert "exact sign/McNemar p = " in report and "fast " in report
    for name in ("curves.csv", "curves.json", "report.md", "curves_optimal_moves.png"):
        assert (output / name).stat().st_size > 0
    # The record: small, read back, the same tables as report.md.
    from alphazero_jax.compare import record

    kept = record.read(str(output / "record.json"))
    assert (output / "record.json").stat().st_size < 200_000  # no checkpoints, no items
    assert kept["plan"] == json.loads((output / "plan.json").read_text())
    assert len(kept["judgements"]) == 2 * 2 * 2 and kept["kept"] == {"base": None, "fast": None}
    assert kept["judgements"][0]["items"] == 4520
    for text in record.render_tables(kept):
        assert text in (output / "report.md").read_text()
    assert record.render_report(kept) + "\n" == (output / "report.md").read_text()
    rows = json.loads((output / "curves.json").read_text())
    assert {(r["arm"], r["axis"]) for r in rows} >= {("base", "iteration"), ("fast", "minutes")}
    assert all(r["low"] <= r["value"] <= r["high"] for r in rows)

    # Another comparison with the reference under another name takes its units over.
    other = tmp_path / "other"
    plan = ["--seeds=0", "--iterations=2", "--checkpoint_minutes=0.0001"]
    reused = _compare(f"--output={other}", *plan, "--arm=ref=tic_tac_toe:smoke",
                      f"--reuse={output}")  # fmt: skip
    assert reused.returncode == 0, reused.stderr[-2000:]
    assert f"reused ref/seed0 <- {output} base/seed0" in reused.stdout
    assert [r for r in _slices(other) if "start" in r] == [
        {**r, "unit": "ref/seed0"}
        for r in _slices(output)
        if r["unit"] == "base/seed0" and "start" in r
    ]  # nothing trained, nothing judged: all copied
    assert "judged ref/" not in reused.stdout and "ref " in reused.stdout

    changed = _compare(f"--output={output}", *PLAN, "--seeds=0")
    assert changed.returncode == 2
    assert changed.stderr.strip().splitlines() == [
        "error: the output directory's plan.json has seeds=[0, 1], this command seeds=[0]: "
        "rerun it with the flags that made it (see its plan.json) to continue, or choose "
        "another --output."
    ]


# Each starts a process: three in make test, the others long.
BAD_FLAGS = [
    (["--arm=tic_tac_toe:smoke", "--iterations=1"], "expected 'NAME=GAME:PRESET"),
    (["--arm=a=tic_tac_toe:smoke --config.search.nope=1", "--iterations=1"], "names no key"),
    (["--report_only"], "holds no plan.json"),
]
LONG_BAD_FLAGS = [
    (["--arm=a=tic_tac_toe:nope", "--iterations=1"], "Unknown preset 'nope'"),
    (
        ["--arm=a=tic_tac_toe:smoke", "--arm=b=connect_four:smoke", "--iterations=1"],
        "same game",
    ),
    (["--arm=a=tic_tac_toe:smoke"], "one budget"),
    (["--arm=a=tic_tac_toe:smoke", "--iterations=1", "--judges=perfect_play"], "6x7"),
    (
        ["--arm=a=tic_tac_toe:smoke", "--iterations=1", "--judges=ladder", "--anchors=x"],
        "Unknown agent spec 'x'",
    ),
    (["--arm=a=tic_tac_toe:smoke", "--iterations=1", "--reuse=/nowhere"], "holds no plan"),
]


@pytest.mark.parametrize(
    ("arguments", "said"),
    one_of_a_kind(BAD_FLAGS, LONG_BAD_FLAGS),
)
def test_compare__a_bad_flag_or_arm_is_one_line(tmp_path, arguments, said):
    done = _compare(f"--output={tmp_path}/out", *arguments)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], lines
    assert not (tmp_path / "out" / "plan.json").exists()
