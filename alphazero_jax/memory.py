"""Upper bounds on the sizes a user can set, from the memory each needs on this machine.

A size (a search's simulations, a replay memory's capacity, a batch) is refused before
anything is allocated when the arrays it needs would not fit the budget: three quarters of
the memory of the first local device (an accelerator's own memory as JAX reports it; on a
CPU, the host's physical memory). The error names the size, what it would need, the budget
and the largest size that fits, e.g.::

    mcts:999999999 needs 239.9 GB for its search tree (1 position at a time), more than
    this machine's budget of 18.0 GB (3/4 of the device's memory): at most 74,532,208.
"""

from __future__ import annotations

import functools
import os

import jax
import numpy as np

from alphazero_jax.types import Game

BUDGET_SHARE = 0.75  # of the device's memory: the rest is the program, XLA and the OS


class MemoryBoundError(ValueError):
    """A size whose arrays would not fit this machine's memory budget."""


@functools.cache
def budget_bytes() -> int:
    """The bytes one process may plan for: ``BUDGET_SHARE`` of the first local device's
    memory (the host's physical memory on a CPU)."""
    device = jax.local_devices()[0]
    stats = device.memory_stats() if device.platform != "cpu" else None
    total = (stats or {}).get("bytes_limit")
    if not total:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(total * BUDGET_SHARE)


@functools.cache  # a Game is one object per settings (games.make), and tracing init costs
def state_bytes(game: Game) -> int:
    """The bytes of one of ``game``'s States (without building one)."""
    shapes = jax.eval_shape(game.init, jax.random.key(0))
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


def describe(num_bytes: float) -> str:
    """``"1.5 GB"``, ``"12.0 MB"``: decimal units, one decimal."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if num_bytes >= size:
            return f"{num_bytes / size:.1f} {unit}"
    return f"{int(num_bytes)} bytes"


def check(what: str, value: int, *, bytes_per_unit: float, fixed: float = 0.0) -> None:
    """Raises MemoryBoundError unless ``fixed + value * bytes_per_unit`` fits the budget.

    Args:
      what: the size and its purpose, e.g. ``"mcts:5000 needs ... for its search tree"`` is
        written from ``"mcts:5000"`` and ``"for its search tree (...)"``: pass
        ``"<name>|<purpose>"``.
      value: the size asked for.
      bytes_per_unit: the bytes one unit of it needs.
      fixed: bytes needed whatever the size.
    """
    budget = budget_bytes()
    needed = fixed + value * bytes_per_unit
    if needed <= budget:
        return
    name, _, purpose = what.partition("|")
    largest = max(int((budget - fixed) // bytes_per_unit), 0)
    raise MemoryBoundError(
        f"{name} needs {describe(needed)} {purpose}, more than this machine's budget of "
        f"{describe(budget)} ({BUDGET_SHARE:.0%} of the device's memory): at most {largest:,}."
    )
