"""One agent's searches for many concurrent games, gathered into one device call.

A web server plays many sessions at once. Searching each position alone costs one device
call per move; a ``Batcher`` instead queues the positions that arrive together (within a
short ``wait``, or while the previous batch is still running) and searches them as one
batch. Batches are padded to a few fixed sizes, so an agent compiles at most
``len(sizes)`` times however the load varies, and fifty people playing at once cost
about what one does.

Each size is compiled ahead of time by a ``Compiler`` (``compiler.py``) and held by the
batcher, so that its programs are freed with it. The first search of a new agent waits
for one compile only, of the smallest size that holds the positions waiting; the other
sizes compile in the background meanwhile, and until they are ready a batch is padded to
a larger compiled size or split into batches of the largest (``plan``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable, Collection, Sequence

import jax
import numpy as np

from alphazero_jax.play.compiler import Compiler
from alphazero_jax.play.executables import SearchStore
from alphazero_jax.play.session import analysis_fn
from alphazero_jax.types import Agent, Analysis, State

# Each size at most twice the one before: padding at most doubles a batch's work.
DEFAULT_SIZES = (1, 2, 4, 8, 16, 32, 64)
# On a CPU a search costs about the same per position at any batch size, and large batches
# only lengthen the wait behind them (docs/play.md).
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


def plan(count: int, ready: Collection[int]) -> tuple[int, int] | None:
    """How to search ``count`` waiting positions with the compiled sizes ``ready``.

    Returns:
      ``(size, taken)``: a batch of ``size`` holding the first ``taken`` positions (the
      smallest ready size that holds them all, else the largest ready size, full); None
      when no size is ready.
    """
    if not ready:
        return None
    holding = [size for size in ready if size >= count]
    if holding:
        return min(holding), count
    return max(ready), max(ready)


def stack(states: Sequence[State], size: int) -> State:
    """``states`` stacked along a new batch axis and padded to ``size`` with copies of the
    first (their results are dropped)."""
    padded = [*states, *[states[0]] * (size - len(states))]
    return jax.tree.map(lambda *leaves: np.stack([np.asarray(x) for x in leaves]), *padded)


def _search_fn(agent: Agent) -> Callable:
    """The agent's analysis (``session.analysis_fn``), jitted as a function of the
    batcher's own, so that JAX's caches let its programs go with the batcher."""
    analyse = analysis_fn(agent)

    def search(params, key: jax.Array, states: State) -> Analysis:
        return analyse(params, key, states)

    return jax.jit(search)


class Batcher:
    """Serves ``analyse(state)`` calls of one agent by batched searches.

    Args:
      agent: the agent; its ``analyse_fn`` (or ``act_fn``) runs on batches of ``sizes``.
      sizes: the batch sizes it compiles for, ascending; the largest bounds a batch.
        ``(1,)`` searches one position at a time (for comparison).
      wait: seconds to wait after the first queued position for others to join it.
      seed: the agents' randomness; each batch gets its own key.
      compiler: where its sizes compile (shared by a server's batchers); None: its own.
      label: how the compiler's status names it; None: the agent's name.

    Attributes:
      store, program: where its searches are kept traced on disk, and under what name (its
        game, settings and spec: ``executables.SearchStore.key``); None: not kept.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        sizes: Sequence[int] = DEFAULT_SIZES,
        wait: float = 0.002,
        seed: int = 0,
        compiler: Compiler | None = None,
        label: str | None = None,
    ):
        if not sizes or list(sizes) != sorted(set(sizes)) or sizes[0] < 1:
            raise ValueError(f"Expected ascending batch sizes >= 1, got {sizes!r}.")
        self.agent, self.sizes, self.wait = agent, tuple(sizes), wait
        self.label = label or agent.name
        self.compiler = compiler or Compiler()
        self._search = _search_fn(agent)
        self._key = jax.random.key(seed)
        self._compiled: dict[int, Callable] = {}  # size -> compiled search
        self._compiling: dict[int, concurrent.futures.Future] = {}
        self._queue: asyncio.Queue | None = None
        self._worker: asyncio.Task | None = None
        self._busy = False  # a batch is being searched, or waits for its compile
        self.store: SearchStore | None = None
        self.program: str | None = None
        self.batches = 0  # device calls made so far
        self.positions = 0  # positions searched so far

    @property
    def ready(self) -> tuple[int, ...]:
        """The sizes compiled so far."""
        return tuple(sorted(tuple(self._compiled)))  # a copy first: compiles add to it

    @property
    def compiling(self) -> tuple[int, ...]:
        """The sizes queued or compiling now."""
        return tuple(sorted(s for s, f in self._compiling.items() if not f.done()))

    @property
    def idle(self) -> bool:
        """No position queued or being searched."""
        return self._queue is None or (self._queue.empty() and not self._busy)

    def compile(
        self, size: int, example: State | Callable[[], State], *, urgent: bool = False
    ) -> concurrent.futures.Future:
        """Queues the compile of batches of ``size`` (positions shaped as ``example``, an
        unbatched state or its shapes, or a function that returns one: called only when
        the search is not in the ``store``) unless it is done or queued; ``urgent`` moves
        it ahead of the background work. Returns its ``concurrent.futures.Future``."""
        if size not in self.sizes:
            raise ValueError(f"Expected one of the batch sizes {self.sizes}, got {size}.")
        future = self._compiling.get(size)
        if future is None or (future.done() and size not in self._compiled):
            future = self.compiler.submit(
                f"{self.label}, batch of {size}",
                lambda: self._compile(size, example),
                urgent=urgent,
            )
            self._compiling[size] = future
        elif urgent:
            self.compiler.hurry(future)
        return future

    def prepare(self, example: State) -> list[concurrent.futures.Future]:
        """Queues the compile of every size not yet compiled, smallest first, in the
        background; returns their futures."""
        return [self.compile(size, example) for size in self.sizes]

    def _compile(self, size: int, example: State | Callable[[], State]) -> None:
        def states() -> State:  # shapes of a batch of ``size`` positions like ``example``
            one = example() if callable(example) else example
            return jax.tree.map(lambda x: jax.ShapeDtypeStruct((size, *np.shape(x)), x.dtype), one)

        store, params = self.store, self.agent.params
        if store is not None and self.program is not None:
            key = store.key(self.program, params, size)
            with contextlib.suppress(Exception):  # a search that cannot be exported: below
                self._compiled[size] = store.compiled(key, self._search, params, self._key, states)
                return
        lowered = self._search.lower(self.agent.params, self._key, states())
        self._compiled[size] = lowered.compile()

    async def analyse(self, state: State) -> Analysis:
        """The agent's analysis of one unbatched ``state``, as a batch of one on the host."""
        if self._worker is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._serve())
        future = asyncio.get_running_loop().create_future()
        await self._queue.put((state, future))
        return await future

    async def close(self) -> None:
        """Stops the worker; queued calls and compiles not started are cancelled."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        while self._queue is not None and not self._queue.empty():
            self._queue.get_nowait()[1].cancel()
        for future in self._compiling.values():
            future.cancel()

    async def _serve(self) -> None:
        queue, waiting = self._queue, []
        while True:
            if not waiting:
                self._busy = False
                waiting.append(await queue.get())
                self._busy = True
                if self.wait > 0 and self.sizes[-1] > 1:
                    await asyncio.sleep(self.wait)
            while len(waiting) < self.sizes[-1] and not queue.empty():
                waiting.append(queue.get_nowait())
            waiting = [(state, future) for state, future in waiting if not future.done()]
            try:
                waiting = await self._serve_some(waiting) if waiting else []
            except Exception as error:  # the callers get it; the worker goes on
                _fail(waiting, error)
                waiting = []

    async def _serve_some(self, waiting: list) -> list:
        """Searches the first of ``waiting`` with a compiled size, or waits for the compile
        of the size that holds them all when none is ready; returns those left waiting.
        A failed compile or search is raised to the callers it concerns."""
        chosen = plan(len(waiting), tuple(self._compiled))
        if chosen is None:
            example = waiting[0][0]
            compiled = self.compile(bucket(len(waiting), self.sizes), example, urgent=True)
            self.prepare(example)
            try:
                await asyncio.wrap_future(compiled)
            except Exception as error:
                _fail(waiting, error)
                return []
            return waiting
        size, taken = chosen
        batch, waiting = waiting[:taken], waiting[taken:]
        key = jax.random.fold_in(self._key, self.batches)
        states = stack([state for state, _ in batch], size)
        search, params = self._compiled[size], self.agent.params
        try:
            analysis = await asyncio.to_thread(lambda: jax.device_get(search(params, key, states)))
        except Exception as error:
            _fail(batch, error)
            return waiting
        self.batches += 1
        self.positions += len(batch)
        for index, (_, future) in enumerate(batch):
            if not future.done():
                future.set_result(_row(analysis, index))
        return waiting


def _fail(waiting: list, error: Exception) -> None:
    for _, future in waiting:
        if not future.done():
            future.set_exception(error)


def _row(analysis: Analysis, index: int) -> Analysis:
    """Row ``index`` of a batched analysis, as a batch of one (None fields stay None)."""
    return jax.tree.map(lambda x: x[index : index + 1], analysis)
