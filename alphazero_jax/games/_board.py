"""What every game here shares in its rules: the outcome as rewards, the bound that keeps a
heuristic inside the exact values, and the symmetries of a rectangular board."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alphazero_jax.types import Array, Symmetry

HEURISTIC_BOUND = 0.99  # keeps heuristic values strictly inside the exact win/loss values


def rewards_of(winner: Array) -> Array:
    """float32[..., 2] from int8[...] ``winner`` (-1: none): +1 winner, -1 loser, else 0."""
    first_won = jnp.where(winner == 0, 1.0, -1.0)
    outcome = jnp.stack([first_won, -first_won], axis=-1)
    return jnp.where(winner[..., None] >= 0, outcome, 0.0).astype(jnp.float32)


# Board transforms on [..., H, W, C] arrays; each works on NumPy and JAX arrays alike.
def _identity(x):
    return x


def _flip_lr(x):
    return x[..., :, ::-1, :]


def _flip_ud(x):
    return x[..., ::-1, :, :]


def _rot180(x):
    return x[..., ::-1, ::-1, :]


def _transpose(x):
    return x.swapaxes(-3, -2)


def _rot90(x):  # counter-clockwise
    return _flip_ud(_transpose(x))


def _rot270(x):
    return _transpose(_flip_ud(x))


def _anti_transpose(x):
    return _rot180(_transpose(x))


_RECTANGLE = (
    ("identity", _identity),
    ("flip_lr", _flip_lr),
    ("flip_ud", _flip_ud),
    ("rot180", _rot180),
)
_SQUARE_EXTRA = (
    ("transpose", _transpose),
    ("rot90", _rot90),
    ("rot270", _rot270),
    ("anti_transpose", _anti_transpose),
)


def symmetries(action_grid: np.ndarray, names: tuple[str, ...]) -> tuple[Symmetry, ...]:
    """Symmetries named in ``names``, their action maps derived from ``action_grid``.

    ``action_grid`` is int[h, w], the action that each board position stands for (a
    ``1 x cols`` row of columns for Connect Four, the cells for Tic-Tac-Toe).
    """
    table = dict(_RECTANGLE + _SQUARE_EXTRA)
    result = []
    for name in names:
        transform = table[name]
        moved = transform(action_grid[..., None])[..., 0]
        result.append(Symmetry(name, transform, moved.reshape(-1).astype(np.int32)))
    return tuple(result)


def symmetry_names(*, square: bool, vertical: bool) -> tuple[str, ...]:
    """Names of a board's symmetries: all 8 for a square board, 4 for a rectangle, or only
    the mirror when gravity fixes up and down (``vertical=False``)."""
    if not vertical:
        return ("identity", "flip_lr")
    names = tuple(name for name, _ in _RECTANGLE)
    return names + tuple(name for name, _ in _SQUARE_EXTRA) if square else names
