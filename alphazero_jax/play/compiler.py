"""Compiles the server's searches on two threads of their own, the urgent ones first.

A compile takes seconds; run on the threads that run searches, or on the event loop, it
would hold up every player. A ``Compiler`` has two lanes: the urgent lane compiles only
what a player is waiting for (a new agent's first batch size), so such a compile never
queues behind background work; the background lane compiles the rest (the other batch
sizes, the warm-up), taking urgent jobs first when there are some. Each lane runs one job
at a time, so compiles take at most two of the machine's cores from the searches.
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any, NamedTuple


class _Job(NamedTuple):
    label: str
    fn: Callable[[], Any]
    future: concurrent.futures.Future


class Compiler:
    """Runs compile jobs (any function of no argument) on an urgent and a background lane.

    ``submit`` returns a ``concurrent.futures.Future`` (``asyncio.wrap_future`` awaits it);
    cancelling it drops a job that has not started.
    """

    def __init__(self):
        self._ready = threading.Condition()
        self._urgent: collections.deque[_Job] = collections.deque()
        self._background: collections.deque[_Job] = collections.deque()
        self._threads: list[threading.Thread] = []
        self._closed = False
        self.running: dict[str, str] = {}  # lane -> the label of its job now
        self.done = 0  # jobs finished (or failed)

    def submit(self, label: str, fn: Callable[[], Any], *, urgent: bool = False):
        """Queues ``fn`` (``label`` names it in ``status``); returns its future."""
        job = _Job(label, fn, concurrent.futures.Future())
        with self._ready:
            if self._closed:
                job.future.cancel()
                return job.future
            (self._urgent if urgent else self._background).append(job)
            self._start()
            self._ready.notify_all()
        return job.future

    def hurry(self, future: concurrent.futures.Future) -> None:
        """Moves the queued background job of ``future`` to the urgent queue (nothing when
        it is urgent already, running or done)."""
        with self._ready:
            for job in self._background:
                if job.future is future:
                    self._background.remove(job)
                    self._urgent.append(job)
                    self._ready.notify_all()
                    return

    def status(self) -> dict[str, Any]:
        """``{"running": [labels], "queued": count, "done": count}``."""
        with self._ready:
            queued = sum(not job.future.cancelled() for job in (*self._urgent, *self._background))
            return {"running": sorted(self.running.values()), "queued": queued, "done": self.done}

    def close(self) -> None:
        """Cancels the queued jobs and ends the lanes once their jobs now are done."""
        with self._ready:
            self._closed = True
            for job in (*self._urgent, *self._background):
                job.future.cancel()
            self._urgent.clear()
            self._background.clear()
            self._ready.notify_all()

    def _start(self) -> None:
        if not self._threads and not self._closed:
            for lane in ("urgent", "background"):
                thread = threading.Thread(
                    target=self._work, args=(lane,), name=f"compile-{lane}", daemon=True
                )
                thread.start()
                self._threads.append(thread)

    def _next(self, lane: str) -> _Job | None:
        with self._ready:
            while not self._closed:
                queues = (self._urgent,) if lane == "urgent" else (self._urgent, self._background)
                job = next((queue.popleft() for queue in queues if queue), None)
                if job is None:
                    self._ready.wait()
                elif job.future.set_running_or_notify_cancel():
                    self.running[lane] = job.label
                    return job
            return None

    def _work(self, lane: str) -> None:
        while (job := self._next(lane)) is not None:
            try:
                job.future.set_result(job.fn())
            except Exception as error:  # the caller gets it; the lane goes on
                job.future.set_exception(error)
            finally:
                with self._ready:
                    del self.running[lane]
                    self.done += 1
