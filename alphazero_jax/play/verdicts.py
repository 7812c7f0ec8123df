"""The Connect Four solver's verdicts on a session's position: win, draw or loss per move.

``GET /api/sessions/{id}/verdicts`` answers from ``Verdicts.of``, at the settings where the
solver answers (``solvable``: the catalogue's ``solver`` lists them, ``solver_settings``).
The searches run one at a time on a thread of their own, which holds up no other request
(the solver releases the GIL), within a node budget per request; the answers of recent
positions are kept.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import itertools
from typing import Any

from alphazero_jax.play import contract
from alphazero_jax.play.session import PlaySession
from alphazero_jax.types import Game

VERDICTS_KEPT = 4096  # the solver's answers a server keeps


class NoVerdicts(Exception):
    """The solver gives no verdicts for the session's game."""


class Verdicts:
    """A server's verdicts: the solver's searches, one at a time on one thread (with its
    transposition table: the solver keeps one per thread, warm from the last request), and
    the answers of the last ``VERDICTS_KEPT`` positions, which outlive a restart. ``open``
    starts the thread (``Server.open`` does, each time the app starts), ``close`` stops it.

    Args:
      max_nodes: the solver's node budget for one request; beyond it the verdicts are
        reported unknown.
    """

    def __init__(self, *, max_nodes: int):
        self.max_nodes = max_nodes
        # (game, moves) -> answer, oldest first out.
        self.kept: collections.OrderedDict[tuple[Game, str], dict[str, Any]] = (
            collections.OrderedDict()
        )

    def open(self) -> None:
        self.lock = asyncio.Lock()
        self.thread = concurrent.futures.ThreadPoolExecutor(1, "solver")

    async def of(self, session: PlaySession) -> dict[str, Any]:
        """``{"verdicts": {move: "win" | "draw" | "loss"} or None, "reason": ...}`` for the
        side to move in ``session`` (None and the reason when the search ran out of its
        budget; none at all once the game is over).

        Raises:
          NoVerdicts: the solver gives none for the session's game (``solvable``).
        """
        if not solvable(session.game.name, dict(session.game.settings)):
            raise NoVerdicts(
                "The solver gives verdicts for Connect Four with four in a row on "
                "boards up to (rows + 1) * cols <= 64 and 4 <= cols <= 9 only.",
            )
        if session.over:
            return {"verdicts": {}, "reason": "the game is over"}
        key = (session.game, session.moves_text())
        async with self.lock:  # one solver (and its table) per process
            if key not in self.kept:
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(self.thread, _verdicts, *key, self.max_nodes)
                self.kept[key] = answer
                if len(self.kept) > VERDICTS_KEPT:
                    self.kept.popitem(last=False)
            self.kept.move_to_end(key)
            return self.kept[key]

    def close(self) -> None:
        self.thread.shutdown(wait=False, cancel_futures=True)


def _verdicts(game: Game, moves: str, max_nodes: int) -> dict[str, Any]:
    from alphazero_jax.solvers import connect_four as solver

    settings = dict(game.settings)
    try:
        scores = solver.verdicts(
            moves, rows=settings["rows"], cols=settings["cols"], max_nodes=max_nodes
        )
    except solver.SearchLimitReached:
        return {"verdicts": None, "reason": "too far from the end to solve quickly"}
    named = {
        game.action_to_text(column): ("win", "draw", "loss")[1 - score]
        for column, score in enumerate(scores)
        if score is not None
    }
    return {"verdicts": named, "reason": None}


def solvable(name: str, settings: dict[str, int]) -> bool:
    """Whether the solver gives verdicts for the game ``name`` at ``settings`` (Connect
    Four, four in a row, a board that fits its bitboard): the one rule both the verdicts
    route and the catalogue's ``solver`` settings follow."""
    if name != "connect_four" or settings["connect"] != 4:
        return False
    from alphazero_jax.solvers import connect_four as solver

    try:
        solver.check_size(settings["rows"], settings["cols"])
    except ValueError:
        return False
    return True


def solver_settings(name: str) -> list[dict[str, int]]:
    """Every setting of the game ``name`` (``games.make`` accepts it) that is ``solvable``."""
    found = {
        tuple(zip(region, values))
        for region in contract.setting_regions(name)
        for values in itertools.product(*region.values())
        if solvable(name, dict(zip(region, values)))
    }
    return [dict(settings) for settings in sorted(found)]
