"""The results pages' tables and curves, rendered from the comparison records committed under
``docs/results/records/`` (one JSON a comparison, ``alphazero_jax.compare.record``).

A page asks for a record's tables with a block, which ``make reference`` fills and
``tests/repository/test_docs.py`` checks (``generated.stale_pages``)::

    <!-- from records/NAME.json -->
    ... written here: its question, arms, table, curves and conclusion ...
    <!-- end -->

and for the summary of every record, a table a game (an idea, its source, its effect at
equal training time with its interval, seeds, machine, whether the preset kept it), with
``<!-- from records/ -->``. Everything else on the page is written by hand.

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
BLOCK = re.compile(r"(<!-- from records/(?P<name>[\w.-]*) -->\n).*?(<!-- end -->)", re.S)


def records() -> dict[str, dict]:
    """``file name -> record`` of every committed record, each checked."""
    from alphazero_jax.compare import record

    return {path.name: record.read(str(path)) for path in sorted(RECORDS.glob("*.json"))}


PREFIX = "--config."
GAMES = {"connect_four": "Connect Four", "othello_6x6": "Othello 6x6", "othello_8x8": "Othello 8x8",
         "quoridor_5x5": "Quoridor 5x5", "quoridor_9x9": "Quoridor 9x9"}  # fmt: skip


def _settings(arm: dict) -> dict[str, str]:
    """``setting -> its override`` of an arm, without the flags' common prefix."""
    found = [o.removeprefix(PREFIX) for o in arm["overrides"]]
    return {o.split("=")[0]: o for o in found}


def _base(arm: dict, known: dict[str, dict]) -> str | None:
    """The arm named above whose settings this arm keeps, all of them, with the most kept:
    the one to write it against (none where none shares any)."""
    mine = _settings(arm)
    best, shared = None, 0
    for name, other in known.items():
        theirs = _settings(other)
        if other["config"] != arm["config"] or name == arm["name"] or not theirs:
            continue
        same = sum(mine.get(key) == value for key, value in theirs.items())
        if set(theirs) <= set(mine) and same > shared:
            best, shared = name, same
    return best


def _arm(arm: dict, known: dict[str, dict], config: str | None) -> str:
    """An arm in a few words: its name alone where the page wrote it above, else its
    preset (unless it is the block's own) and the settings it changes, as an arm above
    with a few changes where that is shorter."""
    name = arm["name"]
    if known.get(name) == arm:
        return f"`{name}`"
    settings, base = _settings(arm), _base(arm, known)
    head = "" if arm["config"] == config else f"`{arm['config']}` "
    if base is not None:
        theirs = _settings(known[base])
        settings = {k: v for k, v in settings.items() if theirs.get(k) != v}
        head += f"`{base}` with "
    known[name] = arm
    if not settings and not head:
        return f"`{name}`"
    return f"`{name}`: {head}" + (f"`{' '.join(settings.values())}`" if settings else "")


class Written:
    """What a page has written so far, in its order: the arms, by name, and the preset of
    the last block (a block on the same preset does not name it again)."""

    def __init__(self) -> None:
        self.arms: dict[str, dict] = {}
        self.config: str | None = None


def arms_line(found: dict, written: Written) -> str:
    """The arms' line: the preset where it changes, each arm as ``_arm`` writes it, and
    the seeds where they are not seed 0 alone."""
    configs = {arm["config"] for arm in found["plan"]["arms"]}
    config = configs.pop() if len(configs) == 1 else None
    arms = "; ".join(_arm(arm, written.arms, config) for arm in found["plan"]["arms"])
    seeds = found["plan"]["seeds"]
    seeds = (
        ""
        if seeds == [0]
        else " Seed" + "s" * (len(seeds) > 1) + " " + ", ".join(map(str, seeds)) + "."
    )
    where = f" on `{config}`" if config and config != written.config else ""
    written.config = config
    return f"Arms{where}: {arms}.{seeds}"


def record_block(name: str, found: dict, written: Written | None = None) -> str:
    """A record's part of a page: its question, arms, the table that answers it, its
    curves and its conclusion; ``written``: what the page has written above it."""
    from alphazero_jax.compare import record

    parts = [found["question"], arms_line(found, written or Written())]
    if "transcribed" in found:
        commit = found["transcribed"]["commit"]
        parts[-1] += f" [Record](records/{name}), {commit}."
        parts.append(record.shown_table(found))
    else:
        parts += record.render_tables(found)
    if found.get("figure"):
        parts.append(f"![curves]({found['figure']})")
    for measure in dict.fromkeys(r["measure"] for r in found.get("curves", ())):
        parts.append(f"![{found['title']}: {measure}](curves/{_curve_name(name, measure)})")
    if found.get("conclusion"):
        parts.append(found["conclusion"])
    return "\n\n".join(parts) + "\n"


def _curve_name(name: str, measure: str) -> str:
    from alphazero_jax.compare import plots

    return pathlib.Path(name).stem + "_" + plots.file_name(measure)


KEPT = {True: "yes", False: "no", None: "not decided"}


def summary_rows(found: dict[str, dict]) -> dict[str, list[list]]:
    """``game -> its rows``, one an idea of every record, by idea."""
    from alphazero_jax.compare import record as records_

    games: dict[str, list[list]] = {}
    for one in found.values():
        for effect in records_.effects(one):
            page = f"[{effect['idea']}](ablations.md#{_anchor(one['title'])})"
            source = effect["source"] if "source" in effect else one["source"]
            kept = effect["kept"] if "kept" in effect else one["kept"].get(effect["arm"])
            games.setdefault(GAMES.get(one["game"], one["game"]), []).append(
                [page, source or "-", f"{effect['measure']}: {effect['effect']}",
                 len(effect.get("seeds", one["plan"]["seeds"])),
                 one["machine"].removeprefix("2-core "),
                 KEPT[kept]])  # fmt: skip
    by_idea = lambda row: row[0].split("](")[0].lower()  # noqa: E731
    return {game: sorted(rows, key=by_idea) for game, rows in sorted(games.items())}


def summary_block(found: dict[str, dict]) -> str:
    """A table a game of every record's ideas: did each help, by how much, where, kept
    or not."""
    from alphazero_jax.compare import report

    columns = ["idea", "source", "effect at equal time [95%]", "seeds", "machine", "kept"]
    tables = [f"{game}:\n\n" + report.markdown_table(columns, rows)
              for game, rows in summary_rows(found).items()]  # fmt: skip
    return "\n\n".join(tables) + "\n"


def _anchor(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``)."""
    words = re.sub(r"[^\w\s-]", "", title.lower()).strip()
    return re.sub(r"\s", "-", words)


def render_page(text: str, found: dict[str, dict]) -> str:
    """``text`` with each block filled from its record (the summary: from every record)."""

    written = Written()

    def fill(match: re.Match) -> str:
        name = match.group("name")
        if not name:
            body = summary_block(found)
        elif name in found:
            body = record_block(name, found[name], written)
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
