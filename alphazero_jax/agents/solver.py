"""The exact Connect Four solver as an agent (specs ``solver`` and ``solver:exact``).

The solver (``solvers.connect_four``, numba) runs on the host through ``jax.pure_callback``,
so the agent is jittable and vmappable like every other; numba is loaded only when the
agent plays its first move.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.agents import registry
from alphazero_jax.solvers import opening_book
from alphazero_jax.types import Agent, Array, Game, PRNGKey, State


def _solver_moves(
    boards: np.ndarray,
    players: np.ndarray,
    terminal: np.ndarray,
    noise: np.ndarray,
    rows: int,
    cols: int,
    exact: bool,
) -> np.ndarray:
    """Host side of ``solver_agent``: the best column of each board (0 for finished ones)."""
    from alphazero_jax.solvers import connect_four as solver
    from alphazero_jax.solvers import opening_book

    book = opening_book.shipped(rows, cols)
    boards, players, terminal, noise = map(np.asarray, (boards, players, terminal, noise))
    shape = terminal.shape
    boards = boards.reshape(-1, *boards.shape[-2:]).astype(np.uint64)
    words = np.uint64(1) << (np.uint64(32) * np.arange(boards.shape[-1], dtype=np.uint64))
    stones = (boards * words).sum(axis=-1)  # [N, 2]: each player's stones as one integer
    players, terminal = players.reshape(-1), terminal.reshape(-1)
    noise = noise.reshape(-1, cols)
    actions = np.zeros(len(terminal), np.int32)
    for index in np.flatnonzero(~terminal):
        mask = int(stones[index, 0] | stones[index, 1])
        position = int(stones[index, players[index]])
        values = solver.move_scores_bits(position, mask, rows, cols, weak=not exact, book=book)
        values = np.array([-99 if v is None else v for v in values])
        best = values == values.max()
        actions[index] = np.argmax(np.where(best, noise[index], -1.0))
    return actions.reshape(shape)


def solver_agent(game: Game, *, exact: bool = False) -> Agent:
    """Perfect play from our exact solver, through a host callback (so it is jittable).

    With ``exact=False`` (spec ``solver``) it draws uniformly among the moves with the best
    outcome (win > draw > loss), which keeps a won game won and a drawn one drawn; with
    ``exact=True`` (``solver:exact``) among the moves of best Pons score: the fastest win,
    the slowest loss. It reads the opening book first (``solvers.opening_book``, where one
    ships for the board size); without one a move takes up to a minute from about the 4th
    ply on (well under a second from about the 10th), and many minutes in the first plies.

    Args:
      game: Connect Four with four in a row on a board the solver supports
        (``solvers.connect_four``: rows >= 4, cols <= 9, (rows + 1) * cols <= 64).
    """
    from alphazero_jax.solvers import connect_four as solver

    settings = dict(game.settings)
    if game.name != "connect_four" or settings["connect"] != 4:
        raise ValueError(
            f"Agent spec 'solver' plays Connect Four with four in a row: expected "
            f"connect_four with connect=4, got {game.name} {settings}."
        )
    rows, cols = settings["rows"], settings["cols"]
    try:
        solver.check_size(rows, cols)
    except ValueError as error:
        raise ValueError(f"solver agent: {error}") from error
    host = functools.partial(_solver_moves, rows=rows, cols=cols, exact=exact)

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        noise = jax.random.uniform(key, (*states.terminal.shape, cols))
        result = jax.ShapeDtypeStruct(states.terminal.shape, jnp.int32)
        return jax.pure_callback(
            host,
            result,
            states.board,
            states.current_player,
            states.terminal,
            noise,
            vmap_method="broadcast_all",
        )

    return Agent("solver:exact" if exact else "solver", act_fn)


def _parse(game: Game, spec: str, argument: str) -> Agent:
    if argument not in ("", "exact"):
        raise ValueError(f"Agent spec {spec!r}: expected solver or solver:exact.")
    return solver_agent(game, exact=argument == "exact")


def _sizes_with_a_book(name: str) -> list[dict[str, int]]:
    """The settings at which the play page offers the solver: the board sizes whose opening
    book ships (elsewhere its first moves take minutes)."""
    if name != "connect_four":
        return []
    return [
        {"rows": rows, "cols": cols, "connect": 4} for rows, cols in opening_book.shipped_sizes()
    ]


KINDS = (
    registry.AgentKind(
        "solver",
        "solver[:exact]",
        "Perfect play (solver)",
        "perfect play from the exact solver, random among the moves of best outcome (`solver`) "
        "or of best Pons score, the fastest win and the slowest loss (`solver:exact`); it "
        "reads the opening book where one ships (6x7, `solvers/opening_book.py`: moves at once "
        "up to ply 5, then a second or two, at worst about 20 s at plies 6-7), else its first "
        "moves take minutes",
        _parse,
        games=("connect_four",),
        # Offered by the play page where an opening book ships (6x7; then its moves take seconds).
        interactive=bool(opening_book.shipped_sizes()),
        example="solver",
        only_settings=_sizes_with_a_book,
    ),
)
