"""The design page's table of package layers is the one that
tests/repository/test_architecture.py enforces: each layer's number and modules, nothing more
and nothing left out. (Every public module has its API page: tests/repository/test_docs.py
checks docs/api.md.) Each test file is named for the module it tests, beside it
(tests/<folders>/test_<module>.py), and test files of the same name cannot collide."""

import pathlib
import re
import tomllib

from repository.test_architecture import LAYERS

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


# --- where the tests are ---------------------------------------------------------------------

ROOT = DESIGN.parent.parent
TESTS = ROOT / "tests"

# Test files that test no single module: they cut across modules or check the repository.
CROSS_CUTTING = {
    "cli/test_entry_points.py",  # every entry point's one-line failures
    "cli/test_vocabulary.py",  # every program's flag names, --help and old names
    "experiments/ablations/test_scripts.py",  # the shell scripts' arms, each built and checked
    "experiments/benchmarks/test_accelerator_check.py",  # the GPU span's script, its configs
    "games/test_game_conformance.py",  # the game contract on every game
    "games/test_games_differential.py",  # every game against an independent implementation
    "games/test_known_counts.py",  # published counts of positions, through step
    "play/test_browser.py",  # the server's page in a headless browser
    "play/test_offline_page.py",  # the exported static page in a headless browser
    "play/test_offline_rules.py",  # the page's JavaScript rules against the library's
    "play/test_offline_search.py",  # the page's JavaScript search against JAX
    "play/test_pgx_play.py",  # pgx's games on the play server, its page and the terminal
    "play/test_web_fuzzed.py",  # random bodies to every route of the app
    "play/test_web_schema.py",  # the app against its OpenAPI schema (schemathesis)
    "test_inputs_fuzzed.py",  # random input to every text or value parser
    "training/test_ideas.py",  # the ideas of the literature, each as settings
    "training/test_multiprocess.py",  # training as two processes
    "training/test_pgx_training.py",  # pgx's games trained, judged and compared
    "training/test_plug_ins.py",  # plug points used from outside the package
    "training/test_same_weights.py",  # training's weights against an earlier commit's
}


def _test_files() -> list[pathlib.Path]:
    return sorted(TESTS.rglob("test_*.py"))


def _tested_module(path: pathlib.Path) -> pathlib.Path | None:
    """The module or package that ``tests/<folders>/test_<name>.py`` tests, if one exists:
    ``alphazero_jax/<folders>/<name>`` (``experiments/...`` under tests/experiments/), or the
    package ``<folders>`` itself when ``<name>`` is its last folder."""
    folders = path.parent.relative_to(TESTS).parts
    name = path.stem.removeprefix("test_")
    base = (
        ROOT.joinpath(*folders)
        if folders[:1] == ("experiments",)
        else ROOT.joinpath("alphazero_jax", *folders)
    )
    for candidate in (base / f"{name}.py", base / name / "__init__.py"):
        if candidate.exists():
            return candidate
    if folders and folders[-1] == name and (base / "__init__.py").exists():
        return base / "__init__.py"
    return None


def test_test_files__each_named_for_the_module_it_tests():
    unmatched = {
        path.relative_to(TESTS).as_posix()
        for path in _test_files()
        if path.parent != TESTS / "repository" and _tested_module(path) is None
    }
    assert unmatched - CROSS_CUTTING == set(), "expected tests/<folders>/test_<module>.py"
    assert CROSS_CUTTING - unmatched == set(), "an allowed name that needs no allowance"


def _import_mode_is_importlib() -> bool:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    return "--import-mode=importlib" in options["ini_options"]["addopts"].split()


def _in_packages(path: pathlib.Path) -> bool:
    """Whether every folder from tests/ down to ``path``'s has an ``__init__.py``."""
    return all(
        (folder / "__init__.py").exists()
        for folder in [path.parent, *path.parent.parents]
        if folder.is_relative_to(TESTS)
    )


def test_test_files__same_basenames_only_where_they_cannot_collide():
    """pytest's default import mode puts each test file's folder on sys.path and imports the
    file by its basename, so a second test_x.py elsewhere fails to collect unless the test
    folders are packages or the import mode is importlib (pyproject.toml)."""
    by_name: dict[str, list[pathlib.Path]] = {}
    for path in _test_files():
        by_name.setdefault(path.name, []).append(path.relative_to(ROOT))
    shared = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    unprotected = {
        name: [str(path) for path in paths]
        for name, paths in shared.items()
        if not all(_in_packages(ROOT / path) for path in paths)
    }
    assert _import_mode_is_importlib() or not unprotected, unprotected
