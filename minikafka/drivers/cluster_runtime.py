"""What both drivers share: the node table, message routing and the fault model.

Theory of operation
-------------------
`ClusterRuntime` owns every node object of a cluster and is the only thing
that calls into them.  When a node has been called (a message delivered, a
timer due), the runtime drains its outbox and routes each envelope:

* to another node: dropped if the network cuts the pair (`isolate`), refused
  at once if the destination is dead (like a TCP connection refused: the
  sender's request fails fast), otherwise delivered after the pair's latency;
* to a client endpoint (any non-int address, e.g. a TCP connection of the
  live driver or the facade's ``"admin"`` endpoint): handed to the sink the
  driver registered for it.

A paused node (SIGSTOP in real life) keeps its messages queued and runs no
timers; on resume it catches up in order.  A killed node's object is dropped,
and messages addressed to that incarnation are discarded even if it restarts
(the TCP connections they travelled on died with it).

Subclasses supply time: `SimulatedDriver` keeps a virtual clock and an event
queue, `LiveDriver` uses an asyncio loop and the wall clock.  They implement
``now()``, ``_at(time_ms, fn)`` (run fn at that time on the driver's thread);
`LiveDriver` also overrides ``_transmit`` and ``_to_client`` to sort work into
a control and a data plane (drivers/plane_scheduler.py).
`SteppingDriver` (drivers/stepping.py) also overrides three hooks, so that
every message on the wire, every message lost and every node wake-up is a
happening a learner can see: ``_transmit``, ``_lost`` and ``_schedule_poll``.

The driver notes its own faults in the event log (``note``: "broker 2
killed"); ``muted(kinds)`` keeps such notes out for a block, for a drill
whose fault the learner must find.

Ports and client listeners are the driver's too, since only a driver may
open sockets: ``broker_port`` and ``controller_port`` choose (and on the live
driver reserve) a node's port, ``open_listener``, ``serve_clients`` and
``close_listener`` run a broker's listener for clients.  In virtual time
clients come in-process, so the simulated driver hands out Kafka's customary
port numbers and has no listeners.
"""

from __future__ import annotations

import contextlib
import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Iterator

from minikafka.runtime.events import ClusterEvent, EventLog
from minikafka.runtime.node import Envelope, Node


class NodeState(enum.Enum):
    RUNNING = "running"
    PAUSED = "paused"
    DEAD = "dead"


@dataclass
class NodeHandle:
    node_id: int
    roles: tuple[str, ...]                 # ("broker",), ("controller",) or both
    node: Node | None = None               # None while dead
    state: NodeState = NodeState.DEAD
    incarnation: int = 0                   # bumps on every (re)start
    paused_queue: list[tuple[int, Envelope]] = field(default_factory=list)
    poll_at: int | None = None             # when a poll is already scheduled


class Network:
    """Which node pairs can talk, and how long a message takes.

    Groups: ``isolate([1], [2, 3])`` puts nodes in numbered groups; nodes not
    named stay in group 0 together.  Two nodes talk only within one group.
    Cut links: ``cut_link(1, 3)`` drops every message between nodes 1 and 3
    (both ways) while each still reaches everyone else, as a firewall rule
    between two hosts would.
    """

    def __init__(self, base_latency_ms: int):
        self.base_latency_ms = base_latency_ms     # one-way delay of every node-to-node message
        self.extra_latency: dict[int, int] = {}    # node id -> added one-way delay (ms)
        self.group_of: dict[int, int] = {}         # node id -> partition group (0 when unset)
        self.cut_links: set[frozenset[int]] = set()  # node pairs that cannot talk to each other

    def can_deliver(self, src: Hashable, dst: Hashable) -> bool:
        if not isinstance(src, int) or not isinstance(dst, int):
            return True                            # clients are never cut off by isolate()
        if self.cut_links and frozenset((src, dst)) in self.cut_links:
            return False
        return self.group_of.get(src, 0) == self.group_of.get(dst, 0)

    def cut_link(self, a: int, b: int) -> None:
        self.cut_links.add(frozenset((a, b)))

    def latency(self, src: Hashable, dst: Hashable) -> int:
        if not isinstance(src, int) or not isinstance(dst, int):
            return 0
        return (self.base_latency_ms + self.extra_latency.get(src, 0)
                + self.extra_latency.get(dst, 0))

    def isolate(self, groups: list[set[int]]) -> None:
        self.group_of = {}
        for index, group in enumerate(groups, start=1):
            for node_id in group:
                self.group_of[node_id] = index

    def isolate_more(self, groups: list[set[int]]) -> None:
        """Add partitions on top of the current ones (a node named again moves group)."""
        next_group = max(self.group_of.values(), default=0) + 1
        for offset, group in enumerate(groups):
            for node_id in group:
                self.group_of[node_id] = next_group + offset

    def heal(self) -> None:
        self.group_of = {}
        self.cut_links = set()

    def is_isolated(self, node_id: int) -> bool:
        return node_id in self.group_of

    def cut_peers(self, node_id: int) -> tuple[int, ...]:
        """The nodes whose link to ``node_id`` is cut, in id order."""
        return tuple(sorted(other for link in self.cut_links if node_id in link
                            for other in link if other != node_id))


NodeFactory = Callable[[int, int, int], Node]
"""``factory(node_id, incarnation, now) -> Node``: builds a node from its config and data dir
(``now`` is the clock at construction, for whatever the node notes while loading)."""


class ClusterRuntime:
    """Routing and faults for one cluster; subclasses provide the clock."""

    def __init__(self, factory: NodeFactory, events: EventLog, base_latency_ms: int):
        self.factory = factory
        self.events = events
        self.network = Network(base_latency_ms)
        self.handles: dict[int, NodeHandle] = {}
        self.client_sinks: dict[Hashable, Callable[[Envelope], None]] = {}
        self.default_client_sink: Callable[[Envelope], None] | None = None
        self.listeners: dict[int, Any] = {}    # broker id -> its client listener (live driver only)
        self.muted_kinds: frozenset[str] = frozenset()   # kinds of `note` kept out of the event log

    # --------------------------------------------------------------- clock (subclass)
    def now(self) -> int:
        raise NotImplementedError

    def _at(self, time_ms: int, fn: Callable[[], None]) -> None:
        raise NotImplementedError

    # --------------------------------------------------------------- ports and listeners (subclass)
    def broker_port(self, host: str, broker_id: int, index: int, wanted: int | None = None) -> int:
        """The PLAINTEXT port of the ``index``-th broker (``wanted``: a given port)."""
        raise NotImplementedError

    def controller_port(self, host: str, controller_id: int, index: int,
                        wanted: int | None = None) -> int:
        """The CONTROLLER port of the ``index``-th controller (``wanted``: a given port)."""
        raise NotImplementedError

    def open_listener(self, broker_id: int, host: str, port: int) -> None:
        """Bind the broker's client listener before it starts (no-op without sockets)."""

    def serve_clients(self, broker_id: int) -> None:
        """The broker is unfenced for the first time: accept its clients (driver's thread)."""

    def close_listener(self, broker_id: int) -> None:
        """Refuse the broker's clients from now on (it died or stopped)."""

    def forget_listener(self, broker_id: int) -> None:
        """The broker left the cluster: drop its listener for good."""
        self.listeners.pop(broker_id, None)

    def serving(self, broker_id: int) -> bool:
        """Whether the broker's clients are accepted (always, without a listener)."""
        listener = self.listeners.get(broker_id)
        return listener is None or listener.serving

    # --------------------------------------------------------------- node lifecycle
    def add_node(self, node_id: int, roles: tuple[str, ...]) -> NodeHandle:
        handle = NodeHandle(node_id, roles)
        self.handles[node_id] = handle
        return handle

    def start(self, node_id: int) -> Node:
        handle = self.handles[node_id]
        if handle.state is not NodeState.DEAD:
            raise RuntimeError(f"node {node_id} is already running")
        handle.incarnation += 1
        handle.node = self.factory(node_id, handle.incarnation, self.now())
        handle.state = NodeState.RUNNING
        handle.paused_queue.clear()
        handle.poll_at = None
        handle.node.start(self.now())
        self._after_call(handle)
        return handle.node

    def kill(self, node_id: int, reason: str = "killed", kind: str = "node_killed") -> None:
        handle = self.handles[node_id]
        if handle.state is NodeState.DEAD:
            raise RuntimeError(f"node {node_id} is not running")
        handle.state = NodeState.DEAD
        if handle.node is not None:
            handle.node.crash()
        handle.node = None
        handle.paused_queue.clear()
        self.note(kind, f"{self.describe(node_id)} {reason}", node_id)

    def pause(self, node_id: int) -> None:
        handle = self._running(node_id)
        handle.state = NodeState.PAUSED
        self.note("node_paused", f"{self.describe(node_id)} paused (process stopped, "
                                 f"messages queue up)", node_id)

    def resume(self, node_id: int) -> None:
        handle = self.handles[node_id]
        if handle.state is not NodeState.PAUSED:
            raise RuntimeError(f"node {node_id} is not paused")
        handle.state = NodeState.RUNNING
        self.note("node_resumed", f"{self.describe(node_id)} resumed", node_id)
        queued, handle.paused_queue = handle.paused_queue, []
        for incarnation, envelope in queued:
            self._deliver(envelope, incarnation)
        self._poll(handle)

    def describe(self, node_id: int) -> str:
        roles = self.handles[node_id].roles
        kind = "broker" if roles == ("broker",) else "controller" if roles == ("controller",) \
            else "node"
        return f"{kind} {node_id}"

    def note(self, kind: str, text: str, node_id: int | None = None, **data: Any) -> None:
        """The sandbox's own line in the event log (a fault it injected), unless muted."""
        if kind not in self.muted_kinds:
            self.events.append(ClusterEvent(self.now(), kind, node_id, text, data))

    @contextlib.contextmanager
    def muted(self, kinds: Iterable[str]) -> Iterator[None]:
        """Within the block, notes of ``kinds`` stay out of the event log (a drill whose
        fault the learner must find: real Kafka announces no fault)."""
        before = self.muted_kinds
        self.muted_kinds = before | frozenset(kinds)
        try:
            yield
        finally:
            self.muted_kinds = before

    def invoke(self, node_id: int, fn: Callable[[Node], Any]) -> Any:
        """Run ``fn(node)`` as if the node were handling a message now (tests, benchmarks):
        whatever it sends or notes is routed like any other output."""
        handle = self._running(node_id)
        handle.node.now = self.now()
        result = fn(handle.node)
        self._after_call(handle)
        return result

    # --------------------------------------------------------------- client endpoints
    def send_from_client(self, src: Hashable, dst: int, body: Any, correlation_id: int) -> None:
        """Inject a request from a client endpoint (TCP connection or the facade)."""
        self._route(Envelope(src, dst, body, correlation_id))

    # --------------------------------------------------------------- routing
    def _running(self, node_id: int) -> NodeHandle:
        handle = self.handles.get(node_id)
        if handle is None or handle.state is not NodeState.RUNNING:
            raise RuntimeError(f"node {node_id} is not running")
        return handle

    def _route(self, envelope: Envelope) -> None:
        if envelope.correlation_id and not envelope.is_response and isinstance(envelope.src, int):
            sender = self.handles.get(envelope.src)
            if sender is not None and envelope.incarnation != sender.incarnation:
                envelope = Envelope(envelope.src, envelope.dst, envelope.body,
                                    envelope.correlation_id, False, sender.incarnation)
        dst = envelope.dst
        if not isinstance(dst, int):
            sink = self.client_sinks.get(dst, self.default_client_sink)
            if sink is not None:
                self._to_client(sink, envelope)
            return
        handle = self.handles.get(dst)
        if handle is None or handle.state is NodeState.DEAD:
            self._refuse(envelope)
            return
        if not self.network.can_deliver(envelope.src, dst):
            self._lost(envelope)                    # dropped on the floor: the sender times out
            return
        self._transmit(envelope, handle.incarnation,
                       self.now() + self.network.latency(envelope.src, dst))

    def _transmit(self, envelope: Envelope, incarnation: int, arrival_ms: int) -> None:
        """Put a message on the wire to ``incarnation`` of its destination (a hook: the
        stepping driver keeps it as a visible happening instead)."""
        self._at(arrival_ms, lambda: self._deliver(envelope, incarnation))

    def _to_client(self, sink: Callable[[Envelope], None], envelope: Envelope) -> None:
        """Hand a message to a client endpoint's sink now (a hook: the live driver queues it
        with the data plane)."""
        self._at(self.now(), lambda: sink(envelope))

    def _lost(self, envelope: Envelope) -> None:
        """A message the network dropped (a hook: the stepping driver writes it down)."""

    def _refuse(self, envelope: Envelope) -> None:
        """A request to a dead node fails fast at its sender, like a refused connection."""
        if envelope.is_response or not envelope.correlation_id:
            return
        src = envelope.src
        if isinstance(src, int):
            sender = self.handles.get(src)
            if sender is None or sender.node is None:
                return
            incarnation = sender.incarnation

            def notify() -> None:
                if sender.state is NodeState.RUNNING and sender.incarnation == incarnation:
                    sender.node.unreachable(envelope.correlation_id, self.now())
                    self._after_call(sender)
            self._at(self.now() + self.network.base_latency_ms, notify)
        else:
            sink = self.client_sinks.get(src, self.default_client_sink)
            if sink is not None:
                refusal = Envelope(envelope.dst, src, ConnectionRefused(envelope.dst),
                                   envelope.correlation_id, is_response=True)
                self._to_client(sink, refusal)

    def _deliver(self, envelope: Envelope, incarnation: int) -> None:
        handle = self.handles.get(envelope.dst)
        if handle is None or handle.incarnation != incarnation:
            return                                  # that process is gone
        if envelope.is_response and envelope.incarnation and envelope.incarnation != handle.incarnation:
            return                                  # the answer to a request of a previous life
        if handle.state is NodeState.PAUSED:
            handle.paused_queue.append((incarnation, envelope))
            return
        if handle.state is not NodeState.RUNNING:
            return
        handle.node.deliver(envelope, self.now())
        self._after_call(handle)

    def _poll(self, handle: NodeHandle) -> None:
        if handle.state is not NodeState.RUNNING:
            return
        handle.poll_at = None
        handle.node.poll(self.now())
        self._after_call(handle)

    def _after_call(self, handle: NodeHandle) -> None:
        node = handle.node
        if node is None:
            return
        outbox, events = node.drain()
        for event in events:
            self.events.append(event)
        for envelope in outbox:
            self._route(envelope)
        if handle.state is NodeState.DEAD or handle.node is not node:
            return
        self._schedule_poll(handle, node)

    def _schedule_poll(self, handle: NodeHandle, node: Node) -> None:
        """Make sure the node is polled at its next deadline (earlier wake-ups stay)."""
        deadline = node.next_deadline()
        if deadline is not None and (handle.poll_at is None or deadline < handle.poll_at):
            handle.poll_at = deadline
            incarnation = handle.incarnation

            def fire() -> None:
                if handle.incarnation == incarnation and handle.poll_at is not None \
                        and handle.poll_at <= self.now():
                    self._poll(handle)
                elif handle.incarnation == incarnation and handle.poll_at is None:
                    pass
            self._at(max(deadline, self.now()), fire)


@dataclass(frozen=True, slots=True)
class ConnectionRefused:
    """Response body a client endpoint receives when it sent to a dead node."""

    node_id: int
