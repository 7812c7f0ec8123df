"""Every notebook's code cells run top to bottom in one namespace (no kernel needed)."""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook__code_cells_run(path):
    namespace = {"__name__": "__notebook__"}
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)


def test_notebooks__exist():
    assert NOTEBOOKS, "notebooks/ should hold at least one notebook"
