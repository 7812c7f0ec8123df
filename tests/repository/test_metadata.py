"""The version is pyproject.toml's, wherever it is read: the package's ``__version__``, the
citation file and the docs site (docs/conf.py reads the installed metadata too); the citation
file has what Citation File Format 1.2.0 requires, and the project's addresses are real ones."""

import pathlib
import re
import tomllib

import yaml

import alphazero_jax

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_version__is_pyprojects_in_the_package_and_the_citation():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert alphazero_jax.__version__ == PROJECT["version"], (
        f"alphazero_jax.__version__ is {alphazero_jax.__version__}, pyproject.toml says "
        f"{PROJECT['version']}: install the package again (pip install -e .)"
    )
    assert citation["version"] == PROJECT["version"], "CITATION.cff's version"


def test_citation__has_cff_1_2_required_keys_and_valid_values():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert {"cff-version", "message", "title", "authors"} <= set(citation)
    assert all(set(author) & {"name", "family-names"} for author in citation["authors"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(citation["date-released"]))
    assert citation["license"] == PROJECT["license"]
    for key in ("url", "repository-code", "repository"):
        if key in citation:
            assert re.fullmatch(r"https://[^<>\s]+", citation[key]), f"CITATION.cff's {key}"


def test_project_urls__are_https_addresses_without_placeholders():
    for label, url in PROJECT["urls"].items():
        assert re.fullmatch(r"https://[^<>\s]+", url), f"[project.urls] {label} = {url!r}"
