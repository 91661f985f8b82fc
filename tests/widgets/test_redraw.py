"""Coalescing, rate-limited redraws (widgets/redraw.py).

No assertion depends on how fast anything runs: draws are held on
threading.Events, and the rate limit is tested with a fake clock.
"""

from __future__ import annotations

import threading

import pytest

from widgets.redraw import RedrawWorker

WAIT = 10.0      # generous bound for waits that should end at once


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_request_is_drawn():
    drawn = threading.Event()
    worker = RedrawWorker(drawn.set, min_interval_s=0)
    try:
        worker.request()
        assert drawn.wait(WAIT)
        assert worker.wait_idle(WAIT) and worker.draws == 1
    finally:
        worker.close()


def test_requests_during_a_draw_are_coalesced_into_one_more():
    started, release = threading.Event(), threading.Event()
    calls = []

    def draw():
        calls.append(len(calls))
        if len(calls) == 1:
            started.set()
            assert release.wait(WAIT)

    worker = RedrawWorker(draw, min_interval_s=0)
    try:
        worker.request()
        assert started.wait(WAIT)
        for _ in range(50):                     # a burst while the first draw runs
            worker.request()
        release.set()
        assert worker.wait_idle(WAIT)
        assert (worker.requests, worker.draws, len(calls)) == (51, 2, 2)
    finally:
        worker.close()


def test_at_most_one_draw_per_interval():
    clock = FakeClock()
    worker = RedrawWorker(lambda: None, min_interval_s=1.0, clock=clock)
    try:
        worker.request()                        # leading edge: drawn at once
        assert worker.wait_idle(WAIT) and worker.draws == 1
        worker.request()
        worker.request()
        # The clock has not moved, so the worker must still be waiting.
        assert not worker.wait_idle(0.05)
        assert worker.draws == 1
        clock.now = 1.0
        worker.request()                        # wakes the worker to look at the clock
        assert worker.wait_idle(WAIT)
        assert worker.draws == 2                # three requests, one draw
    finally:
        worker.close()


def test_a_failing_draw_is_reported_and_the_worker_keeps_going():
    errors, results = [], []

    def draw():
        if not errors:
            raise RuntimeError("snapshot failed")
        results.append("ok")

    worker = RedrawWorker(draw, min_interval_s=0, on_error=errors.append)
    try:
        worker.request()
        assert worker.wait_idle(WAIT)
        worker.request()
        assert worker.wait_idle(WAIT)
        assert [str(e) for e in errors] == ["snapshot failed"] and results == ["ok"]
    finally:
        worker.close()


def test_close_ends_the_thread_and_ignores_later_requests():
    worker = RedrawWorker(lambda: None, min_interval_s=0)
    worker.close()
    assert worker.closed and not worker._thread.is_alive()
    worker.request()
    assert worker.requests == 0 and worker.draws == 0


def test_negative_interval_is_refused():
    with pytest.raises(ValueError, match="min_interval_s must be >= 0"):
        RedrawWorker(lambda: None, min_interval_s=-1)
