"""The docs site builds with warnings as errors, and every code block of its pages runs.

Which blocks run (README.md's, and every docs/**/*.md that people write; not docs/api/,
docs/reference/ or docs/_build/, which the build or ``make reference`` writes):

- A ```python fence runs. The python blocks of a page run in order in one namespace, in a
  fresh process (``JAX_PLATFORMS=cpu``, its working directory a temporary folder), so a
  later block may use what an earlier one made.
- Python that must not run here (a multi-host job, an hour of training) is written as a
  MyST directive with the class ``no-run``; it renders as any python block::

      ```{code-block} python
      :class: no-run

      train.train_and_evaluate(configs.get_config("connect_four", "gpu"), workdir)
      ```

  A ``{code-block} python`` (or ``{code} python``) without that class runs like a fence.
- A ```text fence right after a python block (blank lines between at most) is what that
  block prints, and the test checks it: each line as written, where ``...`` stands for any
  text within a line, and a line of ``...`` alone for any number of lines (a figure that
  differs by machine or run is written ``...``). On the pages a newcomer reads first
  (``WITH_OUTPUT``), every block that prints has one.
- A page's own Python modules, the ``*.py`` files beside it in docs/ (shown on the page with
  ``{literalinclude}``), are in the working directory when its blocks run, as they would be
  for a reader who saved them there.
- ```bash and ```console blocks do not run: tests/repository/test_readme_names.py checks that each
  command of ours in them (``make``, ``python -m experiments...``, ``alphazero-train``)
  names targets, entry points, flags and config keys that exist.

The build is ``make docs``'s (``sphinx-build -W --keep-going -j auto``, the same flags, which a
test reads from the Makefile) into a temporary folder; it
fails with Sphinx's warnings, and when a page would fetch a script, a style sheet or a
picture from another host (the site must work where only the package registries are
reachable).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from game_names import DEFAULT

from alphazero_jax import configs
from alphazero_jax.configs import settings

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Folders of docs/ that the build writes (docs/reference/ is committed, from the package).
GENERATED = ("_build", "reference", "api")
NO_RUN = "no-run"
# Runs each block of a page in one namespace; a block's lines keep their numbers in the page.
# Each block's stdout is kept (and passed on) and written, as JSON, to the file named by argv[1].
DRIVER = """\
import contextlib, io, json, sys
namespace, printed = {"__name__": "__main__"}, []


class Tee(io.StringIO):
    def write(self, text):
        sys.__stdout__.write(text)
        return super().write(text)


try:
    for filename, line, code in json.load(sys.stdin):
        printed.append(Tee())
        with contextlib.redirect_stdout(printed[-1]):
            exec(compile("\\n" * (line - 1) + code, filename, "exec"), namespace)
finally:
    with open(sys.argv[1], "w") as file:
        json.dump([block.getvalue() for block in printed], file)
"""


def pages() -> list[pathlib.Path]:
    """The Markdown pages of docs/ that people write."""
    return sorted(
        path for path in DOCS.rglob("*.md") if path.relative_to(DOCS).parts[0] not in GENERATED
    )


def python_blocks(markdown: str) -> list[tuple[int, str]]:
    """``(first line, code)`` of each python block of ``markdown`` that runs (1-based line
    of the code's first line in the page)."""
    blocks, lines, number = [], markdown.splitlines(), 0
    while number < len(lines):
        opening = re.match(r"\s*(`{3,}|~{3,})\s*(.*)$", lines[number])
        number += 1
        if not opening:
            continue
        fence, info = opening.groups()
        start = number
        while number < len(lines) and not lines[number].strip().startswith(fence):
            number += 1
        body, number = lines[start:number], number + 1
        words = info.split()
        if words == ["python"]:
            blocks.append((start + 1, "\n".join(body)))
        elif words[:1] in (["{code-block}"], ["{code}"]) and words[1:2] == ["python"]:
            options = 0
            while options < len(body) and re.match(r"\s*:[\w-]+:", body[options]):
                options += 1
            classes = " ".join(re.findall(r":class:(.*)", "\n".join(body[:options])))
            if NO_RUN not in classes.split():
                code = body[options:]
                blocks.append((start + options + 1, "\n".join(code)))
    return blocks


def expected_outputs(markdown: str) -> dict[int, str]:
    """``{first line of a python block: the text it prints}``: the ```text fence that
    follows the block, with blank lines at most between them."""
    lines, found = markdown.splitlines(), {}
    for start, code in python_blocks(markdown):
        number = start + len(code.split("\n")) if code else start  # after the closing fence
        while number < len(lines) and not lines[number].strip():
            number += 1
        if number < len(lines) and lines[number].strip() == "```text":
            end = lines.index("```", number + 1)
            found[start] = "\n".join(lines[number + 1 : end])
    return found


def output_matches(expected: str, printed: str) -> bool:
    """Whether ``printed`` is ``expected``, ``...`` standing for any text within a line and
    a line of ``...`` alone for any number of lines (trailing spaces ignored)."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?"
        if line.strip() == "..."
        else re.escape(line).replace(r"\.\.\.", "[^\n]*?") + r"\n"
        for line in expected.splitlines()
    )
    text = "".join(line.rstrip() + "\n" for line in printed.splitlines())
    return re.fullmatch(pattern, text) is not None


def run_blocks(page: pathlib.Path, blocks: list[tuple[int, str]], cwd: pathlib.Path):
    """Runs ``blocks`` of ``page`` in order, in one process; returns it when finished, with
    ``printed``: what each block printed (of those that ran)."""
    name = str(page.relative_to(ROOT))
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    record = cwd / ".printed.json"
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, str(record)],
        input=json.dumps([(name, line, code) for line, code in blocks]),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    result.printed = json.loads(record.read_text()) if record.exists() else []
    return result


# The pages a newcomer reads first: each block that prints shows its output.
WITH_OUTPUT = {ROOT / "README.md", DOCS / "getting_started.md", DOCS / "agents.md"}
WITH_OUTPUT |= set((DOCS / "tutorials").glob("*.md"))
PAGES_WITH_CODE = [  # the README's blocks run too
    page for page in (ROOT / "README.md", *pages()) if python_blocks(page.read_text())
]
# Pages whose code takes half a minute or more of two cores run in make test-long: your own
# game (20 iterations of Nim, then its judging) and perfect play (the solver, then alpha-beta
# judged on two position sets).
LONG = {ROOT / "docs" / "tutorials" / "own_game.md", ROOT / "docs" / "perfect_play.md"}
# The plug-point tutorials: each trains, resumes, exports and plays (a minute or more each).
LONG |= {
    ROOT / "docs" / "tutorials" / f"{name}.md"
    for name in ("own_network", "forced_playouts", "opponent_reply", "selfplay_parts")
}


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=pytest.mark.long) if p in LONG else p for p in PAGES_WITH_CODE],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_docs_page__python_blocks_run(page, tmp_path):
    for module in page.parent.glob("*.py"):
        shutil.copy(module, tmp_path / module.name)
    markdown = page.read_text()
    blocks = python_blocks(markdown)
    result = run_blocks(page, blocks, tmp_path)
    assert result.returncode == 0, (
        f"a python block of {page.relative_to(ROOT)} failed:\n"
        f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    )
    expected = expected_outputs(markdown)
    for (line, _), printed in zip(blocks, result.printed, strict=True):
        where = f"{page.relative_to(ROOT)}, the block at line {line}"
        if line in expected:
            assert output_matches(expected[line], printed), (
                f"{where} printed\n{printed}\nnot the output the page shows:\n{expected[line]}"
            )
        elif page in WITH_OUTPUT:
            assert not printed, f"{where} prints, and the page shows no ```text output"


MADE_UP = """\
# A page

```python
x = 1
```

```{code-block} python
:class: no-run

raise SystemExit("a block marked no-run ran")
```

```{code-block} python
:caption: runs

assert x == 1
y = x + 1
```

```bash
exit 1
```

````markdown
```python
inside another block: not a block of the page
```
````

```python
assert y == 2
print("ran", y)
```
"""


def test_python_blocks__run_in_order_and_skip_no_run(tmp_path):
    blocks = python_blocks(MADE_UP)
    assert [line for line, _ in blocks] == [4, 15, 31]
    page = DOCS / "made_up.md"
    result = run_blocks(page, blocks, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ran 2\n"
    assert result.printed == ["", "", "ran 2\n"]
    failing = run_blocks(page, [*blocks, (40, "\n\nraise ValueError('here')")], tmp_path)
    assert 'File "docs/made_up.md", line 42' in failing.stderr  # the page's line
    assert failing.printed == ["", "", "ran 2\n", ""]


def test_expected_outputs__follow_their_block_and_match_with_ellipses():
    page = "```python\nprint(1)\n```\n\n```text\n1\n```\n\n```python\nx = 2\n```\ntext\n"
    assert expected_outputs(page) == {2: "1"}
    assert expected_outputs(page.replace("```\n\n```text", "```\n```text")) == {2: "1"}
    assert expected_outputs("```python\nx = 1\n\n```\n```text\n1\n```\n") == {2: "1"}
    shown = "moves: ... a game\n...\nlast line"
    assert output_matches(shown, "moves: 21.5 a game\nboard\nboard  \nlast line\n")
    assert output_matches(shown, "moves: 3 a game\nlast line")
    assert not output_matches(shown, "moves: 21.5 a game\nlast line changed\n")
    assert not output_matches("a\nb", "a\nb\nc\n")  # a line more is a difference


# make docs's flags: the test builds the site as the README's command does (in parallel too,
# where Sphinx finds duplicate descriptions that a serial build lets pass).
SPHINX_FLAGS = ["-W", "--keep-going", "-j", "auto", "-q", "-b", "html"]


def test_docs__the_build_tested_is_make_docs():
    recipe = (ROOT / "Makefile").read_text().split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert f"sphinx-build {' '.join(SPHINX_FLAGS)} docs docs/_build/html" in recipe


@pytest.mark.long
def test_docs__build_without_warnings(tmp_path):
    if importlib.util.find_spec("sphinx") is None:
        pytest.fail("Sphinx is missing: install the docs extra (pip install -e '.[test,docs]')")
    html = tmp_path / "html"
    command = [sys.executable, "-m", "sphinx", *SPHINX_FLAGS]
    result = subprocess.run(
        [*command, "-d", str(tmp_path / "doctrees"), str(DOCS), str(html)],
        cwd=ROOT,
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, "The docs build warns:\n" + result.stderr[-10000:]
    for page in pages():
        built = html / page.relative_to(DOCS).with_suffix(".html")
        assert built.exists(), f"{page.relative_to(ROOT)} was not built (not in a toctree?)"
    remote = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""")
    fetching = [
        str(p.relative_to(html)) for p in html.rglob("*.html") if remote.search(p.read_text())
    ]
    assert not fetching, f"pages that fetch from another host: {fetching}"


def _generated():
    spec = importlib.util.spec_from_file_location("generated", DOCS / "_ext" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _keys(config, prefix: str = "") -> list[str]:
    """The dotted keys of a config down to its settings (a setting's value may be a dict)."""
    known = {key for key, _ in settings.leaves()}
    keys = []
    for key, value in config.items():
        if prefix + key not in known and hasattr(value, "items"):
            keys += _keys(value, f"{prefix}{key}.")
        else:
            keys.append(prefix + key)
    return keys


def test_reference_pages__committed_as_the_package_says():
    # In a process of its own: what the suite's tests register (a loss term of a test
    # module, at collection) is not the package's and is on no page.
    checked = subprocess.run(
        [sys.executable, "-m", "docs._ext.generated", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    pages = _generated().reference_paths()  # the --check above built them
    committed = set((DOCS / "reference").glob("*.md"))
    assert committed == set(pages), f"pages of no game: {sorted(committed - set(pages))}"
    linked = {
        link
        for page in ("configuration.md", "extending.md")
        for link in re.findall(r"\]\((reference/[\w.]+\.md)\)", (DOCS / page).read_text())
    }
    assert linked == {str(p.relative_to(DOCS)) for p in pages}, "the reference pages' links"


def test_reference_check__names_a_stale_page(tmp_path, monkeypatch, capsys):
    generated = _generated()
    for path, text in generated.reference_pages().items():
        (tmp_path / path.name).write_text(text)
    (tmp_path / "presets_tic_tac_toe.md").write_text("# an old table\n")
    (tmp_path / "presets_gone.md").write_text("# a game that is gone\n")
    monkeypatch.setattr(generated, "REFERENCE", tmp_path)
    monkeypatch.setattr(generated, "ROOT", tmp_path)
    assert generated.main(["--check"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "stale: presets_tic_tac_toe.md (run make reference)",
        "stale: presets_gone.md (run make reference)",
    ]
    assert generated.main(["--write"]) == 0
    assert not (tmp_path / "presets_gone.md").exists()
    assert generated.main(["--check"]) == 0
    assert generated.main([]) == 2


def test_notebook_links__point_at_the_builds_copies():
    generated = _generated()
    page = DOCS / "tutorials" / "index.md"
    text = "[a](../../notebooks/play.ipynb) [b](../../notebooks/evaluate.ipynb#cell) [c](x.md)"
    assert generated.link_notebooks_to_copies(page, text) == (
        "[a](play.ipynb) [b](evaluate.ipynb#cell) [c](x.md)"
    )
    assert generated.link_notebooks_to_copies(
        DOCS / "index.md", "[a](../notebooks/play.ipynb)"
    ) == ("[a](tutorials/play.ipynb)")
    elsewhere = "[a](../notebooks/play.ipynb)"  # from docs/tutorials/: not the notebooks folder
    assert generated.link_notebooks_to_copies(page, elsewhere) == elsewhere


# A citation by author and year: "Wu (2019)", "Danihelka et al., 2022", "Vodopivec & Šter
# (2014)", "Silver et al. (2017, 2018)" (each year counts).
CITATION = re.compile(
    r"\b([A-Z][\w-]+(?: et al\.| (?:&|and) [A-Z\u00c0-\u017f][\w-]+)?)(?: \(|, )"
    r"((?:19|20)\d\d(?:, (?:19|20)\d\d)*)\b(?!-\d)"
)


def _citations(text: str) -> set[tuple[str, str]]:
    """``(author, year)`` of each citation in ``text``, "and" written "&"."""
    return {
        (author.replace(" and ", " & "), year)
        for author, years in CITATION.findall(text)
        for year in years.split(", ")
    }


def test_references__list_every_work_the_pages_cite():
    listed = _citations(
        "\n".join(re.findall(r"^- ([^:]+):", (DOCS / "references.md").read_text(), re.M))
    )
    cited = {}
    for page in (ROOT / "README.md", *pages()):
        if page.name != "references.md":
            for work in _citations(page.read_text()):
                cited.setdefault(work, str(page.relative_to(ROOT)))
    missing = [
        f"{a} ({y}), cited in {page}" for (a, y), page in cited.items() if (a, y) not in listed
    ]
    assert not missing, f"cited but not in docs/references.md: {sorted(missing)}"
    assert _citations(
        "as Wu (2019) and Vodopivec and Šter, 2014 say (Silver et al., 2017, 2018)"
    ) == {
        ("Wu", "2019"),
        ("Vodopivec & Šter", "2014"),
        ("Silver et al.", "2017"),
        ("Silver et al.", "2018"),
    }


def test_configuration_reference__documents_every_key_of_every_preset():
    documented = set(re.findall(r"^\| `([\w.]+)` \|", _generated().settings_markdown(), re.M))
    for game in DEFAULT:  # pgx's others take seconds to make; their presets are alike
        for preset in configs.presets(game):
            if preset == configs.AUTO:
                continue
            missing = set(_keys(configs.get_config(game, preset))) - documented
            assert not missing, f"{game}:{preset} keys not in the reference: {sorted(missing)}"


def test_api_page__lists_every_public_module():
    import pkgutil

    import alphazero_jax

    listed = set(
        re.findall(r"^\s+(alphazero_jax(?:\.\w+)*)\s*$", (DOCS / "api.md").read_text(), re.M)
    )
    public = {
        f"alphazero_jax.{module.name}"
        for module in pkgutil.iter_modules(alphazero_jax.__path__)
        if not module.name.startswith("_")
    }
    assert public <= listed, f"modules missing from docs/api.md: {sorted(public - listed)}"


def test_training_loop_picture__names_every_plug_point():
    from alphazero_jax import plugs

    picture = (DOCS / "training_loop.svg").read_text()
    drawn = set(re.findall(r">([^<>]+)</text>", picture))
    missing = [registry.what for registry in plugs.ALL if registry.what not in drawn]
    assert not missing, f"plug points not in docs/training_loop.svg: {missing}"
    assert "training_loop.svg" in (DOCS / "extending.md").read_text()
