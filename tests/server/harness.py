"""Fakes and drivers for unit tests of the broker's managers, one manager at a time.

Each manager in ``minikafka.server`` takes the node and a few named collaborators, so a
test can build one alone: `FakeNode` is the package's runtime `Node` (real timers, outbox
and events) with the one extra attribute the managers read, and the `Fake*` peers answer
what the node sends as a scripted controller or partition leader would.  A harness owns
virtual time: ``tick(ms)`` delivers what the node sent, feeds the answers back (no
latency) and runs every timer that falls due, in order, as a driver would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerHeartbeatResponse,
                                           BrokerRegistrationRequest, BrokerRegistrationResponse,
                                           Feature, Listener)
from minikafka.runtime.node import Envelope, Node
from minikafka.server.broker_lifecycle_manager import BrokerLifecycleManager
from minikafka.timing import KAFKA

START = 1767225600000
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
CONTROLLER_ID = 3000
# Fixed numbers for the tests (Kafka's defaults today), whatever the profiles become.
TIMING = KAFKA.with_overrides({
    "broker.heartbeat.interval.ms": 2000,
    "controller.quorum.request.timeout.ms": 2000,
    "replica.fetch.wait.max.ms": 500,
    "replica.fetch.backoff.ms": 1000,
    "replica.socket.timeout.ms": 30000,
}, name="server-tests")
LISTENERS = (Listener("PLAINTEXT", "localhost", 9092, 0),)
FEATURES = tuple(Feature(name, low, high) for name, (low, high) in sorted(SUPPORTED_FEATURES_4_3.items()))


class FakeNode(Node):
    """A runtime `Node` plus the metadata log end offset the incarnation id mixes in."""

    def __init__(self, node_id: int, metadata_end_offset: int = 0, seed: str = "test"):
        super().__init__(node_id, random.Random(f"{seed}:{node_id}"))
        self.metadata_log = SimpleNamespace(end_offset=metadata_end_offset)


def run_for(node: Node, ms: int, exchange: Callable[[], None]) -> None:
    """Advance ``node`` by ``ms``: let ``exchange`` answer its outbox, run due timers, repeat."""
    target = node.now + ms
    while True:
        exchange()
        deadline = node.next_deadline()
        if deadline is None or deadline > target:
            break
        node.poll(max(deadline, node.now))
    node.now = target
    exchange()


def answer(node: Node, envelope: Envelope, body: Any) -> None:
    node.deliver(Envelope(envelope.dst, envelope.src, body, envelope.correlation_id,
                          is_response=True), node.now)


# ---------------------------------------------------------------------- the lifecycle manager
@dataclass
class FakeController:
    """The active controller, as far as one broker's registration and heartbeats see it.

    A broker is caught up once ``caught_up`` is set, unfenced when it is caught up and
    does not ask to stay fenced, and let go when it wants to shut down and
    ``grant_shutdown`` is set.  ``errors`` answer the next heartbeats with an error code;
    while ``silent``, requests get no answer (they time out at the node).
    """

    next_epoch: int = 10
    caught_up: bool = False
    grant_shutdown: bool = False
    silent: bool = False
    registration_error: Errors = Errors.NONE
    errors: list[Errors] = field(default_factory=list)
    received: list[Any] = field(default_factory=list)

    def handle(self, body: Any) -> Any:
        self.received.append(body)
        if isinstance(body, BrokerRegistrationRequest):
            if self.registration_error is not Errors.NONE:
                return BrokerRegistrationResponse(self.registration_error)
            self.next_epoch += 1
            return BrokerRegistrationResponse(Errors.NONE, self.next_epoch - 1)
        assert isinstance(body, BrokerHeartbeatRequest), body
        if self.errors:
            return BrokerHeartbeatResponse(self.errors.pop(0))
        return BrokerHeartbeatResponse(
            Errors.NONE, is_caught_up=self.caught_up,
            is_fenced=body.want_fence or not self.caught_up,
            should_shut_down=body.want_shut_down and self.grant_shutdown)

    def registrations(self) -> list[BrokerRegistrationRequest]:
        return [r for r in self.received if isinstance(r, BrokerRegistrationRequest)]

    def heartbeats(self) -> list[BrokerHeartbeatRequest]:
        return [r for r in self.received if isinstance(r, BrokerHeartbeatRequest)]


class LifecycleHarness:
    """One `BrokerLifecycleManager` on a `FakeNode`, talking to a `FakeController`."""

    def __init__(self, broker_id: int = 1, previous_broker_epoch: int = -1, rack: str | None = "r1"):
        self.node = FakeNode(broker_id)
        self.node.start(START)
        self.controller = FakeController()
        self.controller_id: int | None = CONTROLLER_ID    # what the raft observer says
        self.metadata_offset = 0
        self.directory_id = Uuid(broker_id, 1000 + broker_id)
        self.manager = BrokerLifecycleManager(
            self.node, broker_id=broker_id, cluster_id=CLUSTER_ID, timing=TIMING, rack=rack,
            directory_id=self.directory_id, active_controller_id=lambda: self.controller_id,
            metadata_offset=lambda: self.metadata_offset,
            registration_listeners=lambda: LISTENERS, supported_features=lambda: FEATURES,
            previous_broker_epoch=previous_broker_epoch)
        self.caught_up_calls = 0
        self.shutdown_calls = 0
        self.manager.on_caught_up = self._caught_up
        self.manager.on_shutdown_granted = self._shutdown_granted
        self.ready_on_catch_up = False                    # BrokerServer's wiring, when set
        self.events: list = []                            # what the node emitted, in order

    def _caught_up(self) -> None:
        self.caught_up_calls += 1
        if self.ready_on_catch_up:
            self.manager.set_ready_to_unfence()

    def _shutdown_granted(self) -> None:
        self.shutdown_calls += 1

    def emitted(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]

    def tick(self, ms: int = 0) -> None:
        run_for(self.node, ms, self._exchange)

    def _exchange(self) -> None:
        envelopes, events = self.node.drain()
        self.events.extend(events)
        for envelope in envelopes:
            assert envelope.dst == self.controller_id, envelope
            response = self.controller.handle(envelope.body)
            if not self.controller.silent:
                answer(self.node, envelope, response)

    def start_until_running(self) -> None:
        """Register, catch up and unfence (as BrokerServer wires it)."""
        self.ready_on_catch_up = True
        self.controller.caught_up = True
        self.manager.start()
        self.tick(50)
