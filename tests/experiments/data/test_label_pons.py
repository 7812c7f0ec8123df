"""The labelling script of Pons' sets: label files appended to after an interruption, in
order with several processes, reordered for a new selection, and a shipped set recomputed."""

import os
import pathlib
import subprocess
import sys

import pytest

from experiments.data import label_pons

REPO = str(pathlib.Path(__file__).resolve().parents[3])


def test_append_lines__resumes_after_an_interruption_and_refuses_other_lines(tmp_path):
    path = tmp_path / "set.labels"
    path.write_text("1 a\n2 b\n3 c")  # the last line was cut short
    computed = []

    def line_fn(key):
        computed.append(key)
        return key * 2

    label_pons.append_lines(path, ["1", "2", "3", "4"], line_fn, name="set")
    assert path.read_text() == "1 a\n2 b\n3 33\n4 44\n" and computed == ["3", "4"]
    with pytest.raises(ValueError, match="not those of the first 4 positions to write"):
        label_pons.append_lines(path, ["9", "2", "3", "4"], line_fn, name="set")


def test_append_lines__with_two_processes_writes_the_lines_in_order(tmp_path):
    path = tmp_path / "set.labels"
    path.write_text("a A\n")
    keys = ["a", "b", "c", "d", "e"]
    label_pons.append_lines(path, keys, str.upper, name="set", jobs=2)
    assert path.read_text() == "a A\nb B\nc C\nd D\ne E\n"


def test_reorder__keeps_lines_of_another_selection_in_the_new_order(tmp_path):
    path = tmp_path / "set.labels"
    path.write_text("2 b\n4 d\n9 z\n")  # written for another selection: 2, 4 and 9
    computed = []

    def line_fn(key):
        computed.append(key)
        return key * 2

    label_pons.reorder(path, ["1", "2", "3", "4", "5"], line_fn, name="set")
    assert path.read_text() == "1 11\n2 b\n3 33\n4 d\n" and computed == ["1", "3"]
    label_pons.reorder(path, ["1", "2", "3", "4", "5"], line_fn, name="set")  # in order
    assert path.read_text() == "1 11\n2 b\n3 33\n4 d\n" and computed == ["1", "3"]
    label_pons.append_lines(path, ["1", "2", "3", "4", "5"], line_fn, name="set")
    assert path.read_text().endswith("4 d\n5 55\n")


def test_label_pons__check_recomputes_a_shipped_set():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    command = [sys.executable, "-m", "experiments.data.label_pons", "--sets=Test_L3_R1", "--check"]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Test_L3_R1: 1000/1000 labels agree" in done.stdout
