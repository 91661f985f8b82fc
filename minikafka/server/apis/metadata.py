"""Metadata (3), DescribeCluster (60) and DescribeTopicPartitions (75): what the cluster looks like.

Theory of operation
-------------------
Every client starts with Metadata: which brokers are alive (with the
host:port of the listener the client is connected to), the cluster id, a
"controller" to send admin requests to, and for each topic its id and, per
partition, leader, leader epoch, replicas, ISR and offline replicas.  The
broker answers from its own metadata image (`metadata_cache`), so a broker
that has not replayed the newest records yet answers with what it knows --
including a fenced broker, which still serves from its image and simply
does not list itself among the alive brokers.

* ``topics`` null (or [] in v0) means all topics, [] means none; v12+ may
  name topics by id (an unknown id gives UNKNOWN_TOPIC_ID);
* a missing topic is auto-created when the broker's
  ``auto.create.topics.enable`` and the request's ``allow_auto_topic_creation``
  both say so (`AutoTopicCreationManager`): the answer meanwhile is
  UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for a name Kafka
  refuses;
* with no authorizer every operation is allowed: when asked, topics report
  all topic operations and the cluster all cluster operations (bit fields).

DescribeCluster (the admin client's view of the brokers) and
DescribeTopicPartitions (``kafka-topics.sh --describe`` in 3.8+, paginated by
a cursor, with the KIP-966 ELR fields) come from the same image.

Mirrors ``KafkaApis.handleTopicMetadataRequest``/``getTopicMetadata``,
``handleDescribeCluster`` with ``AuthHelper.computeDescribeClusterResponse``,
and ``DescribeTopicPartitionsRequestHandler`` (Kafka 4.3.1).  Simplified:
"all topics" are listed by name (Kafka uses hash-set order), requested
topics in request order; throttle times are 0.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Protocol

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic import is_internal, validate
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.network.codec import from_wire_uuid, response_class, to_wire_uuid
from minikafka.network.request_context import RequestContext
from minikafka.server import metadata_cache as cache
from minikafka.network.api_keys import METADATA, DESCRIBE_CLUSTER, DESCRIBE_TOPIC_PARTITIONS

if TYPE_CHECKING:
    from minikafka.common.config.kafka_config import KafkaConfig
    from minikafka.metadata.image import MetadataImage, TopicImage
    from minikafka.server.auto_topic_creation_manager import AutoTopicCreationManager
    from minikafka.server.replica_manager import ReplicaManager


class TopicLookup(Protocol):
    """A topic of the broker's metadata image, by name or by id (None: no such topic)."""

    def get_topic(self, name_or_id: str | Uuid) -> "TopicImage | None": ...


class LeaderLookup(Protocol):
    """What a NOT_LEADER hint reads: the broker's image and the replicas it hosts."""

    @property
    def image(self) -> "MetadataImage": ...

    @property
    def replica_manager(self) -> "ReplicaManager": ...


class MetadataBroker(Protocol):
    """What Metadata, DescribeCluster and DescribeTopicPartitions use of the broker."""

    @property
    def image(self) -> "MetadataImage": ...

    @property
    def cluster_id(self) -> str: ...

    @property
    def kafka_config(self) -> "KafkaConfig": ...

    @property
    def rng(self) -> random.Random:
        """The node's seeded randomness (the controller id a client is told is a random live broker)."""
        ...

    @property
    def auto_topic_creation(self) -> "AutoTopicCreationManager": ...

MetadataResponse = response_class(METADATA)
DescribeClusterResponse = response_class(DESCRIBE_CLUSTER)
DescribeTopicPartitionsResponse = response_class(DESCRIBE_TOPIC_PARTITIONS)

_TOPIC_OPERATIONS = (3, 4, 5, 6, 7, 8, 10, 11)      # READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE/ALTER_CONFIGS
_CLUSTER_OPERATIONS = (5, 7, 8, 9, 10, 11, 12)      # CREATE ALTER DESCRIBE CLUSTER_ACTION ... IDEMPOTENT_WRITE
# kafka-python carries these int32 bit fields as sets of operation codes; None is the schema
# default -2147483648 ("not requested").  Without an authorizer every supported operation is allowed.
TOPIC_AUTHORIZED_OPERATIONS = frozenset(_TOPIC_OPERATIONS)      # AclEntry.supportedOperations(TOPIC)
CLUSTER_AUTHORIZED_OPERATIONS = frozenset(_CLUSTER_OPERATIONS)  # ...(CLUSTER)
AUTHORIZED_OPERATIONS_OMITTED = None
TOPIC_AUTHORIZED_OPERATIONS_FIELD = sum(1 << op for op in _TOPIC_OPERATIONS)  # the plain int32 form (3576)
INT32_MIN = -2147483648
MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000             # max.request.partition.size.limit
ENDPOINT_TYPE_BROKER, ENDPOINT_TYPE_NAMES = 1, {1: "BROKER", 2: "CONTROLLER"}
MISMATCHED_ENDPOINT_TYPE = Errors.MISMATCHED_ENDPOINT_TYPE.code
UNSUPPORTED_ENDPOINT_TYPE = Errors.UNSUPPORTED_ENDPOINT_TYPE.code


# ---------------------------------------------------------------- shared helpers
def current_leader(broker: LeaderLookup, topic: str, partition: int, listener: str
                   ) -> tuple[int, int, cache.BrokerNode | None]:
    """(leader id, leader epoch, alive leader node) for NOT_LEADER hints (``KafkaApis.getCurrentLeader``).

    The local partition's view wins; the metadata image answers for a partition
    this broker does not host.
    """
    local = broker.replica_manager.online_partition(TopicPartition(topic, partition))
    if local is not None:
        leader_id, epoch = local.leader_id, local.leader_epoch
    else:
        leader_id, epoch = cache.leader_and_epoch(broker.image, topic, partition)
    return leader_id, epoch, cache.alive_broker_node(broker.image, leader_id, listener)


def topic_name_valid(topic: str) -> bool:
    try:
        validate(topic)
        return True
    except KafkaException:
        return False


# ---------------------------------------------------------------- Metadata
def handle_metadata(ctx: RequestContext, request: Any, broker: MetadataBroker) -> Any:
    version = ctx.api_version
    requested = request.topics
    all_topics = requested is None or (version == 0 and not requested)
    if not all_topics:
        problem = _invalid_topic_entries(requested, version)
        if problem is not None:
            return _metadata_error_response(requested, problem)
    image = broker.image
    ids = [from_wire_uuid(t.topic_id) for t in (requested or []) if version >= 10]
    ids = list(dict.fromkeys(i for i in ids if i != Uuid.ZERO))
    unknown_ids = [i for i in ids if image.topics.get_topic(i) is None]
    if all_topics:
        names = image.topic_names()
    elif ids:
        names = [topic.name for i in ids if (topic := image.topics.get_topic(i)) is not None]
    else:
        names = list(dict.fromkeys(t.name for t in requested))
    auto_create = (not all_topics and (version < 4 or request.allow_auto_topic_creation)
                   and bool(broker.kafka_config.get("auto.create.topics.enable")))
    topics = [_unknown_topic_id(i) for i in unknown_ids]
    include_ops = version >= 8 and bool(request.include_topic_authorized_operations)
    topics += _topic_metadata(ctx, broker, names, auto_create, include_ops)
    cluster_ops = AUTHORIZED_OPERATIONS_OMITTED
    if 8 <= version <= 10 and request.include_cluster_authorized_operations:
        cluster_ops = set(CLUSTER_AUTHORIZED_OPERATIONS)
    brokers = [MetadataResponse.MetadataResponseBroker(node_id=n.node_id, host=n.host, port=n.port,
                                                       rack=n.rack)
               for n in cache.alive_brokers(image, ctx.listener_name)]
    return MetadataResponse(throttle_time_ms=0, brokers=brokers, cluster_id=broker.cluster_id,
                            controller_id=cache.random_alive_broker_id(image, broker.rng),
                            topics=topics, authorized_operations=cluster_ops, error_code=0)


def _invalid_topic_entries(requested: list[Any], version: int) -> Errors | None:
    """Kafka refuses null names and topic ids before v12 (InvalidRequestException)."""
    for topic in requested:
        if version < 12 and (topic.name is None or (version >= 10 and from_wire_uuid(topic.topic_id)
                                                    != Uuid.ZERO)):
            return Errors.INVALID_REQUEST
        if topic.name is None and from_wire_uuid(topic.topic_id) == Uuid.ZERO:
            return Errors.UNKNOWN_SERVER_ERROR     # Kafka fails on the null name (no useful text)
    return None


def _metadata_error_response(requested: list[Any], error: Errors) -> Any:
    """``MetadataRequest.getErrorResponse``: every requested topic with the error, no brokers."""
    topics = [MetadataResponse.MetadataResponseTopic(
        error_code=error.code, name=t.name or "", topic_id=t.topic_id, is_internal=False,
        partitions=[], authorized_operations=AUTHORIZED_OPERATIONS_OMITTED) for t in requested]
    return MetadataResponse(throttle_time_ms=0, brokers=[], cluster_id=None, controller_id=-1,
                            topics=topics, authorized_operations=AUTHORIZED_OPERATIONS_OMITTED,
                            error_code=error.code)


def _unknown_topic_id(topic_id: Uuid) -> Any:
    return MetadataResponse.MetadataResponseTopic(
        error_code=Errors.UNKNOWN_TOPIC_ID.code, name=None, topic_id=to_wire_uuid(topic_id),
        is_internal=False, partitions=[], authorized_operations=AUTHORIZED_OPERATIONS_OMITTED)


def _topic_metadata(ctx: RequestContext, broker: MetadataBroker, names: list[str], auto_create: bool,
                    include_ops: bool) -> list[Any]:
    version = ctx.api_version
    image = broker.image
    missing = [n for n in names if image.topics.get_topic(n) is None]
    if auto_create:
        errors = broker.auto_topic_creation.create_topics(missing)
    else:
        errors = {n: Errors.UNKNOWN_TOPIC_OR_PARTITION if topic_name_valid(n)
                  else Errors.INVALID_TOPIC_EXCEPTION for n in missing}
    out = []
    for name in names:
        partitions = cache.topic_partitions_metadata(image, name, ctx.listener_name,
                                                     error_unavailable_endpoints=version == 0,
                                                     error_unavailable_listeners=version >= 6)
        topic = image.topics.get_topic(name)          # not None when it has partitions
        topic_id = topic.topic_id if partitions is not None and topic is not None else Uuid.ZERO
        entry = MetadataResponse.MetadataResponseTopic(
            error_code=(Errors.NONE if partitions is not None else errors[name]).code, name=name,
            topic_id=to_wire_uuid(topic_id), is_internal=is_internal(name),
            partitions=[_wire_partition(p) for p in partitions or []],
            authorized_operations=(set(TOPIC_AUTHORIZED_OPERATIONS) if include_ops
                                   else AUTHORIZED_OPERATIONS_OMITTED))
        out.append(entry)
    return out


def _wire_partition(p: cache.PartitionMetadata) -> Any:
    return MetadataResponse.MetadataResponseTopic.MetadataResponsePartition(
        error_code=p.error.code, partition_index=p.partition_index, leader_id=p.leader_id,
        leader_epoch=p.leader_epoch, replica_nodes=list(p.replica_nodes), isr_nodes=list(p.isr_nodes),
        offline_replicas=list(p.offline_replicas))


# ---------------------------------------------------------------- DescribeCluster
def handle_describe_cluster(ctx: RequestContext, request: Any, broker: MetadataBroker) -> Any:
    endpoint_type = request.endpoint_type if ctx.api_version >= 1 else ENDPOINT_TYPE_BROKER
    if endpoint_type not in ENDPOINT_TYPE_NAMES:
        code = Errors.INVALID_REQUEST.code if ctx.api_version == 0 else UNSUPPORTED_ENDPOINT_TYPE
        return DescribeClusterResponse(throttle_time_ms=0, error_code=code,
                                       error_message=f"Unsupported endpoint type {endpoint_type}")
    if endpoint_type != ENDPOINT_TYPE_BROKER:
        code = Errors.INVALID_REQUEST.code if ctx.api_version == 0 else MISMATCHED_ENDPOINT_TYPE
        return DescribeClusterResponse(
            throttle_time_ms=0, error_code=code,
            error_message=f"The request was sent to an endpoint of type BROKER, but we wanted an "
                          f"endpoint of type {ENDPOINT_TYPE_NAMES[endpoint_type]}")
    include_fenced = ctx.api_version >= 2 and request.include_fenced_brokers
    nodes = [n for n in cache.all_brokers(broker.image, ctx.listener_name)
             if include_fenced or not n.is_fenced]
    controller_id = cache.random_alive_broker_id(broker.image, broker.rng)
    if controller_id not in {n.node_id for n in nodes}:
        controller_id = -1
    ops = (set(CLUSTER_AUTHORIZED_OPERATIONS) if request.include_cluster_authorized_operations
           else AUTHORIZED_OPERATIONS_OMITTED)
    brokers = [DescribeClusterResponse.DescribeClusterBroker(
        broker_id=n.node_id, host=n.host, port=n.port, rack=n.rack, is_fenced=n.is_fenced)
        for n in nodes]
    return DescribeClusterResponse(throttle_time_ms=0, error_code=0, error_message=None,
                                   endpoint_type=ENDPOINT_TYPE_BROKER, cluster_id=broker.cluster_id,
                                   controller_id=controller_id, brokers=brokers,
                                   authorized_operations=ops)


# ---------------------------------------------------------------- DescribeTopicPartitions
def handle_describe_topic_partitions(ctx: RequestContext, request: Any, broker: MetadataBroker) -> Any:
    image = broker.image
    cursor = request.cursor
    cursor_topic = cursor.topic_name if cursor is not None else ""
    fetch_all = not request.topics
    source = image.topic_names() if fetch_all else [t.name for t in request.topics]
    names = sorted({n for n in source if n >= cursor_topic})
    if not fetch_all and cursor is not None and cursor.topic_name not in names:
        return _describe_error(request, f"DescribeTopicPartitionsRequest topic list should contain "
                                        f"the cursor topic: {cursor.topic_name}")
    if cursor is not None and cursor.partition_index < 0:
        return _describe_error(request, f"DescribeTopicPartitionsRequest cursor partition must be "
                                        f"valid: Cursor(topicName={cursor.topic_name}, "
                                        f"partitionIndex={cursor.partition_index})")
    limit = max(min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.response_partition_limit), 1)
    topics, next_cursor = [], None
    for name in names:
        if limit <= 0:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=0)
            break
        start = cursor.partition_index if cursor is not None and name == cursor_topic else 0
        entry, next_index = _describe_topic(ctx, image, name, start, limit)
        if entry is None:
            if not fetch_all:
                topics.append(_describe_missing(name))
            continue
        topics.append(entry)
        if next_index >= 0:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name,
                                                                 partition_index=next_index)
            break
        limit -= len(entry.partitions)
    return DescribeTopicPartitionsResponse(throttle_time_ms=0, topics=topics, next_cursor=next_cursor)


def _describe_topic(ctx: RequestContext, image: MetadataImage, name: str, start: int, limit: int
                    ) -> tuple[Any, int]:
    """(topic entry, next partition index or -1); (None, -1) for a missing topic."""
    topic = image.topics.get_topic(name)
    if topic is None:
        return None, -1
    count = len(topic.partitions)
    upper = min(count, start + limit)
    partitions = []
    for index in range(start, upper):
        registration = topic.partitions.get(index)
        if registration is None:
            continue
        p = cache.partition_metadata(image, index, registration, ctx.listener_name)
        partitions.append(DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic
                          .DescribeTopicPartitionsResponsePartition(
                              error_code=0, partition_index=index, leader_id=p.leader_id,
                              leader_epoch=p.leader_epoch, replica_nodes=list(p.replica_nodes),
                              isr_nodes=list(p.isr_nodes),
                              eligible_leader_replicas=list(p.eligible_leader_replicas),
                              last_known_elr=list(p.last_known_elr),
                              offline_replicas=list(p.offline_replicas)))
    entry = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(
        error_code=0, name=name, topic_id=to_wire_uuid(topic.topic_id), is_internal=is_internal(name),
        partitions=partitions, topic_authorized_operations=TOPIC_AUTHORIZED_OPERATIONS_FIELD)
    return entry, (upper if upper < count else -1)


def _describe_missing(name: str) -> Any:
    error = Errors.UNKNOWN_TOPIC_OR_PARTITION if topic_name_valid(name) else Errors.INVALID_TOPIC_EXCEPTION
    return DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(
        error_code=error.code, name=name, topic_id=to_wire_uuid(Uuid.ZERO), is_internal=is_internal(name),
        partitions=[], topic_authorized_operations=TOPIC_AUTHORIZED_OPERATIONS_FIELD)


def _describe_error(request: Any, message: str) -> Any:
    """``DescribeTopicPartitionsRequest.getErrorResponse``: the message itself is not sent."""
    topics = [DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(
        error_code=Errors.INVALID_REQUEST.code, name=t.name, topic_id=to_wire_uuid(Uuid.ZERO),
        is_internal=False, partitions=[], topic_authorized_operations=INT32_MIN)
        for t in request.topics]
    return DescribeTopicPartitionsResponse(throttle_time_ms=0, topics=topics, next_cursor=None)
