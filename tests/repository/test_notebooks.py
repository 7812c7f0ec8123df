"""Every notebook's code cells run top to bottom in one namespace (no kernel needed), with
tiny settings: after the cell tagged ``parameters``, a cell of the test's values replaces its
own. ``test_installed_wheel.py`` runs them again in a Jupyter kernel of an installed wheel.

Every notebook starts with the same set-up cell (tagged ``setup``): it installs the package
from ``ALPHAZERO_JAX_SOURCE`` where it does not import, and chooses the runs folder ``RUNS``.
"""

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# Tiny settings per notebook (seconds of work); a notebook without a parameters cell runs as
# is. The training notebook's WORKDIR is under RUNS, so under $ALPHAZERO_JAX_RUNS.
TINY = {
    "train_connect_four.ipynb": {
        "PRESET": "smoke",
        "OVERRIDES": {
            "num_iterations": 2,
            "evaluation.every": 2,
            "evaluation.games": 2,
            "evaluation.opponents": ("random",),
            "evaluation.perfect_play_positions": 4,
        },
    },
    "evaluate.ipynb": {
        "AGENT": "az:pretrained:4",
        "OPPONENTS": ["random"],
        "GAMES": 2,
        "POSITIONS": 4,
        "SETS": ["Test_L3_R1", "Test_L1_R1"],
    },
    "play.ipynb": {"AGENT": "az:pretrained:4", "MOVES": ["9", "4", "hint", "4"]},
}


def tiny_cell(values: dict) -> str:
    """The source of a cell that sets ``values`` (e.g. ``TINY[name]``), run after the
    ``parameters`` cell."""
    return "\n".join(f"{key} = {value!r}" for key, value in values.items())


def cells(path: pathlib.Path, kind: str = "code") -> list[dict]:
    return [cell for cell in json.loads(path.read_text())["cells"] if cell["cell_type"] == kind]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def tags(cell: dict) -> tuple[str, ...]:
    return tuple(cell["metadata"].get("tags", ()))


def _run(path: pathlib.Path) -> dict:
    namespace = {"__name__": "__notebook__"}
    for cell in cells(path):
        exec(compile(source(cell), f"{path.name}", "exec"), namespace)
        if "parameters" in tags(cell):
            exec(tiny_cell(TINY[path.name]), namespace)
    return namespace


# The training notebook compiles self-play, the learner and the evaluator: about two minutes.
SLOW = {"train_connect_four.ipynb"}  # also long: make test-long runs it
# The evaluation and play notebooks take 7-16 s of two cores each: make test-long runs them,
# and make test the quickstart.
LONG = SLOW | {"evaluate.ipynb", "play.ipynb"}


def _marks(path: pathlib.Path) -> list:
    return [pytest.mark.slow] * (path.name in SLOW) + [pytest.mark.long] * (path.name in LONG)


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=_marks(p)) for p in NOTEBOOKS],
    ids=lambda p: p.name,
)
def test_notebook__code_cells_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ALPHAZERO_JAX_RUNS", str(tmp_path / "runs"))
    namespace = _run(path)
    assert namespace["RUNS"] == tmp_path / "runs"
    if path.name == "train_connect_four.ipynb":
        assert (tmp_path / "runs" / "connect_four_notebook" / "checkpoints").is_dir()


def test_notebooks__exist_and_open_with_the_set_up_and_their_runtime():
    assert {
        "train_connect_four.ipynb",
        "evaluate.ipynb",
        "play.ipynb",
        "games_quickstart.ipynb",
    } <= {p.name for p in NOTEBOOKS}
    set_ups = set()
    for path in NOTEBOOKS:
        first = source(cells(path, "markdown")[0])
        for words in ("**Runtime:**", "ALPHAZERO_JAX_SOURCE", "ALPHAZERO_JAX_RUNS", "RUNS"):
            assert words in first, (path.name, words)
        assert "File > Upload notebook" in first and "File > Open notebook > GitHub" in first
        code = cells(path)
        assert tags(code[0]) == ("setup",), path.name  # the first code cell
        set_ups.add(source(code[0]))
        text = path.read_text()
        assert "OWNER" not in text and "REPOSITORY" not in text, path.name  # no dead link
    assert len(set_ups) == 1, "the set-up cells differ: copy one into the others"


def _imported(code: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_notebooks__import_the_package_not_the_checkout():
    for path in NOTEBOOKS:
        for cell in cells(path):
            code = source(cell)
            assert not _imported(code) & {"experiments", "tests"}, (path.name, code)
            assert "sys.path" not in code and "import_module" not in code, (path.name, code)
    assert _imported("from experiments.configs import base") == {"experiments"}


def _set_up() -> str:
    return source(cells(NOTEBOOKS[0])[0])


def test_set_up_cell__without_the_package_or_a_source__stops_with_one_line(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k != "ALPHAZERO_JAX_SOURCE"}
    blocked = "import sys\nsys.modules['alphazero_jax'] = None  # the import fails\n"
    result = subprocess.run(
        [sys.executable, "-c", blocked + _set_up()],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout == "", result
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "set ALPHAZERO_JAX_SOURCE" in result.stderr


def _runs(cwd: pathlib.Path, monkeypatch) -> pathlib.Path:
    monkeypatch.chdir(cwd)
    namespace = {}
    exec(_set_up(), namespace)
    return namespace["RUNS"]


def test_set_up_cell__runs_go_to_the_variable_else_the_checkout_else_the_working_folder(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ALPHAZERO_JAX_RUNS", str(tmp_path / "mine"))
    assert _runs(ROOT / "notebooks", monkeypatch) == tmp_path / "mine"
    monkeypatch.delenv("ALPHAZERO_JAX_RUNS")
    assert _runs(ROOT / "notebooks", monkeypatch) == ROOT / "runs"  # where `make train` writes
    assert _runs(tmp_path, monkeypatch) == tmp_path / "runs"
    other = tmp_path / "other_project" / "notebooks"
    other.mkdir(parents=True)
    (other.parent / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert _runs(other, monkeypatch) == other / "runs"


def test_play_notebook__plays_the_scripted_moves(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ALPHAZERO_JAX_RUNS", str(tmp_path / "runs"))
    namespace = _run(ROOT / "notebooks" / "play.ipynb")
    output = capsys.readouterr().out
    assert "9" in output and "Legal moves" in output  # the refused move is explained
    assert namespace["session"].moves_text().startswith("4")
