"""The live driver: all nodes of a cluster on one asyncio loop in a background thread.

Theory of operation
-------------------
A notebook kernel (or a test, or ``minikafka up``) keeps its own thread; the
cluster runs on a daemon thread that owns an asyncio event loop.  Node logic
is the same sans-IO code the simulated driver runs: the loop delivers
envelopes after their network latency with ``call_later`` and polls each
node when its next deadline passes.  Time is the wall clock in milliseconds
(taken from ``time.monotonic`` anchored once to ``time.time`` so it never
runs backwards).

Everything that touches nodes runs on the loop thread.  Other threads use
``submit(fn)``, which runs ``fn`` there and hands back its result or
exception, and ``request(...)``, which sends a request from a client
endpoint and blocks until the answer.  TCP listeners for the Kafka protocol
are attached by the network layer through ``start_server``.

An exception escaping node code is a bug in the sandbox: it is printed with
its traceback and recorded as an ``internal_error`` event, and the loop keeps
running (a real broker logs the error and answers UNKNOWN_SERVER_ERROR).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import sys
import threading
import time
import traceback
from typing import Any, Callable, Hashable, TypeVar

from minikafka.drivers.runtime import ClusterRuntime, NodeFactory
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Envelope, RequestTimedOut

T = TypeVar("T")


class LiveDriver(ClusterRuntime):
    def __init__(self, factory: NodeFactory, events: EventLog, base_latency_ms: int = 0):
        super().__init__(factory, events, base_latency_ms)
        self._wall_anchor = time.time() * 1000.0
        self._mono_anchor = time.monotonic() * 1000.0
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="minikafka-cluster",
                                        daemon=True)
        self._client_waiters: dict[tuple[Hashable, int], concurrent.futures.Future] = {}
        self._client_correlation = itertools.count(1)
        self.default_client_sink = self._client_response
        self.internal_errors = 0
        self._thread.start()

    # --------------------------------------------------------------- clock
    def now(self) -> int:
        return int(self._wall_anchor + (time.monotonic() * 1000.0 - self._mono_anchor))

    def _at(self, time_ms: int, fn: Callable[[], None]) -> None:
        delay = (time_ms - self.now()) / 1000.0
        if delay <= 0:
            self.loop.call_soon(self._guarded, fn)
        else:
            self.loop.call_later(delay, self._guarded, fn)

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
        self.loop.run_forever()

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
