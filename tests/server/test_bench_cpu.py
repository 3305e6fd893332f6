"""``spades bench server`` reads the servers' CPU from ``/proc``: the whole process's, and its busiest thread's
(the event loop's, in a server), so that the loop's share of an event's CPU is measured apart from the
database thread's."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from spades.server.bench import _cpu_seconds, _thread_cpu_seconds, busiest_thread_seconds

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_the_busiest_thread_is_the_one_that_ran() -> None:
    pid = os.getpid()
    process_before, before = _cpu_seconds(pid), _thread_cpu_seconds(pid)
    ids: list[int] = []
    spun, done = threading.Event(), threading.Event()

    def run() -> None:
        ids.append(threading.get_native_id())
        _spin(0.3)
        spun.set()
        done.wait(10)  # alive while it is read: a finished thread leaves /proc

    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert spun.wait(30)
        after = _thread_cpu_seconds(pid)
        process_after = _cpu_seconds(pid)
    finally:
        done.set()
        worker.join()
    assert ids[0] in after and ids[0] not in before
    busiest = busiest_thread_seconds(before, after)
    assert busiest == after[ids[0]] and busiest >= 0.25
    assert busiest <= process_after - process_before + 0.02  # a thread's time is part of its process's


def test_busiest_thread_seconds_takes_the_largest_difference() -> None:
    assert busiest_thread_seconds({1: 2.0, 2: 5.0}, {1: 4.5, 2: 5.5, 3: 1.0}) == 2.5
    assert busiest_thread_seconds({}, {}) == 0.0
