"""The design page's table of package layers is the one that
tests/repository/test_architecture.py enforces: each layer's number and modules, nothing more
and nothing left out. (Every public module has its API page: tests/repository/test_docs.py
checks docs/api.md.)"""

import pathlib
import re

from test_architecture import LAYERS

DESIGN = pathlib.Path(__file__).parents[2] / "docs" / "design.md"


def _table() -> dict[int, set[str]]:
    """``layer -> its modules`` of the design page's rows ``| 3 | `search`, `runs` | ...``."""
    rows = {}
    for line in DESIGN.read_text().splitlines():
        found = re.match(r"\| (\d+) \| ([^|]+) \|", line)
        if found:
            rows[int(found.group(1))] = set(re.findall(r"`([a-z_]+)`", found.group(2)))
    return rows


def test_design_page__layers_table_is_the_enforced_one():
    assert _table() == {index: set(names) for index, names in enumerate(LAYERS)}


def test_layers__name_every_module_and_package_of_alphazero_jax():
    root = DESIGN.parent.parent / "alphazero_jax"
    names = {p.stem for p in root.glob("*.py") if p.stem != "__init__"}
    names |= {p.parent.name for p in root.glob("*/__init__.py")}
    assert names == {name for layer in LAYERS for name in layer}
