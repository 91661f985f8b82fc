"""Produce (0) and InitProducerId (22): writing records, and the ids idempotent producers write with.

Theory of operation
-------------------
A Produce request carries, per partition, exactly one record batch (magic
v2) built by the client.  Before anything is appended the broker sorts the
partitions, in Kafka's order of checks:

1. transactional batches without a ``transactional_id`` fail the whole
   request with TRANSACTIONAL_ID_AUTHORIZATION_FAILED (as an authorizer-less
   Kafka does); a corrupt first batch header fails it with CORRUPT_MESSAGE;
2. a v13 topic id the broker does not know: UNKNOWN_TOPIC_ID; a partition
   missing from the metadata: UNKNOWN_TOPIC_OR_PARTITION;
3. ``record_batch.check_produce_records``: one magic-v2 batch, no ZStandard
   before v7 (INVALID_RECORD / UNSUPPORTED_COMPRESSION_TYPE, no message);
4. transactional batches: Kafka first asks the transaction coordinator whether
   the partition joined the producer's transaction.  The sandbox has no
   transaction coordinator, so -- as a Kafka broker does when it cannot find
   one -- the partition fails with NOT_ENOUGH_REPLICAS ("Unable to verify the
   partition has been added to the transaction. Underlying error:
   COORDINATOR_NOT_AVAILABLE"), a retriable error;
5. the rest goes to ``ReplicaManager.append_records``: the leader validates
   and appends; acks=-1 waits in the purgatory for the high watermark.

Each partition answers with Kafka's fields: base offset, log append time (-1
unless the topic uses LogAppendTime), log start offset, record errors and an
error message (validation failures only), and from v10 on, for
NOT_LEADER_OR_FOLLOWER, the leader the broker believes in plus its endpoint.
Idempotent producers: sequence and epoch errors come from the log's producer
state as they are; a duplicate batch is a success with its original offsets.

``acks=0`` sends nothing back; if any partition failed, the broker closes the
connection instead so that the client refreshes its metadata.

InitProducerId without a ``transactional_id`` always hands out a fresh
producer id with epoch 0 -- also when an idempotent producer asks to bump
its epoch (KIP-360): Kafka's coordinator "blindly accepts" it.  With a
``transactional_id`` the answer is what a broker that does not coordinate
that id says, NOT_COORDINATOR (after Kafka's checks of the id and the
transaction timeout), because the sandbox has no transaction coordinator.

Mirrors ``KafkaApis.handleProduceRequest``, ``ReplicaManager.handleProduceAppend``,
``KafkaApis.handleInitProducerIdRequest`` and
``TransactionCoordinator.handleInitProducerId`` (Kafka 4.3.1).  Simplified: no
quotas; the producer id block request is waited for instead of answering
COORDINATOR_LOAD_IN_PROGRESS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.network.codec import from_wire_uuid, response_class
from minikafka.server.apis.metadata import LeaderLookup, TopicLookup, current_leader
from minikafka.network.request_channel import NO_RESPONSE, CloseConnectionResponse, Deferred
from minikafka.network.request_context import RequestContext
from minikafka.record import record_batch as rb
from minikafka.server.replica_manager import PartitionProduceResult
from minikafka.network.api_keys import PRODUCE, INIT_PRODUCER_ID

ProduceResponse = response_class(PRODUCE)
InitProducerIdResponse = response_class(INIT_PRODUCER_ID)
PartitionProduceResponse = ProduceResponse.TopicProduceResponse.PartitionProduceResponse
Entry = tuple[Any, Any]          # a request's (kafka-python topic entry, partition entry)

if TYPE_CHECKING:
    from minikafka.server.producer_id_manager import ProducerIdManager


class ProduceBroker(LeaderLookup, TopicLookup, Protocol):
    """What Produce uses of the broker: its image and replicas, and which partitions exist."""

    def partition_exists(self, tp: TopicPartition) -> bool: ...


class InitProducerIdBroker(Protocol):
    """What InitProducerId uses of the broker: its producer id manager."""

    @property
    def producer_ids(self) -> "ProducerIdManager": ...


ADMIN_CLIENT_ID = "__admin_client"            # the only client allowed to write internal topics
TRANSACTION_MAX_TIMEOUT_MS = 900000           # transaction.max.timeout.ms
UNVERIFIED_TXN_MESSAGE = ("Unable to verify the partition has been added to the transaction. "
                          "Underlying error: COORDINATOR_NOT_AVAILABLE")


class _WholeRequestError(Exception):
    """Kafka answers every partition with one error (``ProduceRequest.getErrorResponse``)."""

    def __init__(self, error: Errors, message: str | None = None):
        super().__init__(message)
        self.error, self.message = error, message


# ---------------------------------------------------------------- Produce
def handle_produce(ctx: RequestContext, request: Any, broker: ProduceBroker) -> Any:
    version = ctx.api_version
    entries = [(topic, p) for topic in request.topic_data for p in topic.partition_data]
    keys = [_partition_key(broker, ctx, topic, p) for topic, p in entries]
    try:
        transactional = _first_batches_transactional(request, entries)
        if transactional and request.transactional_id is None:
            raise _WholeRequestError(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        results, to_append = _precheck(broker, version, entries, keys)
        _verify_transactions(broker, request, transactional, results, to_append)
    except _WholeRequestError as exc:
        if request.acks == 0:                          # no response expected: close instead
            return CloseConnectionResponse()
        failed = PartitionProduceResult(exc.error, error_message=exc.message)
        return _response(ctx, broker, request, keys, {key: failed for key in keys})
    deferred = Deferred(f"Produce acks={request.acks}")

    def respond(appended: dict[TopicPartition, PartitionProduceResult]) -> None:
        merged = {**results, **appended}
        if request.acks == 0:
            # Kafka logs "Closing connection due to error during produce request ... with ack=0"
            # at INFO and closes without a socket-level error line.
            failed = any(r.error is not Errors.NONE for r in merged.values())
            deferred.complete(CloseConnectionResponse() if failed else NO_RESPONSE)
        else:
            deferred.complete(_response(ctx, broker, request, keys, merged))

    if to_append:
        broker.replica_manager.append_records(request.acks, request.timeout_ms, to_append, respond,
                                              internal=ctx.client_id == ADMIN_CLIENT_ID)
    else:
        respond({})
    return deferred.outcome if deferred.done else deferred


def _partition_key(broker: ProduceBroker, ctx: RequestContext, topic: Any, partition: Any) -> TopicPartition:
    """v13 names topics by id; an id the broker does not know keeps the name "" (UNKNOWN_TOPIC_ID)."""
    if ctx.api_version >= 13:
        image_topic = broker.get_topic(from_wire_uuid(topic.topic_id))
        return TopicPartition(image_topic.name if image_topic else "", partition.index)
    return TopicPartition(topic.name, partition.index)


def _first_batches_transactional(request: Any, entries: list[Entry]) -> bool:
    """``RequestUtils.hasTransactionalRecords``: is any partition's first batch transactional?"""
    for _, partition in entries:
        if partition.records is None:
            continue
        try:
            first = next(rb.iter_batches(partition.records), None)
        except KafkaException as exc:                    # a corrupt header fails the whole request
            raise _WholeRequestError(exc.error, _own_message(exc)) from exc
        if first is not None and first.magic >= rb.MAGIC_VALUE_V2 and first.is_transactional:
            return True
    return False


def _own_message(exc: KafkaException) -> str | None:
    """``ApiError.fromThrowable``: a message equal to the error's default is not sent."""
    return None if exc.message == exc.error.message else exc.message


def _precheck(broker: ProduceBroker, version: int, entries: list[Entry], keys: list[TopicPartition]
              ) -> tuple[dict[TopicPartition, PartitionProduceResult], dict[TopicPartition, bytes]]:
    results: dict[TopicPartition, PartitionProduceResult] = {}
    to_append: dict[TopicPartition, bytes] = {}
    for (topic, partition), tp in zip(entries, keys):
        if version >= 13 and tp.topic == "":
            results[tp] = PartitionProduceResult(Errors.UNKNOWN_TOPIC_ID)
        elif not broker.partition_exists(tp):
            results[tp] = PartitionProduceResult(Errors.UNKNOWN_TOPIC_OR_PARTITION)
        elif partition.records is None:
            raise _WholeRequestError(Errors.UNKNOWN_SERVER_ERROR)     # Kafka's NullPointerException
        else:
            try:
                rb.check_produce_records(version, partition.records)
                to_append[tp] = partition.records
            except KafkaException as exc:
                results[tp] = PartitionProduceResult(exc.error)
    return results, to_append


def _verify_transactions(broker: ProduceBroker, request: Any, transactional: bool,
                         results: dict[TopicPartition, PartitionProduceResult],
                         to_append: dict[TopicPartition, bytes]) -> None:
    """Transactional partitions fail as when no transaction coordinator can be found."""
    if not transactional:
        return
    producers = set()
    for tp, records in list(to_append.items()):
        batch = next(rb.iter_batches(records))
        if not (batch.has_producer_id and batch.is_transactional):
            continue
        producers.add(batch.producer_id)
        del to_append[tp]
        if broker.replica_manager.online_partition(tp) is None:
            results[tp] = PartitionProduceResult(Errors.NOT_LEADER_OR_FOLLOWER)
        else:
            results[tp] = PartitionProduceResult(Errors.NOT_ENOUGH_REPLICAS,
                                                 error_message=UNVERIFIED_TXN_MESSAGE)
    if len(producers) > 1:
        raise _WholeRequestError(Errors.INVALID_PRODUCER_ID_MAPPING,
                                 "Transactional records contained more than one producer ID")


def _response(ctx: RequestContext, broker: ProduceBroker, request: Any, keys: list[TopicPartition],
              results: dict[TopicPartition, PartitionProduceResult]) -> Any:
    version = ctx.api_version
    endpoints: dict[int, Any] = {}
    topics: list[Any] = []
    by_topic: dict[Any, Any] = {}
    for topic, tp in zip((t for t in request.topic_data for _ in t.partition_data), keys):
        wire_key = topic.topic_id if version >= 13 else topic.name
        entry = by_topic.get(wire_key)
        if entry is None:
            entry = by_topic[wire_key] = ProduceResponse.TopicProduceResponse(
                name=topic.name, topic_id=topic.topic_id, partition_responses=[])
            topics.append(entry)
        entry.partition_responses.append(_partition_response(ctx, broker, tp, results[tp], endpoints))
    return ProduceResponse(responses=topics, throttle_time_ms=0,
                           node_endpoints=[endpoints[i] for i in sorted(endpoints)])


def _partition_response(ctx: RequestContext, broker: ProduceBroker, tp: TopicPartition,
                        result: PartitionProduceResult, endpoints: dict[int, Any]) -> Any:
    leader = PartitionProduceResponse.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1)
    if ctx.api_version >= 10 and result.error is Errors.NOT_LEADER_OR_FOLLOWER:
        leader_id, epoch, node = current_leader(broker, tp.topic, tp.partition, ctx.listener_name)
        leader = PartitionProduceResponse.LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=epoch)
        if node is not None:
            endpoints[node.node_id] = ProduceResponse.NodeEndpoint(
                node_id=node.node_id, host=node.host, port=node.port, rack=node.rack)
    record_errors = [PartitionProduceResponse.BatchIndexAndErrorMessage(
        batch_index=index, batch_index_error_message=message) for index, message in result.record_errors]
    return PartitionProduceResponse(
        index=tp.partition, error_code=result.error.code, base_offset=result.base_offset,
        log_append_time_ms=result.log_append_time, log_start_offset=result.log_start_offset,
        record_errors=record_errors, error_message=result.error_message, current_leader=leader)


# ---------------------------------------------------------------- InitProducerId
def handle_init_producer_id(ctx: RequestContext, request: Any, broker: InitProducerIdBroker) -> Any:
    producer_id, epoch = request.producer_id, request.producer_epoch
    if (producer_id == -1) != (epoch == -1):
        return _init_producer_id_response(Errors.INVALID_REQUEST)
    transactional_id = request.transactional_id
    if transactional_id is not None:
        if transactional_id == "":
            return _init_producer_id_response(Errors.INVALID_REQUEST)
        if not 0 < request.transaction_timeout_ms <= TRANSACTION_MAX_TIMEOUT_MS:
            return _init_producer_id_response(Errors.INVALID_TRANSACTION_TIMEOUT)
        return _init_producer_id_response(Errors.NOT_COORDINATOR)
    deferred = Deferred("InitProducerId")

    def generated(error: Errors, new_producer_id: int) -> None:
        deferred.complete(_init_producer_id_response(error, new_producer_id, 0) if error is Errors.NONE
                          else _init_producer_id_response(error))

    broker.producer_ids.generate(generated)
    return deferred.outcome if deferred.done else deferred


def _init_producer_id_response(error: Errors, producer_id: int = -1, epoch: int = -1) -> Any:
    return InitProducerIdResponse(throttle_time_ms=0, error_code=error.code, producer_id=producer_id,
                                  producer_epoch=epoch)
