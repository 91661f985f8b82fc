"""``BrokerHeartbeatManager``: broker sessions and the broker lifecycle state machine.

Theory of operation
-------------------
Only the active controller keeps this state; it is soft state, rebuilt from
the broker registrations whenever a controller becomes active (every broker
then starts with a fresh session).  For each registered broker it remembers

* when the controller last heard from it (``last_contact_ms``),
* the metadata offset the broker reported it had applied, and
* the offset at which a controlled shutdown began (-1 when none).

A broker is *fenced* while it is not in the unfenced list.  Unfenced brokers
whose last contact is more than ``broker.session.timeout.ms`` ago are stale:
the controller fences them (one at a time, oldest contact first), which moves
their partitions' leadership elsewhere.

Each heartbeat runs the state machine (``calculate_next_broker_state``)::

    FENCED --(caught up to its RegisterBrokerRecord, !want_fence)--> UNFENCED
    FENCED --(want_shut_down)--> SHUTDOWN_NOW
    UNFENCED --(want_fence)--> FENCED  (or SHUTDOWN_NOW with want_shut_down)
    UNFENCED --(want_shut_down, still leads partitions)--> CONTROLLED_SHUTDOWN
    UNFENCED --(want_shut_down, leads nothing)--> SHUTDOWN_NOW
    CONTROLLED_SHUTDOWN --(leads nothing and every active broker has applied
                           the shutdown offset)--> SHUTDOWN_NOW

Mirrors ``org.apache.kafka.controller.BrokerHeartbeatManager`` and
``BrokerControlState`` (Kafka 4.x).  Times are int milliseconds passed in as
``now`` instead of a monotonic nanosecond clock.  Simplified: Kafka's
intrusive linked list and TreeSet become a plain ordered list and a sort; the
clusters are small.
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


class BrokerHeartbeatState:
    """What the active controller knows about one broker's session."""

    __slots__ = ("id", "last_contact_ms", "metadata_offset", "controlled_shutdown_offset", "fenced")

    def __init__(self, broker_id: int):
        self.id = broker_id
        self.last_contact_ms = 0              # controller time of the last heartbeat/registration
        self.metadata_offset = -1             # highest metadata offset the broker reported applying
        self.controlled_shutdown_offset = -1  # offset when controlled shutdown began; -1 = not shutting down
        self.fenced = True                    # False while the broker is in the unfenced list

    @property
    def shutting_down(self) -> bool:
        return self.controlled_shutdown_offset >= 0


class BrokerHeartbeatManager:
    """Session tracking for every registered broker, on the active controller."""

    def __init__(self, session_timeout_ms: int):
        self.session_timeout_ms = session_timeout_ms
        self._brokers: dict[int, BrokerHeartbeatState] = {}   # broker id -> session state
        self._unfenced: list[BrokerHeartbeatState] = []       # unfenced brokers, oldest contact first

    # ------------------------------------------------------------------ queries
    def brokers(self) -> list[BrokerHeartbeatState]:
        return list(self._brokers.values())

    def state(self, broker_id: int) -> BrokerHeartbeatState | None:
        return self._brokers.get(broker_id)

    def has_valid_session(self, broker_id: int, now: int) -> bool:
        broker = self._brokers.get(broker_id)
        return broker is not None and self._valid(broker, now)

    def _valid(self, broker: BrokerHeartbeatState, now: int) -> bool:
        return not broker.fenced and broker.last_contact_ms + self.session_timeout_ms >= now

    def next_check_time_ms(self) -> int | None:
        """When the oldest unfenced session can first be stale (None: nothing to check).

        A session is still valid at exactly ``last_contact + timeout``, so the
        first moment it can be stale is one millisecond later.
        """
        if not self._unfenced:
            return None
        return self._unfenced[0].last_contact_ms + self.session_timeout_ms + 1

    def find_one_stale_broker(self, now: int) -> int | None:
        # The list is ordered by last contact: if the oldest is fine, all are.
        if self._unfenced and not self._valid(self._unfenced[0], now):
            return self._unfenced[0].id
        return None

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
    def register(self, broker_id: int, fenced: bool, now: int) -> None:
        """Start (or refresh) tracking after a registration record was replayed."""
        broker = self._brokers.get(broker_id)
        metadata_offset = -1
        if broker is None:
            broker = self._brokers[broker_id] = BrokerHeartbeatState(broker_id)
        elif broker.fenced != fenced:
            metadata_offset = broker.metadata_offset   # a fencing change keeps the known offset
        self.touch(broker_id, fenced, metadata_offset, now)

    def touch(self, broker_id: int, fenced: bool, metadata_offset: int, now: int) -> None:
        """Record contact from the broker and its new fencing state."""
        broker = self._state_or_raise(broker_id)
        self._untrack(broker)
        broker.last_contact_ms = now
        broker.metadata_offset = metadata_offset
        if fenced:
            broker.controlled_shutdown_offset = -1     # a fenced broker leaves controlled shutdown
        else:
            broker.fenced = False
            position = len(self._unfenced)
            while position > 0 and self._unfenced[position - 1].last_contact_ms > now:
                position -= 1
            self._unfenced.insert(position, broker)

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
