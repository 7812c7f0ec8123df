"""Every notebook's code cells run top to bottom in one namespace (no kernel needed), with
tiny settings: after the cell tagged ``parameters``, the test's values replace its own."""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

# Tiny settings per notebook (seconds of work); a notebook without a parameters cell runs as is.
TINY = {
    "train_connect_four.ipynb": lambda workdir: {
        "PRESET": "smoke",
        "WORKDIR": str(workdir / "run"),
        "OVERRIDES": {
            "num_iterations": 2,
            "evaluation.every": 2,
            "evaluation.games": 2,
            "evaluation.opponents": ("random",),
            "evaluation.perfect_play_positions": 4,
        },
    },
    "evaluate.ipynb": lambda workdir: {
        "AGENT": "az:pretrained:4",
        "OPPONENTS": ["random"],
        "GAMES": 2,
        "POSITIONS": 4,
        "SETS": ["Test_L3_R1", "Test_L1_R1"],
    },
    "play.ipynb": lambda workdir: {"AGENT": "az:pretrained:4", "MOVES": ["9", "4", "hint", "4"]},
}


def _run(path: pathlib.Path, workdir: pathlib.Path) -> dict:
    namespace = {"__name__": "__notebook__"}
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)
            if "parameters" in cell["metadata"].get("tags", ()):
                namespace.update(TINY[path.name](workdir))
    return namespace


# The training notebook compiles self-play, the learner and the evaluator: about two minutes.
SLOW = {"train_connect_four.ipynb"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in NOTEBOOKS],
    ids=lambda p: p.name,
)
def test_notebook__code_cells_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run(path, tmp_path)


def test_notebooks__exist_and_open_with_a_colab_link_and_their_runtime():
    assert {
        "train_connect_four.ipynb",
        "evaluate.ipynb",
        "play.ipynb",
        "games_quickstart.ipynb",
    } <= {p.name for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        first = "".join(json.loads(path.read_text())["cells"][0]["source"])
        assert "colab.research.google.com/github/" in first and path.name in first, path.name
        assert "**Runtime:**" in first, path.name


def test_play_notebook__plays_the_scripted_moves(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = _run(pathlib.Path(NOTEBOOKS[0]).parent / "play.ipynb", tmp_path)
    output = capsys.readouterr().out
    assert "9" in output and "Legal moves" in output  # the refused move is explained
    assert namespace["session"].moves_text().startswith("4")
