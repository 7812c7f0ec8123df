"""Every installed program speaks one vocabulary (``alphazero_jax/cli/common.py``): a run is
``--workdir``, an output folder ``--output``, agent specs ``--agents``, and ``--simulations``
means the same everywhere; ``--help`` and ``--helpfull`` end with status 0; a renamed flag's
old name works until ``common.OLD_NAMES_GO_IN`` with a one-line notice naming the new one,
and the old and the new name together are a one-line error.

Each program runs as its console script does (pyproject.toml's ``[project.scripts]``: the
same import and call, under the script's name), in a process of its own."""

import os
import pathlib
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree

import pytest
from tiers import one_of_a_kind

from alphazero_jax.cli import common
from alphazero_jax.cli import judge as judge_program

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
# Every program: each console script, and each judgment of alphazero-judge.
PROGRAMS = [name for name in SCRIPTS if name != "alphazero-judge"] + [
    f"alphazero-judge {judgment}" for judgment in judge_program.JUDGMENTS
]
# What each program names with the vocabulary's words (the other flags are its own).
VOCABULARY = {
    "alphazero-train": {"workdir"},
    "alphazero-play": {"agent", "simulations"},
    "alphazero-serve": set(),
    "alphazero-compare": {"output", "simulations"},
    "alphazero-evaluate": {"agents", "output"},
    "alphazero-export": {"workdir", "output"},
    "alphazero-export-web": {"workdir", "output"},
    "alphazero-judge agents": {"agents", "output"},
    "alphazero-judge checkpoints": {"workdir", "simulations"},
    "alphazero-judge curves": {"workdir", "output"},
    "alphazero-judge tic_tac_toe": {"workdir", "simulations"},
    "alphazero-judge connect_four": {"workdir", "simulations"},
    "alphazero-judge baselines": {"workdir", "simulations"},
}
WORDS = {"workdir", "output", "agents", "agent", "simulations"}
# Names the programs used for those things before: defined only as an old name.
OLD_WORDS = {"run", "runs", "out", "output_dir", "network"}


def _program(program: str, *arguments: str, cwd=None) -> subprocess.CompletedProcess:
    """``program`` (``alphazero-judge <judgment>`` too) run as its console script runs."""
    name, *judgment = program.split()
    module, _, function = SCRIPTS[name].partition(":")
    script = f"import sys; sys.argv[0] = {name!r}; from {module} import {function}; {function}()"
    return subprocess.run(
        [sys.executable, "-c", script, *judgment, *arguments],
        cwd=cwd or REPO,
        env=dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _flags(program: str) -> dict[str, str]:
    """``name -> help`` of the program's own flags, from its ``--helpxml``."""
    done = _program(program, "--helpxml")
    assert done.returncode == 0, done.stderr
    found = ElementTree.fromstring(done.stdout).iter("flag")
    return {f.findtext("name"): f.findtext("meaning") for f in found if f.findtext("key")}


def test_vocabulary__every_program_is_listed():
    assert set(VOCABULARY) == set(PROGRAMS)


HELP_KEPT = ["alphazero-train", "alphazero-judge agents"]  # the others long: 2 processes each


@pytest.mark.parametrize(
    "program", one_of_a_kind(HELP_KEPT, [p for p in PROGRAMS if p not in HELP_KEPT])
)
def test_program__help_and_helpfull_end_with_status_0(program):
    for flag in ("--help", "--helpfull"):
        done = _program(program, flag)
        assert done.returncode == 0, (flag, done.stderr)
        shown = done.stdout
        assert all(f"--{word}:" in shown for word in VOCABULARY[program]), (flag, shown)
    assert "USAGE" not in shown.split("flags:")[0], "the help opens with the program's docstring"


def test_judge__help_and_helpfull_end_with_status_0():
    for flag in ("--help", "--helpfull"):
        done = _program("alphazero-judge", flag)
        assert done.returncode == 0 and "judgments" in done.stdout, done.stderr


@pytest.mark.parametrize("program", PROGRAMS)
def test_program__flags_use_only_the_vocabulary(program):
    defined = _flags(program)
    old = [text for text in defined.values() if text.startswith("The old name of")]
    own = {name for name, text in defined.items() if text not in old}
    assert WORDS & own == VOCABULARY[program] and not OLD_WORDS & own, sorted(defined)
    for text in old:
        new = re.fullmatch(r"The old name of --(\w+), read until ([\d.]+)\.", text)
        assert new and new[1] in VOCABULARY[program] and new[2] == common.OLD_NAMES_GO_IN, text
    if "simulations" in defined:
        assert common.SIMULATIONS_HELP in defined["simulations"]


# (program, arguments with the new names, the old names for them, what the error names): the
# program fails after reading its flags (nothing to judge or export), naming the value that
# it read through the new name.
RENAMED = [
    (
        "alphazero-export",
        ["--workdir=/nonexistent", "--output={tmp}/agents"],
        ["--run=/nonexistent", "--output_dir={tmp}/agents"],
        "/nonexistent is no training run",
    ),
    (
        "alphazero-evaluate",
        ["--game=tic_tac_toe", "--agents=random,greedy", "--output=/proc/x"],
        ["--game=tic_tac_toe", "--agents=random,greedy", "--output_dir=/proc/x"],
        "--output=/proc/x: cannot write there",
    ),
    (
        "alphazero-export-web",
        ["--output={tmp}/page", "--workdir={tmp}/nothing"],
        ["--out={tmp}/page", "--agents={tmp}/nothing"],
        "nothing is no training run",
    ),
    (
        "alphazero-judge checkpoints",
        ["--workdir={tmp}"],
        ["--run={tmp}"],
        "--workdir={tmp}: no checkpoints",
    ),
    (
        "alphazero-judge curves",
        ["--workdir=a={tmp}"],
        ["--runs=a={tmp}"],
        "alphazero-judge checkpoints --workdir={tmp}",
    ),
]


def _said(done: subprocess.CompletedProcess) -> list[str]:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip().splitlines()


@pytest.mark.parametrize(
    ("program", "new", "old", "error"),
    one_of_a_kind(RENAMED[:1], RENAMED[1:]),
    ids=lambda x: str(x)[:30],
)
def test_program__new_names_and_old_ones_with_a_notice(program, new, old, error, tmp_path):
    new, old = ([a.format(tmp=tmp_path) for a in args] for args in (new, old))
    error = error.format(tmp=tmp_path)
    [line] = _said(_program(program, *new, cwd=tmp_path))
    assert line.startswith("error: ") and error in line, line
    said = _said(_program(program, *old, cwd=tmp_path))
    renamed = [(o.partition("=")[0], n.partition("=")[0]) for o, n in zip(old, new) if o != n]
    notices = [
        f"notice: {o} is now {n}; the old name goes in {common.OLD_NAMES_GO_IN}."
        for o, n in renamed
    ]
    assert said[:-1] == notices and error in said[-1], said
    for (o, n), old_argument in zip(renamed, (a for a in old if a not in new)):
        [line] = _said(_program(program, *new, old_argument, cwd=tmp_path))
        assert line == f"error: {o} is the old name of {n}; give only {n}.", line


@pytest.mark.parametrize("judgment", one_of_a_kind(["baselines"], ["tic_tac_toe", "connect_four"]))
def test_learning_proof__simulations_0_is_still_the_runs_own_search_with_a_notice(
    judgment, tmp_path
):
    # A checkpoint's path: judged as it is, never trained into (tic_tac_toe trains a run).
    workdir = f"--workdir={tmp_path}/run/checkpoints/1"
    notice, error = _said(_program(f"alphazero-judge {judgment}", workdir, "--simulations=0,8"))
    assert notice == (
        "notice: --simulations=0 for the run's own search is now --simulations=-1; 0 is the "
        f"raw policy from {common.OLD_NAMES_GO_IN}."
    )
    assert error == f"error: {tmp_path}/run is no training run: it has no config.json."
    assert _said(_program(f"alphazero-judge {judgment}", workdir)) == [error]  # -1 by default


def test_old_names__go_in_a_release_after_this_one():
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]

    def numbers(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("."))

    # At OLD_NAMES_GO_IN, remove common.define_old_name's callers and common.read_old_zero.
    assert numbers(version) < numbers(common.OLD_NAMES_GO_IN), version
