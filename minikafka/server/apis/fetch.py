"""Fetch (1): consumers (and anyone speaking the protocol) read record batches.

Theory of operation
-------------------
A consumer names, per partition, the offset it wants next, how many bytes it
can take and -- from v9 -- the leader epoch it believes in.  The broker
reads whole batches from the leader's log up to the high watermark, exactly
as they are stored (compressed batches stay compressed), and answers with
the partition's high watermark, last stable offset and log start offset.
If less than ``min_bytes`` is available the request waits in the
``ReplicaManager``'s purgatory for up to ``max_wait_ms`` (a long poll).

* **Fetch sessions** (KIP-227) are always declined: a full fetch is answered
  with ``session_id`` 0 and *every* requested partition, even those with no
  data (clients discard a full response that omits or adds partitions); an
  incremental fetch names a session the broker never created, so it gets
  FETCH_SESSION_ID_NOT_FOUND and the client falls back to full fetches.
* **Errors** per partition, in Kafka's order: UNKNOWN_TOPIC_ID (v13+ ids),
  UNKNOWN_TOPIC_OR_PARTITION, then the replica's checks: FENCED_LEADER_EPOCH /
  UNKNOWN_LEADER_EPOCH against ``current_leader_epoch``, NOT_LEADER_OR_FOLLOWER,
  OFFSET_OUT_OF_RANGE.  An errored partition carries -1 offsets and no
  records; from v16 a NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH partition
  also says who leads now (``current_leader``, ``node_endpoints``).
* **Divergence** (KIP-320): a consumer that sends ``last_fetched_epoch`` (v12+)
  learns, through ``diverging_epoch``, that its position lies past the end of
  that epoch on the leader (its log was truncated by an unclean election).
* ``preferred_read_replica`` is always -1 (no ``replica.selector.class``);
  from v11 a consumer may still fetch from a follower directly (KIP-392).

Mirrors ``KafkaApis.handleFetchRequest``, ``FetchManager.newContext``
(``SessionlessFetchContext``/``SessionErrorContext``), ``ReplicaManager.readFromLog``
and ``Partition.readRecords`` (Kafka 4.3.1).  Simplified: no quotas, no
transaction index (read_committed stops at the high watermark, which is
also the last stable offset, with an empty aborted-transactions list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.network.codec import from_wire_uuid, response_class
from minikafka.server.apis.metadata import LeaderLookup, current_leader
from minikafka.network.request_channel import Deferred
from minikafka.network.request_context import RequestContext
from minikafka.server.fetch import (FetchPartitionData, FetchPartitionRequest, FetchRequest,
                                    FetchResponse as DomainFetchResponse)
from minikafka.network.api_keys import FETCH

FetchResponse = response_class(FETCH)
PartitionData = FetchResponse.FetchableTopicResponse.PartitionData

INITIAL_EPOCH, FINAL_EPOCH = 0, -1            # FetchMetadata: a full fetch uses one of these
READ_COMMITTED = 1
_HINTED_ERRORS = (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH)

Wanted = tuple[Any, FetchPartitionRequest]     # (the request's kafka-python topic entry, what to read)
Refused = tuple[Any, int, Errors]              # (the topic entry, partition index, why it is not read)

if TYPE_CHECKING:
    from minikafka.common.config.kafka_config import KafkaConfig


class FetchBroker(LeaderLookup, Protocol):
    """What Fetch uses of the broker: its image and replicas (`LeaderLookup`) and its configs."""

    @property
    def kafka_config(self) -> "KafkaConfig": ...


def handle_fetch(ctx: RequestContext, request: Any, broker: FetchBroker) -> Any:
    version = ctx.api_version
    if version >= 7 and request.session_epoch not in (INITIAL_EPOCH, FINAL_EPOCH):
        # An incremental fetch: the broker never created a session, so none is found.
        return FetchResponse(throttle_time_ms=0, error_code=Errors.FETCH_SESSION_ID_NOT_FOUND.code,
                             session_id=0, responses=[], node_endpoints=[])
    replica_id, replica_epoch = _replica(request, version)
    wanted, erroneous = _sort_partitions(broker, request, version)
    if not wanted:
        return _response(ctx, broker, request, [], erroneous)
    max_bytes = min(request.max_bytes, int(broker.kafka_config.get("fetch.max.bytes")))
    domain_request = FetchRequest(
        replica_id, replica_epoch, request.max_wait_ms, min(request.min_bytes, max_bytes), max_bytes,
        tuple(part for _, part in wanted),
        isolation_level=request.isolation_level, client_metadata=version >= 11)
    deferred = Deferred(f"Fetch from {ctx.client_id or replica_id}")

    def respond(result: DomainFetchResponse) -> None:
        deferred.complete(_response(ctx, broker, request, list(zip(wanted, result.partitions)),
                                    erroneous))

    broker.replica_manager.fetch_messages(domain_request, respond)
    return deferred.outcome if deferred.done else deferred


def _replica(request: Any, version: int) -> tuple[int, int]:
    """Who is fetching: v15+ moved the follower's id into a tagged ``ReplicaState``."""
    if version >= 15:
        state = request.replica_state
        return (state.replica_id, state.replica_epoch) if state is not None else (-1, -1)
    return request.replica_id, -1


def _sort_partitions(broker: FetchBroker, request: Any, version: int) -> tuple[list[Wanted], list[Refused]]:
    """([(wire topic, domain partition request)], [(wire topic, partition index, error)])."""
    image = broker.image
    wanted: list[Wanted] = []
    erroneous: list[Refused] = []
    for topic in request.topics:
        if version >= 13:
            topic_id = from_wire_uuid(topic.topic_id)
            image_topic = image.topics.get_topic(topic_id)
            name = image_topic.name if image_topic is not None else None
        else:                                     # by name: the image knows the id (if the topic exists)
            name = topic.topic
            known = image.topics.get_topic(name)
            topic_id = known.topic_id if known is not None else Uuid.ZERO    # unknown: refused below
        for p in topic.partitions:
            if name is None:
                erroneous.append((topic, p.partition, Errors.UNKNOWN_TOPIC_ID))
            elif image.partition(name, p.partition) is None:
                erroneous.append((topic, p.partition, Errors.UNKNOWN_TOPIC_OR_PARTITION))
            else:
                part = FetchPartitionRequest(
                    name, p.partition, p.fetch_offset, p.partition_max_bytes,
                    current_leader_epoch=p.current_leader_epoch if version >= 9 else -1,
                    last_fetched_epoch=p.last_fetched_epoch if version >= 12 else -1,
                    log_start_offset=p.log_start_offset if version >= 5 else -1,
                    topic_id=topic_id)
                wanted.append((topic, part))
    return wanted, erroneous


def _response(ctx: RequestContext, broker: FetchBroker, request: Any,
              read: list[tuple[Wanted, FetchPartitionData]], erroneous: list[Refused]) -> Any:
    """Partitions in Kafka's order: those read (request order), then those refused up front."""
    endpoints: dict[int, Any] = {}
    topics: list[Any] = []
    consumer = _replica(request, ctx.api_version)[0] < 0
    for (wire_topic, part), data in read:
        if consumer:
            data = _consumer_view(part, data)
        _add(topics, wire_topic, _partition_data(ctx, broker, request, data, endpoints))
    for wire_topic, index, error in erroneous:
        _add(topics, wire_topic, PartitionData(partition_index=index, error_code=error.code,
                                               high_watermark=-1, last_stable_offset=-1,
                                               log_start_offset=-1, aborted_transactions=None,
                                               preferred_read_replica=-1, records=b""))
    return FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=topics,
                         node_endpoints=[endpoints[i] for i in sorted(endpoints)])


def _add(topics: list[Any], wire_topic: Any, partition: Any) -> None:
    """Append to the last topic entry if it is the same topic (``FetchResponse.toMessage``)."""
    last = topics[-1] if topics else None
    if last is not None and last.topic == wire_topic.topic and last.topic_id == wire_topic.topic_id:
        last.partitions.append(partition)
    else:
        topics.append(FetchResponse.FetchableTopicResponse(
            topic=wire_topic.topic, topic_id=wire_topic.topic_id, partitions=[partition]))


def _consumer_view(part: FetchPartitionRequest, data: FetchPartitionData) -> FetchPartitionData:
    """``Partition.readRecords`` rules the shared replica path leaves to the caller for consumers:
    a position below the log start, or an epoch the leader cannot place, is OFFSET_OUT_OF_RANGE."""
    if data.diverging_epoch is None:
        return data
    if data.diverging_epoch[0] < 0 or data.diverging_epoch[1] < 0 or part.fetch_offset < data.log_start_offset:
        return FetchPartitionData(data.topic, data.partition, Errors.OFFSET_OUT_OF_RANGE)
    return data


def _partition_data(ctx: RequestContext, broker: FetchBroker, request: Any, data: FetchPartitionData,
                    endpoints: dict[int, Any]) -> Any:
    version = ctx.api_version
    error = data.error
    if error is Errors.KAFKA_STORAGE_ERROR and version <= 5:
        error = Errors.NOT_LEADER_OR_FOLLOWER          # old clients cannot retry a storage error
    entry = PartitionData(partition_index=data.partition, error_code=error.code,
                          preferred_read_replica=-1, aborted_transactions=None, records=b"")
    if data.error is not Errors.NONE:
        entry.high_watermark = entry.last_stable_offset = entry.log_start_offset = -1
        if version >= 16 and data.error in _HINTED_ERRORS:
            _hint_leader(ctx, broker, data, entry, endpoints)
        return entry
    entry.high_watermark = data.high_watermark
    entry.last_stable_offset = data.last_stable_offset
    entry.log_start_offset = data.log_start_offset
    entry.records = data.records
    if request.isolation_level == READ_COMMITTED:
        entry.aborted_transactions = []
    if data.diverging_epoch is not None:
        entry.diverging_epoch = PartitionData.EpochEndOffset(epoch=data.diverging_epoch[0],
                                                             end_offset=data.diverging_epoch[1])
    return entry


def _hint_leader(ctx: RequestContext, broker: FetchBroker, data: FetchPartitionData, entry: Any,
                 endpoints: dict[int, Any]) -> None:
    leader_id, epoch, node = current_leader(broker, data.topic, data.partition, ctx.listener_name)
    entry.current_leader = PartitionData.LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=epoch)
    if node is not None:
        endpoints[node.node_id] = FetchResponse.NodeEndpoint(node_id=node.node_id, host=node.host,
                                                             port=node.port, rack=node.rack)
