"""Each headline figure of the README is its card's: a figure changed on a card (a rerun, a
new agent) and not in the README, or the other way round, fails here.

- The results table: every figure in a row (a rate, a count, a time: any number with a
  ``%``, a decimal point or a thousands comma, or of 10 and more) is written in the card
  the row links to, or a figure of the card rounds to it (99.27% to 99.3%); the results
  index (docs/results/index.md) is held to the same rule.
- Connect Four's four mistake rates are exactly its card's row for the agent as it ships
  (64 simulations), set by set.
- The speed table and the paragraph below it: every range of ratios (``1.2-1.6x``) is
  written on the benchmarks page, and every single ratio (``1.05x``) rounds one of its
  ratios to the README's decimals.
"""

from __future__ import annotations

import decimal
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "results"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
# A figure worth checking: 3.1%, 8.1, 1,000, 125, 32; not the 2 of "2 cores" or the 3 of "32 x 3".
FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?%?")
RATIO = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?x\b")
CARD_ROW = "**64 simulations (its own)**"  # Connect Four's card: the agent as it ships


def _figures(text: str) -> set[str]:
    found = set()
    for figure in FIGURE.findall(re.sub(r"\]\([^)]*\)|`[^`]*`", "", text)):
        figure = figure.rstrip(",")
        if "%" in figure or "." in figure or "," in figure or int(figure) >= 10:
            found.add(figure)
    return found


def _written(figure: str, figures: set[str]) -> bool:
    """Whether ``figure`` is one of ``figures`` or, with decimals, what one of them rounds to
    (the same unit: ``%`` or none)."""
    if figure in figures:
        return True
    if "." not in figure:
        return False
    unit = "%" if figure.endswith("%") else ""
    return any(
        _rounds_to(other.rstrip("%").replace(",", ""), figure.rstrip("%"))
        for other in figures
        if other.endswith("%") == bool(unit)
    )


def _rows(page: pathlib.Path) -> list[tuple[pathlib.Path, str]]:
    """``(card, the row's text)`` for each table row of ``page`` that links a card."""
    rows = []
    for line in page.read_text().splitlines():
        link = re.match(r"\| \[[^]]+\]\(([^)#]+\.md)\) \|(.*)\|$", line)
        if link:
            rows.append(((page.parent / link.group(1)).resolve(), link.group(2)))
    return rows


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end)]


def _readme_results() -> str:
    return _section(README.read_text(), "## Results", "Speed against a peer")


def test_rows__link_every_card():
    readme = {card for card, _ in _rows(README)}
    index = {card for card, _ in _rows(RESULTS / "index.md")}
    assert len(readme) == 6 and readme <= index, (sorted(readme), sorted(index))


@pytest.mark.parametrize("page", [README, RESULTS / "index.md"], ids=lambda p: p.name)
def test_results_table__figures_are_written_in_their_cards(page):
    missing = []
    for card, row in _rows(page):
        card_figures = _figures(card.read_text())
        missing += [
            f"{card.name}: {f}" for f in sorted(_figures(row)) if not _written(f, card_figures)
        ]
    assert not missing, f"figures of {page.name}'s results table not on their card: {missing}"


def _card_rates() -> dict[str, str]:
    """Connect Four's card: ``set -> rate`` of the agent as it ships."""
    lines = (RESULTS / "connect_four.md").read_text().splitlines()
    header = next(line for line in lines if line.startswith("| agent | End-Easy"))
    row = next(line for line in lines if line.startswith(f"| {CARD_ROW} |"))
    sets = [cell.strip() for cell in header.strip("|").split("|")][1:]
    cells = [cell.strip().split()[0] for cell in row.strip("|").split("|")][1:]
    return dict(zip(sets, cells, strict=True))


def _readme_rates() -> dict[str, str]:
    """The README's Connect Four row: ``set -> rate``."""
    row = next(text for card, text in _rows(README) if card.name == "connect_four.md")
    rates = {
        name: rate
        for rate, name in re.findall(
            r"(\d+\.\d)% of (?:Pons' |his )?(End-Easy|Middle-Medium|Begin-Hard)", row
        )
    }
    rates["Random-Play"] = re.search(r"(\d+\.\d)% of 1,000 positions reached by random play", row)[
        1
    ]
    return {name: rate + "%" for name, rate in rates.items()}


def test_connect_four__readme_rates_are_the_cards_row_for_the_shipped_agent():
    readme, card = _readme_rates(), _card_rates()
    assert set(readme) == {"End-Easy", "Middle-Medium", "Begin-Hard", "Random-Play"}
    assert {name: card[name] for name in readme} == readme


def _rounds_to(value: str, shown: str) -> bool:
    """Whether ``value`` (the benchmarks page's) rounds to ``shown`` at its decimals."""
    places = decimal.Decimal(shown)
    return decimal.Decimal(value).quantize(places, decimal.ROUND_HALF_UP) == places


def test_speed_ratios__are_the_benchmarks_pages():
    readme = _section(README.read_text(), "Speed against a peer", "<img ")
    page = BENCHMARKS.read_text()
    measured = [value for pair in RATIO.findall(page) for value in pair if value]
    shown = RATIO.findall(readme)
    assert len(shown) >= 8, shown  # the table's rows and the paragraph's
    unmatched = [f"{low}-{high}x" for low, high in shown if high and f"{low}-{high}x" not in page]
    unmatched += [
        f"{low}x"
        for low, high in shown
        if not high and not any(_rounds_to(m, low) for m in measured)
    ]
    assert not unmatched, f"README ratios that docs/benchmarks.md does not give: {unmatched}"


def test_checks__catch_a_figure_that_differs():
    assert _figures("on 3.1% of 1,000 positions, 8.1 minutes, 32 x 3, 125 iterations") == {
        "3.1%",
        "1,000",
        "8.1",
        "32",
        "125",
    }
    assert _written("99.3%", {"99.27%"}) and not _written("99.3%", {"99.27", "99.2%"})
    assert not _written("125", {"1,250", "12.5"})
    assert _rounds_to("1.78", "1.8") and _rounds_to("0.94", "0.94") and not _rounds_to("1.6", "1.8")
    assert RATIO.findall("1.2-1.6x and 1.05x his time, not 2x2") == [("1.2", "1.6"), ("1.05", "")]
