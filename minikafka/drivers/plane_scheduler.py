"""`PlaneScheduler`: the live driver's work queue, control plane first, data plane on a budget.

Theory of operation
-------------------
Everything the live driver does to its nodes (deliver a message, poll a
node whose deadline passed, hand a response to a client connection) is a
piece of work due at some time of the cluster's clock (`StallClock`).  The
scheduler keeps pending work in two heaps by due time, one per lane, and
runs it from one event-loop callback, the *pump*:

* the **control plane**: messages between nodes about the cluster itself
  (KRaft votes and fetches, broker registrations and heartbeats,
  AlterPartition, forwarded admin requests), node timers and the driver's
  own timeouts.  All of it runs first, every round.
* the **data plane**: client requests and responses, and the replicas'
  fetches of partition data.  It runs after the control plane, for at most
  ``data_budget_ms`` of wall time per round (always at least one item),
  then the pump yields to the event loop, which reads sockets and comes
  back.

All nodes of a live cluster share one thread, so without lanes a quorum
fetch that arrives behind a backlog of produce requests waits for all of
them, and on a busy kernel that wait alone outlasts the teaching profile's
quorum timeouts.  In Kafka the planes do not queue behind each other at
all: controllers are separate processes with their own listener, and
brokers keep controller traffic apart from client traffic (KIP-291 gave
controller requests their own queue for the same reason).  The lanes give
the shared thread the same property: control work waits for at most one
round of data work.

"At most one round" is wall time, though, and a round can be long: a single
data item always runs whole, and the thread may compute for other reasons
between rounds (a facade call, socket reads).  Whatever the thread computes
counts as the cluster's time, so a controller's fetch timeout could run out
while the answer that resets it sat due in the control lane.  So the
scheduler also tells the clock how far it may go: `ceiling` is the due time
of the earliest control work not yet run plus ``control_late_ms`` (50 ms).
The clock stops there until that work has run (the rest is a stall), so in
cluster time no control message or timer is ever more than 50 ms late.  Work
that was already due when it was queued counts from then.  Data work sets
no ceiling: under a flat-out client it is always behind, and its timeouts
(replica lag, client requests) are seconds long.

Within a lane work runs in due-time order (ties in the order it was
scheduled), so two messages of one connection keep their order.  The
event-loop timer is armed for the earliest due item in wall time; if the
cluster's clock fell behind meanwhile (a stall), the pump finds nothing due
yet and arms again.

Simplified: one budget for all data work (Kafka has request handler threads
and quotas, not a time slice).
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from typing import Any, Callable

CONTROL = 0
DATA = 1
DATA_BUDGET_MS = 5.0        # wall time the data plane may take per round before control runs again
CONTROL_ROUND_LIMIT = 5000  # control items per round before yielding (a safety net, never reached)
CONTROL_LATE_MS = 50.0      # the cluster's clock stops this far past the due time of control work not yet run


class PlaneScheduler:
    def __init__(self, loop: Any, now: Callable[[], int], run: Callable[[Callable[[], None]], None],
                 speed: Callable[[], float] = lambda: 1.0, data_budget_ms: float = DATA_BUDGET_MS,
                 wall: Callable[[], float] = time.monotonic, control_late_ms: float = CONTROL_LATE_MS):
        self._loop = loop                     # asyncio loop (call_soon / call_later)
        self._now = now                       # the cluster's clock, ms
        self._run = run                       # runs one piece of work (catches its errors)
        self._speed = speed                   # cluster ms per wall ms just now (catch-up)
        self._budget_s = data_budget_ms / 1000.0
        self._late_ms = control_late_ms
        self._wall = wall
        self._heaps: tuple[list, list] = ([], [])  # future work per lane: (due, seq, fn)
        self._seq = itertools.count()
        self._lanes: tuple[deque, deque] = (deque(), deque())  # due work: control (due, fn), data fn
        self._control, self._control_heap = self._lanes[CONTROL], self._heaps[CONTROL]  # for ceiling
        self._handle: Any = None              # the loop's handle for the next pump
        self._soon = False                    # that handle is a call_soon (not a timer)
        self._armed_for: int | None = None    # due time the timer handle was armed for
        self.rounds = 0                       # pump rounds so far (for benchmarks)

    def at(self, time_ms: int, fn: Callable[[], None], lane: int = CONTROL) -> None:
        """Run ``fn`` in ``lane`` once the cluster's clock reaches ``time_ms`` (loop thread)."""
        now = self._now()
        if time_ms <= now:
            self._lanes[lane].append((now, fn) if lane == CONTROL else fn)
            self._wake()
            return
        heapq.heappush(self._heaps[lane], (time_ms, next(self._seq), fn))
        if not self._soon and (self._armed_for is None or time_ms < self._armed_for):
            self._arm()

    def ceiling(self) -> float | None:
        """The latest time the cluster's clock may show: ``control_late_ms`` past the earliest
        control work not yet run (None when there is none).  Until that work has run, the
        clock stops there (`StallClock`), so no node sees a timeout run out while the message
        or timer that would have answered it waits behind other work on the thread."""
        control, heap = self._control, self._control_heap
        if heap:
            due = heap[0][0]
            if control and control[0][0] < due:
                due = control[0][0]
        elif control:
            due = control[0][0]
        else:
            return None
        return due + self._late_ms

    @property
    def pending(self) -> int:
        """Work items not yet run (due or not)."""
        return sum(len(h) for h in self._heaps) + len(self._lanes[CONTROL]) + len(self._lanes[DATA])

    def _wake(self) -> None:
        if self._soon:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._loop.call_soon(self._pump)
        self._soon, self._armed_for = True, None

    def _arm(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._soon, self._armed_for = False, None
        dues = [heap[0][0] for heap in self._heaps if heap]
        if not dues:
            return
        due = min(dues)
        delay_ms = max(0.0, (due - self._now()) / self._speed())
        self._handle = self._loop.call_later(delay_ms / 1000.0, self._pump)
        self._armed_for = due

    def _pump(self) -> None:
        self._handle, self._soon, self._armed_for = None, False, None
        self.rounds += 1
        now = self._now()
        control, data = self._lanes
        for lane, heap in enumerate(self._heaps):
            while heap and heap[0][0] <= now:
                due, _, fn = heapq.heappop(heap)
                if lane == CONTROL:
                    control.append((due, fn))
                else:
                    data.append(fn)
        ran = 0
        while control and ran < CONTROL_ROUND_LIMIT:
            self._run(control.popleft()[1])
            ran += 1
        if data:
            started = self._wall()
            while data:
                self._run(data.popleft())
                if control or self._wall() - started >= self._budget_s:
                    break
        if control or data:
            self._wake()
        else:
            self._arm()
