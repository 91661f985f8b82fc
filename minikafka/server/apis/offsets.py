"""ListOffsets (2), OffsetForLeaderEpoch (23) and DeleteRecords (21): finding and trimming positions.

Theory of operation
-------------------
**ListOffsets** turns a timestamp into an offset on the partition leader.
Special timestamps: -2 earliest (the log start offset), -1 latest (the high
watermark for read_uncommitted clients, the last stable offset for
read_committed, the log end offset for replicas), -3 the record with the
largest timestamp (v7+), -4 earliest local (v8+), -5 latest tiered (v9+), -6
earliest pending upload (v11+, KIP-1023).
Any other negative value, or a special one below its version, is
UNSUPPORTED_VERSION.  A real timestamp gives the first offset whose record
time is at least that; when there is none below the fetchable end the
answer is offset -1.  A leader elected moments ago, whose high watermark has
not yet reached the start of its epoch, cannot promise monotonic offsets:
it answers OFFSET_NOT_AVAILABLE (LEADER_NOT_AVAILABLE before v5) for
"latest" and for lookups past its high watermark.  A partition named twice
is INVALID_REQUEST; ``replica_id`` -2 (a debugging tool) may ask a follower.

**OffsetForLeaderEpoch** tells a consumer (KIP-320) or a follower where an
epoch ended on the leader: the requested epoch, or the largest older one,
with its end offset (-1/-1 when the leader knows no such epoch).

**DeleteRecords** moves the leader's log start offset (-1 means "up to the
high watermark"); records below it can no longer be read and whole segments
below it are deleted by retention.  The answer waits until every alive
replica's log start offset -- the *low watermark* -- has followed, or the
request's timeout passes (REQUEST_TIMED_OUT).  An offset past the high
watermark is OFFSET_OUT_OF_RANGE; internal topics and compacted-only topics
refuse (INVALID_TOPIC_EXCEPTION, POLICY_VIOLATION).

Mirrors ``KafkaApis.handleListOffsetRequest``/``ReplicaManager.fetchOffset``,
``handleOffsetForLeaderEpochRequest``/``ReplicaManager.lastOffsetForLeaderEpoch``
and ``handleDeleteRecordsRequest``/``ReplicaManager.deleteRecords`` (Kafka 4.3).
Simplified: no tiered storage (-5 and -6 answer offset -1), topics are listed in request
order (Kafka groups them in hash order).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.java_hashing import scala_immutable_hashmap_order
from minikafka.common.topic_partition import TopicPartition
from minikafka.network.codec import response_class
from minikafka.network.request_channel import Deferred
from minikafka.network.request_context import RequestContext
from minikafka.server.replica_manager import DeleteRecordsResult

if TYPE_CHECKING:
    from minikafka.server.replica_manager import ReplicaManager


class OffsetsBroker(Protocol):
    """What ListOffsets, OffsetForLeaderEpoch and DeleteRecords use of the broker."""

    @property
    def replica_manager(self) -> "ReplicaManager": ...

    def partition_exists(self, tp: TopicPartition) -> bool: ...
from minikafka.network.api_keys import LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH, DELETE_RECORDS

ListOffsetsResponse = response_class(LIST_OFFSETS)
OffsetForLeaderEpochResponse = response_class(OFFSET_FOR_LEADER_EPOCH)
DeleteRecordsResponse = response_class(DELETE_RECORDS)
ListOffsetsPartitionResponse = ListOffsetsResponse.ListOffsetsTopicResponse.ListOffsetsPartitionResponse

CONSUMER_REPLICA_ID, DEBUGGING_REPLICA_ID = -1, -2
# The oldest ListOffsets version that knows each special timestamp (ReplicaManager).
TIMESTAMP_MIN_VERSION = {-2: 1, -1: 1, -3: 7, -4: 8, -5: 9, -6: 11}


# ---------------------------------------------------------------- ListOffsets
def handle_list_offsets(ctx: RequestContext, request: Any, broker: OffsetsBroker) -> Any:
    version = ctx.api_version
    counts = Counter((t.name, p.partition_index) for t in request.topics for p in t.partitions)
    isolation = request.isolation_level if version >= 2 else 0
    topics = []
    for topic in request.topics:
        partitions = []
        for p in topic.partitions:
            if counts[(topic.name, p.partition_index)] > 1:
                partitions.append(_offset_error(p.partition_index, Errors.INVALID_REQUEST))
            elif p.timestamp < 0 and version < TIMESTAMP_MIN_VERSION.get(p.timestamp, 1 << 15):
                partitions.append(_offset_error(p.partition_index, Errors.UNSUPPORTED_VERSION))
            else:
                partitions.append(_list_offset(broker, request.replica_id, isolation, version,
                                               TopicPartition(topic.name, p.partition_index), p))
        topics.append(ListOffsetsResponse.ListOffsetsTopicResponse(name=topic.name, partitions=partitions))
    return ListOffsetsResponse(throttle_time_ms=0, topics=topics)


def _list_offset(broker: OffsetsBroker, replica_id: int, isolation: int, version: int, tp: TopicPartition,
                 p: Any) -> Any:
    partition, error = broker.replica_manager.partition_or_error(tp)
    if partition is None:
        return _offset_error(tp.partition, error)
    epoch = p.current_leader_epoch if version >= 4 else -1
    try:
        found = partition.fetch_offset_for_timestamp(
            p.timestamp, isolation if replica_id == CONSUMER_REPLICA_ID else None, epoch,
            fetch_only_from_leader=replica_id != DEBUGGING_REPLICA_ID)
    except KafkaException as exc:
        error = exc.error
        if error is Errors.OFFSET_NOT_AVAILABLE and version < 5:
            error = Errors.LEADER_NOT_AVAILABLE
        return _offset_error(tp.partition, error)
    if found is None:
        return _offset_error(tp.partition, Errors.NONE)
    leader_epoch = found.leader_epoch if found.leader_epoch is not None and version >= 4 else -1
    return ListOffsetsPartitionResponse(partition_index=tp.partition, error_code=0,
                                        timestamp=found.timestamp, offset=found.offset,
                                        leader_epoch=leader_epoch)


def _offset_error(partition: int, error: Errors) -> Any:
    return ListOffsetsPartitionResponse(partition_index=partition, error_code=error.code,
                                        timestamp=-1, offset=-1, leader_epoch=-1)


# ---------------------------------------------------------------- OffsetForLeaderEpoch
def handle_offset_for_leader_epoch(ctx: RequestContext, request: Any, broker: OffsetsBroker) -> Any:
    Result = OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult
    topics = []
    for topic in request.topics:
        partitions = []
        for p in topic.partitions:
            tp = TopicPartition(topic.topic, p.partition)
            partition, error = broker.replica_manager.partition_or_error(tp)
            epoch, end_offset = -1, -1
            if partition is not None:
                error, epoch, end_offset = partition.last_offset_for_leader_epoch(
                    p.current_leader_epoch, p.leader_epoch, fetch_only_from_leader=True)
            partitions.append(Result.EpochEndOffset(error_code=error.code, partition=p.partition,
                                                    leader_epoch=epoch, end_offset=end_offset))
        topics.append(Result(topic=topic.topic, partitions=partitions))
    return OffsetForLeaderEpochResponse(throttle_time_ms=0, topics=topics)


# ---------------------------------------------------------------- DeleteRecords
def handle_delete_records(ctx: RequestContext, request: Any, broker: OffsetsBroker) -> Any:
    order: list[TopicPartition] = []
    refused: dict[TopicPartition, DeleteRecordsResult] = {}
    offsets: dict[TopicPartition, int] = {}
    for topic in request.topics:
        for p in topic.partitions:
            tp = TopicPartition(topic.name, p.partition_index)
            order.append(tp)
            if broker.partition_exists(tp):
                offsets[tp] = p.offset
            else:
                refused[tp] = DeleteRecordsResult(Errors.UNKNOWN_TOPIC_OR_PARTITION)
    deferred = Deferred("DeleteRecords")

    def respond(results: dict[TopicPartition, DeleteRecordsResult]) -> None:
        deferred.complete(_delete_records_response(order, {**refused, **results}))

    if offsets:
        broker.replica_manager.delete_records(request.timeout_ms, offsets, respond)
    else:
        respond({})
    return deferred.outcome if deferred.done else deferred


def _delete_records_response(order: list[TopicPartition],
                             results: dict[TopicPartition, DeleteRecordsResult]) -> Any:
    TopicResult = DeleteRecordsResponse.DeleteRecordsTopicResult
    by_topic: dict[str, Any] = {}
    for tp in dict.fromkeys(order):
        entry = by_topic.setdefault(tp.topic, TopicResult(name=tp.topic, partitions=[]))
        result = results[tp]
        entry.partitions.append(TopicResult.DeleteRecordsPartitionResult(
            partition_index=tp.partition, low_watermark=result.low_watermark,
            error_code=result.error.code))
    # KafkaApis groups the results by topic with Scala's groupBy: topics in that map's order.
    topics = [by_topic[name] for name in scala_immutable_hashmap_order(by_topic)]
    return DeleteRecordsResponse(throttle_time_ms=0, topics=topics)
