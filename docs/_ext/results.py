"""The results pages' tables and curves, rendered from the comparison records committed under
``docs/results/records/`` (one JSON a comparison, ``alphazero_jax.compare.record``).

A page asks for a record's tables with a block, which ``make reference`` fills and
``tests/repository/test_docs.py`` checks (``generated.stale_pages``)::

    <!-- rendered from records/NAME.json -->
    ... written here: its tables, its curves ...
    <!-- end of rendered -->

and for the summary of every record (an idea, its source, its effect at equal training
time with its interval, seeds, machine, whether the preset kept it) with
``<!-- rendered from records/ -->``. Everything else on the page is written by hand.

A computed record's curves are drawn from its points by the docs build (``draw_curves``)
into ``docs/results/curves/`` (git-ignored), which the block links; a transcribed record
keeps the committed image of its lost run (``figure``).
"""

from __future__ import annotations

import pathlib
import re

DOCS = pathlib.Path(__file__).resolve().parent.parent
RESULTS = DOCS / "results"
RECORDS = RESULTS / "records"
CURVES = RESULTS / "curves"
PAGES = ("ablations.md", "index.md")
BLOCK = re.compile(
    r"(<!-- rendered from records/(?P<name>[\w.-]*) -->\n).*?(<!-- end of rendered -->)", re.S
)


def records() -> dict[str, dict]:
    """``file name -> record`` of every committed record, each checked."""
    from alphazero_jax.compare import record

    return {path.name: record.read(str(path)) for path in sorted(RECORDS.glob("*.json"))}


def _arms(found: dict) -> str:
    """The arms as a line of code: each name with its preset and overrides."""
    arms = [
        f"{arm['name']}={arm['config']}" + "".join(f" {o}" for o in arm["overrides"])
        for arm in found["plan"]["arms"]
    ]
    return "; ".join(f"`{arm}`" for arm in arms)


def record_block(name: str, found: dict) -> str:
    """A record's part of a page: its arms, tables and curves."""
    from alphazero_jax.compare import record

    seeds = ", ".join(map(str, found["plan"]["seeds"]))
    parts = [f"Arms: {_arms(found)}; seeds {seeds}; {found['machine']}."]
    if "transcribed" in found:
        where = found["transcribed"]
        parts.append(
            f"*Transcribed from the page `{where['from']}` as commit {where['commit']} published "
            "it: the runs are gone, so the record holds the tables as printed, not every "
            f"judgement ([record](records/{name})).*"
        )
    tables = record.render_tables(found)
    if "transcribed" in found and len(tables) > 1:  # the page shows the first; all are kept
        parts.append(f"{tables[0]}\n\nThe [record](records/{name}) holds {len(tables) - 1} "
                     "more table(s) of this comparison.")  # fmt: skip
    else:
        parts += tables
    if found.get("figure"):
        parts.append(f"![{found['title']}]({found['figure']})")
    for measure in dict.fromkeys(r["measure"] for r in found.get("curves", ())):
        parts.append(f"![{found['title']}: {measure}](curves/{_curve_name(name, measure)})")
    return "\n\n".join(parts) + "\n"


def _curve_name(name: str, measure: str) -> str:
    from alphazero_jax.compare import plots

    return pathlib.Path(name).stem + "_" + plots.file_name(measure)


def summary_block(found: dict[str, dict]) -> str:
    """One table of every record's ideas: did each help, by how much, where, kept or not."""
    from alphazero_jax.compare import record as records_
    from alphazero_jax.compare import report

    kept_words = {True: "yes", False: "no", None: "not decided"}
    rows = []
    for one in found.values():
        for effect in records_.effects(one):
            page = f"[{effect['idea']}](ablations.md#{_anchor(one['title'])})"
            rows.append([page, one["source"] or "ours", one["game"].replace("_", " "),
                         f"{effect['measure']}: {effect['effect']}",
                         len(one["plan"]["seeds"]), one["machine"],
                         kept_words[one["kept"].get(effect["arm"])]])  # fmt: skip
    columns = ["idea", "source", "game", "effect at equal training time [95%]", "seeds",
               "machine", "preset kept it"]  # fmt: skip
    return report.markdown_table(columns, rows) + "\n"


def _anchor(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``)."""
    words = re.sub(r"[^\w\s-]", "", title.lower()).strip()
    return re.sub(r"\s", "-", words)


def render_page(text: str, found: dict[str, dict]) -> str:
    """``text`` with each block filled from its record (the summary: from every record)."""

    def fill(match: re.Match) -> str:
        name = match.group("name")
        if not name:
            body = summary_block(found)
        elif name in found:
            body = record_block(name, found[name])
        else:
            raise ValueError(f"a results page asks for records/{name}, which is not committed")
        return match.group(1) + "\n" + body + "\n" + match.group(3)

    return BLOCK.sub(fill, text)


def results_pages() -> dict[pathlib.Path, str]:
    """``path -> text`` of the results pages with their blocks rendered."""
    found = records()
    return {RESULTS / page: render_page((RESULTS / page).read_text(), found) for page in PAGES}


def draw_curves() -> list[pathlib.Path]:
    """Draws each computed record's curves into ``CURVES`` (the docs build calls it)."""
    from alphazero_jax.compare import plots

    drawn = []
    for name, found in records().items():
        if not found.get("curves"):
            continue
        CURVES.mkdir(parents=True, exist_ok=True)
        for figure in plots.draw(found["curves"], str(CURVES)):
            target = CURVES / (pathlib.Path(name).stem + "_" + figure)
            (CURVES / figure).replace(target)
            drawn.append(target)
    return drawn
