"""`BrokerLifecycleManager`: registration, heartbeats and controlled shutdown with the controller.

Theory of operation
-------------------
A KRaft broker is born fenced.  It registers with the active controller
(BrokerRegistration, carrying a fresh incarnation id, its listeners, the
features it supports and its log directory ids) and gets a *broker epoch*.
From then on it heartbeats every ``broker.heartbeat.interval.ms``, saying how
far it has replayed the metadata log.  While it is behind it asks to stay
fenced; once the controller says it has caught up with its own registration
and the broker has loaded its logs, it asks to be unfenced and starts serving
clients.  A broker whose heartbeats stop (crash, pause, network partition) is
fenced by the controller after ``broker.session.timeout.ms``; when it comes
back it simply heartbeats again and is unfenced once caught up.

Controlled shutdown: heartbeats carry ``want_shut_down``; the controller moves
every leadership away from the broker and then answers ``should_shut_down``.

States, as Kafka names them: NOT_RUNNING -> STARTING (registering) ->
RECOVERY (registered, fenced, catching up) -> RUNNING (unfenced) ->
PENDING_CONTROLLED_SHUTDOWN -> SHUTTING_DOWN.

What it depends on, all passed in by `BrokerServer`: the node (``now``,
``schedule``, ``send_request``, ``emit``), the incarnation id of this
process start (`new_incarnation_id`, drawn by `KafkaNode`), the broker's
id, the cluster id, the timing profile, what it registers with (listeners,
supported features, rack, directory id)
and two questions it asks the broker: who is the active controller, and how
far has the metadata log been replayed.  It tells the broker back through two
optional callbacks, also passed in: ``on_caught_up`` and ``on_shutdown_granted``.

Mirrors ``kafka.server.BrokerLifecycleManager``.  Simplified: the controller
is found through the KRaft observer's view of the quorum leader.
"""

from __future__ import annotations

import enum
import random
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerHeartbeatResponse,
                                           BrokerRegistrationRequest, BrokerRegistrationResponse)

if TYPE_CHECKING:
    from minikafka.controller.requests import Feature, Listener
    from minikafka.common.timing import TimingProfile

RECOVERY_HEARTBEAT_MS = 10        # how soon to heartbeat again while catching up


class LifecycleNode(Protocol):
    """The parts of the node the lifecycle manager uses (`KafkaNode` has them all)."""

    now: int

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def send_request(self, dst: int, body: Any, callback: Callable[[Any], None],
                     timeout_ms: int) -> int: ...

    def emit(self, kind: str, text: str, **data: Any) -> None: ...


def new_incarnation_id(rng: random.Random, metadata_end_offset: int) -> Uuid:
    """A fresh id for this process start.

    Kafka draws a random Uuid.  The sandbox draws it from the node's seeded RNG
    mixed with how much metadata log the node found on disk, so a node started
    again on the same directory (even by a new `Cluster` with the same seed)
    never presents the incarnation id of its previous life.
    """
    return Uuid.random(random.Random(f"{rng.getrandbits(64)}:{metadata_end_offset}"))


class BrokerState(enum.Enum):
    NOT_RUNNING = "NOT_RUNNING"
    STARTING = "STARTING"
    RECOVERY = "RECOVERY"
    RUNNING = "RUNNING"
    PENDING_CONTROLLED_SHUTDOWN = "PENDING_CONTROLLED_SHUTDOWN"
    SHUTTING_DOWN = "SHUTTING_DOWN"


class BrokerLifecycleManager:
    def __init__(self, node: LifecycleNode, *, broker_id: int, cluster_id: str,
                 timing: "TimingProfile", rack: str | None, directory_id: Uuid, incarnation_id: Uuid,
                 active_controller_id: Callable[[], int | None],
                 metadata_offset: Callable[[], int],
                 registration_listeners: Callable[[], tuple["Listener", ...]],
                 supported_features: Callable[[], tuple["Feature", ...]],
                 previous_broker_epoch: int = -1,
                 on_caught_up: Callable[[], None] | None = None,
                 on_shutdown_granted: Callable[[], None] | None = None):
        self.node = node
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.rack = rack
        self.directory_id = directory_id
        self.active_controller_id = active_controller_id      # None while no leader is known
        self.metadata_offset = metadata_offset                # how far the broker replayed metadata
        self.registration_listeners = registration_listeners
        self.supported_features = supported_features
        self.state = BrokerState.NOT_RUNNING
        self.incarnation_id = incarnation_id       # new for every process start (`new_incarnation_id`)
        self.broker_epoch = -1                     # from the controller's RegisterBrokerRecord
        self.previous_broker_epoch = previous_broker_epoch  # from .kafka_cleanshutdown, if clean
        self.ready_to_unfence = False              # set once logs are loaded and metadata caught up
        self.caught_up = False                     # the controller said our metadata caught up
        self.want_shut_down = False
        self.on_caught_up = on_caught_up              # the controller says our metadata caught up
        self.on_shutdown_granted = on_shutdown_granted  # the controller let us shut down
        self.heartbeat_interval_ms = timing.ms("broker.heartbeat.interval.ms")
        self.timeout_ms = timing.ms("controller.quorum.request.timeout.ms")
        self.in_flight = False
        self.started = False                       # unfenced at least once since this process started
        self.refusal_reported = False              # a refused registration was told once; retries are not

    def start(self) -> None:
        self.state = BrokerState.STARTING
        self._schedule(0)

    def set_ready_to_unfence(self) -> None:
        self.ready_to_unfence = True
        self._schedule(0)

    def begin_controlled_shutdown(self) -> None:
        self.want_shut_down = True
        if self.state is BrokerState.RUNNING:
            self.state = BrokerState.PENDING_CONTROLLED_SHUTDOWN
        self._schedule(0)

    # ------------------------------------------------------------------ communication
    def _schedule(self, delay_ms: int) -> None:
        self.node.schedule(("lifecycle", "communicate"), self.node.now + delay_ms, self._communicate)

    def _communicate(self) -> None:
        if self.in_flight or self.state in (BrokerState.SHUTTING_DOWN, BrokerState.NOT_RUNNING):
            return
        controller = self.active_controller_id()
        if controller is None:
            self._schedule(20)
            return
        self.in_flight = True
        if self.broker_epoch < 0:
            self.node.send_request(controller, self._registration(), self._on_registration,
                                   self.timeout_ms)
        else:
            # Once the controller has said we caught up, heartbeats report the cordoned log dirs
            # (KIP-1066), as Kafka's do after its initial catch-up; the sandbox's one directory
            # is never cordoned.
            request = BrokerHeartbeatRequest(
                self.broker_id, self.broker_epoch, self.metadata_offset(),
                want_fence=not self.ready_to_unfence, want_shut_down=self.want_shut_down,
                cordoned_log_dirs=() if self.caught_up else None)
            self.node.send_request(controller, request, self._on_heartbeat, self.timeout_ms)

    def _registration(self) -> BrokerRegistrationRequest:
        return BrokerRegistrationRequest(
            broker_id=self.broker_id, cluster_id=self.cluster_id,
            incarnation_id=self.incarnation_id, listeners=self.registration_listeners(),
            features=self.supported_features(), rack=self.rack,
            log_dirs=(self.directory_id,), previous_broker_epoch=self.previous_broker_epoch)

    def _on_registration(self, response) -> None:
        self.in_flight = False
        if isinstance(response, BrokerRegistrationResponse) and response.error_code is Errors.NONE:
            self.broker_epoch = response.broker_epoch
            self.state = BrokerState.RECOVERY
            self.refusal_reported = False
            self._schedule(0)
        else:
            if isinstance(response, BrokerRegistrationResponse) and \
                    response.error_code is Errors.DUPLICATE_BROKER_REGISTRATION and not self.refusal_reported:
                # A restart within broker.session.timeout.ms of the previous run's last heartbeat: the
                # controller keeps that session until it expires (Kafka logs this refusal at every retry).
                self.refusal_reported = True
                self.node.emit("broker_registration_refused",
                               f"broker {self.broker_id}'s registration was refused with "
                               f"DUPLICATE_BROKER_REGISTRATION: the controller still holds the session of its "
                               f"previous run; it tries again until that session expires",
                               broker=self.broker_id, error="DUPLICATE_BROKER_REGISTRATION")
            self._schedule(min(self.heartbeat_interval_ms, 200))   # retry, e.g. after NOT_CONTROLLER

    def _on_heartbeat(self, response) -> None:
        self.in_flight = False
        if not isinstance(response, BrokerHeartbeatResponse):
            self._schedule(min(self.heartbeat_interval_ms, 100))   # timed out or refused: retry soon
            return
        if response.error_code is Errors.STALE_BROKER_EPOCH or \
                response.error_code is Errors.BROKER_ID_NOT_REGISTERED:
            self.broker_epoch = -1                     # our registration is gone: register again
            self._schedule(0)
            return
        if response.error_code is not Errors.NONE:
            self._schedule(min(self.heartbeat_interval_ms, 100))
            return
        self._apply_heartbeat(response)

    def _apply_heartbeat(self, response: BrokerHeartbeatResponse) -> None:
        if response.is_caught_up and not self.caught_up:
            self.caught_up = True
            if self.on_caught_up:
                self.on_caught_up()
        if response.should_shut_down:
            self.state = BrokerState.SHUTTING_DOWN
            if self.on_shutdown_granted:
                self.on_shutdown_granted()
            return
        if not response.is_fenced and self.state is BrokerState.RECOVERY:
            self.state = BrokerState.RUNNING
            if not self.started:
                # Kafka's BrokerServer enables request processing at the first unfencing
                self.started = True
                self.node.emit("broker_started", f"broker {self.broker_id} is unfenced and "
                                                 f"serves client requests", broker=self.broker_id)
        elif response.is_fenced and self.state is BrokerState.RUNNING:
            self.state = BrokerState.RECOVERY
        delay = self.heartbeat_interval_ms
        if self.state is BrokerState.RECOVERY or self.want_shut_down:
            delay = RECOVERY_HEARTBEAT_MS if self.ready_to_unfence or not self.caught_up \
                else self.heartbeat_interval_ms
        self._schedule(delay)
