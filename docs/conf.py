"""Sphinx configuration of the docs site: MyST Markdown pages, notebooks rendered as saved
(without outputs; never executed: the tests run them), the API generated from docstrings.

Build it with ``make docs`` (warnings are errors); ``tests/repository/test_docs.py`` builds it too.
Nothing is fetched at build or view time: no intersphinx, no remote scripts or fonts.
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
# Autodoc imports the package: on the CPU, whatever accelerator the machine has.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]

import generated  # noqa: E402  (docs/_ext, on the path just above)

generated.write_all()

project = "alphazero_jax"
author = "the alphazero_jax authors"
copyright = "the alphazero_jax authors, Apache-2.0"
release = importlib.metadata.version("alphazero_jax")
version = release

extensions = [
    "myst_nb",  # MyST Markdown pages and .ipynb notebooks (it sets up myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
exclude_patterns = ["_build", "_ext", "_templates", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

# MyST: ``:::`` fences for directives, and anchors for headings down to ### so that pages
# can link to sections (``page.md#a-heading``).
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# Notebooks: shown as saved (code, no outputs), never run here
# (tests/repository/test_notebooks.py runs them); no ipywidgets script, which would come from a CDN.
nb_execution_mode = "off"
nb_ipywidgets_js: dict = {}

# The API: one page per public module (_templates/autosummary/module.rst): its docstring,
# its members (for a package with ``__all__``, what it re-exports: its public face) and
# its submodules, every one that does not start with ``_``.
autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# "Attributes:" sections as fields of their class: autoclass's :members: documents the
# fields themselves (a NamedTuple's), and two descriptions of one name would be a warning.
napoleon_use_ivar = True

# A class that a package re-exports is documented twice (``configs.ConfigError`` and
# ``configs.settings.ConfigError``), so a short name in a docstring of a third module
# matches both; Sphinx links it to one of them, the same class either way.
suppress_warnings = ["ref.python"]

html_theme = "sphinx_book_theme"
html_title = f"alphazero_jax {release}"
html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False}


def _relink_notebooks(app, docname: str, source: list[str]) -> None:
    """Links to ``notebooks/*.ipynb`` point at the build's copies (``generated.py``)."""
    page = pathlib.Path(app.env.doc2path(docname))
    source[0] = generated.link_notebooks_to_copies(page, source[0])


def setup(app) -> None:
    app.connect("source-read", _relink_notebooks)
