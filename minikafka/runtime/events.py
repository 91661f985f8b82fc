"""The cluster event log: what happened, when, on which node, and why.

Theory of operation
-------------------
Nodes call ``Node.emit(kind, text, **data)`` when something a learner should
see happens: a controller wins an election, a broker is fenced, a partition
changes leader or ISR, a segment rolls.  The driver stamps each event with a
sequence number and appends it to the cluster's `EventLog`, which widgets and
lessons read (they never read node internals).

``text`` is a one-line sentence in Kafka's terms, e.g. ``orders-1 leader 2 ->
3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]``.  ``data`` holds the same facts as
plain values for programs.

Event kinds used by the engine (``kind`` field):

====================== ====================================================
controller_elected     a controller won a KRaft election (data: epoch, votes)
controller_resigned    an active controller stepped down
broker_registered      RegisterBrokerRecord written (data: broker, epoch)
broker_registration_refused  the controller refused a broker's registration, told once until it
                       succeeds (data: broker, error; DUPLICATE_BROKER_REGISTRATION after a
                       restart within broker.session.timeout.ms)
broker_unfenced        broker caught up and was unfenced
broker_started         a (re)started broker was unfenced the first time: it serves clients now
broker_fenced          broker fenced (data: reason, e.g. session timeout)
broker_shutdown        controlled shutdown finished
topic_created          TopicRecord + PartitionRecords written
topic_deleted          RemoveTopicRecord written
partitions_added       CreatePartitions
config_changed         ConfigRecord(s) written
partition_changed      leader and/or ISR change (PartitionChangeRecord)
reassignment_started   adding/removing replicas set
reassignment_completed target replicas reached
isr_shrink             a partition leader asks to drop lagging followers from the ISR (and why)
isr_expand             a partition leader asks to add a caught-up follower back to the ISR
log_truncated          a follower truncated its divergent tail
segment_rolled         a new log segment was started
segments_deleted       retention deleted old segments
recovery               a log was recovered at start-up (truncation, index rebuild)
node_killed / node_stopped / node_restarted / node_paused / node_resumed
node_lost_power        a node's machine lost power (after its node_killed): the bytes not flushed
                       are gone from its in-memory disk (data: lost_bytes)
network_isolated / network_link_cut / network_healed / latency_changed
internal_error         an exception escaped node code (a sandbox bug; live driver only)
sandbox_stalled        not a Kafka event: the live cluster's thread was starved by other work in
                       its Python process (or machine) and its clock left that time out
                       (data: stalled_ms, stalls, longest_ms, span_ms, behind_ms)
group_rebalance        a consumer group starts a rebalance (data: group, generation)
group_join_completed   every member joined; the leader must send the assignment
group_stable           the group has its assignment (generation N is Stable)
group_empty            the last member left
group_member_removed   a member left, expired or was removed (data: reason)
group_loaded / group_unloaded / group_load_failed   a coordinator partition was (un)loaded
group_deleted          DeleteGroups removed a group and its offsets
offsets_expired        retention removed committed offsets
offsets_deleted        a deleted topic's committed offsets were removed (data: offsets, topics)
offsets_delete_failed  writing those tombstones failed (data: topics, error)
group_offsets_deleted  OffsetDelete removed some committed offsets of a group (data: group, offsets)
controller_registered  a controller announced its listeners (KIP-919)
consumer_group_target_assignment  a consumer-protocol group's coordinator computed a new target
                       assignment with its assignor (data: group, epoch, assignor, members)
consumer_member_assignment  a consumer-protocol member's assignment changed (data: group, member,
                       epoch, owned, revoking)
consumer_member_session_expired  a consumer-protocol member missed its session and was fenced
                       (also a classic member of a consumer group that did not rejoin or sync in time)
group_converted        a group changed protocol online, or an empty one was recreated with the
                       other type (data: group, source, target, members)
====================== ====================================================

Besides events, the log tells its listeners one thing that is not a Kafka
event: that the whole sandbox cluster is about to stop (`announce_stop`,
called by ``Cluster.stop()`` before any node goes down).  A view subscribed
with `subscribe_stop` then keeps the picture it shows as its last one,
instead of drawing every node dead.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    time_ms: int                      # the node's clock when it happened (ms since the epoch)
    kind: str                         # one of the kinds listed in the module docstring
    node: int | None                  # the node that saw it; None for driver-level faults
    text: str                         # one line for humans, in Kafka's words
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = 0                      # position in the cluster's log (set by EventLog)

    def __str__(self) -> str:
        return self.text


class EventLog:
    """An append-only list of `ClusterEvent` with listeners.

    Safe to read from another thread than the one that appends: the live
    driver appends on its own thread while a notebook reads.
    """

    def __init__(self, max_events: int = 100_000):
        self._events: list[ClusterEvent] = []
        self._lock = threading.Lock()
        self._listeners: list[Callable[[ClusterEvent], None]] = []
        self._stop_listeners: list[Callable[[], None]] = []
        self._max = max_events
        self._next_seq = 1

    def append(self, event: ClusterEvent) -> ClusterEvent:
        with self._lock:
            stamped = ClusterEvent(event.time_ms, event.kind, event.node, event.text,
                                   event.data, self._next_seq)
            self._next_seq += 1
            self._events.append(stamped)
            if len(self._events) > self._max:
                del self._events[: len(self._events) - self._max]
            listeners = list(self._listeners)
        for listener in listeners:
            listener(stamped)
        return stamped

    def subscribe(self, listener: Callable[[ClusterEvent], None]) -> Callable[[], None]:
        """Call ``listener(event)`` for every new event; returns an unsubscribe function."""
        return self._add(self._listeners, listener)

    def subscribe_stop(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` when the cluster announces it is stopping; returns an
        unsubscribe function.  A listener is called at most once."""
        return self._add(self._stop_listeners, listener)

    def _add(self, listeners: list[Callable[..., None]], listener: Callable[..., None]) -> Callable[[], None]:
        """Add ``listener`` to ``listeners``; the function that takes it out again."""
        with self._lock:
            listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in listeners:
                    listeners.remove(listener)
        return unsubscribe

    def announce_stop(self) -> list[Exception]:
        """Tell the stop listeners that the cluster stops now (in the caller's thread), then
        forget them.  A listener's exception neither reaches the caller (the cluster must
        stop all the same) nor keeps the others from hearing it: they are returned."""
        with self._lock:
            listeners = list(self._stop_listeners)
            self._stop_listeners.clear()
        errors = []
        for listener in listeners:
            try:
                listener()
            except Exception as exc:
                errors.append(exc)
        return errors

    def since(self, seq: int = 0, kinds: set[str] | None = None) -> list[ClusterEvent]:
        with self._lock:
            return [e for e in self._events if e.seq > seq and (kinds is None or e.kind in kinds)]

    def __iter__(self) -> Iterator[ClusterEvent]:
        return iter(self.since(0))

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)

    @property
    def last_seq(self) -> int:
        with self._lock:
            return self._next_seq - 1
