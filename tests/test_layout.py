"""The README's layout table matches the tree: a row for every folder of modules, each row
naming every public module of its folder, and no module its folder does not hold."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parent.parent
README = ROOT / "README.md"


def _rows() -> dict[str, str]:
    """``folder -> the row's text`` for the rows of one folder (``| `path/` | ...``)."""
    rows = {}
    for line in README.read_text().splitlines():
        found = re.match(r"\| `((?:alphazero_jax|experiments)(?:/[a-z_]+)*/)` \|", line)
        if found:
            rows[found.group(1)] = line[found.end() :]
    return rows


def _modules(folder: pathlib.Path) -> set[str]:
    """The folder's modules and packages, without ``__init__``."""
    names = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    return names


ROWS = _rows()


def test_layout__has_a_row_for_every_folder_of_modules():
    folders = [ROOT / "experiments"]
    folders += [p.parent for p in (ROOT / "alphazero_jax").glob("*/__init__.py")]
    folders += [p.parent for p in (ROOT / "experiments").glob("*/__init__.py")]
    missing = [
        f"{f.relative_to(ROOT)}/"
        for f in folders
        if f"{f.relative_to(ROOT)}/" not in ROWS and f.name != "configs"
    ]
    assert not missing, f"README's layout table has no row for {missing}"


@pytest.mark.parametrize("folder", sorted(ROWS))
def test_layout__row_names_exactly_the_folders_modules(folder):
    named = set(re.findall(r"`([a-z_]+)/?`", ROWS[folder]))
    modules = _modules(ROOT / folder)
    own_rows = {m for m in modules if f"{folder}{m}/" in ROWS}
    public = {m for m in modules if not m.startswith("_")}
    left_out = public - own_rows - named - {"configs"}
    assert not left_out, f"{folder}: the README's row leaves out {sorted(left_out)}"
    # A name in backticks that is a module somewhere in the package but not here is stale.
    package = ROOT / folder.split("/")[0]
    anywhere = {p.stem for p in package.rglob("*.py")}
    stale = (named & anywhere) - modules
    assert not stale, f"{folder}: the row names {sorted(stale)}, which it does not hold"
