"""The live driver: all nodes of a cluster on one asyncio loop in a background thread.

Theory of operation
-------------------
A notebook kernel (or a test, or ``minikafka up``) keeps its own thread; the
cluster runs on a daemon thread that owns an asyncio event loop.  Node logic
is the same sans-IO code the simulated driver runs: the loop delivers
envelopes after their network latency and polls each node when its next
deadline passes.

The thread shares the interpreter with the learner's code, which may keep
it busy.  Three things keep that from turning into Kafka events no real
cluster would show:

* Time is a `StallClock` (drivers/stall_clock.py): wall-clock milliseconds
  (``time.monotonic`` anchored once to ``time.time``) minus the stretches in
  which the thread was ready but starved.  A stall freezes all nodes in
  their own time; it is reported as a ``sandbox_stalled`` event (at most
  one per episode of starvation), never as a Kafka one.
* Work runs through a `PlaneScheduler` (drivers/plane_scheduler.py): node
  timers and messages between nodes about the cluster (the control plane)
  go before client requests, client responses and replica fetches (the
  data plane), so a quorum fetch never waits behind a backlog of produce
  requests.  The scheduler is also the clock's ceiling: the clock stops 50
  ms past the due time of control work that has not run, so however long
  the thread is held by other work, no quorum or session timeout runs out
  while its answer waits.
* While a live cluster runs, the interpreter's thread switch interval
  (``sys.setswitchinterval``) is 0.5 ms instead of 5 ms: after each socket
  or disk call the cluster's thread gets the interpreter back within about
  that long, instead of waiting 5 ms behind a busy producer each time.  The
  previous value comes back when the last live cluster closes.

Everything that touches nodes runs on the loop thread.  Other threads use
``submit(fn)``, which runs ``fn`` there and hands back its result or
exception, and ``request(...)``, which sends a request from a client
endpoint and blocks until the answer.  Ports are reserved here, when the
cluster lays its nodes out (a broker's socket is bound at once and kept for
its listener, so no other program takes the port in between), and each
broker's TCP listener for the Kafka protocol (drivers/tcp.py) runs on the
loop: bound before the broker starts, accepting clients once it is unfenced.

An exception escaping node code is a bug in the sandbox: it is printed with
its traceback and recorded as an ``internal_error`` event, and the loop keeps
running (a real broker logs the error and answers UNKNOWN_SERVER_ERROR).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import selectors
import sys
import threading
import time
import traceback
from typing import Any, Callable, Hashable, TypeVar

from minikafka.drivers.plane_scheduler import CONTROL, DATA, PlaneScheduler
from minikafka.drivers.cluster_runtime import ClusterRuntime, NodeFactory
from minikafka.drivers.stall_clock import ObservedSelector, StallClock
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Envelope, RequestTimedOut
from minikafka.server.fetch import FetchRequest as ReplicaFetchRequest
from minikafka.server.fetch import FetchResponse as ReplicaFetchResponse

T = TypeVar("T")

SWITCH_INTERVAL_S = 0.0005   # the interpreter's thread switch interval while a live cluster runs
STALL_REPORT_MS = 100        # an episode of starvation shorter in total is not written to the log
STALL_EPISODE_GAP_S = 1.0    # stalls closer together than this belong to one episode
STALL_EPISODE_MAX_S = 10.0   # a longer episode is reported every this long while it lasts


class LiveDriver(ClusterRuntime):
    def __init__(self, factory: NodeFactory, events: EventLog, base_latency_ms: int = 0):
        super().__init__(factory, events, base_latency_ms)
        self.clock = StallClock(on_stall=self._on_stall)
        self.loop = asyncio.SelectorEventLoop(ObservedSelector(selectors.DefaultSelector(),
                                                               self.clock))
        self.scheduler = PlaneScheduler(self.loop, self.clock.now, self._guarded,
                                        speed=lambda: self.clock.speed)
        self.clock.ceiling = self.scheduler.ceiling   # time stops at control work left waiting
        self._thread = threading.Thread(target=self._run_loop, name="minikafka-cluster",
                                        daemon=True)
        self._client_waiters: dict[tuple[Hashable, int], concurrent.futures.Future] = {}
        self._client_correlation = itertools.count(1)
        self.default_client_sink = self._client_response
        self.internal_errors = 0
        self._episode: list[float] = []         # stalls (ms) of the starvation episode under way
        self._episode_started = 0.0             # monotonic s when its first stall began
        self._episode_last = 0.0                # monotonic s when its last stall was seen
        self._episode_timer: asyncio.TimerHandle | None = None
        self._reserved: dict[int, Any] = {}     # broker id -> its bound socket, until its listener opens
        _claim_switch_interval()
        self._thread.start()

    # --------------------------------------------------------------- clock
    def now(self) -> int:
        return self.clock.now()

    def _at(self, time_ms: int, fn: Callable[[], None], lane: int = CONTROL) -> None:
        if self.on_loop_thread():
            self.scheduler.at(time_ms, fn, lane)
        else:
            self.loop.call_soon_threadsafe(self.scheduler.at, time_ms, fn, lane)

    def _transmit(self, envelope: Envelope, incarnation: int, arrival_ms: int) -> None:
        self._at(arrival_ms, lambda: self._deliver(envelope, incarnation),
                 DATA if _data_plane(envelope) else CONTROL)

    def _to_client(self, sink: Callable[[Envelope], None], envelope: Envelope) -> None:
        self._at(self.now(), lambda: sink(envelope), DATA)

    def _guarded(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:                           # a sandbox bug: keep the cluster alive
            self.internal_errors += 1
            details = traceback.format_exc()
            print(f"minikafka internal error:\n{details}", file=sys.stderr)
            self.note("internal_error", "internal error in the sandbox (see stderr): "
                      + details.strip().splitlines()[-1])

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.clock.bind()
        self.loop.run_forever()

    # --------------------------------------------------------------- ports and listeners
    def broker_port(self, host: str, broker_id: int, index: int, wanted: int | None = None) -> int:
        from minikafka.drivers.tcp import reserve_port
        sock = reserve_port(host, wanted or 0)
        self._reserved[broker_id] = sock
        return sock.getsockname()[1]

    def controller_port(self, host: str, controller_id: int, index: int,
                        wanted: int | None = None) -> int:
        from minikafka.drivers.tcp import reserve_port
        probe = reserve_port(host, wanted or 0)
        port = probe.getsockname()[1]
        probe.close()      # the controller listener is not served: the number is what matters
        return port

    def open_listener(self, broker_id: int, host: str, port: int) -> None:
        from minikafka.drivers.tcp import BrokerListener
        listener = self.listeners.get(broker_id)
        if listener is None:
            listener = BrokerListener(self, broker_id, host, port,
                                      self._reserved.pop(broker_id, None))
            self.listeners[broker_id] = listener
        asyncio.run_coroutine_threadsafe(listener.start(serve=False), self.loop).result(10)

    def serve_clients(self, broker_id: int) -> None:
        listener = self.listeners.get(broker_id)
        if listener is not None:
            listener.enable()

    def close_listener(self, broker_id: int) -> None:
        listener = self.listeners.get(broker_id)
        if listener is not None:
            self.submit(listener.stop)

    # --------------------------------------------------------------- starvation
    def _on_stall(self, stall_ms: float) -> None:
        """The clock left out a stall: gather it into the current episode (loop thread)."""
        detected = time.monotonic()
        if not self._episode:
            self._episode_started = detected - stall_ms / 1000.0
        self._episode.append(stall_ms)
        self._episode_last = detected
        if self._episode_timer is None:
            self._episode_timer = self.loop.call_later(STALL_EPISODE_GAP_S, self._episode_check)

    def _episode_check(self) -> None:
        """Report the episode once a second passed without a stall, or once it is long."""
        now = time.monotonic()
        quiet_s = now - self._episode_last
        if quiet_s < STALL_EPISODE_GAP_S and now - self._episode_started < STALL_EPISODE_MAX_S:
            self._episode_timer = self.loop.call_later(STALL_EPISODE_GAP_S - quiet_s,
                                                       self._episode_check)
            return
        self._episode_timer = None
        stalls, self._episode = self._episode, []
        total = sum(stalls)
        if total < STALL_REPORT_MS:
            return
        span_s = self._episode_last - self._episode_started
        self.note("sandbox_stalled",
                  f"sandbox (not a Kafka event): the cluster's thread was starved for "
                  f"{total:,.0f} ms in {span_s:.1f} s by other work in this Python process "
                  f"or on this machine; the cluster's clock left that time out, so no Kafka "
                  f"timeout counted it", None, stalled_ms=round(total), stalls=len(stalls),
                  longest_ms=round(max(stalls)), span_ms=round(span_s * 1000),
                  behind_ms=round(self.clock.stalled_ms))

    # --------------------------------------------------------------- cross-thread API
    def on_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def submit(self, fn: Callable[[], T], timeout_s: float = 30.0) -> T:
        """Run ``fn`` on the cluster thread and return its result (or raise its error)."""
        if self.on_loop_thread():
            return fn()
        future: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:            # re-raised in the caller's thread
                future.set_exception(exc)
        self.loop.call_soon_threadsafe(run)
        return future.result(timeout=timeout_s)

    def call(self, src: Hashable, dst: int, body: Any, callback: Callable[[Any], None],
             timeout_ms: int) -> None:
        """Loop-thread API, same as the simulated driver's: callback(response) later."""
        correlation_id = next(self._client_correlation)
        key = (src, correlation_id)
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._client_waiters[key] = future
        future.add_done_callback(lambda f: callback(f.result()))

        def expire() -> None:
            waiter = self._client_waiters.pop(key, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(RequestTimedOut(dst, body))
        self._at(self.now() + timeout_ms, expire)
        self.send_from_client(src, dst, body, correlation_id)

    def request(self, src: Hashable, dst: int, body: Any, timeout_ms: int) -> Any:
        """Send a request from a client endpoint and block the calling thread for the answer."""
        result: concurrent.futures.Future = concurrent.futures.Future()
        self.submit(lambda: self.call(src, dst, body, result.set_result, timeout_ms))
        return result.result(timeout=timeout_ms / 1000.0 + 5.0)

    def _client_response(self, envelope: Envelope) -> None:
        waiter = self._client_waiters.pop((envelope.dst, envelope.correlation_id), None)
        if waiter is not None and not waiter.done():
            waiter.set_result(envelope.body)

    def run_until(self, condition: Callable[[], bool], timeout_ms: int,
                  poll_interval_s: float = 0.005, on_cluster_thread: bool = True) -> bool:
        """Wait (real time) until ``condition()`` holds.

        The condition runs on the cluster thread (a consistent view of the nodes), or, with
        ``on_cluster_thread=False``, in the calling thread: then it may itself make blocking
        requests to the cluster (which would deadlock the cluster thread)."""
        deadline = time.monotonic() + timeout_ms / 1000.0
        while True:
            if self.submit(condition) if on_cluster_thread else condition():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll_interval_s)

    def run_for(self, duration_ms: int) -> None:
        time.sleep(duration_ms / 1000.0)

    # --------------------------------------------------------------- lifecycle
    def close(self) -> None:
        for sock in self._reserved.values():     # ports reserved for brokers that never started
            sock.close()
        self._reserved.clear()
        if not self._thread.is_alive():
            return

        async def shutdown() -> None:
            tasks = [t for t in asyncio.all_tasks(self.loop) if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        try:
            asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(timeout=10)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()
        self.clock.unbind()
        _release_switch_interval()


def _data_plane(envelope: Envelope) -> bool:
    """Client traffic and replica fetches; everything else between nodes is control plane."""
    return (not isinstance(envelope.src, int) or not isinstance(envelope.dst, int)
            or isinstance(envelope.body, (ReplicaFetchRequest, ReplicaFetchResponse)))


_switch_lock = threading.Lock()
_switch_users = 0                 # live drivers running in this process
_switch_saved: float | None = None  # the interval before the first of them started


def _claim_switch_interval() -> None:
    global _switch_users, _switch_saved
    with _switch_lock:
        if _switch_users == 0:
            _switch_saved = sys.getswitchinterval()
            if _switch_saved > SWITCH_INTERVAL_S:
                sys.setswitchinterval(SWITCH_INTERVAL_S)
        _switch_users += 1


def _release_switch_interval() -> None:
    global _switch_users
    with _switch_lock:
        _switch_users -= 1
        # Put back the old value unless someone chose another one meanwhile.
        if _switch_users == 0 and _switch_saved is not None \
                and abs(sys.getswitchinterval() - SWITCH_INTERVAL_S) < 1e-6:
            sys.setswitchinterval(_switch_saved)
