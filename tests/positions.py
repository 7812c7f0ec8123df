"""Test helper: positions drawn by hand, in a game's own notation."""

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.games import othello as othello_rules
from alphazero_jax.games import quoridor as quoridor_rules
from alphazero_jax.games._notation import FILES
from alphazero_jax.games.quoridor_text import square, wall_square

# Jitted once per board size (JAX keeps a compiled function per shape): one flood fill per
# groove is many small operations, about 0.1 s a position when run one by one.
_QUORIDOR_LEGAL = jax.jit(quoridor_rules.legal_actions)


def quoridor(game, *, pawns, walls="", walls_left=None, player=0):
    """A Quoridor position: the pawns' squares (first player, second player), the walls in
    the notation (``"c3h d4v"``, absolute), walls in hand per player (default: the game's
    count minus the walls drawn, split by the order given, alternately) and the player to
    move. It is checked that walls neither overlap nor cross, but not that the position is
    reachable.

    Raises:
      ValueError: naming the square, wall or count that is not one, and what was expected.
    """
    settings = dict(game.settings)
    size = settings["size"]
    if isinstance(pawns, str) or not isinstance(pawns, tuple | list) or len(pawns) != 2:
        raise ValueError(f"Expected the two pawns' squares, such as ('c1', 'c5'), got {pawns!r}.")
    squares = [square(text, size) if isinstance(text, str) else None for text in pawns]
    for text, found in zip(pawns, squares):
        if found is None:
            raise ValueError(
                f"Expected a pawn's square a..{FILES[size - 1]}1..{size}, such as 'c1', "
                f"got {text!r}."
            )
    if squares[0] == squares[1]:
        raise ValueError(f"Expected the pawns on two squares, got both on {pawns[0]!r}.")
    if not isinstance(walls, str):
        raise ValueError(f"Expected walls as text such as 'c3h b2v', got {walls!r}.")
    rows = {"h": np.zeros(size - 1, np.int64), "v": np.zeros(size - 1, np.int64)}
    names = walls.split()
    for name in names:
        kind, groove = name[-1].lower(), wall_square(name, size)
        if kind not in rows or groove is None:
            raise ValueError(
                f"Expected walls such as 'c3h' or 'b2v' (columns a..{FILES[size - 2]}, rows "
                f"1..{size - 1}, then h or v), got {name!r} in {walls!r}."
            )
        row, col = groove
        if rows[kind][row] >> col & 1:
            raise ValueError(f"Expected each wall once, got {name!r} twice in {walls!r}.")
        rows[kind][row] |= 1 << col
    h, v = rows["h"], rows["v"]
    if (h & (h << 1)).any() or (v[1:] & v[:-1]).any() or (h & v).any():
        raise ValueError(f"Walls {walls!r} overlap or cross.")
    if walls_left is None:
        placed = [len(names[0::2]), len(names[1::2])]
        walls_left = (settings["walls"] - placed[0], settings["walls"] - placed[1])
    if (
        not isinstance(walls_left, tuple | list)
        or len(walls_left) != 2
        or not all(isinstance(w, int) and 0 <= w <= settings["walls"] for w in walls_left)
    ):
        got = tuple(walls_left) if isinstance(walls_left, tuple | list) else walls_left
        raise ValueError(
            f"Expected each player's walls in hand from 0 to {settings['walls']}, got "
            f"{got!r} (with {len(names)} walls drawn)."
        )
    if player not in (0, 1):
        raise ValueError(f"Expected player 0 or 1 to move, got {player!r}.")
    state = quoridor_rules.QuoridorState(
        pawns=jnp.asarray(squares, jnp.int32),
        walls_h=jnp.asarray(h, jnp.int32),
        walls_v=jnp.asarray(v, jnp.int32),
        walls_left=jnp.asarray(walls_left, jnp.int32),
        legal=jnp.zeros(game.num_actions, bool),
        current_player=jnp.int32(player),
        num_moves=jnp.int32(0),
        terminal=jnp.bool_(False),
        winner=jnp.int8(-1),
    )
    return state.replace(legal=_QUORIDOR_LEGAL(state))


def othello(size, cells, player=0):
    """An Othello position from a picture: ``cells[row][col]`` 0 empty, 1 Black, 2 White
    (or a list of strings with ``.``, ``X`` for Black and ``O`` for White), ``player`` to
    move; settled as ``step`` would leave it (``othello.from_grid``).

    Raises:
      ValueError: naming the rows or cells that are not ones, and what was expected.
    """
    marks = {".": 0, "X": 1, "O": 2, 0: 0, 1: 1, 2: 2}
    rows = [list(row.replace(" ", "")) if isinstance(row, str) else list(row) for row in cells]
    if len(rows) != size or any(len(row) != size for row in rows):
        raise ValueError(f"Expected {size} rows of {size} cells, got {[len(r) for r in rows]}.")
    unknown = sorted(
        {
            repr(cell)
            for row in rows
            for cell in row
            if not (isinstance(cell, str | int) and cell in marks)
        }
    )
    if unknown:
        raise ValueError(
            f"Expected cells '.', 'X', 'O' (or 0, 1, 2), got {', '.join(unknown)} in {cells!r}."
        )
    if player not in (0, 1):
        raise ValueError(f"Expected player 0 (Black) or 1 (White) to move, got {player!r}.")
    return othello_rules.from_grid(size, [[marks[cell] for cell in row] for row in rows], player)
