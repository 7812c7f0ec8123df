"""Round-robin tournaments between agents, their cross table and their files on disk.

``round_robin`` plays every unordered pair of agents once with ``arena.play`` (half of a
pair's games with each agent moving first); ``results_table`` draws the cross table;
``write_results`` saves the matches as ``results.csv`` and the fitted ladder as
``ladder.json``. Elo ratings come from ``elo.fit_ladder`` over ``r.pair_result()``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax

from alphazero_jax.evaluation import arena, elo
from alphazero_jax.types import Agent, Game, PRNGKey

RESULTS_FILE = "results.csv"
LADDER_FILE = "ladder.json"
CSV_COLUMNS = (
    "player",
    "opponent",
    "wins",
    "draws",
    "losses",
    "score",
    "ci_low",
    "ci_high",
    "first_wins",
    "first_draws",
    "first_losses",
    "second_wins",
    "second_draws",
    "second_losses",
    "mean_length",
)


def round_robin(
    game: Game,
    agents: Sequence[Agent],
    *,
    num_games: int,
    key: PRNGKey,
    batch_size: int | None = None,
    opening_moves: int = 0,
    on_result: Callable[[arena.MatchResult, float], None] | None = None,
) -> list[arena.MatchResult]:
    """Plays every unordered pair of ``agents`` once.

    Pair ``(i, j)``, ``i < j``, is played from agent ``i``'s view with the key
    ``fold_in(fold_in(key, i), j)``: appending an agent leaves the earlier pairs' games
    unchanged.

    Args:
      game: the game.
      agents: at least two agents with distinct names.
      num_games: games per pair (even; each agent moves first in half of them).
      key: the tournament's randomness.
      batch_size: games played at once per pair (an even divisor of ``num_games``;
        default all of them).
      opening_moves: random plies that open every game (see ``arena.play``).
      on_result: called as ``on_result(result, seconds)`` after each match, e.g. to print
        progress; ``seconds`` is the match's wall time, compilation included.

    Returns:
      The ``len(agents) * (len(agents) - 1) / 2`` results, in pair order.
    """
    names = [agent.name for agent in agents]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"Expected at least two agents with distinct names, got {names}.")
    results = []
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            started = time.monotonic()
            pair_key = jax.random.fold_in(jax.random.fold_in(key, i), j)
            result = arena.play(
                game,
                agents[i],
                agents[j],
                num_games=num_games,
                key=pair_key,
                batch_size=batch_size,
                opening_moves=opening_moves,
            )
            results.append(result)
            if on_result is not None:
                on_result(result, time.monotonic() - started)
    return results


def _from_view(result: arena.MatchResult, name: str) -> arena.Record:
    """The match's total record from ``name``'s side."""
    return result.total if result.player == name else result.total.reversed()


def results_table(names: Sequence[str], results: Sequence[arena.MatchResult]) -> str:
    """A plain-text cross table: row's score against column in %, then its W/D/L.

    Columns are numbered like the rows; the last column is the row's score over all its
    games. Pairs that did not meet show ``.``; several results for one pair add up.

    Args:
      names: the agents, in the order of the rows.
      results: matches between them, in either direction.

    Returns:
      The table, one line per agent under a header line.
    """
    records = {}
    for result in results:
        for name, other in ((result.player, result.opponent), (result.opponent, result.player)):
            old = records.get((name, other), arena.Record(0, 0, 0))
            new = _from_view(result, name)
            records[name, other] = old.plus(new)
    header = ["", "", *(str(k) for k in range(1, len(names) + 1)), "total"]
    rows = [header]
    for k, name in enumerate(names, start=1):
        cells, total = [], arena.Record(0, 0, 0)
        for other in names:
            record = records.get((name, other))
            if other == name or record is None:
                cells.append("-" if other == name else ".")
                continue
            total = total.plus(record)
            cells.append(f"{100 * record.score:.1f}% {record.wins}/{record.draws}/{record.losses}")
        overall = f"{100 * total.score:.1f}%" if total.num_games else "."
        rows.append([str(k), name, *cells, overall])
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if c == 1 else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths))
        )
        for row in rows
    ]
    legend = "cell: row's score vs column, then row's wins/draws/losses"
    return "\n".join([*(line.rstrip() for line in lines), legend])


def _write_atomically(path: str, text: str) -> None:
    with open(path + ".tmp", "w", newline="") as file:
        file.write(text)
    os.replace(path + ".tmp", path)


def write_results(
    output_dir: str,
    results: Sequence[arena.MatchResult],
    ladder: elo.Ladder,
    *,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Writes ``results.csv`` (one row per match) and ``ladder.json`` into ``output_dir``.

    Args:
      output_dir: created if missing.
      results: the matches; each row is from ``player``'s view, with its Wilson 95%
        interval and its record moving first and second.
      ladder: the fitted ratings.
      settings: JSON-able facts about the run (game, its settings, games per pair, seed,
        anchor), stored at the top level of ``ladder.json`` next to ``ratings``.
    """
    os.makedirs(output_dir, exist_ok=True)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in results:
        low, high = r.interval()
        scores = (f"{r.score:.4f}", f"{low:.4f}", f"{high:.4f}")
        length = f"{r.mean_length:.2f}"
        writer.writerow(
            [r.player, r.opponent, *r.total, *scores, *r.as_first, *r.as_second, length]
        )
    _write_atomically(os.path.join(output_dir, RESULTS_FILE), text.getvalue())
    ratings = [rating._asdict() for rating in ladder.ratings]
    document = {**(settings or {}), "ratings": ratings}
    _write_atomically(os.path.join(output_dir, LADDER_FILE), json.dumps(document, indent=2) + "\n")
