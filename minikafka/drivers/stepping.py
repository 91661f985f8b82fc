"""The stepping driver: the simulated driver with its event queue in plain sight.

Theory of operation
-------------------
`SimulatedDriver` keeps future happenings as opaque closures in a heap, which
is what makes it fast.  `SteppingDriver` keeps them as `Happening` objects a
person can read, in a list sorted by (time, sequence), so that the next one
is always first:

* a **message** on the wire: its envelope (API, source, destination) and the
  time it will arrive; a response also knows the request it answers;
* a **timer**: the moment a node's earliest deadline falls due, named by the
  node if it can (``RaftNode.describe_deadline``: "election timeout", "fetch
  timeout", ...).  Each node has at most one: it is replaced whenever the
  node's next deadline moves, so the queue never shows stale wake-ups;
* a **callback** of the driver itself (refused connections, client sinks).

Controls, each one a small tuple so that a run can be written down:

* ``("step",)``  run the first happening, moving the clock to its time;
* ``("deliver", i)``  the message at position ``i`` arrives now, ahead of the
  others (a faster path through the network).  Messages between the same two
  nodes keep their order, as on one TCP connection;
* ``("drop", i)``  the message at position ``i`` is lost;
* ``("call", node_id, method, args)``  call a method of a node as if it were
  handling a message now (append a record, expire a timer);
* ``("isolate", node_id)`` / ``("heal",)``  network partitions; messages in
  flight to or from an isolated node are lost with it.

Every control applied is appended to ``controls``.  The run is a function of
the node factory and that list (node RNGs are seeded, ties break by sequence),
so `replay` on a fresh driver reproduces it exactly: that is how a stepper
goes back in time.

Same idea as Kafka's ``RaftEventSimulationTest`` (an ``EventScheduler`` of
message deliveries and ticks) made interactive.  Simplified: latency is the
network's fixed per-pair latency; a message delivered early arrives at the
current time.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from minikafka.drivers.cluster_runtime import NodeFactory, NodeHandle, NodeState
from minikafka.drivers.simulated import SIM_EPOCH_MS, SimulatedDriver
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Envelope, Node

Control = tuple
"""One control: ``("step",)``, ``("deliver", i)``, ``("drop", i)``, ``("call", node, method,
args)``, ``("isolate", node)`` or ``("heal",)``."""

MESSAGE, TIMER, CALLBACK = "message", "timer", "callback"


def default_describe(envelope: Envelope, request: Any) -> str:
    """``VoteRequest`` / ``VoteResponse``: the body's class name."""
    return type(envelope.body).__name__


@dataclass(eq=False)
class Happening:
    """One thing the driver will do: deliver a message, wake a node, or run a callback."""

    time_ms: int                         # when it is due (virtual clock)
    seq: int                             # tie-breaker: the order it was scheduled in
    kind: str                            # MESSAGE, TIMER or CALLBACK
    text: str                            # one line for people: what it is
    envelope: Envelope | None = None     # MESSAGE: what travels
    incarnation: int = 0                 # MESSAGE: the destination process it was sent to
    request: Any = None                  # MESSAGE, a response: the request it answers
    node_id: int | None = None           # TIMER: whose timer
    fn: Callable[[], None] | None = field(default=None, repr=False)   # CALLBACK

    @property
    def src(self) -> Any:
        return self.envelope.src if self.envelope is not None else None

    @property
    def dst(self) -> Any:
        return self.envelope.dst if self.envelope is not None else None


class SteppingDriver(SimulatedDriver):
    """A `SimulatedDriver` whose queue can be read, stepped, reordered, dropped and replayed."""

    def __init__(self, factory: NodeFactory, events: EventLog, base_latency_ms: int = 1,
                 start_ms: int = SIM_EPOCH_MS,
                 describe: Callable[[Envelope, Any], str] = default_describe):
        super().__init__(factory, events, base_latency_ms, start_ms)
        self.start_ms = start_ms
        self.describe = describe                   # names a message for people
        self._queue: list[tuple[int, int, Happening]] = []   # sorted, so also a valid heap
        self._timer_of: dict[int, Happening] = {}  # node id -> its one timer happening
        self._requests: dict[tuple[Any, int], Any] = {}   # (requester, correlation) -> request
        self.controls: list[Control] = []          # every control applied, in order
        self.lost: list[Happening] = []            # messages lost since the caller last cleared it

    def start_together(self, node_ids: Sequence[int]) -> None:
        """Start several nodes at the same instant, so none finds another one still down
        (`start` one by one would have the first refused by the others)."""
        handles = [self.handles[node_id] for node_id in node_ids]
        for handle in handles:
            if handle.state is not NodeState.DEAD:
                raise RuntimeError(f"node {handle.node_id} is already running")
            handle.incarnation += 1
            handle.node = self.factory(handle.node_id, handle.incarnation, self.now())
            handle.state = NodeState.RUNNING
        for handle in handles:
            handle.node.start(self.now())
            self._after_call(handle)

    # --------------------------------------------------------------- the queue
    def pending(self) -> list[Happening]:
        """Everything scheduled, next first."""
        return [entry[2] for entry in self._queue]

    def _insert(self, happening: Happening) -> None:
        bisect.insort(self._queue, (happening.time_ms, happening.seq, happening))

    def _remove(self, happening: Happening) -> None:
        index = bisect.bisect_left(self._queue, (happening.time_ms, happening.seq))
        if index < len(self._queue) and self._queue[index][2] is happening:
            del self._queue[index]

    def _forget(self, happening: Happening) -> None:
        """A message that will never arrive: its request needs no name for an answer."""
        self._remove(happening)
        envelope = happening.envelope
        if envelope.correlation_id and not envelope.is_response:
            self._requests.pop((envelope.src, envelope.correlation_id), None)

    def _at(self, time_ms: int, fn: Callable[[], None]) -> None:
        self._insert(Happening(max(time_ms, self._clock), next(self._seq), CALLBACK,
                               getattr(fn, "__name__", "callback"), fn=fn))

    def _message(self, envelope: Envelope, incarnation: int, time_ms: int) -> Happening:
        if envelope.is_response:
            request = self._requests.pop((envelope.dst, envelope.correlation_id), None)
        else:
            request = None
        return Happening(time_ms, next(self._seq), MESSAGE, self.describe(envelope, request),
                         envelope, incarnation, request)

    def _transmit(self, envelope: Envelope, incarnation: int, arrival_ms: int) -> None:
        if envelope.correlation_id and not envelope.is_response:
            self._requests[(envelope.src, envelope.correlation_id)] = envelope.body
        self._insert(self._message(envelope, incarnation, max(arrival_ms, self._clock)))

    def _lost(self, envelope: Envelope) -> None:
        self.lost.append(self._message(envelope, 0, self._clock))

    def _schedule_poll(self, handle: NodeHandle, node: Node) -> None:
        previous = self._timer_of.pop(handle.node_id, None)
        if previous is not None:
            self._remove(previous)
        deadline = node.next_deadline()
        handle.poll_at = deadline
        if deadline is None:
            return
        describe = getattr(node, "describe_deadline", None)
        name = describe(deadline) if describe is not None else "poll"
        timer = Happening(max(deadline, self._clock), next(self._seq), TIMER,
                          f"{handle.node_id} timer: {name}", node_id=handle.node_id)
        self._timer_of[handle.node_id] = timer
        self._insert(timer)

    def _run(self, happening: Happening) -> None:
        if happening.kind == MESSAGE:
            self._deliver(happening.envelope, happening.incarnation)
        elif happening.kind == TIMER:
            if self._timer_of.get(happening.node_id) is happening:
                del self._timer_of[happening.node_id]
            self._poll(self.handles[happening.node_id])
        else:
            happening.fn()

    # --------------------------------------------------------------- controls
    def step(self) -> Happening | None:
        """Run the next happening (the clock moves to its time); None if nothing is scheduled."""
        if not self._queue:
            return None
        with self.lock:
            happening = self._queue.pop(0)[2]
            self._clock = max(self._clock, happening.time_ms)
            self.steps += 1
            self.controls.append(("step",))
            self._run(happening)
        return happening

    def message_at(self, index: int) -> Happening:
        """The message at position ``index`` of `pending` (IndexError/ValueError otherwise)."""
        happening = self.pending()[index]
        if happening.kind != MESSAGE:
            raise ValueError(f"happening {index} is not a message in flight: {happening.text}")
        return happening

    def check_deliverable(self, index: int) -> Happening:
        """The message at ``index`` if it may overtake the ones ahead of it (ValueError if not:
        messages between the same two nodes share a connection and keep their order)."""
        happening = self.message_at(index)
        for earlier in self.pending()[:index]:
            if earlier.kind == MESSAGE and (earlier.src, earlier.dst) == (happening.src,
                                                                          happening.dst):
                raise ValueError(f"messages from {earlier.src} to {earlier.dst} share one "
                                 f"connection and arrive in the order they were sent: "
                                 f"{earlier.text} comes first")
        return happening

    def deliver(self, index: int) -> Happening:
        """The message at ``index`` arrives now, before the happenings ahead of it."""
        happening = self.check_deliverable(index)
        with self.lock:
            self._remove(happening)
            self.steps += 1
            self.controls.append(("deliver", index))
            self._run(happening)
        return happening

    def drop(self, index: int) -> Happening:
        """Lose the message at ``index`` (its sender's request times out)."""
        happening = self.message_at(index)
        with self.lock:
            self._forget(happening)
            self.controls.append(("drop", index))
        return happening

    def call(self, node_id: int, method: str, *args: Any) -> Any:
        """``node.method(*args)`` now, its output routed like any other (see ``invoke``)."""
        self.controls.append(("call", node_id, method, args))
        return self.invoke(node_id, lambda node: getattr(node, method)(*args))

    def isolate_node(self, node_id: int) -> list[Happening]:
        """Cut ``node_id`` off from every other node; returns the messages lost in flight."""
        self.controls.append(("isolate", node_id))
        self.network.isolate_more([{node_id}])
        lost = [h for h in self.pending() if h.kind == MESSAGE
                and not self.network.can_deliver(h.src, h.dst)]
        for happening in lost:
            self._forget(happening)
        self.lost.extend(lost)
        return lost

    def heal(self) -> None:
        self.controls.append(("heal",))
        self.network.heal()

    def apply(self, control: Control) -> Any:
        """Apply one recorded control (what `replay` does for each)."""
        name, *args = control
        if name == "step":
            return self.step()
        if name == "deliver":
            return self.deliver(*args)
        if name == "drop":
            return self.drop(*args)
        if name == "call":
            node_id, method, call_args = args
            return self.call(node_id, method, *call_args)
        if name == "isolate":
            return self.isolate_node(*args)
        if name == "heal":
            return self.heal()
        raise ValueError(f"unknown control {control!r}")

    def is_running(self, node_id: int) -> bool:
        handle = self.handles.get(node_id)
        return handle is not None and handle.state is NodeState.RUNNING


def replay(make: Callable[[], SteppingDriver], controls: Sequence[Control]) -> SteppingDriver:
    """A fresh driver from ``make()`` with ``controls`` applied: the same run again."""
    driver = make()
    for control in controls:
        driver.apply(control)
    return driver
