"""`Partition`: one replica of a topic-partition on this broker, as leader or follower.

Theory of operation
-------------------
The leader of a partition owns three decisions:

* **who is in sync.**  A follower is *caught up* when a fetch asked for the
  leader's log end offset (LEO), and it stays in the ISR as long as it was
  caught up within ``replica.lag.time.max.ms``.  Joining needs the follower's
  LEO to reach the high watermark and the start of the leader's epoch, and
  its broker to be registered, unfenced and not shutting down.  The leader
  never edits the ISR itself: it asks the controller with AlterPartition and
  keeps the change *pending* until the answer (or the metadata) confirms it.
  While an expansion is pending, the new member already counts for the high
  watermark (Kafka's "maximal ISR"), so the HW never runs ahead of a replica
  the controller might accept.
* **what is committed.**  The high watermark is the smallest LEO among the
  leader and the maximal ISR.  It only moves forward; consumers read below it,
  and an acks=all produce completes when it passes the batch.  While the ISR
  is smaller than ``min.insync.replicas`` it does not move at all (KIP-966's
  "strict min ISR", Kafka 3.7 and later, with or without ELR): that is what
  lets the controller keep the replicas that left the ISR as eligible leader
  replicas, since none of them can miss a committed record.
* **whether a write is safe.**  With acks=all, an append is refused up front
  (NOT_ENOUGH_REPLICAS) when the ISR is smaller than ``min.insync.replicas``.
  If the ISR shrinks below it after the append, the high watermark stops
  short of the batch, so the producer waits until the ISR grows back or its
  request times out (REQUEST_TIMED_OUT) although the data is in the log;
  NOT_ENOUGH_REPLICAS_AFTER_APPEND is left for a batch the high watermark
  passed just before the ISR shrank.

A follower only appends what its fetcher brings and copies the leader's HW.

What it depends on: its host, the `ReplicaManager`, seen through the narrow
`PartitionHost` (the broker id and clock, the log to create, whether another
broker is alive or ISR-eligible, the AlterPartition channel, the ISR change
meters, event notes, and a hook for a high watermark that moved).

Mirrors ``kafka.cluster.Partition``; what the leader knows of each follower is
`minikafka.server.replica` (Kafka's ``kafka.cluster.Replica``).
Simplified: one log directory, no future replicas (AlterReplicaLogDirs moves
are instantaneous), the ISR is checked on a timer like Kafka's
``isr-expiration`` task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from minikafka.common.errors import (Errors, KafkaException, NotEnoughReplicasException,
                                     OffsetOutOfRangeException, PolicyViolationException,
                                     NotLeaderOrFollowerException)
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.server.fetch import FetchPartitionData, FetchPartitionRequest
from minikafka.server.replica import UNKNOWN_OFFSET, PendingIsrChange, ReplicaState, isr_set
from minikafka.storage.fetch_data_info import FetchIsolation
from minikafka.storage.file_records import TimestampAndOffset
from minikafka.storage.log_append_info import LogAppendInfo

if TYPE_CHECKING:
    from minikafka.metadata.partition_registration import PartitionRegistration
    from minikafka.storage.unified_log import UnifiedLog

def _ids(ids) -> str:
    """How Kafka's Partition log lines print a replica list: ``1,2,3``."""
    return ",".join(str(i) for i in ids)


def scala_set(ids) -> str:
    """How Kafka's Scala code prints a set of broker ids in messages: ``Set(1, 2)``."""
    return "Set(" + ", ".join(str(i) for i in ids) + ")"


class PartitionHost(Protocol):
    """What a `Partition` asks of the `ReplicaManager` that hosts it."""

    broker_id: int
    isr_meters: Any                                 # IsrShrinks/Expands/FailedIsrUpdates meters, or None

    @property
    def now(self) -> int: ...

    def get_or_create_log(self, partition: "Partition", now: int) -> "UnifiedLog": ...

    def is_broker_alive(self, broker_id: int) -> bool: ...

    def is_replica_isr_eligible(self, broker_id: int, broker_epoch: int) -> bool: ...

    def alter_partition(self, partition: "Partition", new_isr: tuple[int, ...],
                        callback: Callable[[object], None]) -> None: ...

    def on_high_watermark_advanced(self, partition: "Partition") -> None: ...

    def emit(self, kind: str, text: str, **data: Any) -> None: ...


class Partition:
    def __init__(self, tp: TopicPartition, manager: PartitionHost):
        self.topic_partition = tp
        self.manager = manager                      # our ReplicaManager, as a PartitionHost
        self.broker_id = manager.broker_id
        self.topic_id: Uuid = Uuid.ZERO
        self.log: "UnifiedLog | None" = None
        self.leader_id = -1                         # current leader (-1: none known)
        self.leader_epoch = -1                      # epoch of the current leader
        self.partition_epoch = -1                   # metadata version of this partition's state
        self.replicas: tuple[int, ...] = ()         # assignment, preferred leader first
        self.adding_replicas: tuple[int, ...] = ()
        self.removing_replicas: tuple[int, ...] = ()
        self.isr: tuple[int, ...] = ()              # committed ISR (what the controller has)
        self.pending: PendingIsrChange | None = None  # our AlterPartition waiting for an answer
        self.remote: dict[int, ReplicaState] = {}   # followers' states (meaningful on the leader)
        self.leader_epoch_start_offset = UNKNOWN_OFFSET  # our LEO when we became leader

    # ------------------------------------------------------------------ state
    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.broker_id

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        if self.pending is None:
            return self.isr
        return self.isr + tuple(sorted(self.pending.adding - set(self.isr)))

    @property
    def high_watermark(self) -> int:
        return self.log.high_watermark if self.log else UNKNOWN_OFFSET

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset if self.log else UNKNOWN_OFFSET

    def min_isr(self) -> int:
        configured = self.log.config.min_insync_replicas if self.log else 1
        return min(configured, len(self.replicas) or 1)   # Kafka's effectiveMinIsr

    def is_under_min_isr(self) -> bool:
        return self.is_leader and len(self.isr) < self.min_isr()

    # ------------------------------------------------------------------ transitions
    def make_leader(self, registration: "PartitionRegistration", topic_id: Uuid, now: int) -> bool:
        """Become (or stay) leader; returns True if this is a new leader epoch for us."""
        if registration.partition_epoch < self.partition_epoch:
            return False                             # we already know newer state (from AlterPartition)
        is_new_epoch = registration.leader_epoch > self.leader_epoch or not self.is_leader
        self._update_assignment(registration, topic_id)
        self.leader_id = self.broker_id
        log = self.manager.get_or_create_log(self, now)
        if is_new_epoch:
            self.leader_epoch = registration.leader_epoch
            self.leader_epoch_start_offset = log.log_end_offset
            log.maybe_assign_epoch_start_offset(self.leader_epoch, log.log_end_offset)
            self.remote = {r: ReplicaState(last_caught_up_time_ms=now if r in self.isr else 0)
                           for r in self.replicas if r != self.broker_id}
        else:
            for replica in self.replicas:
                if replica != self.broker_id:
                    self.remote.setdefault(replica, ReplicaState())
            for gone in set(self.remote) - set(self.replicas):
                del self.remote[gone]
        self.maybe_increment_leader_hw(now)
        return is_new_epoch

    def make_follower(self, registration: "PartitionRegistration", topic_id: Uuid, now: int) -> bool:
        """Follow ``registration.leader``; returns True if the fetcher must (re)start."""
        if registration.partition_epoch < self.partition_epoch:
            return False
        changed = (registration.leader != self.leader_id
                   or registration.leader_epoch != self.leader_epoch)
        self._update_assignment(registration, topic_id)
        self.leader_id = registration.leader
        self.leader_epoch = registration.leader_epoch
        self.leader_epoch_start_offset = UNKNOWN_OFFSET
        self.remote = {}
        self.manager.get_or_create_log(self, now)
        return changed

    def _update_assignment(self, registration: "PartitionRegistration", topic_id: Uuid) -> None:
        self.topic_id = topic_id
        self.replicas = tuple(registration.replicas)
        self.adding_replicas = tuple(registration.adding_replicas)
        self.removing_replicas = tuple(registration.removing_replicas)
        if self.pending is not None and self.is_leader \
                and set(registration.isr) == set(self.pending.proposed_isr):
            self._mark_isr_update(self.pending, True)  # our change, committed: seen before its answer
        self.isr = tuple(registration.isr)
        self.partition_epoch = registration.partition_epoch
        self.pending = None                          # the metadata supersedes any change in flight

    # ------------------------------------------------------------------ produce
    def append_records_to_leader(self, records, required_acks: int, now: int) -> LogAppendInfo:
        if not self.is_leader or self.log is None:
            raise NotLeaderOrFollowerException(
                f"Leader not local for partition {self.topic_partition} on broker {self.broker_id}")
        min_isr = self.min_isr()
        if required_acks == -1 and len(self.isr) < min_isr:
            raise NotEnoughReplicasException(
                f"The size of the current ISR : {len(self.isr)} is insufficient to satisfy the min.isr "
                f"requirement of {min_isr} for partition {self.topic_partition}, live replica(s) "
                f"broker.id are : {scala_set(self.isr)}")
        info = self.log.append_as_leader(records, self.leader_epoch, now)
        self.maybe_increment_leader_hw(now)
        return info

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """For a parked acks=all produce: (done?, error) once the HW passed ``required_offset``."""
        if not self.is_leader or self.log is None:
            return True, Errors.NOT_LEADER_OR_FOLLOWER
        if self.log.high_watermark >= required_offset:
            if len(self.maximal_isr) >= self.min_isr():       # Kafka counts the maximal ISR here
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE

    # ------------------------------------------------------------------ fetch (leader side)
    def check_leader_epoch(self, current_leader_epoch: int) -> Errors:
        if current_leader_epoch < 0:
            return Errors.NONE
        if self.leader_epoch > current_leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if self.leader_epoch < current_leader_epoch:
            return Errors.UNKNOWN_LEADER_EPOCH
        return Errors.NONE

    def fetch_records(self, request: FetchPartitionRequest, replica_id: int, replica_epoch: int,
                      isolation: FetchIsolation, max_bytes: int, min_one_message: bool,
                      now: int, fetch_only_leader: bool = True) -> FetchPartitionData:
        """Serve one partition of a Fetch (followers: also track their progress).

        Only a v11+ consumer fetch (``fetch_only_leader`` False) may be served by a follower.
        """
        error = self.check_leader_epoch(request.current_leader_epoch)
        if error is Errors.NONE and ((fetch_only_leader and not self.is_leader) or self.log is None):
            error = Errors.NOT_LEADER_OR_FOLLOWER
        if error is not Errors.NONE:
            return self._error_data(request, error)
        log = self.log
        diverging = self._diverging_epoch(request)
        if diverging is not None:
            return FetchPartitionData(request.topic, request.partition, Errors.NONE,
                                      log.high_watermark, log.high_watermark,
                                      log.log_start_offset, b"", diverging_epoch=diverging)
        if replica_id >= 0:
            if replica_id not in self.remote:
                return self._error_data(request, Errors.NOT_LEADER_OR_FOLLOWER)
            self.update_follower_fetch_state(replica_id, request.fetch_offset,
                                             request.log_start_offset, replica_epoch, now)
        info = log.read(request.fetch_offset, max_bytes, isolation, min_one_message)
        return FetchPartitionData(request.topic, request.partition, Errors.NONE,
                                  log.high_watermark, log.high_watermark, log.log_start_offset,
                                  bytes(info.records))

    def _diverging_epoch(self, request: FetchPartitionRequest) -> tuple[int, int] | None:
        """(epoch, end offset) when the fetcher's last epoch ended earlier here (KIP-595 style)."""
        if request.last_fetched_epoch < 0:
            return None
        epoch, end_offset = self.log.end_offset_for_epoch(request.last_fetched_epoch)
        if epoch < request.last_fetched_epoch or end_offset < request.fetch_offset:
            return epoch, end_offset
        return None

    def _error_data(self, request: FetchPartitionRequest, error: Errors) -> FetchPartitionData:
        leader = (self.leader_id, self.leader_epoch) if self.leader_id >= 0 else None
        return FetchPartitionData(request.topic, request.partition, error,
                                  current_leader=leader)

    # ------------------------------------------------------------------ offsets (ListOffsets, ...)
    def local_log_with_epoch_or_throw(self, current_leader_epoch: int, require_leader: bool):
        """The local log if ``current_leader_epoch`` (-1: unknown) matches and, if required, we lead."""
        error = self.check_leader_epoch(current_leader_epoch)
        if error is Errors.NONE and ((require_leader and not self.is_leader) or self.log is None):
            error = Errors.NOT_LEADER_OR_FOLLOWER
        if error is not Errors.NONE:
            raise error.exception(
                f"Failed to find {'leader ' if require_leader else ''}log for partition "
                f"{self.topic_partition} with leader epoch {current_leader_epoch}. The current leader "
                f"is {self.leader_id} and the current epoch {self.leader_epoch}")
        return self.log

    def fetch_offset_for_timestamp(self, timestamp: int, isolation_level: int | None,
                                   current_leader_epoch: int = -1,
                                   fetch_only_from_leader: bool = True) -> TimestampAndOffset | None:
        """ListOffsets (``-2`` earliest, ``-1`` latest, ``-3`` max timestamp, or a time).

        ``isolation_level`` is None for a replica's request, 0/1 for a client's.  A client asking a
        new leader whose high watermark has not yet reached the start of its epoch gets
        OFFSET_NOT_AVAILABLE for "latest" and for answers at or beyond the fetchable end.
        """
        log = self.local_log_with_epoch_or_throw(current_leader_epoch, fetch_only_from_leader)
        last_fetchable = (log.log_end_offset if isolation_level is None else
                          log.last_stable_offset if isolation_level == 1 else log.high_watermark)
        lagging: KafkaException | None = None
        start = self.leader_epoch_start_offset
        if isolation_level is not None and self.is_leader and start > log.high_watermark:
            epoch = f"epoch {current_leader_epoch}" if current_leader_epoch >= 0 else "unknown epoch"
            lagging = Errors.OFFSET_NOT_AVAILABLE.exception(
                f"Failed to fetch offsets for partition {self.topic_partition} with leader {epoch} as "
                f"this partition's high watermark ({log.high_watermark}) is lagging behind the start "
                f"offset from the beginning of this epoch ({start}).")
        if timestamp == -1:
            if lagging is not None:
                raise lagging
            return TimestampAndOffset(-1, last_fetchable, self.leader_epoch)
        found = log.fetch_offset_by_timestamp(timestamp)
        if timestamp in (-2, -4):
            return found
        if found is None or found.offset >= last_fetchable:
            if lagging is not None:
                raise lagging
            return None                              # "no such offset": -1/-1 in the response
        return found

    def last_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int,
                                     fetch_only_from_leader: bool = True) -> tuple[Errors, int, int]:
        """OffsetForLeaderEpoch: (error, epoch, end offset) -- the end of the largest epoch <= asked."""
        try:
            log = self.local_log_with_epoch_or_throw(current_leader_epoch, fetch_only_from_leader)
        except KafkaException as exc:
            return exc.error, -1, -1
        epoch, end_offset = log.end_offset_for_epoch(leader_epoch)
        return Errors.NONE, epoch, end_offset

    def delete_records_on_leader(self, offset: int) -> tuple[int, int]:
        """DeleteRecords: move the log start offset (-1 = the high watermark); (requested, low watermark)."""
        if not self.is_leader or self.log is None:
            raise NotLeaderOrFollowerException(
                f"Leader not local for partition {self.topic_partition} on broker {self.broker_id}")
        if "delete" not in self.log.config.cleanup_policy:
            raise PolicyViolationException(f"Records of partition {self.topic_partition} can not be "
                                           f"deleted due to the configured policy")
        converted = self.log.high_watermark if offset == -1 else offset
        if converted < 0:
            raise OffsetOutOfRangeException(
                f"The offset {converted} for partition {self.topic_partition} is not valid")
        self.log.maybe_increment_log_start_offset(converted, "ClientRecordDeletion")
        return converted, self.low_watermark_if_leader()

    def low_watermark_if_leader(self) -> int:
        """The smallest log start offset among the leader and its alive followers."""
        if not self.is_leader or self.log is None:
            raise NotLeaderOrFollowerException(
                f"Leader not local for partition {self.topic_partition} on broker {self.broker_id}")
        low = self.log.log_start_offset
        for replica, state in self.remote.items():
            if self.manager.is_broker_alive(replica) and state.log_start_offset < low:
                low = state.log_start_offset
        return low

    # ------------------------------------------------------------------ ISR management
    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int, log_start_offset: int,
                                    broker_epoch: int, now: int) -> None:
        self.remote[replica_id].update_fetch_state(fetch_offset, log_start_offset, self.log.log_end_offset,
                                                   broker_epoch, now)
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
            f"from {_ids(self.isr)} to {_ids(new_isr)}: broker {replica_id} caught up to the high "
            f"watermark ({state.log_end_offset} >= {self.log.high_watermark})",
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
            f"from {_ids(self.isr)} to {_ids(new_isr)}. Leader: (highWatermark: "
            f"{self.log.high_watermark}, endOffset: {self.log.log_end_offset}). Out of sync "
            f"replicas: {out_of_sync}. Not caught up: {behind} "
            f"(replica.lag.time.max.ms={max_lag_ms})",
            topic=self.topic_partition.topic, partition=self.topic_partition.partition,
            out_of_sync=list(lagging), isr=list(self.isr), new_isr=list(new_isr))

    def _submit_isr_change(self, new_isr: tuple[int, ...], adding: set[int],
                           removing: set[int]) -> None:
        self.pending = PendingIsrChange(new_isr, frozenset(adding), frozenset(removing))
        epoch_at_submit = (self.leader_epoch, self.partition_epoch)
        self.manager.alter_partition(self, new_isr,
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

    # ------------------------------------------------------------------ high watermark
    def maybe_increment_leader_hw(self, now: int) -> bool:
        if not self.is_leader or self.log is None:
            return False
        if self.is_under_min_isr():
            return False        # nothing is committed while fewer than min.insync.replicas are in sync
        new_hw = self.log.log_end_offset
        for replica in self.maximal_isr:
            if replica == self.broker_id:
                continue
            state = self.remote.get(replica)
            offset = state.log_end_offset if state else UNKNOWN_OFFSET
            new_hw = min(new_hw, max(offset, 0) if offset != UNKNOWN_OFFSET else 0)
        if new_hw > self.log.high_watermark:
            self.log.maybe_increment_high_watermark(new_hw)
            self.manager.on_high_watermark_advanced(self)
            return True
        return False

    def describe(self) -> str:
        role = "leader" if self.is_leader else f"follower of {self.leader_id}"
        return (f"{self.topic_partition} ({role}, epoch {self.leader_epoch}, ISR {list(self.isr)}, "
                f"LEO {self.log_end_offset}, HW {self.high_watermark})")


Callback = Callable[[object], None]
