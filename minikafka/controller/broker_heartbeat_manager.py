"""``BrokerHeartbeatManager``: broker sessions and the broker lifecycle state machine.

Theory of operation
-------------------
Only the active controller keeps this state; it is soft state, rebuilt from
the broker registrations whenever a controller becomes active (every
unfenced broker then starts with a fresh session).  For each registered
broker it remembers

* the metadata offset the broker reported it had applied,
* the offset at which a controlled shutdown began (-1 when none), and
* whether it is fenced.

Sessions are kept apart, in a `BrokerHeartbeatTracker` (Kafka 4.x): the
time of the last heartbeat of each (broker id, broker epoch), whatever the
broker's fencing state.  A session whose last contact is more than
``broker.session.timeout.ms`` ago has expired: the controller drops it and,
if it still belongs to the broker's current registration, fences that
broker (one session at a time), which moves its partitions' leadership
elsewhere.  Expiry does not ask whether the broker is fenced already: a
broker that stopped cleanly was fenced by its last heartbeat, and its session
expires a timeout later all the same, so the controller writes a second,
identical fence record for it (real Kafka 4.3.1 does; the broker must not
have registered again in between, or the session belongs to an old epoch and
is dropped silently).  While a session is valid, another process registering
the same broker id is refused, even when that broker is fenced.

Each heartbeat runs the state machine (``calculate_next_broker_state``)::

    FENCED --(caught up to its RegisterBrokerRecord, !want_fence)--> UNFENCED
    FENCED --(want_shut_down)--> SHUTDOWN_NOW
    UNFENCED --(want_fence)--> FENCED  (or SHUTDOWN_NOW with want_shut_down)
    UNFENCED --(want_shut_down, still leads partitions)--> CONTROLLED_SHUTDOWN
    UNFENCED --(want_shut_down, leads nothing)--> SHUTDOWN_NOW
    CONTROLLED_SHUTDOWN --(leads nothing and every active broker has applied
                           the shutdown offset)--> SHUTDOWN_NOW

Mirrors ``org.apache.kafka.controller.BrokerHeartbeatManager``,
``BrokerHeartbeatTracker`` and ``BrokerControlState`` (Kafka 4.3).  Times are
int milliseconds passed in as ``now`` instead of a monotonic nanosecond
clock.  Simplified: Kafka's TreeSet of active brokers becomes a plain list
and a ``min``; its tracker, a hash map scanned in hash order, hands out the
oldest expired session first, so the order is the same on every run.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Iterator

from minikafka.controller.striped_replica_placer import UsableBroker


class BrokerControlState(enum.Enum):
    """The controller's view of a broker, as a heartbeat reply reports it."""

    FENCED = "FENCED"
    UNFENCED = "UNFENCED"
    CONTROLLED_SHUTDOWN = "CONTROLLED_SHUTDOWN"
    SHUTDOWN_NOW = "SHUTDOWN_NOW"

    @property
    def fenced(self) -> bool:
        return self in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW)

    @property
    def should_shut_down(self) -> bool:
        return self is BrokerControlState.SHUTDOWN_NOW

    @property
    def in_controlled_shutdown(self) -> bool:
        return self is BrokerControlState.CONTROLLED_SHUTDOWN


@dataclass(frozen=True, slots=True)
class BrokerControlStates:
    current: BrokerControlState
    next: BrokerControlState


class BrokerHeartbeatTracker:
    """When the controller last heard from each broker session, a session being a (broker id, broker epoch).

    A heartbeat refreshes its session before the controller looks at anything else, so even a
    heartbeat that is then refused (an old epoch) leaves a session behind; it simply expires.
    """

    def __init__(self, session_timeout_ms: int):
        self.session_timeout_ms = session_timeout_ms
        self._contact: dict[tuple[int, int], int] = {}    # (broker id, broker epoch) -> last contact

    def update_contact_time(self, broker_id: int, broker_epoch: int, now: int) -> None:
        self._contact[(broker_id, broker_epoch)] = now

    def contact_time(self, broker_id: int, broker_epoch: int) -> int | None:
        return self._contact.get((broker_id, broker_epoch))

    def is_expired(self, contact_ms: int, now: int) -> bool:
        """Valid up to and including ``contact + timeout``."""
        return contact_ms + self.session_timeout_ms < now

    def has_valid_session(self, broker_id: int, broker_epoch: int, now: int) -> bool:
        contact = self._contact.get((broker_id, broker_epoch))
        return contact is not None and not self.is_expired(contact, now)

    def maybe_remove_expired(self, now: int) -> tuple[int, int, int] | None:
        """Drop one expired session, the oldest: its broker id, epoch and last contact (None: none)."""
        if not self._contact:
            return None
        session, contact = min(self._contact.items(), key=lambda item: (item[1], item[0]))
        if not self.is_expired(contact, now):
            return None
        del self._contact[session]
        return session[0], session[1], contact

    def next_check_time_ms(self) -> int | None:
        """When the oldest session can first have expired (None: no session to watch)."""
        if not self._contact:
            return None
        return min(self._contact.values()) + self.session_timeout_ms + 1


class BrokerHeartbeatState:
    """What the active controller knows about one registered broker (its session is in the tracker)."""

    __slots__ = ("id", "metadata_offset", "controlled_shutdown_offset", "fenced")

    def __init__(self, broker_id: int):
        self.id = broker_id
        self.metadata_offset = -1             # highest metadata offset the broker reported applying
        self.controlled_shutdown_offset = -1  # offset when controlled shutdown began; -1 = not shutting down
        self.fenced = True                    # False while the broker is in the unfenced list

    @property
    def shutting_down(self) -> bool:
        return self.controlled_shutdown_offset >= 0


class BrokerHeartbeatManager:
    """Broker states and sessions, on the active controller."""

    def __init__(self, session_timeout_ms: int):
        self.session_timeout_ms = session_timeout_ms
        self.tracker = BrokerHeartbeatTracker(session_timeout_ms)
        self._brokers: dict[int, BrokerHeartbeatState] = {}   # broker id -> state
        self._unfenced: list[BrokerHeartbeatState] = []       # unfenced brokers

    # ------------------------------------------------------------------ queries
    def brokers(self) -> list[BrokerHeartbeatState]:
        return list(self._brokers.values())

    def state(self, broker_id: int) -> BrokerHeartbeatState | None:
        return self._brokers.get(broker_id)

    def has_valid_session(self, broker_id: int, broker_epoch: int, now: int) -> bool:
        """Whether the session of ``broker_epoch`` is alive, fenced broker or not."""
        return self.tracker.has_valid_session(broker_id, broker_epoch, now)

    def next_check_time_ms(self) -> int | None:
        """When a session can first expire (None: nothing to check)."""
        return self.tracker.next_check_time_ms()

    def lowest_active_offset(self) -> int:
        """The smallest metadata offset of unfenced brokers not shutting down."""
        active = [b.metadata_offset for b in self._unfenced if not b.shutting_down]
        return min(active) if active else 2**63 - 1

    def controlled_shutdown_offset(self, broker_id: int) -> int | None:
        broker = self._brokers.get(broker_id)
        if broker is None or broker.controlled_shutdown_offset < 0:
            return None
        return broker.controlled_shutdown_offset

    def usable_brokers(self, rack_of: Callable[[int], str | None]) -> Iterator[UsableBroker]:
        """Brokers the placer may use: every tracked broker not in controlled shutdown."""
        for broker_id in sorted(self._brokers):
            broker = self._brokers[broker_id]
            if not broker.shutting_down:
                yield UsableBroker(broker_id, rack_of(broker_id), broker.fenced)

    # ------------------------------------------------------------------ updates
    def register(self, broker_id: int, fenced: bool) -> None:
        """Start (or refresh) tracking after a registration record was replayed."""
        broker = self._brokers.get(broker_id)
        metadata_offset = -1
        if broker is None:
            broker = self._brokers[broker_id] = BrokerHeartbeatState(broker_id)
        elif broker.fenced != fenced:
            metadata_offset = broker.metadata_offset   # a fencing change keeps the known offset
        self.touch(broker_id, fenced, metadata_offset)

    def touch(self, broker_id: int, fenced: bool, metadata_offset: int) -> None:
        """Set the broker's fencing state and reported offset (its session is the tracker's)."""
        broker = self._state_or_raise(broker_id)
        self._untrack(broker)
        broker.metadata_offset = metadata_offset
        if fenced:
            broker.controlled_shutdown_offset = -1     # a fenced broker leaves controlled shutdown
        else:
            broker.fenced = False
            self._unfenced.append(broker)

    def fence(self, broker_id: int) -> None:
        broker = self._brokers.get(broker_id)
        if broker is not None:
            self._untrack(broker)

    def remove(self, broker_id: int) -> None:
        broker = self._brokers.pop(broker_id, None)
        if broker is not None:
            self._untrack(broker)

    def maybe_update_controlled_shutdown_offset(self, broker_id: int, offset: int) -> None:
        broker = self._state_or_raise(broker_id)
        if broker.fenced:
            raise RuntimeError("Fenced brokers cannot enter controlled shutdown.")
        if broker.controlled_shutdown_offset < 0:
            broker.controlled_shutdown_offset = offset

    def _untrack(self, broker: BrokerHeartbeatState) -> None:
        if not broker.fenced:
            self._unfenced.remove(broker)
            broker.fenced = True

    def _state_or_raise(self, broker_id: int) -> BrokerHeartbeatState:
        broker = self._brokers.get(broker_id)
        if broker is None:
            raise RuntimeError(f"Broker {broker_id} is not registered.")
        return broker

    # ------------------------------------------------------------------ state machine
    def current_broker_state(self, broker: BrokerHeartbeatState) -> BrokerControlState:
        if broker.shutting_down:
            return BrokerControlState.CONTROLLED_SHUTDOWN
        return BrokerControlState.FENCED if broker.fenced else BrokerControlState.UNFENCED

    def calculate_next_broker_state(self, broker_id: int, want_fence: bool, want_shut_down: bool,
                                    current_metadata_offset: int, register_broker_record_offset: int,
                                    has_leaderships: Callable[[], bool]) -> BrokerControlStates:
        """Where one heartbeat moves the broker (see the module docstring's diagram)."""
        broker = self._state_or_raise(broker_id)
        current = self.current_broker_state(broker)
        S = BrokerControlState
        if current is S.FENCED:
            if want_shut_down:
                return BrokerControlStates(current, S.SHUTDOWN_NOW)
            if not want_fence and current_metadata_offset >= register_broker_record_offset:
                return BrokerControlStates(current, S.UNFENCED)
            return BrokerControlStates(current, S.FENCED)
        if current is S.UNFENCED:
            if want_fence:
                return BrokerControlStates(current, S.SHUTDOWN_NOW if want_shut_down else S.FENCED)
            if want_shut_down:
                return BrokerControlStates(
                    current, S.CONTROLLED_SHUTDOWN if has_leaderships() else S.SHUTDOWN_NOW)
            return BrokerControlStates(current, S.UNFENCED)
        # CONTROLLED_SHUTDOWN: wait until it leads nothing and the others caught up.
        if has_leaderships():
            return BrokerControlStates(current, S.CONTROLLED_SHUTDOWN)
        if broker.controlled_shutdown_offset <= self.lowest_active_offset():
            return BrokerControlStates(current, S.SHUTDOWN_NOW)
        return BrokerControlStates(current, S.CONTROLLED_SHUTDOWN)
