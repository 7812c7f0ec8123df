"""The package's import graph: no cycles, and no layer imports a layer above it.

The layers, lowest first. A module may import its own layer and the ones below; a new
subpackage or top-level module must be given a layer here.
"""

import grimp
import pytest

PACKAGE = "alphazero_jax"
LAYERS = (
    # the one registry type and the plug points' registries; the built-in games' presets
    ("types", "memory", "checkpoints", "registry", "plugs", "presets"),
    ("games", "solvers"),
    ("networks",),
    ("search", "runs"),
    ("agents",),
    ("evaluation",),
    ("play",),  # below training: playing an agent never needs the loop
    # the settings table and the reading of a config sit above the factories they name
    # (their choice lists, the registries) and below the training loop that reads them
    ("configs",),
    ("training",),
    ("compare",),  # comparisons of training settings: run the loop, judge, report
    ("cli",),
)


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(PACKAGE)


def _layer(module: str) -> int | None:
    """The layer of a module, None for the package's own ``__init__``."""
    if module == PACKAGE:
        return None
    top = module.split(".")[1]
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module} is in no layer of {__file__}'s LAYERS: add it.")


def _where(graph, importer: str, imported: str) -> str:
    details = graph.get_import_details(importer=importer, imported=imported)
    return "; ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)


def test_import_graph__every_module_has_a_layer(graph):
    for module in graph.modules:
        _layer(module)


def test_import_graph__no_layer_imports_a_higher_one(graph):
    wrong = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            low, high = _layer(importer), _layer(imported)
            if low is not None and high is not None and high > low:
                wrong.append(f"{importer} imports {imported} ({_where(graph, importer, imported)})")
    assert not wrong, "Imports from a higher layer:\n" + "\n".join(wrong)


def _find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph as a list of nodes, or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(edges):
        if root in state:
            continue
        path, stack = [root], [iter(sorted(edges[root]))]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child) :], child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(edges.get(child, ()))))
    return None


def test_find_cycle__finds_a_hand_made_cycle_and_none_in_a_tree():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_import_graph__has_no_cycle(graph):
    # Function-level (lazy) imports count too: they hide a cycle, they do not remove it.
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    cycle = _find_cycle(edges)
    assert cycle is None, "Import cycle: " + " -> ".join(cycle)


def test_only_the_command_line_programs_read_flags():
    """absl's flags are read in ``alphazero_jax/cli/`` (and ``experiments/``) alone: the
    library below takes typed arguments (DESIGN.md: config lives at the edge)."""
    import pathlib

    root = pathlib.Path(__file__).parents[2] / PACKAGE
    readers = [
        str(path.relative_to(root.parent))
        for path in sorted(root.rglob("*.py"))
        if "cli" not in path.relative_to(root).parts[:1] and "from absl import" in path.read_text()
    ]
    assert not readers, f"Modules outside alphazero_jax/cli that import absl: {readers}"
