"""The pages generated from the package, and what the docs build writes before it reads its
sources (``conf.py`` calls ``write_all``).

Committed, so that they read on the repository's host too (``docs/reference/``):

- ``reference/settings.md``: every training setting, its default, rule and meaning, from
  ``alphazero_jax.configs.settings.reference()`` (the one source of the settings).
- ``reference/presets_<game>.md``, one per game: its presets (``configs.presets(game)``) with
  the docstring of the function that makes each, and every key a preset sets to something
  else than its default.
- ``reference/plug_points.md``: every plug point (``alphazero_jax.plugs.ALL``), with the
  function that registers one and its signature, what picks it, its built-ins and its
  tutorial: the table of docs/extending.md.

- ``results/ablations.md`` and ``results/index.md``: their tables and curves, rendered
  from the comparisons' records under ``results/records/`` into the blocks the pages mark
  (``results.py``); the rest of those pages is written by hand.

They go stale when a setting, a default, a preset or a record changes: ``make reference``
(the same as
``python -m docs._ext.generated --write``) writes them again, and
``tests/repository/test_docs.py`` fails while a committed one differs from what the package
says (``--check`` lists those). The docs build writes them too, so the site is never stale.

Written by the build only, ignored by git:

- ``tutorials/<name>.ipynb``: copies of ``notebooks/*.ipynb`` (Sphinx reads only files under
  its source folder); they are rendered as saved, never executed. Pages link to the
  notebooks themselves (``../../notebooks/play.ipynb``, which works on the repository's
  host); ``conf.py`` points those links at the copies as it reads each page
  (``link_notebooks_to_copies``).

Autosummary writes ``api/<module>.rst``, a page per module; a page whose module is gone
(removed or renamed since the last build) is removed here, or Sphinx would fail to import it.

A file is only rewritten when its text changes, and then atomically, so that two builds at
once read whole files.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pathlib
import re
import sys
import tempfile
from typing import Any

DOCS = pathlib.Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
REFERENCE = DOCS / "reference"
TUTORIALS = DOCS / "tutorials"
API = DOCS / "api"
NOTEBOOKS = ROOT / "notebooks"
# The command that writes the committed pages again (a line of each page says it).
REGENERATE = "make reference"
# What ``auto`` means; it has no function of its own (``configs.resolve_preset``).
AUTO_DOC = (
    "The preset of the kind of JAX's first device, chosen when the run starts: ``cpu`` on a "
    "CPU, ``gpu`` on a GPU, ``tpu`` on a TPU where the game has one, else ``gpu``."
)


def write_if_changed(path: pathlib.Path, data: str | bytes) -> None:
    """Writes ``data`` to ``path`` unless it already holds it, through a temporary file."""
    data = data.encode() if isinstance(data, str) else data
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


def _cell(value: Any) -> str:
    """A value in a markdown table cell: as code, with ``|`` escaped."""
    if hasattr(value, "to_dict"):  # a ConfigDict (``game.settings``)
        value = value.to_dict()
    return "`" + repr(value).replace("|", "\\|") + "`"


def _lookup(config: Any, key: str) -> Any:
    for part in key.split("."):
        config = config[part]
    return config


def _preset_functions(game: str) -> dict:
    """``preset -> function`` of ``game``: its record's presets, else the generic ones."""
    from alphazero_jax import configs

    return configs.preset_functions(game)


def _summary(function: Any) -> str:
    """The first paragraph of a preset function's docstring, on one line."""
    doc = (getattr(function, "__doc__", None) or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) or "(no docstring)"


def presets_markdown(game: str) -> str:
    """``game``'s presets page: a table of its presets and what each is for, then the keys
    that a preset sets away from the default, with each preset's value."""
    from alphazero_jax import configs
    from alphazero_jax.configs import settings

    keys = [key for key, _ in settings.leaves()]
    functions = _preset_functions(game)
    picked = [name for name in configs.presets(game) if name != configs.AUTO]
    recipes = list(configs.recipes(game))
    names = picked + recipes
    rows = ["| preset | what it is for |", "| --- | --- |"]
    rows += [f"| `{name}` | {_summary(functions.get(name))} |" for name in picked]
    rows.append(f"| `{configs.AUTO}` | {AUTO_DOC} |")
    rows += [f"| `{name}` (agent recipe) | {_summary(functions.get(name))} |" for name in recipes]
    built = {name: configs.get_config(game, name) for name in names}
    changed = [
        key
        for key in keys
        if key != "game.name"
        and any(_lookup(c, key) != settings.default(key) for c in built.values())
    ]
    header = "| key | default | " + " | ".join(f"`{n}`" for n in names) + " |"
    table = [header, "|" + " --- |" * (len(names) + 2)]
    for key in changed:
        cells = [_cell(settings.default(key))]
        cells += [_cell(_lookup(built[name], key)) for name in names]
        table.append(f"| `{key}` | " + " | ".join(cells) + " |")
    return (
        f"# Presets of `{game}`\n\n{_notice()}\n\n"
        f'`--config={game}:<preset>` picks one (`configs.get_config("{game}", preset)`); '
        "the [configuration](../configuration.md) page says how a config is made. The "
        "agent recipes, last, are the configs behind the shipped agents and the comparisons "
        "(`make agent GAME=<game> RECIPE=<recipe>`), out of `alphazero-train --help`'s list.\n\n"
        + "\n".join(rows)
        + "\n\nThe keys its presets set to another value than the default "
        "([every setting](settings.md) has what each means):\n\n" + "\n".join(table) + "\n"
    )


def _notice() -> str:
    """The line under each committed page's title that says where it comes from."""
    return (
        "*Generated from the package by `docs/_ext/generated.py`; do not edit: "
        f"`{REGENERATE}` writes it again.*"
    )


def settings_markdown() -> str:
    """The reference table of every setting."""
    from alphazero_jax.configs import settings

    return settings.reference() + "\n"


def settings_page() -> str:
    """The page of every setting: a title, where it comes from, then the table."""
    return (
        f"# Every setting\n\n{_notice()}\n\n"
        "Each key with its default, the values it accepts and what it does. A run refuses a "
        "config whose value breaks a key's rule, and says which key and what it accepts; "
        "rules that relate several keys are `configs.plan.read`'s. "
        "Each game's presets: the [configuration](../configuration.md) page.\n\n"
        + settings_markdown()
    )


def _register_function(dotted: str):
    """The function a registry names as its ``register_with`` (``search.register``)."""
    module, _, name = ("alphazero_jax." + dotted).rpartition(".")
    return getattr(importlib.import_module(module), name)


def _signature(fn) -> str:
    """``fn``'s parameters as a reader writes them: names, ``*`` and defaults (a function's
    by its name), without annotations."""
    import inspect

    written, starred = [], False
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not starred:
            written.append("*")
            starred = True
        default = parameter.default
        if default is inspect.Parameter.empty:
            written.append(parameter.name)
        else:
            shown = getattr(default, "__name__", None) if callable(default) else repr(default)
            written.append(f"{parameter.name}={shown}")
    return ", ".join(written)


def plug_points_page() -> str:
    """Every plug point: how one registers, what picks it, the built-ins, the tutorial."""
    from alphazero_jax import plugs

    sections = []
    for registry in plugs.ALL:
        dotted = registry.register_with
        signature = _signature(_register_function(dotted))
        built_in = [n for n in registry.available() if registry.is_built_in(n)]
        sections.append(
            f"## {registry.what[0].upper()}{registry.what[1:]}\n\n"
            f"`{dotted}({signature})`\n\n"
            f"- picked by: {registry.picked_by}\n"
            f"- built in: {', '.join(f'`{n}`' for n in built_in)}\n"
            f"- how to write one: [{registry.guide}](../{registry.guide})\n"
        )
    return (
        f"# Plug points\n\n{_notice()}\n\n"
        "Each plug point is a registry (`alphazero_jax.plugs`); a plug-in is registered in a "
        "module that the run's `config.imports` names. [Extending](../extending.md) says "
        "what they share.\n\n" + "\n".join(sections)
    )


def reference_paths() -> list[pathlib.Path]:
    """The paths of every committed page generated from the package (none is built)."""
    from alphazero_jax import configs

    presets = [REFERENCE / f"presets_{game}.md" for game in configs.available()]
    return [REFERENCE / "settings.md", REFERENCE / "plug_points.md", *presets]


def reference_pages() -> dict[pathlib.Path, str]:
    """``path -> text`` of every committed page generated from the package."""
    pages = {}
    for path in reference_paths():
        if path.name == "settings.md":
            pages[path] = settings_page()
        elif path.name == "plug_points.md":
            pages[path] = plug_points_page()
        else:
            pages[path] = presets_markdown(path.stem.removeprefix("presets_"))
    return pages


def _results():
    """``docs/_ext/results.py``: the results pages' blocks rendered from the records."""
    spec = importlib.util.spec_from_file_location("results", DOCS / "_ext" / "results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed_pages() -> dict[pathlib.Path, str]:
    """``reference_pages`` and the results pages, whose tables are rendered from the
    comparisons' records (``results.py``)."""
    return {**reference_pages(), **_results().results_pages()}


def stale_pages() -> list[pathlib.Path]:
    """The committed generated pages that differ from what the package and the records
    say now, that are missing, or whose game is gone."""
    pages = committed_pages()
    stale = [path for path, text in pages.items() if not path.exists() or path.read_text() != text]
    stale += [path for path in sorted(REFERENCE.glob("presets_*.md")) if path not in pages]
    return stale


def write_reference() -> list[pathlib.Path]:
    """Writes the generated pages that changed and removes those of games that are gone;
    returns the paths it wrote or removed."""
    changed = stale_pages()
    pages = committed_pages()
    for path in changed:
        if path in pages:
            write_if_changed(path, pages[path])
        else:
            path.unlink(missing_ok=True)
    return changed


def source_of(path: pathlib.Path) -> pathlib.Path:
    """The file of the repository that the build copies to ``path`` (a notebook under
    ``tutorials/``); ``path`` itself for any other file."""
    path = pathlib.Path(os.path.normpath(path.resolve()))
    if path.parent == TUTORIALS and path.suffix == ".ipynb":
        return NOTEBOOKS / path.name
    return path


def copy_notebooks() -> list[str]:
    """Copies ``notebooks/*.ipynb`` into ``tutorials/`` (and removes copies of notebooks
    that are gone); returns their names."""
    names = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    for name in names:
        write_if_changed(TUTORIALS / name, (NOTEBOOKS / name).read_bytes())
    for stale in TUTORIALS.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink(missing_ok=True)
    return names


NOTEBOOK_LINK = re.compile(r"\]\(((?:\.\./)*)notebooks/([\w-]+\.ipynb)(#[^)]*)?\)")


def link_notebooks_to_copies(page: pathlib.Path, text: str) -> str:
    """``text`` of the page ``page`` with each Markdown link to ``notebooks/<name>.ipynb``
    (relative, so that it works on the repository's host) pointing at the build's copy in
    ``tutorials/`` instead, which the site renders as a page."""

    def relink(found: re.Match) -> str:
        target = os.path.normpath(page.parent / (found.group(1) + "notebooks/" + found.group(2)))
        if pathlib.Path(target) != NOTEBOOKS / found.group(2):
            return found.group(0)
        copy = os.path.relpath(TUTORIALS / found.group(2), page.parent)
        return f"]({pathlib.Path(copy).as_posix()}{found.group(3) or ''})"

    return NOTEBOOK_LINK.sub(relink, text)


def remove_stale_api_pages() -> None:
    """Removes the pages of ``api/`` whose module no longer exists."""
    for page in API.glob("*.rst"):
        try:
            found = importlib.util.find_spec(page.stem) is not None
        except ModuleNotFoundError:  # a parent package is gone too
            found = False
        if not found:
            page.unlink(missing_ok=True)


def write_all() -> None:
    """Everything the build reads that is generated."""
    write_reference()
    _results().draw_curves()
    copy_notebooks()
    remove_stale_api_pages()


USAGE = "usage: python -m docs._ext.generated --write | --check"


def main(argv: list[str]) -> int:
    """``--write``: write the committed pages again; ``--check``: list the stale ones and
    return 1 if there are any."""
    if argv not in (["--write"], ["--check"]):
        print(f"{USAGE} (received: {' '.join(argv) or 'no argument'})", file=sys.stderr)
        return 2
    if argv == ["--write"]:
        for path in write_reference():
            print(f"updated {path.relative_to(ROOT)}")
        return 0
    stale = stale_pages()
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)} (run {REGENERATE})")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
