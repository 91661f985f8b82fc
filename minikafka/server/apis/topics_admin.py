"""CreateTopics, DeleteTopics and CreatePartitions: topic changes, decided by the active controller.

Theory of operation
-------------------
A broker cannot create or delete a topic on its own in KRaft mode: it
forwards these three requests untouched to the active controller (see
`forwarding`), which checks them, writes TopicRecord/PartitionRecord/
RemoveTopicRecord/ConfigRecord to the metadata log and answers once the
records are committed.  The broker relays the controller's answer at the
client's version:

* CreateTopics v2-7: ``-1`` partitions or replication factor mean the
  controller's ``num.partitions``/``default.replication.factor``; manual
  ``assignments``; ``configs``; ``validate_only`` checks without writing.
  From v5 a created topic comes back with its partition count, replication
  factor and every topic config (value, source, read-only, sensitive), from
  v7 with its topic id; errors carry Kafka's messages (``Topic 'orders'
  already exists.``, ``Unable to replicate the partition 4 time(s): ...``);
* DeleteTopics: by name (v1-5) or by name or topic id (v6); error messages
  from v5.  With ``delete.topic.enable=false`` the whole request fails
  (TOPIC_DELETION_DISABLED, INVALID_REQUEST before v3) without a message,
  as Kafka's ``DeleteTopicsRequest.getErrorResponse`` builds it;
* CreatePartitions: the new total count and, optionally, the replicas of
  each new partition.

When no controller answers within the request's ``timeout_ms`` (a quorum
that lost its majority elects no leader), every topic of the request gets
REQUEST_TIMED_OUT without a message.

Mirrors ``KafkaApis.forwardToController`` for these APIs, the controller's
``ControllerApis.handleCreateTopics``/``handleDeleteTopics``/
``handleCreatePartitions`` answers, and the ``getErrorResponse`` of each
request class (Kafka 4.3.1).  Simplified: no controller mutation quota
(throttle time 0).
"""

from __future__ import annotations

import uuid
from typing import Any

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller import requests as ctl
from minikafka.network.codec import response_class
from minikafka.server.apis.forwarding import ForwardingBroker, forward
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS

DELETE_TOPICS_DISABLED_MIN_VERSION = 3    # before it, deletion-disabled is INVALID_REQUEST

CreateTopicsResponse = response_class(CREATE_TOPICS)
DeleteTopicsResponse = response_class(DELETE_TOPICS)
CreatePartitionsResponse = response_class(CREATE_PARTITIONS)

_TIMED_OUT = Errors.REQUEST_TIMED_OUT.code
ZERO = Uuid.ZERO

DeleteResult = tuple[str | None, Uuid, int, str | None]    # (name, topic id, error code, message)


def wire_uuid(value: Uuid) -> uuid.UUID:
    """kafka-python carries uuids as ``uuid.UUID``."""
    return uuid.UUID(bytes=value.to_bytes())


def domain_uuid(value: uuid.UUID | None) -> Uuid:
    return ZERO if value is None else Uuid.from_bytes(value.bytes)


# ---------------------------------------------------------------------------- CreateTopics
def handle_create_topics(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    topics = tuple(ctl.CreatableTopic(
        name=t.name, num_partitions=t.num_partitions, replication_factor=t.replication_factor,
        assignments=tuple(ctl.CreatableReplicaAssignment(a.partition_index, tuple(a.broker_ids))
                          for a in t.assignments),
        configs=tuple(ctl.CreatableTopicConfig(c.name, c.value) for c in t.configs))
        for t in request.topics)
    domain = ctl.CreateTopicsRequest(topics, request.timeout_ms, bool(request.validate_only))
    timed_out = ctl.CreateTopicsResponse(tuple(
        ctl.CreatableTopicResult(t.name, error_code=Errors.REQUEST_TIMED_OUT) for t in topics))
    return forward(broker, domain, request.timeout_ms, encode_create_topics,
                   lambda: encode_create_topics(timed_out), "CreateTopics")


def encode_create_topics(answer: ctl.CreateTopicsResponse) -> Any:
    Result = CreateTopicsResponse.CreatableTopicResult
    results = []
    for t in answer.topics:
        fields = dict(name=t.name, topic_id=wire_uuid(t.topic_id), error_code=t.error_code.code,
                      error_message=t.error_message, num_partitions=t.num_partitions,
                      replication_factor=t.replication_factor, configs=[
                          Result.CreatableTopicConfigs(name=c.name, value=c.value, read_only=c.read_only,
                                                       config_source=c.config_source,
                                                       is_sensitive=c.is_sensitive)
                          for c in t.configs or ()])
        if t.topic_config_error_code is not Errors.NONE:
            fields["topic_config_error_code"] = t.topic_config_error_code.code   # tagged: sent only if set
        results.append(Result(**fields))
    return CreateTopicsResponse(throttle_time_ms=0, topics=results)


# ---------------------------------------------------------------------------- DeleteTopics
def handle_delete_topics(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    version = ctx.api_version
    if version >= 6:
        domain = ctl.DeleteTopicsRequest(topics=tuple(
            ctl.DeleteTopicState(t.name, domain_uuid(t.topic_id)) for t in request.topics),
            timeout_ms=request.timeout_ms)
        named = [(t.name, domain_uuid(t.topic_id)) for t in request.topics]
    else:
        domain = ctl.DeleteTopicsRequest(topic_names=tuple(request.topic_names),
                                         timeout_ms=request.timeout_ms)
        named = [(name, ZERO) for name in request.topic_names]
    timed_out: list[DeleteResult] = [(name, topic_id, _TIMED_OUT, None) for name, topic_id in named]
    return forward(broker, domain, request.timeout_ms,
                   lambda answer: encode_delete_topics(_delete_results(answer, version)),
                   lambda: encode_delete_topics(timed_out), "DeleteTopics")


def _delete_results(answer: ctl.DeleteTopicsResponse, version: int) -> list[DeleteResult]:
    """(name, topic id, error code, message) per topic, with the whole-request error folded."""
    results: list[DeleteResult] = []
    for r in answer.responses:
        error, message = r.error_code, r.error_message
        if error is Errors.TOPIC_DELETION_DISABLED:
            # A whole-request failure: Kafka's getErrorResponse sets no message, and
            # versions before 3 were told INVALID_REQUEST instead.
            message = None
            if version < DELETE_TOPICS_DISABLED_MIN_VERSION:
                error = Errors.INVALID_REQUEST
        results.append((r.name, r.topic_id, error.code, message))
    return results


def encode_delete_topics(results: list[DeleteResult]) -> Any:
    return DeleteTopicsResponse(throttle_time_ms=0, responses=[
        DeleteTopicsResponse.DeletableTopicResult(name=name, topic_id=wire_uuid(topic_id),
                                                  error_code=code, error_message=message)
        for name, topic_id, code, message in results])


# ---------------------------------------------------------------------------- CreatePartitions
def handle_create_partitions(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    topics = tuple(ctl.CreatePartitionsTopic(
        t.name, t.count,
        None if t.assignments is None else tuple(ctl.CreatePartitionsAssignment(tuple(a.broker_ids))
                                                 for a in t.assignments))
        for t in request.topics)
    domain = ctl.CreatePartitionsRequest(topics, request.timeout_ms, bool(request.validate_only))
    timed_out = ctl.CreatePartitionsResponse(tuple(
        ctl.CreatePartitionsTopicResult(t.name, Errors.REQUEST_TIMED_OUT) for t in topics))
    return forward(broker, domain, request.timeout_ms, encode_create_partitions,
                   lambda: encode_create_partitions(timed_out), "CreatePartitions")


def encode_create_partitions(answer: ctl.CreatePartitionsResponse) -> Any:
    return CreatePartitionsResponse(throttle_time_ms=0, results=[
        CreatePartitionsResponse.CreatePartitionsTopicResult(name=r.name, error_code=r.error_code.code,
                                                             error_message=r.error_message)
        for r in answer.results])
