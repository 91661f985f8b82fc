"""``ControllerApis``: the request checks Kafka makes before the controller's managers run.

Theory of operation
-------------------
Admin requests reach the controller forwarded by a broker.  Before the
control managers see them, Kafka's controller request handler weeds out what
can be answered without looking at metadata ordering:

* CreateTopics: a name given twice gets ``Duplicate topic name.``; creating
  ``__cluster_metadata`` is refused;
* DeleteTopics: topics are named by name (v0-5) or by name or id (v6+);
  neither/both, duplicates and a name that maps to an id given too are
  INVALID_REQUEST; names and ids are then resolved against the metadata;
  ``delete.topic.enable=false`` refuses the whole request;
* CreatePartitions: duplicate names;
* (Incremental)AlterConfigs: unknown resource types (UNSUPPORTED_VERSION) and
  resources named twice (``Duplicate resource.``); BROKER_LOGGER changes are
  not metadata (the sandbox accepts and ignores them).

`error_response` builds the response Kafka sends when a whole request fails
(NOT_CONTROLLER on a standby controller, STALE_BROKER_EPOCH...): the error on
every item, or at the top level where the API has one.

Mirrors ``kafka.server.ControllerApis`` and the ``getErrorResponse`` of each
request class (Kafka 4.x).  Simplified: no authorization (every principal may
do everything); DeleteTopics answers in request order where Kafka shuffles
its answers to hide which topics exist.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Literal, TypeVar, overload

from minikafka.common.errors import Errors
from minikafka.common.java_hashing import hashmap_order
from minikafka.common.topic import CLUSTER_METADATA_TOPIC_NAME
from minikafka.common.uuid import Uuid
from minikafka.controller.controller_result import ApiError
from minikafka.controller.requests import (
    AllocateProducerIdsRequest, AllocateProducerIdsResponse, AlterConfigsRequest, AlterConfigsResourceResponse,
    AlterConfigsResponse, AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse,
    AlterPartitionRequest, AlterPartitionResponse, BrokerHeartbeatRequest, BrokerHeartbeatResponse,
    BrokerRegistrationRequest, BrokerRegistrationResponse, ConfigResourceType, ControllerRegistrationRequest,
    ControllerRegistrationResponse, ControllerRequest, ControllerResponse, CreatableTopicResult,
    CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic, CreatePartitionsTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse, DeletableTopicResult, DeleteTopicsRequest, DeleteTopicsResponse,
    ElectLeadersRequest, ElectLeadersResponse, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
    ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, PartitionResult,
    ReplicaElectionResult, UnregisterBrokerRequest, UnregisterBrokerResponse)
from minikafka.metadata.image import ConfigResource, MetadataImage

ZERO = Uuid.ZERO

H = TypeVar("H", bound=Hashable)


# ---------------------------------------------------------------- CreateTopics
def split_create_topics(request: CreateTopicsRequest) -> tuple[CreateTopicsRequest, list[CreatableTopicResult]]:
    """The request without duplicate/prohibited names, and the answers for those names."""
    counts: dict[str, int] = {}
    for topic in request.topics:
        counts[topic.name] = counts.get(topic.name, 0) + 1
    kept = tuple(t for t in request.topics if counts[t.name] == 1 and t.name != CLUSTER_METADATA_TOPIC_NAME)
    extra = [CreatableTopicResult(name, error_code=Errors.INVALID_REQUEST, error_message="Duplicate topic name.")
             for name, n in counts.items() if n > 1]
    if counts.get(CLUSTER_METADATA_TOPIC_NAME) == 1:
        extra.append(CreatableTopicResult(
            CLUSTER_METADATA_TOPIC_NAME, error_code=Errors.INVALID_REQUEST,
            error_message=f"Creation of internal topic {CLUSTER_METADATA_TOPIC_NAME} is prohibited."))
    return CreateTopicsRequest(kept, request.timeout_ms, request.validate_only), extra


# ---------------------------------------------------------------- DeleteTopics
def resolve_delete_topics(image: MetadataImage, request: DeleteTopicsRequest
                          ) -> tuple[dict[Uuid, str], list[DeletableTopicResult]]:
    """(topic id -> name to delete, answers already decided), as ControllerApis.deleteTopics."""
    answers: list[DeletableTopicResult] = []
    names: list[str] = list(request.topic_names)
    ids: list[Uuid] = []
    for state in request.topics:
        if state.name is None and state.topic_id == ZERO:
            answers.append(DeletableTopicResult(None, ZERO, Errors.INVALID_REQUEST,
                                                "Neither topic name nor id were specified."))
        elif state.name is None:
            ids.append(state.topic_id)
        elif state.topic_id == ZERO:
            names.append(state.name)
        else:
            answers.append(DeletableTopicResult(state.name, state.topic_id, Errors.INVALID_REQUEST,
                                                "You may not specify both topic name and topic id."))
    for name in _duplicates(names):
        answers.append(DeletableTopicResult(name, ZERO, Errors.INVALID_REQUEST, "Duplicate topic name."))
    duplicate_ids = set(_duplicates(ids))
    for topic_id in duplicate_ids:
        answers.append(DeletableTopicResult(None, topic_id, Errors.INVALID_REQUEST, "Duplicate topic id."))
    to_delete: dict[Uuid, str] = {}
    for topic_id in _unique(ids):
        topic = image.topic(topic_id)
        if topic is None:
            answers.append(DeletableTopicResult(None, topic_id, Errors.UNKNOWN_TOPIC_ID))
        else:
            to_delete[topic_id] = topic.name
    for name in _unique(names):
        topic = image.topic(name)
        if topic is None:
            answers.append(DeletableTopicResult(name, ZERO, Errors.UNKNOWN_TOPIC_OR_PARTITION))
        elif topic.topic_id in to_delete or topic.topic_id in duplicate_ids:
            to_delete.pop(topic.topic_id, None)
            answers.append(DeletableTopicResult(name, topic.topic_id, Errors.INVALID_REQUEST,
                                                "The provided topic name maps to an ID that was already supplied."))
        else:
            to_delete[topic.topic_id] = name
    return to_delete, answers


def _duplicates(items: list[H]) -> list[H]:
    seen: set[H] = set()
    dups: list[H] = []
    for item in items:
        if item in seen and item not in dups:
            dups.append(item)
        seen.add(item)
    return dups


def _unique(items: list[H]) -> list[H]:
    dups = set(_duplicates(items))
    return [item for item in dict.fromkeys(items) if item not in dups]


# ---------------------------------------------------------------- CreatePartitions
def split_create_partitions(request: CreatePartitionsRequest
                            ) -> tuple[list[CreatePartitionsTopic], list[CreatePartitionsTopicResult]]:
    """(topics to process, answers for duplicate names).

    Kafka's ControllerApis collects the names in a ``HashSet``, answers the
    duplicates from a second one, and hands the controller the rest in the
    first set's order, so results come back in hash order, not request order.
    """
    names = [t.name for t in request.topics]
    dups = set(_duplicates(names))
    answers = [CreatePartitionsTopicResult(name, Errors.INVALID_REQUEST, "Duplicate topic name.")
               for name in hashmap_order(dups)]
    first: dict[str, CreatePartitionsTopic] = {}
    for topic in request.topics:
        first.setdefault(topic.name, topic)
    return [first[name] for name in hashmap_order(names) if name not in dups], answers


# ---------------------------------------------------------------- (Incremental)AlterConfigs
@overload
def split_config_resources(request: IncrementalAlterConfigsRequest, incremental: Literal[True]
                           ) -> tuple[dict[ConfigResource, dict[str, tuple[int, str | None]]],
                                      list[AlterConfigsResourceResponse]]: ...


@overload
def split_config_resources(request: AlterConfigsRequest, incremental: Literal[False]
                           ) -> tuple[dict[ConfigResource, dict[str, str | None]],
                                      list[AlterConfigsResourceResponse]]: ...


def split_config_resources(request: IncrementalAlterConfigsRequest | AlterConfigsRequest, incremental: bool
                           ) -> tuple[dict[ConfigResource, dict[str, Any]], list[AlterConfigsResourceResponse]]:
    """({ConfigResource: changes}, answers decided here) for either AlterConfigs API.

    Incremental changes map a name to ``(op, value)``; legacy ones to the value.
    """
    answers: list[AlterConfigsResourceResponse] = []
    changes: dict[ConfigResource, dict[str, Any]] = {}
    duplicates: set[ConfigResource] = set()
    known = {t.value for t in ConfigResourceType} - {ConfigResourceType.UNKNOWN}
    for resource in request.resources:
        key = ConfigResource(resource.resource_type, resource.resource_name)
        if incremental and resource.resource_type == ConfigResourceType.BROKER_LOGGER:
            answers.append(AlterConfigsResourceResponse(resource.resource_type, resource.resource_name))
        elif resource.resource_type not in known:
            answers.append(AlterConfigsResourceResponse(
                resource.resource_type, resource.resource_name, Errors.UNSUPPORTED_VERSION,
                f"Unknown resource type {resource.resource_type}."))
        elif key in duplicates:
            continue
        elif key in changes:
            duplicates.add(key)
            del changes[key]
            answers.append(AlterConfigsResourceResponse(resource.resource_type, resource.resource_name,
                                                        Errors.INVALID_REQUEST, "Duplicate resource."))
        else:
            changes[key] = {c.name: ((c.config_operation, c.value) if incremental else c.value)
                            for c in resource.configs}
    return changes, answers


# ---------------------------------------------------------------- whole-request errors
def error_response(request: ControllerRequest, error: ApiError) -> ControllerResponse:
    """The response Kafka sends when the whole request fails with ``error``."""
    builder = _ERROR_RESPONSES.get(type(request))
    if builder is None:
        raise TypeError(f"{type(request).__name__} is not a controller request")
    return builder(request, error)


def _create_topics_error(r: CreateTopicsRequest, e: ApiError) -> CreateTopicsResponse:
    return CreateTopicsResponse(tuple(CreatableTopicResult(t.name, error_code=e.error, error_message=e.message)
                                      for t in r.topics))


def _delete_topics_error(r: DeleteTopicsRequest, e: ApiError) -> DeleteTopicsResponse:
    named: list[tuple[str | None, Uuid]] = [(n, ZERO) for n in r.topic_names] + [(t.name, t.topic_id) for t in r.topics]
    return DeleteTopicsResponse(tuple(DeletableTopicResult(n, i, e.error, e.message) for n, i in named))


def _configs_error(response_type: type[IncrementalAlterConfigsResponse] | type[AlterConfigsResponse]
                   ) -> Callable[[IncrementalAlterConfigsRequest | AlterConfigsRequest, ApiError], ControllerResponse]:
    def build(r: IncrementalAlterConfigsRequest | AlterConfigsRequest, e: ApiError) -> ControllerResponse:
        return response_type(tuple(AlterConfigsResourceResponse(c.resource_type, c.resource_name,
                                                                e.error, e.message) for c in r.resources))
    return build


def _elect_leaders_error(r: ElectLeadersRequest, e: ApiError) -> ElectLeadersResponse:
    results = tuple(ReplicaElectionResult(tp.topic, tuple(PartitionResult(p, e.error, e.message)
                                                          for p in tp.partitions))
                    for tp in (r.topic_partitions or ()))
    return ElectLeadersResponse(results, e.error)


# Request type -> the builder of its whole-request error (each takes that type: a dict cannot say so).
_ERROR_RESPONSES: dict[type[ControllerRequest], Callable[[Any, ApiError], ControllerResponse]] = {
    BrokerRegistrationRequest: lambda r, e: BrokerRegistrationResponse(e.error),
    BrokerHeartbeatRequest: lambda r, e: BrokerHeartbeatResponse(e.error),
    UnregisterBrokerRequest: lambda r, e: UnregisterBrokerResponse(e.error, e.message),
    AlterPartitionRequest: lambda r, e: AlterPartitionResponse((), e.error),
    CreateTopicsRequest: _create_topics_error,
    DeleteTopicsRequest: _delete_topics_error,
    CreatePartitionsRequest: lambda r, e: CreatePartitionsResponse(tuple(
        CreatePartitionsTopicResult(t.name, e.error, e.message) for t in r.topics)),
    IncrementalAlterConfigsRequest: _configs_error(IncrementalAlterConfigsResponse),
    AlterConfigsRequest: _configs_error(AlterConfigsResponse),
    ElectLeadersRequest: _elect_leaders_error,
    AlterPartitionReassignmentsRequest: lambda r, e: AlterPartitionReassignmentsResponse(
        (), e.error, e.message, r.allow_replication_factor_change),
    ListPartitionReassignmentsRequest: lambda r, e: ListPartitionReassignmentsResponse((), e.error, e.message),
    AllocateProducerIdsRequest: lambda r, e: AllocateProducerIdsResponse(e.error),
    ControllerRegistrationRequest: lambda r, e: ControllerRegistrationResponse(e.error, e.message),
}
