"""DescribeConfigs, AlterConfigs, IncrementalAlterConfigs and ListConfigResources.

Theory of operation
-------------------
*Reading* configs is local: the broker that receives DescribeConfigs answers
from its own metadata image and its own `KafkaConfig`
(``common/config/describe.py``): a topic's overrides and effective values,
this broker's configs (resource ``"<its id>"``) or the cluster-wide dynamic
defaults (resource ``""``), with sources, synonyms (``include_synonyms``)
and config types (v3+).  Its BROKER_LOGGER resource lists its log4j
loggers (its `RuntimeLoggerManager`).

*Changing* configs is the controller's job, but the receiving broker first
runs Kafka's ``ConfigAdminManager.preprocess`` and answers some resources
itself:

* a resource named twice: every copy gets ``Each resource must appear at most once.``;
* a config named twice, or a null value (IncrementalAlterConfigs: except for
  DELETE): ``Error due to duplicate config keys`` / ``Null value not supported for : a, b``;
* BROKER_LOGGER (incremental only): applied right here, never forwarded;
* BROKER ``"<id>"`` must be this broker's id, and broker configs are checked
  against the dynamic broker config rules here (a static-only name such as
  ``log.dirs`` is refused before the controller sees it);
* an unknown resource type: ``Unknown resource type <id>``.

What is left is forwarded to the active controller (see `forwarding`); the
answers are put back together in request order.  ListConfigResources lists
the brokers, broker loggers and topics this broker knows (v1) or the client
metrics subscriptions (v0, none in the sandbox).

Mirrors ``KafkaApis.handleDescribeConfigsRequest``/``ConfigHelper``,
``handleAlterConfigsRequest``, ``handleIncrementalAlterConfigsRequest``,
``ConfigAdminManager`` and ``handleListConfigResources`` (Kafka 4.3.1).
Simplified: GROUP and CLIENT_METRICS configs are not modelled (describing
them answers INVALID_REQUEST ``Unsupported resource type``; altering them is
refused by the controller); no documentation texts; entries are listed by
name (Kafka lists them in hash-map order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol

from minikafka.common.config.alter import AlterConfigOp, OpType, alter_broker
from minikafka.common.config.describe import (ConfigEntry, ConfigSource, DescribeConfigsResult,
                                              describe_broker, describe_topic)
from minikafka.common.config.java_values import string_hash
from minikafka.common.errors import Errors, InvalidRequestException, KafkaException
from minikafka.controller import requests as ctl
from minikafka.controller.feature_control_manager import is_elr_enabled
from minikafka.controller.requests import ConfigResourceType as T
from minikafka.network.codec import response_class
from minikafka.server.apis.forwarding import ForwardingBroker, forward
from minikafka.server.apis.metadata import TopicLookup
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import DESCRIBE_CONFIGS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS, LIST_CONFIG_RESOURCES

if TYPE_CHECKING:
    from minikafka.common.config.kafka_config import KafkaConfig
    from minikafka.metadata.image import MetadataImage
    from minikafka.server.runtime_logger_manager import RuntimeLoggerManager


class ConfigsBroker(ForwardingBroker, TopicLookup, Protocol):
    """What the config APIs use of the broker (besides forwarding to the controller and its topics)."""

    @property
    def broker_id(self) -> int: ...

    @property
    def kafka_config(self) -> "KafkaConfig": ...

    @property
    def image(self) -> "MetadataImage": ...

    @property
    def listener_name(self) -> str | None:
        """The listener clients reach this broker on."""
        ...

    @property
    def runtime_logger_manager(self) -> "RuntimeLoggerManager": ...

    def topic_overrides(self, topic: str) -> dict[str, str]: ...

    def dynamic_broker_configs(self, name: str) -> Mapping[str, str]:
        """The dynamic configs of BROKER resource ``name`` ("<id>" or "" for the cluster default)."""
        ...


KNOWN_TYPES = frozenset({T.TOPIC, T.BROKER, T.BROKER_LOGGER, T.CLIENT_METRICS, T.GROUP})

DescribeConfigsResponse = response_class(DESCRIBE_CONFIGS)
AlterConfigsResponse = response_class(ALTER_CONFIGS)
IncrementalAlterConfigsResponse = response_class(INCREMENTAL_ALTER_CONFIGS)
ListConfigResourcesResponse = response_class(LIST_CONFIG_RESOURCES)

Answer = tuple[Errors, str | None]          # an ApiError: code and message (None: the default)


def api_error(exc: KafkaException) -> Answer:
    """``ApiError.fromThrowable``: Kafka drops a message that only repeats the default one."""
    return exc.error, None if exc.message == exc.error.message else exc.message


# ---------------------------------------------------------------------------- DescribeConfigs
def handle_describe_configs(ctx: RequestContext, request: Any, broker: ConfigsBroker) -> Any:
    Result = DescribeConfigsResponse.DescribeConfigsResult
    if any(r.resource_type not in KNOWN_TYPES for r in request.resources):
        # ConfigHelper throws for the whole request; getErrorResponse uses the default message.
        return DescribeConfigsResponse(throttle_time_ms=0, results=[
            Result(error_code=Errors.INVALID_REQUEST.code, error_message=Errors.INVALID_REQUEST.message,
                   resource_type=r.resource_type, resource_name=r.resource_name, configs=[])
            for r in request.resources])
    results = []
    for r in request.resources:
        outcome = describe_resource(broker, r.resource_type, r.resource_name, r.configuration_keys,
                                    bool(request.include_synonyms))
        results.append(Result(error_code=outcome.error.code, error_message=outcome.error_message,
                              resource_type=r.resource_type, resource_name=r.resource_name,
                              configs=[encode_entry(e) for e in outcome.entries]))
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)


def describe_resource(broker: ConfigsBroker, resource_type: int, name: str, keys: Iterable[str] | None,
                      include_synonyms: bool) -> DescribeConfigsResult:
    """The answer for one resource.  Where ConfigHelper leaves ``error_message`` unset
    (a success, an unknown topic) the wire carries the field's default, ``""``."""
    try:
        if resource_type == T.TOPIC:
            exists = broker.get_topic(name) is not None
            result = describe_topic(name, broker.topic_overrides(name) if exists else None,
                                    broker.kafka_config, include_synonyms, keys)
        elif resource_type == T.BROKER:
            result = describe_broker(name, broker.kafka_config, include_synonyms, keys)
        elif resource_type == T.BROKER_LOGGER:
            result = describe_loggers(broker, name, keys)
        elif not name:
            what = "Client metrics subscription" if resource_type == T.CLIENT_METRICS else "Group"
            raise InvalidRequestException(f"{what} name must not be empty")
        else:
            raise InvalidRequestException(f"Unsupported resource type: {T(resource_type).name}")
    except KafkaException as exc:
        error, message = api_error(exc)
        return DescribeConfigsResult(error, message, ())
    if result.error_message is None:
        return DescribeConfigsResult(result.error, "", result.entries)
    return result


def describe_loggers(broker: ConfigsBroker, name: str, keys: Iterable[str] | None) -> DescribeConfigsResult:
    if not name:
        raise InvalidRequestException("Broker id must not be empty")
    try:
        requested = int(name)
    except ValueError:
        raise InvalidRequestException(f"Broker id must be an integer, but it is: {name}") from None
    if requested != broker.broker_id:
        raise InvalidRequestException(f"Unexpected broker id, expected {broker.broker_id} but received {name}")
    wanted = set(keys or ())
    entries = tuple(ConfigEntry(logger, level, ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, False, False,
                                documentation="")      # ConfigHelper leaves the field at its default ""
                    for logger, level in broker.runtime_logger_manager.loggers().items()
                    if not wanted or logger in wanted)
    return DescribeConfigsResult(Errors.NONE, None, entries)


def encode_entry(entry: ConfigEntry) -> Any:
    Entry = DescribeConfigsResponse.DescribeConfigsResult.DescribeConfigsResourceResult
    return Entry(name=entry.name, value=entry.value, read_only=entry.read_only,
                 config_source=entry.source.id, is_sensitive=entry.is_sensitive,
                 config_type=entry.config_type_id, documentation=entry.documentation,
                 synonyms=[Entry.DescribeConfigsSynonym(name=s.name, value=s.value, source=s.source.id)
                           for s in entry.synonyms])


# ---------------------------------------------------------------------------- (Incremental)AlterConfigs
def handle_incremental_alter_configs(ctx: RequestContext, request: Any, broker: ConfigsBroker) -> Any:
    return alter_configs(broker, request, incremental=True)


def handle_alter_configs(ctx: RequestContext, request: Any, broker: ConfigsBroker) -> Any:
    return alter_configs(broker, request, incremental=False)


def alter_configs(broker: ConfigsBroker, request: Any, incremental: bool) -> Any:
    resources = list(request.resources)
    answers = preprocess(broker, resources, bool(request.validate_only), incremental)
    remaining = [r for i, r in enumerate(resources) if i not in answers]
    response_type = IncrementalAlterConfigsResponse if incremental else AlterConfigsResponse
    if not remaining:
        return reassemble(response_type, resources, answers, {})
    domain_resources = tuple(ctl.AlterConfigsResource(r.resource_type, r.resource_name, tuple(
        ctl.AlterableConfig(c.name, c.value, c.config_operation if incremental else ctl.AlterConfigOpType.SET)
        for c in r.configs)) for r in remaining)
    domain_type = ctl.IncrementalAlterConfigsRequest if incremental else ctl.AlterConfigsRequest
    timed_out: dict[tuple[int, str], Answer] = {(r.resource_type, r.resource_name): (Errors.REQUEST_TIMED_OUT, None)
                                                for r in remaining}

    def from_controller(answer: Any) -> Any:
        by_resource = {(a.resource_type, a.resource_name): (a.error_code, a.error_message) for a in answer.responses}
        return reassemble(response_type, resources, answers, by_resource)
    return forward(broker, domain_type(domain_resources, bool(request.validate_only)), None, from_controller,
                   lambda: reassemble(response_type, resources, answers, timed_out),
                   "IncrementalAlterConfigs" if incremental else "AlterConfigs")


def reassemble(response_type: Any, resources: list[Any], answers: dict[int, Answer],
               controller_answers: dict[tuple[int, str], Answer]) -> Any:
    """``ConfigAdminManager.reassemble*Response``: one answer per requested resource, in request order."""
    responses = []
    for index, r in enumerate(resources):
        error, message = answers.get(index) or controller_answers.get(
            (r.resource_type, r.resource_name), (Errors.UNKNOWN_SERVER_ERROR, Errors.UNKNOWN_SERVER_ERROR.message))
        responses.append(response_type.AlterConfigsResourceResponse(
            error_code=error.code, error_message=message,
            resource_type=r.resource_type, resource_name=r.resource_name))
    return response_type(throttle_time_ms=0, responses=responses)


def preprocess(broker: ConfigsBroker, resources: list[Any], validate_only: bool, incremental: bool) -> dict[int, Answer]:
    """``ConfigAdminManager.preprocess``: the answers the broker gives itself, by resource index."""
    answers: dict[int, Answer] = {}
    keys = [(r.resource_type, r.resource_name) for r in resources]
    for index, key in enumerate(keys):
        if keys.count(key) > 1:
            answers[index] = (Errors.INVALID_REQUEST, "Each resource must appear at most once.")
    for index, resource in enumerate(resources):
        if index in answers:
            continue
        try:
            outcome = preprocess_resource(broker, resource, validate_only, incremental)
        except KafkaException as exc:
            outcome = api_error(exc)
        if outcome is not None:
            answers[index] = outcome
    return answers


def preprocess_resource(broker: ConfigsBroker, resource: Any, validate_only: bool, incremental: bool) -> Answer | None:
    """None: forward to the controller; else the answer (raises a KafkaException on refusal)."""
    configs = list(resource.configs)
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise InvalidRequestException("Error due to duplicate config keys")
    nulls = [c.name for c in configs if c.value is None
             and not (incremental and c.config_operation == OpType.DELETE)]
    if nulls:
        raise InvalidRequestException("Null value not supported for : " + ", ".join(nulls))
    kind = resource.resource_type
    if kind == T.BROKER_LOGGER and incremental:
        broker.runtime_logger_manager.apply_changes(resource.resource_name, configs, validate_only)
        return Errors.NONE, None
    if kind == T.BROKER:
        check_broker_configs(broker, resource.resource_name, configs, incremental)
        return None
    if kind in (T.TOPIC, T.CLIENT_METRICS, T.GROUP):
        return None
    raise InvalidRequestException(f"Unknown resource type {kind}")


def check_broker_configs(broker: ConfigsBroker, name: str, configs: list[Any], incremental: bool) -> None:
    """The receiving broker's checks of a BROKER resource (its id, dynamic config rules)."""
    if incremental:
        for c in configs:
            if c.config_operation not in tuple(OpType):
                raise InvalidRequestException(f"Unknown operations type {c.config_operation}")
        current = broker.dynamic_broker_configs(name)
        ops = [AlterConfigOp(c.name, OpType(c.config_operation), c.value) for c in configs]
    else:
        current = {}                              # legacy: the request is the complete new set
        ops = [AlterConfigOp(c.name, OpType.SET, c.value) for c in configs]
    alter_broker(name, current, ops, receiving_node_id=broker.broker_id,
                 elr_enabled=is_elr_enabled(broker.image))


# ---------------------------------------------------------------------------- ListConfigResources
V0_TYPES = (T.CLIENT_METRICS,)
V1_TYPES = (T.TOPIC, T.BROKER, T.BROKER_LOGGER, T.CLIENT_METRICS, T.GROUP)


def handle_list_config_resources(ctx: RequestContext, request: Any, broker: ConfigsBroker) -> Any:
    supported = V0_TYPES if ctx.api_version == 0 else V1_TYPES
    wanted = set(request.resource_types or ()) if ctx.api_version >= 1 else set()
    wanted = wanted or set(supported)
    if not wanted <= set(supported):
        return ListConfigResourcesResponse(throttle_time_ms=0, error_code=Errors.UNSUPPORTED_VERSION.code,
                                           config_resources=[])
    Resource = ListConfigResourcesResponse.ConfigResource
    listed: list[tuple[str, int]] = []
    image = broker.image
    # GROUP and CLIENT_METRICS: the sandbox stores no such configs, so there is nothing to list.
    listener = broker.listener_name
    brokers = [b.id for b in image.cluster.brokers.values()
               if listener is not None and b.listener(listener) is not None]
    for kind in (T.BROKER_LOGGER, T.BROKER):
        if kind in wanted:
            listed += [(str(b), kind) for b in brokers]
    if T.TOPIC in wanted:
        # TopicsImage.topicsByName is a persistent hash map: it iterates by String.hashCode.
        listed += [(name, T.TOPIC) for name in sorted(image.topic_names(), key=lambda n: (string_hash(n), n))]
    return ListConfigResourcesResponse(throttle_time_ms=0, error_code=0, config_resources=[
        Resource(resource_name=name, resource_type=kind) for name, kind in listed])
