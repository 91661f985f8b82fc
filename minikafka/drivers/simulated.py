"""The simulated driver: virtual time, one event queue, same seed -> same history.

Theory of operation
-------------------
Every future happening (a message arriving, a node's timer falling due, a
client callback) is an entry ``(time_ms, seq, fn)`` in one heap.  ``step``
pops the earliest entry, moves the virtual clock to its time and runs it.
Nothing else moves time, so a minute of cluster life costs only the Python
work of the messages exchanged in it: no sleeping, no waiting for sockets.
Ties are broken by insertion order (``seq``), and the only randomness is the
nodes' seeded RNGs, so a seed fixes the whole history.

Threads: the cluster is meant to be driven from one thread (a notebook's
kernel), but widgets read it from their own threads and a widget may also
let virtual time pass by itself (`widgets.sim_clock`).  So ``lock`` (a
re-entrant lock) is held to schedule an entry, to run one, and to move the
clock at the end of ``run_for``/``run_until``, checking the heap and moving
the clock in the same hold.  Two threads that let time pass at once then
interleave their steps: the heap stays whole and the clock never goes back
(each entry is scheduled no earlier than the clock, the earliest is always
run first, and the clock jumps to a run's end only when nothing is due
before it).

Mirrors the idea of Kafka's ``RaftEventSimulationTest`` and of raftscope's
model clock.  Client requests come from in-process endpoints (`SimClient`),
not from sockets.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Any, Callable, Hashable

from minikafka.drivers.cluster_runtime import ClusterRuntime, NodeFactory
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Envelope, RequestTimedOut

SIM_EPOCH_MS = 1767225600000   # 2026-01-01T00:00:00Z: where every simulated cluster's clock starts
SIM_BROKER_PORT = 9092          # simulated clusters get Kafka's customary ports, spaced by 100
SIM_CONTROLLER_PORT = 9093


class SimulatedDriver(ClusterRuntime):
    def __init__(self, factory: NodeFactory, events: EventLog, base_latency_ms: int = 1,
                 start_ms: int = SIM_EPOCH_MS):
        super().__init__(factory, events, base_latency_ms)
        self._clock = start_ms
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self.steps = 0                          # events processed so far (for benchmarks)
        self.default_client_sink = self._client_response
        self._client_waiters: dict[tuple[Hashable, int], Callable[[Any], None]] = {}
        self._client_correlation = itertools.count(1)
        self.lock = threading.RLock()           # held per step: other threads may read node state

    # --------------------------------------------------------------- clock
    def now(self) -> int:
        return self._clock

    def _at(self, time_ms: int, fn: Callable[[], None]) -> None:
        with self.lock:
            heapq.heappush(self._queue, (max(time_ms, self._clock), next(self._seq), fn))

    # --------------------------------------------------------------- ports (nothing is bound)
    def broker_port(self, host: str, broker_id: int, index: int, wanted: int | None = None) -> int:
        return SIM_BROKER_PORT + 100 * index

    def controller_port(self, host: str, controller_id: int, index: int,
                        wanted: int | None = None) -> int:
        return SIM_CONTROLLER_PORT + 100 * index

    def step(self) -> bool:
        """Run the next scheduled happening; False when nothing is scheduled."""
        with self.lock:
            if not self._queue:
                return False
            time_ms, _, fn = heapq.heappop(self._queue)
            self._clock = max(self._clock, time_ms)
            self.steps += 1
            fn()
        return True

    def _step_before(self, end: int) -> bool:
        """Run the next entry if it is due by ``end``; else move the clock to ``end`` (never
        back) and say False.  One hold of the lock, so no other thread schedules in between."""
        with self.lock:
            if self._queue and self._queue[0][0] <= end:
                self.step()
                return True
            self._clock = max(self._clock, end)
            return False

    def run_for(self, duration_ms: int, after_step: Callable[[], None] | None = None) -> None:
        """Advance virtual time by ``duration_ms``, running everything due meanwhile."""
        with self.lock:
            end = self._clock + duration_ms
        while self._step_before(end):
            if after_step is not None:
                after_step()

    def run_until(self, condition: Callable[[], bool], timeout_ms: int,
                  after_step: Callable[[], None] | None = None) -> bool:
        """Step until ``condition()`` holds (checked after every step) or time runs out."""
        with self.lock:
            end = self._clock + timeout_ms
        if condition():
            return True
        while self._step_before(end):
            if after_step is not None:
                after_step()
            if condition():
                return True
        return condition()

    # --------------------------------------------------------------- client endpoints
    def call(self, src: Hashable, dst: int, body: Any, callback: Callable[[Any], None],
             timeout_ms: int) -> None:
        """Send a request from client endpoint ``src``; ``callback(response)`` runs later
        (with `RequestTimedOut` if nothing came back in ``timeout_ms``)."""
        correlation_id = next(self._client_correlation)
        key = (src, correlation_id)
        self._client_waiters[key] = callback

        def expire() -> None:
            waiter = self._client_waiters.pop(key, None)
            if waiter is not None:
                waiter(RequestTimedOut(dst, body))
        self._at(self._clock + timeout_ms, expire)
        self.send_from_client(src, dst, body, correlation_id)

    def request(self, src: Hashable, dst: int, body: Any, timeout_ms: int) -> Any:
        """Send a request and run virtual time until its answer (or timeout) arrives."""
        box: list[Any] = []
        self.call(src, dst, body, box.append, timeout_ms)
        self.run_until(lambda: bool(box), timeout_ms + 1)
        return box[0] if box else RequestTimedOut(dst, body)

    def _client_response(self, envelope: Envelope) -> None:
        waiter = self._client_waiters.pop((envelope.dst, envelope.correlation_id), None)
        if waiter is not None:
            waiter(envelope.body)
