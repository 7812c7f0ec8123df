"""One agent's searches for many concurrent games, gathered into one device call.

A web server plays many sessions at once. Searching each position alone costs one device
call per move; a ``Batcher`` instead queues the positions that arrive together (within a
short ``wait``, or while the previous batch is still running) and searches them as one
batch. Batches are padded to a few fixed sizes, so an agent compiles at most
``len(sizes)`` times however the load varies, and fifty people playing at once cost
about what one does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

import jax
import numpy as np

from alphazero_jax.play.session import analyse_batch
from alphazero_jax.types import Agent, Analysis, State

# Each size at most twice the one before: padding at most doubles a batch's work.
DEFAULT_SIZES = (1, 2, 4, 8, 16, 32, 64)
# On a CPU a search costs about the same per position at any batch size, and large batches
# only lengthen the wait behind them (BUILD.md, "Browser play and its load").
CPU_SIZES = (1, 2, 4, 8)


def default_sizes() -> tuple[int, ...]:
    """``CPU_SIZES`` when JAX computes on the CPU, else ``DEFAULT_SIZES``."""
    return CPU_SIZES if jax.default_backend() == "cpu" else DEFAULT_SIZES


def bucket(count: int, sizes: Sequence[int]) -> int:
    """The smallest of ``sizes`` (ascending) that holds ``count`` positions."""
    for size in sizes:
        if size >= count:
            return size
    raise ValueError(f"Expected at most {sizes[-1]} positions in a batch, got {count}.")


def stack(states: Sequence[State], size: int) -> State:
    """``states`` stacked along a new batch axis and padded to ``size`` with copies of the
    first (their results are dropped)."""
    padded = [*states, *[states[0]] * (size - len(states))]
    return jax.tree.map(lambda *leaves: np.stack([np.asarray(x) for x in leaves]), *padded)


class Batcher:
    """Serves ``analyse(state)`` calls of one agent by batched searches.

    Args:
      agent: the agent; its ``analyse_fn`` (or ``act_fn``) runs on batches of ``sizes``.
      sizes: the batch sizes it compiles for, ascending; the largest bounds a batch.
        ``(1,)`` searches one position at a time (for comparison).
      wait: seconds to wait after the first queued position for others to join it.
      seed: the agents' randomness; each batch gets its own key.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        sizes: Sequence[int] = DEFAULT_SIZES,
        wait: float = 0.002,
        seed: int = 0,
    ):
        if not sizes or list(sizes) != sorted(sizes) or sizes[0] < 1:
            raise ValueError(f"Expected ascending batch sizes >= 1, got {sizes!r}.")
        self.agent, self.sizes, self.wait = agent, tuple(sizes), wait
        self._key = jax.random.key(seed)
        self._queue: asyncio.Queue | None = None
        self._worker: asyncio.Task | None = None
        self.batches = 0  # device calls made so far
        self.positions = 0  # positions searched so far

    async def analyse(self, state: State) -> Analysis:
        """The agent's analysis of one unbatched ``state``, as a batch of one on the host."""
        if self._worker is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._serve())
        future = asyncio.get_running_loop().create_future()
        await self._queue.put((state, future))
        return await future

    async def close(self) -> None:
        """Stops the worker; queued calls are cancelled."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        while self._queue is not None and not self._queue.empty():
            self._queue.get_nowait()[1].cancel()

    async def _serve(self) -> None:
        queue = self._queue
        while True:
            waiting = [await queue.get()]
            if self.wait > 0 and self.sizes[-1] > 1:
                await asyncio.sleep(self.wait)
            while len(waiting) < self.sizes[-1] and not queue.empty():
                waiting.append(queue.get_nowait())
            waiting = [(state, future) for state, future in waiting if not future.done()]
            if not waiting:
                continue
            key = jax.random.fold_in(self._key, self.batches)
            states = stack([state for state, _ in waiting], bucket(len(waiting), self.sizes))
            try:
                analysis = await asyncio.to_thread(analyse_batch, self.agent, key, states)
            except Exception as error:  # the callers get it; the worker goes on
                for _, future in waiting:
                    if not future.done():
                        future.set_exception(error)
                continue
            self.batches += 1
            self.positions += len(waiting)
            for index, (_, future) in enumerate(waiting):
                if not future.done():
                    future.set_result(_row(analysis, index))


def _row(analysis: Analysis, index: int) -> Analysis:
    """Row ``index`` of a batched analysis, as a batch of one (None fields stay None)."""
    return jax.tree.map(lambda x: x[index : index + 1], analysis)
