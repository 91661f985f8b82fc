"""`ReplicaManager`: every partition replica a broker hosts, and the produce/fetch paths through them.

Theory of operation
-------------------
The broker's metadata publisher hands every committed metadata delta to
``apply_delta``.  Kafka's ``TopicsDelta.localChanges`` tells which replicas
this broker must delete, lead or follow; the manager creates logs (a new
``<topic>-<partition>/`` directory appears), makes partitions leaders or
followers, and points the `ReplicaFetcherManager` at each follower's leader.

Produce: each partition's batch goes through ``Partition.append_records_to
_leader``; acks=0/1 answer at once, acks=all parks a `DelayedProduce` until
the high watermark passes every appended batch.  Fetch: followers read up to
the log end offset, consumers up to the high watermark; if less than
``min_bytes`` is available the request waits in a `DelayedFetch` for up to
``max_wait_ms``.  Changes wake parked requests: an append checks waiting
fetches, a high-watermark move checks waiting produces and consumer fetches.

The ISR is checked every ``replica.lag.time.max.ms / 2`` (Kafka's
``isr-expiration`` task); ISR changes go to the active controller as
AlterPartition requests (`AlterPartitionManager`).

What it depends on, all passed in by `BrokerServer`: the node (``now``,
``schedule``, ``emit``), the broker id, the `LogManager`, the timing profile
(``replica.lag.time.max.ms``), the broker's topic metrics, the broker's view
of the metadata (`ReplicaMetadata`, the broker's `KRaftMetadataCache`: does
a partition exist, is a broker fenced or eligible for the ISR), a topic's
log config (``log_config_for``), two callbacks told when this broker starts
or stops leading a partition (the group coordinator loads and unloads
``__consumer_offsets`` partitions), the `AlterPartitionManager`'s
``submit``, the map of hosted partitions it keeps (made by `BrokerServer`
and shared with the fetcher manager and the broker's gauges), the
`ReplicaFetcherManager` (`FetcherManager`) and the ISR change meters.

Mirrors ``kafka.server.ReplicaManager``.  Simplified: one log directory;
DeleteRecords completes when the leader has moved its log start offset (no
wait for the followers' low watermark); no quotas except the replication
throttle in the fetcher.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.server.delayed_operations import (DelayedDeleteRecords, DelayedFetch,
                                                 DelayedOperationPurgatory, DelayedProduce)
from minikafka.server.fetch import (FetchPartitionData, FetchPartitionRequest, FetchRequest,
                                    FetchResponse)
from minikafka.server.partition import Partition
from minikafka.storage.fetch_data_info import FetchIsolation

if TYPE_CHECKING:
    from minikafka.metrics.broker_topic_stats import BrokerTopicStats
    from minikafka.storage.log_config import LogConfig
    from minikafka.storage.log_manager import LogManager
    from minikafka.common.timing import TimingProfile

INTERNAL_TOPICS = {"__consumer_offsets", "__transaction_state", "__share_group_state"}


# Append failures Kafka reports without the partition's log start offset (appendToLocalLog).
_WITHOUT_LOG_START = frozenset({Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER,
                                Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE,
                                Errors.CORRUPT_MESSAGE, Errors.KAFKA_STORAGE_ERROR,
                                Errors.UNKNOWN_TOPIC_ID})


@dataclass
class PartitionProduceResult:
    """One partition's answer, with Kafka's values: -1 where unknown, and ``error_message`` only
    for record validation failures (the only errors Kafka sends with a message)."""

    error: Errors = Errors.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    record_errors: list[tuple[int, str | None]] = field(default_factory=list)  # (batch index, message)


@dataclass
class DeleteRecordsResult:
    error: Errors = Errors.NONE
    low_watermark: int = -1                           # smallest log start offset among alive replicas


class ReplicaNode(Protocol):
    """The parts of the node the replica manager and its partitions use."""

    now: int

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def emit(self, kind: str, text: str, **data: Any) -> None: ...


class ReplicaMetadata(Protocol):
    """What the replica manager asks of the broker's current metadata image."""

    def partition_exists(self, tp: TopicPartition) -> bool: ...

    def is_broker_isr_eligible(self, broker_id: int, broker_epoch: int) -> bool: ...

    def is_broker_fenced(self, broker_id: int) -> bool: ...


class FetcherManager(Protocol):
    """The `ReplicaFetcherManager` as the replica manager drives it."""

    def add(self, partition: Partition) -> None: ...

    def remove(self, tp: TopicPartition) -> None: ...

    def is_fetching(self, tp: TopicPartition) -> bool: ...

    def remove_all(self) -> None: ...


LeadershipChange = Callable[[Partition], None]


AlterPartition = Callable[[Partition, tuple[int, ...], Callable[[object], None]], None]


class ReplicaManager:
    def __init__(self, node: ReplicaNode, *, broker_id: int, log_manager: "LogManager",
                 timing: "TimingProfile", topic_stats: "BrokerTopicStats",
                 metadata: ReplicaMetadata, log_config_for: Callable[[str], "LogConfig"],
                 on_became_leader: LeadershipChange, on_resigned_leader: LeadershipChange,
                 alter_partition: AlterPartition, partitions: dict[TopicPartition, Partition],
                 fetcher_manager: FetcherManager, isr_meters: Any):
        self.node = node
        self.broker_id = broker_id
        self.log_manager = log_manager
        self.metadata = metadata
        self.log_config_for = log_config_for
        self.on_became_leader = on_became_leader
        self.on_resigned_leader = on_resigned_leader
        self.submit_isr_change = alter_partition      # the AlterPartitionManager's submit
        self.partitions = partitions                  # shared with the fetcher manager and the gauges
        self.produce_purgatory = DelayedOperationPurgatory("Produce", self.node)
        self.fetch_purgatory = DelayedOperationPurgatory("Fetch", self.node)
        self.delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", self.node)
        self.max_lag_ms = timing.ms("replica.lag.time.max.ms")
        self.fetcher_manager = fetcher_manager
        self.topic_stats = topic_stats                # BrokerTopicMetrics meters (bytes, messages)
        self.isr_meters = isr_meters                  # IsrShrinks/Expands meters (None: not counted)

    @property
    def now(self) -> int:
        return self.node.now

    def emit(self, kind: str, text: str, **data: Any) -> None:
        """Note a cluster event (for our partitions' ISR changes)."""
        self.node.emit(kind, text, **data)

    def start(self) -> None:
        self._schedule_isr_expiration()

    # ------------------------------------------------------------------ metadata
    def apply_delta(self, changes, image) -> None:
        """Apply ``TopicsDelta.local_changes(broker_id)``: delete, lead, follow."""
        now = self.now
        for tp in changes.deletes:
            self._stop_replica(tp, delete=True)
        for tp, info in changes.leaders.items():
            partition = self._get_or_create_partition(tp)
            self.fetcher_manager.remove(tp)
            partition.make_leader(info.partition, info.topic_id, now)
            self.on_became_leader(partition)
            self._wake(tp)
        for tp, info in changes.followers.items():
            partition = self._get_or_create_partition(tp)
            was_leader = partition.is_leader
            restart = partition.make_follower(info.partition, info.topic_id, now)
            if was_leader:
                self.on_resigned_leader(partition)
            if partition.leader_id < 0:
                self.fetcher_manager.remove(tp)
            elif restart or not self.fetcher_manager.is_fetching(tp):
                self.fetcher_manager.add(partition)
            self._wake(tp)

    def _get_or_create_partition(self, tp: TopicPartition) -> Partition:
        partition = self.partitions.get(tp)
        if partition is None:
            partition = self.partitions[tp] = Partition(tp, self)
        return partition

    def _stop_replica(self, tp: TopicPartition, delete: bool) -> None:
        self.fetcher_manager.remove(tp)
        partition = self.partitions.pop(tp, None)
        if partition is not None and partition.is_leader:
            self.on_resigned_leader(partition)
        if partition is not None:
            partition.leader_id = -1
        if delete:
            self.log_manager.async_delete(tp, self.now)
            if not any(other.topic == tp.topic for other in self.partitions):
                self.topic_stats.remove_topic(tp.topic)   # Kafka's maybeRemoveTopicMetrics
        self._wake(tp)

    def get_or_create_log(self, partition: Partition, now: int):
        if partition.log is None:
            tp = partition.topic_partition
            self.log_manager.topic_configs.setdefault(tp.topic, self.log_config_for(tp.topic))
            partition.log = self.log_manager.get_or_create_log(tp, now, topic_id=partition.topic_id)
        return partition.log

    def shutdown(self) -> None:
        self.fetcher_manager.remove_all()

    # ------------------------------------------------------------------ produce
    def append_records(self, required_acks: int, timeout_ms: int, entries: dict[TopicPartition, bytes],
                       respond: Callable[[dict[TopicPartition, PartitionProduceResult]], None],
                       internal: bool = False) -> None:
        results = {tp: PartitionProduceResult() for tp in entries}
        if required_acks not in (-1, 0, 1):
            for result in results.values():
                result.error = Errors.INVALID_REQUIRED_ACKS
            respond(results)
            return
        required_offsets: dict[TopicPartition, int] = {}
        for tp, records in entries.items():
            info = self._append_one(tp, records, required_acks, results[tp], internal)
            if info is not None and required_acks == -1:
                required_offsets[tp] = info.last_offset + 1
        if not required_offsets:
            respond(results)
            return
        operation = DelayedProduce(required_offsets, results, self._check_produce, respond)
        self.produce_purgatory.try_complete_else_watch(operation, timeout_ms)

    def _append_one(self, tp: TopicPartition, records: bytes, required_acks: int,
                    result: PartitionProduceResult, internal: bool):
        self.topic_stats.produce_requested(tp.topic, self.now)
        if tp.topic in INTERNAL_TOPICS and not internal:
            result.error = Errors.INVALID_TOPIC_EXCEPTION     # "Cannot append to internal topic <t>"
            return None
        partition = self.partitions.get(tp)
        if partition is None:
            result.error = (Errors.NOT_LEADER_OR_FOLLOWER if self.metadata.partition_exists(tp)
                            else Errors.UNKNOWN_TOPIC_OR_PARTITION)
            return None
        try:
            info = partition.append_records_to_leader(records, required_acks, self.now)
        except Exception as exc:                        # Kafka catches Throwable here too
            self._append_failed(partition, exc, result)
            if result.error not in _WITHOUT_LOG_START:  # unexpected failures only, as Kafka counts
                self.topic_stats.produce_failed(tp.topic, self.now)
            return None
        self.topic_stats.appended(tp.topic, len(records), info.num_messages, self.now)
        result.base_offset = info.first_offset
        result.log_append_time = info.log_append_time
        result.log_start_offset = info.log_start_offset
        self.fetch_purgatory.check_and_complete(tp)
        return info

    @staticmethod
    def _append_failed(partition: Partition, exc: Exception, result: PartitionProduceResult) -> None:
        result.error = exc.error if isinstance(exc, KafkaException) else Errors.UNKNOWN_SERVER_ERROR
        record_errors = getattr(exc, "record_errors", None)
        if record_errors is not None:                   # a RecordValidationException in Kafka
            result.record_errors = list(record_errors)
            result.error_message = exc.message
        if result.error not in _WITHOUT_LOG_START and partition.is_leader and partition.log:
            result.log_start_offset = partition.log.log_start_offset

    def _check_produce(self, tp: TopicPartition, required_offset: int):
        partition = self.partitions.get(tp)
        if partition is None:
            return True, Errors.NOT_LEADER_OR_FOLLOWER
        return partition.check_enough_replicas_reach_offset(required_offset)

    def on_high_watermark_advanced(self, partition: Partition) -> None:
        self._wake(partition.topic_partition)

    def _wake(self, tp: TopicPartition) -> None:
        self.produce_purgatory.check_and_complete(tp)
        self.fetch_purgatory.check_and_complete(tp)
        self.delete_records_purgatory.check_and_complete(tp)

    # ------------------------------------------------------------------ fetch
    def fetch_messages(self, request: FetchRequest, respond: Callable[[FetchResponse], None]) -> None:
        results = self._read(request)
        for data in results:                          # Kafka counts the first read only
            self.topic_stats.fetch_requested(data.topic, self.now)
        readable = sum(len(r.records) for r in results)
        urgent = any(r.error is not Errors.NONE or r.diverging_epoch for r in results)
        if (request.max_wait_ms <= 0 or not request.partitions or readable >= request.min_bytes
                or urgent):
            self._answer_fetch(request, respond, results)
            return
        start = {(p.topic, p.partition): p.fetch_offset for p in request.partitions}

        def has_enough_data() -> bool:
            return any(self._readable_end(request, tp) > offset
                       or (request.fetch_only_leader and self._leadership_lost(tp))
                       for (tp, offset) in ((TopicPartition(*key), off) for key, off in start.items()))

        operation = DelayedFetch([TopicPartition(p.topic, p.partition) for p in request.partitions],
                                 has_enough_data,
                                 lambda: self._answer_fetch(request, respond, self._read(request)))
        self.fetch_purgatory.try_complete_else_watch(operation, request.max_wait_ms)

    def _answer_fetch(self, request: FetchRequest, respond: Callable[[FetchResponse], None],
                      results: list[FetchPartitionData]) -> None:
        """Send the answer; mark BytesOut (consumers) or ReplicationBytesOut (followers) as it leaves."""
        self._count_bytes_out(request, results)
        respond(FetchResponse(tuple(results)))

    def _count_bytes_out(self, request: FetchRequest, results: list[FetchPartitionData]) -> None:
        follower = request.is_from_follower
        for data in results:
            if data.records or not follower:
                self.topic_stats.bytes_out(data.topic, follower, len(data.records), self.now)

    def _readable_end(self, request: FetchRequest, tp: TopicPartition) -> int:
        partition = self.partitions.get(tp)
        if partition is None or partition.log is None:
            return -1
        return partition.log.log_end_offset if request.is_from_follower else partition.log.high_watermark

    def _leadership_lost(self, tp: TopicPartition) -> bool:
        partition = self.partitions.get(tp)
        return partition is None or not partition.is_leader

    def _read(self, request: FetchRequest) -> list[FetchPartitionData]:
        isolation = FetchIsolation.LOG_END if request.is_from_follower else FetchIsolation.HIGH_WATERMARK
        remaining = request.max_bytes
        read_any = False
        results = []
        for part in request.partitions:
            data = self._read_partition(request, part, isolation,
                                        min(part.partition_max_bytes, max(remaining, 0)), not read_any)
            remaining -= len(data.records)
            read_any = read_any or bool(data.records)
            results.append(data)
            if request.is_from_follower:              # a follower's log start may raise the low watermark
                self.delete_records_purgatory.check_and_complete(TopicPartition(part.topic, part.partition))
        return results

    def _read_partition(self, request: FetchRequest, part: FetchPartitionRequest,
                        isolation: FetchIsolation, max_bytes: int,
                        min_one_message: bool) -> FetchPartitionData:
        tp = TopicPartition(part.topic, part.partition)
        partition = self.partitions.get(tp)
        if partition is None:
            error = (Errors.NOT_LEADER_OR_FOLLOWER if self.metadata.partition_exists(tp)
                     else Errors.UNKNOWN_TOPIC_OR_PARTITION)
            return FetchPartitionData(part.topic, part.partition, error)
        try:
            return partition.fetch_records(part, request.replica_id, request.replica_epoch,
                                           isolation, max_bytes, min_one_message, self.now,
                                           request.fetch_only_leader)
        except KafkaException as exc:
            log = partition.log
            return FetchPartitionData(part.topic, part.partition, exc.error,
                                      log.high_watermark if log else -1,
                                      log.high_watermark if log else -1,
                                      log.log_start_offset if log else -1,
                                      error_message=exc.message)

    # ------------------------------------------------------------------ ISR
    def _schedule_isr_expiration(self) -> None:
        self.node.schedule(("replica-manager", "isr-expiration"),
                           self.now + max(1, self.max_lag_ms // 2), self._isr_expiration)

    def _isr_expiration(self) -> None:
        for partition in list(self.partitions.values()):
            partition.maybe_shrink_isr(self.now, self.max_lag_ms)
        self._schedule_isr_expiration()

    def is_replica_isr_eligible(self, broker_id: int, broker_epoch: int) -> bool:
        return self.metadata.is_broker_isr_eligible(broker_id, broker_epoch)

    def alter_partition(self, partition: Partition, new_isr: tuple[int, ...],
                        callback: Callable[[object], None]) -> None:
        self.submit_isr_change(partition, new_isr, callback)

    # ------------------------------------------------------------------ offsets
    def is_broker_alive(self, broker_id: int) -> bool:
        return not self.metadata.is_broker_fenced(broker_id)

    def online_partition(self, tp: TopicPartition) -> Partition | None:
        """The replica of ``tp`` this broker hosts, if any (``ReplicaManager.onlinePartition``)."""
        return self.partitions.get(tp)

    def partition_or_error(self, tp: TopicPartition) -> tuple[Partition | None, Errors]:
        """``getPartitionOrError``: a hosted partition, else NOT_LEADER_OR_FOLLOWER (the topic exists,
        this broker holds no replica) or UNKNOWN_TOPIC_OR_PARTITION."""
        partition = self.partitions.get(tp)
        if partition is not None:
            return partition, Errors.NONE
        return None, (Errors.NOT_LEADER_OR_FOLLOWER if self.metadata.partition_exists(tp)
                      else Errors.UNKNOWN_TOPIC_OR_PARTITION)

    def delete_records(self, timeout_ms: int, offsets: dict[TopicPartition, int],
                       respond: Callable[[dict[TopicPartition, DeleteRecordsResult]], None]) -> None:
        """Move log start offsets on the leaders; answer once every low watermark caught up."""
        results = {tp: DeleteRecordsResult() for tp in offsets}
        required: dict[TopicPartition, int] = {}
        for tp, offset in offsets.items():
            result = results[tp]
            if tp.topic in INTERNAL_TOPICS:
                result.error = Errors.INVALID_TOPIC_EXCEPTION    # "Cannot delete records of internal topic"
                continue
            partition, result.error = self.partition_or_error(tp)
            if partition is None:
                continue
            try:
                requested, result.low_watermark = partition.delete_records_on_leader(offset)
            except KafkaException as exc:
                result.error = exc.error
                continue
            self._wake(tp)
            if result.low_watermark < requested:
                required[tp] = requested
        if not required:
            respond(results)
            return
        operation = DelayedDeleteRecords(required, results, self._check_delete_records, respond)
        self.delete_records_purgatory.try_complete_else_watch(operation, timeout_ms)

    def _check_delete_records(self, tp: TopicPartition, required_offset: int):
        partition, error = self.partition_or_error(tp)
        if partition is None:
            return True, error, -1
        try:
            low_watermark = partition.low_watermark_if_leader()
        except KafkaException as exc:
            return True, exc.error, -1
        return low_watermark >= required_offset, Errors.NONE, low_watermark

    def leader_partition(self, tp: TopicPartition, current_leader_epoch: int = -1
                         ) -> tuple[Partition | None, Errors]:
        partition = self.partitions.get(tp)
        if partition is None:
            return None, (Errors.NOT_LEADER_OR_FOLLOWER if self.metadata.partition_exists(tp)
                          else Errors.UNKNOWN_TOPIC_OR_PARTITION)
        error = partition.check_leader_epoch(current_leader_epoch)
        if error is Errors.NONE and (not partition.is_leader or partition.log is None):
            error = Errors.NOT_LEADER_OR_FOLLOWER
        return (partition if error is Errors.NONE else None), error
