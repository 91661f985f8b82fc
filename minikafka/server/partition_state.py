"""A leader's ISR bookkeeping: which followers are in sync, and the ISR change it has asked for.

Theory of operation
-------------------
The leader keeps a `ReplicaState` per follower, updated by every fetch that
follower sends: its log end offset (LEO), its log start offset, its broker
epoch, and the last time it was *caught up* -- when a fetch asked for the
leader's LEO, or for at least the LEO the leader had at the follower's
previous fetch (then the follower was caught up as of that previous fetch).

From those states the leader decides who belongs in the in-sync replica set:

* **expand.**  A follower outside the ISR joins once its LEO reaches the
  high watermark and the start of the leader's epoch, and its broker is
  registered, unfenced and not shutting down with the same broker epoch the
  fetch carried (KIP-903).
* **shrink.**  An ISR member that has not been caught up within
  ``replica.lag.time.max.ms`` leaves (checked on the ISR expiration timer).

The leader never edits the ISR itself: it sends the proposed ISR (in the
order a Java ``HashSet`` of ids iterates, as Kafka 4.3 sends it) to the
controller as AlterPartition and keeps it *pending* until the answer, or a
metadata update, settles it.  One change is in flight at a time.  While an
expansion is pending, the *maximal ISR* already counts the new member, so
the high watermark never runs ahead of a replica the controller might
accept.  An accepted answer brings the new ISR and partition epoch; an error
or a stale answer drops the pending change (the next fetch or check proposes
it again); an answer to an AlterPartition sent under an older leader or
partition epoch is ignored.  The ``IsrExpandsPerSec``/``IsrShrinksPerSec``
meters count accepted changes, ``FailedIsrUpdatesPerSec`` the rest.

`Partition` inherits `IsrTracking`: the methods here read and write the
partition's ``isr``, ``pending``, ``remote``, ``log``, epochs and replica
list, and reach the broker through the partition's ``manager`` (its
`PartitionHost`).  They are kept apart because they are the one part of a
partition with its own state machine.

Mirrors ``kafka.cluster.Replica`` and the ISR half of ``kafka.cluster.Partition``
(``maybeExpandIsr``, ``maybeShrinkIsr``, and its ``PartitionState`` values
``CommittedPartitionState``, ``PendingExpandIsr`` and ``PendingShrinkIsr``).
Simplified: one `PendingIsrChange` shape for both directions; leader
recovery state (KIP-704) is not tracked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from minikafka.common.errors import Errors
from minikafka.common.java_hashing import hashmap_order

if TYPE_CHECKING:
    from minikafka.common.topic_partition import TopicPartition
    from minikafka.server.partition import PartitionHost
    from minikafka.storage.unified_log import UnifiedLog

UNKNOWN_OFFSET = -1


def ids_text(ids) -> str:
    """How Kafka's Partition log lines print a replica list: ``1,2,3``."""
    return ",".join(str(i) for i in ids)


def isr_set(ids) -> tuple[int, ...]:
    """The ISR a leader proposes in AlterPartition: Kafka 4.3's ``Partition`` keeps it in a Java
    ``HashSet``, so it goes out in hash order (ascending for ids below the table size), not in the
    order replicas joined: ISR 3 plus 2 is sent as 2,3."""
    return tuple(hashmap_order(list(ids)))


@dataclass
class ReplicaState:
    """What the leader knows about one follower (Kafka's ``Replica``)."""

    log_end_offset: int = UNKNOWN_OFFSET          # the follower's LEO, from its last fetch
    log_start_offset: int = UNKNOWN_OFFSET        # the follower's log start offset
    last_fetch_leader_log_end_offset: int = UNKNOWN_OFFSET  # our LEO at its previous fetch
    last_fetch_time_ms: int = 0                   # when it last fetched
    last_caught_up_time_ms: int = 0               # last time it had everything we had
    broker_epoch: int = -1                        # the follower's broker epoch at its last fetch

    def is_caught_up(self, leader_end_offset: int, now: int, max_lag_ms: int) -> bool:
        return (leader_end_offset == self.log_end_offset
                or now - self.last_caught_up_time_ms <= max_lag_ms)

    def update_fetch_state(self, fetch_offset: int, log_start_offset: int, leader_end_offset: int,
                           broker_epoch: int, now: int) -> None:
        """Record a fetch at ``fetch_offset`` while the leader's LEO is ``leader_end_offset``."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, now)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset >= 0:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_end_offset = fetch_offset
        self.log_start_offset = log_start_offset
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = now
        self.broker_epoch = broker_epoch


@dataclass(frozen=True)
class PendingIsrChange:
    """An AlterPartition in flight: the ISR we asked for and what it adds/removes."""

    proposed_isr: tuple[int, ...]
    adding: frozenset[int]
    removing: frozenset[int]


class IsrTracking:
    """The ISR half of `Partition` (see the module docstring); not used on its own."""

    # What these methods use of the partition (set by `Partition.__init__` and its transitions).
    topic_partition: "TopicPartition"
    manager: "PartitionHost"
    broker_id: int
    log: "UnifiedLog | None"
    leader_epoch: int
    partition_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    pending: PendingIsrChange | None
    remote: dict[int, ReplicaState]
    leader_epoch_start_offset: int
    is_leader: bool

    def maybe_increment_leader_hw(self, now: int) -> bool:
        raise NotImplementedError                   # `Partition`'s

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        if self.pending is None:
            return self.isr
        return self.isr + tuple(sorted(self.pending.adding - set(self.isr)))

    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int, log_start_offset: int,
                                    broker_epoch: int, now: int) -> None:
        self.remote[replica_id].update_fetch_state(fetch_offset, log_start_offset,
                                                   self.log.log_end_offset, broker_epoch, now)
        self.maybe_expand_isr(replica_id, now)
        self.maybe_increment_leader_hw(now)

    def maybe_expand_isr(self, replica_id: int, now: int) -> None:
        if self.pending is not None or replica_id in self.isr or replica_id not in self.replicas:
            return
        state = self.remote[replica_id]
        if state.log_end_offset < self.log.high_watermark:
            return
        if state.log_end_offset < self.leader_epoch_start_offset:
            return
        if not self.manager.is_replica_isr_eligible(replica_id, state.broker_epoch):
            return
        new_isr = isr_set(self.isr + (replica_id,))
        self.manager.emit(
            "isr_expand", f"[Partition {self.topic_partition} broker={self.broker_id}] Expanding ISR "
            f"from {ids_text(self.isr)} to {ids_text(new_isr)}: broker {replica_id} caught up to the "
            f"high watermark ({state.log_end_offset} >= {self.log.high_watermark})",
            topic=self.topic_partition.topic, partition=self.topic_partition.partition,
            replica=replica_id, isr=list(self.isr), new_isr=list(new_isr))
        self._submit_isr_change(new_isr, adding={replica_id}, removing=set())

    def out_of_sync_replicas(self, now: int, max_lag_ms: int) -> list[int]:
        leader_end = self.log.log_end_offset
        return [r for r in self.isr if r != self.broker_id and r in self.remote
                and not self.remote[r].is_caught_up(leader_end, now, max_lag_ms)]

    def maybe_shrink_isr(self, now: int, max_lag_ms: int) -> None:
        if not self.is_leader or self.log is None or self.pending is not None:
            return
        lagging = self.out_of_sync_replicas(now, max_lag_ms)
        if lagging:
            new_isr = isr_set(r for r in self.isr if r not in lagging)
            self._note_shrink(new_isr, lagging, now, max_lag_ms)
            self._submit_isr_change(new_isr, adding=set(), removing=set(lagging))

    def _note_shrink(self, new_isr: tuple[int, ...], lagging: list[int], now: int,
                     max_lag_ms: int) -> None:
        # Kafka's leader logs this line (Partition.maybeShrinkIsr); the reason after it is ours.
        out_of_sync = " ".join(f"(brokerId: {r}, endOffset: {self.remote[r].log_end_offset})"
                               for r in lagging)
        behind = ", ".join(f"broker {r} for {now - self.remote[r].last_caught_up_time_ms} ms"
                           for r in lagging)
        self.manager.emit(
            "isr_shrink", f"[Partition {self.topic_partition} broker={self.broker_id}] Shrinking ISR "
            f"from {ids_text(self.isr)} to {ids_text(new_isr)}. Leader: (highWatermark: "
            f"{self.log.high_watermark}, endOffset: {self.log.log_end_offset}). Out of sync "
            f"replicas: {out_of_sync}. Not caught up: {behind} "
            f"(replica.lag.time.max.ms={max_lag_ms})",
            topic=self.topic_partition.topic, partition=self.topic_partition.partition,
            out_of_sync=list(lagging), isr=list(self.isr), new_isr=list(new_isr))

    def _submit_isr_change(self, new_isr: tuple[int, ...], adding: set[int],
                           removing: set[int]) -> None:
        self.pending = PendingIsrChange(new_isr, frozenset(adding), frozenset(removing))
        epoch_at_submit = (self.leader_epoch, self.partition_epoch)
        self.manager.alter_partition(self, new_isr,   # type: ignore[arg-type]  # self is a Partition
                                     lambda result: self._on_alter_partition(epoch_at_submit, result))

    def _on_alter_partition(self, epoch_at_submit: tuple[int, int], result) -> None:
        """``result`` is (error, leader_id, leader_epoch, isr, partition_epoch) or None on timeout."""
        if (self.leader_epoch, self.partition_epoch) != epoch_at_submit:
            return                                   # the metadata already moved on
        proposed, self.pending = self.pending, None
        if result is None:
            return
        error, leader_id, leader_epoch, isr, partition_epoch = result
        self._mark_isr_update(proposed, error is Errors.NONE and leader_epoch == self.leader_epoch
                              and partition_epoch >= self.partition_epoch)
        if error is not Errors.NONE:
            return                                   # retried by the next fetch or ISR check
        if partition_epoch > self.partition_epoch:
            self.isr = tuple(isr)
            self.partition_epoch = partition_epoch
        self.maybe_increment_leader_hw(self.manager.now)

    def _mark_isr_update(self, proposed: PendingIsrChange | None, accepted: bool) -> None:
        # Kafka's AlterPartitionListener: IsrExpands/ShrinksPerSec once the controller accepted
        # the change, FailedIsrUpdatesPerSec for an error or a stale answer.
        meters = self.manager.isr_meters
        if meters is None or proposed is None:
            return
        meter = meters.failed if not accepted else meters.expands if proposed.adding else meters.shrinks
        meter.mark(1, self.manager.now)
