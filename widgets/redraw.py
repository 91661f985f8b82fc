"""Coalescing, rate-limited redraws on one background thread.

Theory of operation
-------------------
The cluster emits events in bursts (fencing one broker changes the leader
and ISR of every partition it led: dozens of events within a millisecond).
Redrawing per event would waste time and, worse, stall the thread that
emits them: in the live driver that is the cluster's own event loop.  So an
event only calls `RedrawWorker.request`, which sets a flag and returns.

One worker thread per view waits for the flag and then calls ``draw()``:

* leading edge: after a quiet spell the first request is drawn at once;
* at most one draw starts per ``min_interval_s``; requests arriving while
  waiting or drawing are merged into the next single draw;
* so the last event of a burst is always drawn, at most ``min_interval_s``
  plus one draw later.

Draws run one at a time on that thread, so widget traits are written from a
single thread (ipywidgets trait updates from a thread are fine with
ipykernel >= 7.0.1; concurrent writers to one widget are not).  An
exception from ``draw`` goes to ``on_error`` and the worker keeps serving.

This is widget plumbing, outside the sans-IO core: it may use threads and
the monotonic clock.
"""

from __future__ import annotations

import threading
import time
from typing import Callable


class RedrawWorker:
    """Calls ``draw()`` on its own thread after `request`, rate-limited and coalesced."""

    def __init__(self, draw: Callable[[], None], *, min_interval_s: float = 0.1,
                 on_error: Callable[[Exception], None] | None = None,
                 name: str = "minikafka-redraw", clock: Callable[[], float] = time.monotonic):
        if min_interval_s < 0:
            raise ValueError(f"min_interval_s must be >= 0, got {min_interval_s!r}")
        self._draw = draw
        self._on_error = on_error
        self._interval = min_interval_s
        self._clock = clock
        self._cond = threading.Condition()
        self._pending = False           # a request arrived since the last draw started
        self._drawing = False           # draw() is running right now
        self._closed = False            # close() was called; the thread ends
        self._last_start = float("-inf")  # clock() when the last draw started
        self.requests = 0               # request() calls so far
        self.draws = 0                  # draw() calls finished so far (with or without error)
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Ask for a redraw soon; cheap and safe from any thread."""
        with self._cond:
            if self._closed:
                return
            self.requests += 1
            self._pending = True
            self._cond.notify_all()

    def wait_idle(self, timeout_s: float | None = None) -> bool:
        """Block until no draw is pending or running; False if ``timeout_s`` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: self._closed or not (self._pending or self._drawing),
                                       timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop the thread after the draw in progress, if any; later requests are ignored."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout_s)

    @property
    def closed(self) -> bool:
        return self._closed

    def _next(self) -> bool:
        """Wait for a due request and claim it; False when closed."""
        with self._cond:
            while True:
                if self._closed:
                    return False
                if self._pending:
                    wait = self._last_start + self._interval - self._clock()
                    if wait <= 0:
                        self._pending = False
                        self._drawing = True
                        self._last_start = self._clock()
                        return True
                    self._cond.wait(wait)
                else:
                    self._cond.wait()

    def _run(self) -> None:
        while self._next():
            try:
                self._draw()
            except Exception as exc:      # a failed draw must not kill the view
                if self._on_error is not None:
                    self._on_error(exc)
            finally:
                with self._cond:
                    self._drawing = False
                    self.draws += 1
                    self._cond.notify_all()
