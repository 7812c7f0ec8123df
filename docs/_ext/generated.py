"""What the docs build writes before it reads its sources (``conf.py`` calls ``write_all``).

- ``_generated/settings.md``: every training setting, its default, rule and meaning, from
  ``alphazero_jax.configs.settings.reference()`` (the one source of the settings).
- ``_generated/presets.md``: for each game, its presets (``configs.presets(game)``) with the
  docstring of the function that makes each, and every key a preset sets to something else
  than its default.
- ``tutorials/<name>.ipynb``: copies of ``notebooks/*.ipynb`` (Sphinx reads only files under
  its source folder); they are rendered with their saved outputs, never executed.

Autosummary writes ``api/<module>.rst``, a page per module; a page whose module is gone
(removed or renamed since the last build) is removed here, or Sphinx would fail to import it.

``_generated/`` is excluded from the sources (``configuration.md`` includes its files); both
it and the copies are ignored by git. A file is only rewritten when its text changes, and
then atomically, so that two builds at once read whole files.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pathlib
import tempfile
from typing import Any

DOCS = pathlib.Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
TUTORIALS = DOCS / "tutorials"
API = DOCS / "api"
NOTEBOOKS = ROOT / "notebooks"
# What ``auto`` means; it has no function of its own (``configs.resolve_preset``).
AUTO_DOC = "``default`` where JAX sees a GPU or TPU, else ``cpu`` (chosen when the run starts)."


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
    """``preset -> function`` of ``game``: ``configs/<game>.py``'s ``PRESETS``, else the
    generic presets of a game that has none of its own (``configs/generic.py``)."""
    for module in (f"alphazero_jax.configs.{game}", "alphazero_jax.configs.generic"):
        try:
            return importlib.import_module(module).PRESETS
        except ModuleNotFoundError:
            continue
    return {}


def _summary(function: Any) -> str:
    """The first paragraph of a preset function's docstring, on one line."""
    doc = (getattr(function, "__doc__", None) or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) or "(no docstring)"


def presets_markdown() -> str:
    """For each game: a table of its presets and what each is for, then the keys that a
    preset sets away from the default, with each preset's value."""
    from alphazero_jax import configs
    from alphazero_jax.configs import settings

    keys = [key for key, _ in settings.leaves()]
    sections = []
    for game in configs.available():
        functions = _preset_functions(game)
        names = [name for name in configs.presets(game) if name != configs.AUTO]
        rows = ["| preset | what it is for |", "| --- | --- |"]
        rows += [f"| `{name}` | {_summary(functions.get(name))} |" for name in names]
        rows.append(f"| `{configs.AUTO}` | {AUTO_DOC} |")
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
        sections.append(
            f"### `{game}`\n\n"
            + "\n".join(rows)
            + "\n\nThe keys its presets set to another value than the default:\n\n"
            + "\n".join(table)
        )
    return "\n\n".join(sections) + "\n"


def settings_markdown() -> str:
    """The reference table of every setting."""
    from alphazero_jax.configs import settings

    return settings.reference() + "\n"


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
    write_if_changed(GENERATED / "settings.md", settings_markdown())
    write_if_changed(GENERATED / "presets.md", presets_markdown())
    copy_notebooks()
    remove_stale_api_pages()
