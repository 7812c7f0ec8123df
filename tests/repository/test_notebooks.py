"""Every notebook's code cells run top to bottom in one namespace (no kernel needed), with
tiny settings: after the cell tagged ``parameters``, a cell of the test's values replaces its
own. ``test_installed_wheel.py`` runs them again in a Jupyter kernel of an installed wheel.

Every notebook starts with the same set-up cell (tagged ``setup``): where the package does not
import, it installs it from ``ALPHAZERO_JAX_SOURCE`` or a wheel uploaded to the working folder
(with JAX's build for the machine's GPU or TPU), and it chooses the runs folder ``RUNS``.
"""

import ast
import importlib.util
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
            "time_limit_minutes": 5.0,
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
def test_notebook__code_cells_run(path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ALPHAZERO_JAX_RUNS", str(tmp_path / "runs"))
    namespace = _run(path)
    assert namespace["RUNS"] == tmp_path / "runs"
    if path.name == "train_connect_four.ipynb":
        assert (tmp_path / "runs" / "connect_four_notebook" / "checkpoints").is_dir()
        printed = capsys.readouterr().out
        assert all(words in printed for words in (*PLAN, BUDGET)), printed


# What the training notebook prints before it trains, with TINY's values.
PLAN = ("Preset 'smoke' is 'smoke': ", "\nPlan: up to 2 iterations of ")
BUDGET = "training stops after 5 minutes (time_limit_minutes), with a checkpoint."


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
        assert "no public address yet" in first and "`alphazero_jax-*.whl`" in first
        assert "File > Upload notebook" in first and "upload the wheel in the Files pane" in first
        assert "<owner>" not in path.read_text(), path.name  # no placeholder address
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


def test_training_notebook__runs_what_auto_picks_for_its_budget_and_says_so_first():
    """``auto`` in the parameters, no preset name of its own and no budget of its own (the
    preset's ``time_limit_minutes`` is the budget); the first cell says so."""
    path = ROOT / "notebooks" / "train_connect_four.ipynb"
    first = source(cells(path, "markdown")[0])
    assert first.startswith(
        "# Train AlphaZero on Connect Four\n\n**What it runs, and for how long:**"
    )
    for words in ("`auto`", "`time_limit_minutes`", "has not yet run on Colab, nor on a TPU"):
        assert words in first, words
    (parameters,) = [cell for cell in cells(path) if "parameters" in tags(cell)]
    namespace = {"RUNS": pathlib.Path("runs")}
    exec(source(parameters), namespace)
    assert namespace["PRESET"] == "auto" and namespace["OVERRIDES"] == {}
    from alphazero_jax import configs

    named = set(configs.presets("connect_four")) - {"auto"}
    for cell in cells(path):
        strings = {
            node.value
            for node in ast.walk(ast.parse(source(cell)))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        assert not strings & named, (strings & named, source(cell))


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


def _set_up_functions(monkeypatch, cwd: pathlib.Path) -> dict:
    """The set-up cell's namespace, run in ``cwd`` where the package imports (no install)."""
    monkeypatch.chdir(cwd)
    namespace = {}
    exec(_set_up(), namespace)
    return namespace


def test_set_up_cell__installs_a_wheel_uploaded_to_the_working_folder_or_the_source(
    tmp_path, monkeypatch
):
    """Without ``ALPHAZERO_JAX_SOURCE`` the newest ``alphazero_jax-*.whl`` of the working
    folder is installed (where Colab's Files pane uploads); ``test_installed_wheel.py``
    installs one so."""
    set_up = _set_up_functions(monkeypatch, tmp_path)
    assert set_up["uploaded_wheel"]() == ""
    (tmp_path / "other-1.0-py3-none-any.whl").touch()
    assert set_up["uploaded_wheel"]() == ""
    old, new = (tmp_path / f"alphazero_jax-0.{n}.0-py3-none-any.whl" for n in (1, 2))
    new.touch()
    old.touch()
    os.utime(new, (2e9, 2e9))  # uploaded last
    assert set_up["uploaded_wheel"]() == str(new)


def test_set_up_cell__adds_jax_s_build_for_the_machine_s_gpu_or_tpu(tmp_path, monkeypatch):
    """``[cuda]`` where ``nvidia-smi -L`` lists a GPU, as ``make install``; on a path, a
    folder, or a URL (as ``alphazero_jax[cuda] @ URL``), unless the source names extras."""
    set_up = _set_up_functions(monkeypatch, tmp_path)
    requirement = set_up["requirement"]
    assert requirement("/content/alphazero_jax-0.1.0-py3-none-any.whl", "cuda") == (
        "/content/alphazero_jax-0.1.0-py3-none-any.whl[cuda]"
    )
    assert requirement("/drive/alphazero_jax", "tpu") == "/drive/alphazero_jax[tpu]"
    assert requirement("https://host/a.whl", "cuda") == "alphazero_jax[cuda] @ https://host/a.whl"
    assert requirement("/drive/alphazero_jax[test]", "cuda") == "/drive/alphazero_jax[test]"
    assert requirement("/drive/alphazero_jax", "") == "/drive/alphazero_jax"

    fake = tmp_path / "bin"
    fake.mkdir()
    nvidia_smi = fake / "nvidia-smi"
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    nvidia_smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)'\n")
    nvidia_smi.chmod(0o755)
    assert set_up["jax_extra"]() == "cuda"
    nvidia_smi.write_text("#!/bin/sh\necho 'No devices were found'\nexit 6\n")
    expected = "tpu" if os.path.exists("/dev/accel0") else ""  # no GPU listed
    if importlib.util.find_spec("libtpu") is not None:
        expected = "tpu"
    assert set_up["jax_extra"]() == expected


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
