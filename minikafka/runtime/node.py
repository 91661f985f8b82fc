"""The sans-IO contract every sandbox node (broker or controller) follows.

Theory of operation
-------------------
A node is a plain Python object that never touches a socket, a thread or the
wall clock.  A *driver* (``minikafka.drivers``) owns the real or virtual
clock and the network, and calls into the node:

* ``start(now)`` once, after construction;
* ``deliver(envelope, now)`` for every message that reaches the node;
* ``poll(now)`` whenever ``next_deadline()`` has passed.

Whatever the node wants the world to see comes out of ``drain()``: the
envelopes to send (requests, responses, one-way messages) and the cluster
events it noted.  Because time arrives as an argument and randomness comes
from a seeded ``random.Random``, the same inputs always give the same
outputs, which is what lets the simulated driver replay a whole cluster
history from a seed.

Request/response: ``send_request`` stamps a correlation id (as Kafka's
``NetworkClient`` does), remembers the callback and a deadline, and calls
the callback with the response body or with `RequestTimedOut` when the
deadline passes first.  A node answers a request with ``reply(request,
body)``.  Callbacks run inside ``deliver``/``poll``, on the driver's thread.

Timers: components schedule work with ``schedule(key, at_ms, fn)``; keys are
unique per node, so rescheduling a key replaces the old deadline (the idiom
for "reset the election timer").

Storage is the one kind of I/O a node does itself: a broker's data directory
is part of what it *is*, so `LogSegment` and friends write real files.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from minikafka.runtime.events import ClusterEvent

Address = Hashable
"""A node id (int) for brokers and controllers; any other hashable (e.g. a
``("client", 7)`` tuple) for a client endpoint a driver manages."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """One message in flight between two addresses.

    ``correlation_id`` ties a response to its request; one-way messages use 0.
    """

    src: Address
    dst: Address
    body: Any
    correlation_id: int = 0
    is_response: bool = False
    incarnation: int = 0     # requests: the sender's process incarnation (stamped by the driver);
                             # responses: the incarnation that asked, so a restarted process
                             # never receives answers meant for its previous life


@dataclass(frozen=True, slots=True)
class RequestTimedOut:
    """Given to a response callback when no response came before the deadline
    (or the driver reported the destination unreachable)."""

    dst: Address
    request: Any


@dataclass(slots=True)
class _Pending:
    dst: Address
    request: Any
    callback: Callable[[Any], None]
    deadline: int


@dataclass(order=True, slots=True)
class _TimerEntry:
    deadline: int
    seq: int
    key: Hashable = field(compare=False)


class Node:
    """Base class of brokers and controllers: outbox, timers, RPC bookkeeping.

    Subclasses implement ``on_request(envelope)`` and ``on_message(envelope)``
    (one-way), and may override ``on_start`` and ``on_poll``.
    """

    def __init__(self, node_id: int, rng: random.Random):
        self.node_id = node_id
        self.rng = rng                      # the only source of randomness this node may use
        self.now = 0                        # ms; set by the driver before every call
        self._outbox: list[Envelope] = []
        self._events: list[ClusterEvent] = []
        self._correlation = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._timers: list[_TimerEntry] = []
        self._timer_fns: dict[Hashable, tuple[int, Callable[[], None]]] = {}
        self._timer_seq = itertools.count()

    # ------------------------------------------------------------------ driver API
    def start(self, now: int) -> None:
        self.now = now
        self.on_start()

    def deliver(self, envelope: Envelope, now: int) -> None:
        self.now = now
        if envelope.is_response:
            pending = self._pending.pop(envelope.correlation_id, None)
            if pending is not None:          # a late answer after a timeout is dropped
                pending.callback(envelope.body)
        elif envelope.correlation_id:
            self.on_request(envelope)
        else:
            self.on_message(envelope)

    def poll(self, now: int) -> None:
        self.now = now
        self._expire_requests()
        self._run_due_timers()
        self.on_poll()

    def next_deadline(self) -> int | None:
        """The earliest time at which ``poll`` has work to do, or None."""
        candidates = []
        while self._timers and self._timer_fns.get(self._timers[0].key, (None,))[0] != self._timers[0].deadline:
            heapq.heappop(self._timers)      # drop entries superseded by reschedule/cancel
        if self._timers:
            candidates.append(self._timers[0].deadline)
        if self._pending:
            candidates.append(min(p.deadline for p in self._pending.values()))
        return min(candidates) if candidates else None

    def drain(self) -> tuple[list[Envelope], list[ClusterEvent]]:
        out, events = self._outbox, self._events
        self._outbox, self._events = [], []
        return out, events

    def crash(self) -> None:
        """Driver hook: the process died.  Release OS resources (file locks, descriptors)
        without writing anything, as a killed JVM would."""
        self.on_crash()

    def unreachable(self, correlation_id: int, now: int) -> None:
        """Driver hook: the request could not be delivered (peer dead or cut off)."""
        self.now = now
        pending = self._pending.pop(correlation_id, None)
        if pending is not None:
            pending.callback(RequestTimedOut(pending.dst, pending.request))

    # ------------------------------------------------------------------ for subclasses
    def on_start(self) -> None:
        pass

    def on_request(self, envelope: Envelope) -> None:
        raise NotImplementedError(f"{type(self).__name__} got unexpected request {envelope.body!r}")

    def on_message(self, envelope: Envelope) -> None:
        raise NotImplementedError(f"{type(self).__name__} got unexpected message {envelope.body!r}")

    def on_poll(self) -> None:
        pass

    def on_crash(self) -> None:
        pass

    # ------------------------------------------------------------------ messaging
    def send_request(self, dst: Address, body: Any, callback: Callable[[Any], None],
                     timeout_ms: int) -> int:
        correlation_id = next(self._correlation)
        self._pending[correlation_id] = _Pending(dst, body, callback, self.now + timeout_ms)
        self._outbox.append(Envelope(self.node_id, dst, body, correlation_id))
        return correlation_id

    def reply(self, request: Envelope, body: Any) -> None:
        self._outbox.append(Envelope(self.node_id, request.src, body, request.correlation_id,
                                     is_response=True, incarnation=request.incarnation))

    def send(self, dst: Address, body: Any) -> None:
        """A one-way message (no response expected)."""
        self._outbox.append(Envelope(self.node_id, dst, body))

    def has_pending_request_to(self, dst: Address, body_type: type) -> bool:
        return any(p.dst == dst and isinstance(p.request, body_type) for p in self._pending.values())

    def cancel_requests(self, predicate: Callable[[Any], bool] = lambda body: True) -> None:
        """Forget in-flight requests (their callbacks are never called)."""
        for cid in [c for c, p in self._pending.items() if predicate(p.request)]:
            del self._pending[cid]

    # ------------------------------------------------------------------ timers
    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None:
        """Run ``fn`` at ``at_ms`` (or at the first poll after it); replaces ``key``."""
        self._timer_fns[key] = (at_ms, fn)
        heapq.heappush(self._timers, _TimerEntry(at_ms, next(self._timer_seq), key))

    def cancel(self, key: Hashable) -> None:
        self._timer_fns.pop(key, None)

    def timer_deadline(self, key: Hashable) -> int | None:
        entry = self._timer_fns.get(key)
        return entry[0] if entry else None

    # ------------------------------------------------------------------ events
    def emit(self, kind: str, text: str, **data: Any) -> None:
        """Note something a learner should see in the event log, in Kafka's terms."""
        self._events.append(ClusterEvent(self.now, kind, self.node_id, text, data))

    # ------------------------------------------------------------------ internals
    def _expire_requests(self) -> None:
        expired = [c for c, p in self._pending.items() if p.deadline <= self.now]
        for correlation_id in expired:
            pending = self._pending.pop(correlation_id)
            pending.callback(RequestTimedOut(pending.dst, pending.request))

    def _run_due_timers(self) -> None:
        while self._timers and self._timers[0].deadline <= self.now:
            entry = heapq.heappop(self._timers)
            current = self._timer_fns.get(entry.key)
            if current is None or current[0] != entry.deadline:
                continue                     # superseded or cancelled
            del self._timer_fns[entry.key]
            current[1]()
