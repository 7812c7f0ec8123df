"""The compile lanes (``play/compiler.py``): urgent jobs run beside a busy background lane."""

from __future__ import annotations

import threading

import pytest

from alphazero_jax.play.compiler import Compiler


def test_compiler_runs_urgent_jobs_beside_a_busy_background_lane():
    compiler = Compiler()
    started, release = threading.Event(), threading.Event()
    blocked = compiler.submit("background", lambda: started.set() or release.wait())
    assert started.wait(timeout=60)
    queued = compiler.submit("queued", lambda: "queued")
    urgent = compiler.submit("urgent", lambda: "urgent", urgent=True)
    assert urgent.result(timeout=60) == "urgent"  # the background lane is still busy
    assert not queued.done() and compiler.status()["running"] == ["background"]
    compiler.hurry(queued)  # now urgent: the urgent lane takes it
    assert queued.result(timeout=60) == "queued"
    release.set()
    assert blocked.result(timeout=60) is True
    failed = compiler.submit("fails", lambda: 1 / 0, urgent=True)
    with pytest.raises(ZeroDivisionError):
        failed.result(timeout=60)
    compiler.close()
    assert compiler.submit("late", lambda: None).cancelled()
