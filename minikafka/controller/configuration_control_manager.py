"""``ConfigurationControlManager``: dynamic configs of topics and brokers, as ConfigRecords.

Theory of operation
-------------------
Dynamic configs live in the metadata log: every change is a `ConfigRecord`
(resource type and name, config name, new value or None to delete).  A
request is turned into records like this:

* IncrementalAlterConfigs: each ``(name, op)`` gives the new value -- SET
  replaces, DELETE removes, APPEND/SUBTRACT edit a LIST config item by item
  (starting from the default when nothing is set).  A record is written only
  if the value changes, except for broker resources, which always get one.
* AlterConfigs (legacy): the request is the *complete* new set; names not in
  it are deleted.

Before any record is kept, the resource's complete new config map is
validated: topic names and configs (``Unknown topic config name: foo``,
``Invalid value ...``), broker names (a number, or "" for the cluster-wide
default), then -- unless the resource is being created -- that it exists
(``The topic 'x' does not exist.``).  A failure drops all records of that
resource and reports the error; other resources are unaffected.

A topic config's effective value is resolved in Kafka's order: the topic's
own override, the controller's per-node dynamic config, the cluster-wide
dynamic broker default, the controller's static ``server.properties``, and
finally Kafka's default (broker synonyms like ``log.retention.hours`` are
converted to the topic unit).  The controller reads
``unclean.leader.election.enable`` and ``min.insync.replicas`` this way.

With eligible leader replicas on (KIP-966), ``min.insync.replicas`` may not be
set per broker nor removed at cluster level (INVALID_CONFIG, Kafka's texts),
and every record that changes it is followed by a `ClearElrRecord` -- for
that topic, or for all topics when the change is at broker level.

Mirrors ``org.apache.kafka.controller.ConfigurationControlManager``, the
resolution of ``KafkaConfigSchema`` and the checks of
``ControllerConfigurationValidator`` (Kafka 4.x).  Simplified: only TOPIC and
BROKER resources are stored (BROKER_LOGGER, CLIENT_METRICS and GROUP answer
INVALID_REQUEST); no AlterConfigPolicy.  Broker config values are checked
here with ``dynamic_update_error``; Kafka checks them on the broker that
forwards the request, with the same message.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from minikafka.common import topic as topic_rules
from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF, dynamic_update_error
from minikafka.common.config.config_def import Type
from minikafka.common.config.java_values import split_literal
from minikafka.common.config.topic_configs import (TOPIC_CONFIG_DEF, TOPIC_CONFIG_SYNONYMS,
                                                   validate_topic_configs)
from minikafka.common.errors import (BrokerIdNotRegisteredException, Errors, InvalidRequestException,
                                     KafkaException, UnknownTopicOrPartitionException)
from minikafka.controller.controller_result import ApiError, ControllerResult
from minikafka.controller.feature_control_manager import is_elr_enabled
from minikafka.controller.requests import AlterConfigOpType, ConfigResourceType
from minikafka.metadata.image import ConfigResource, MetadataImage
from minikafka.metadata.records import ClearElrRecord, ConfigRecord

MIN_INSYNC_REPLICAS = "min.insync.replicas"

# DescribeConfigsResponse.ConfigSource ids, as CreateTopics reports them.
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

_STORED_TYPES = (ConfigResourceType.TOPIC, ConfigResourceType.BROKER)


class ConfigurationControlManager:
    """Generates ConfigRecords and resolves effective topic configs for the controller."""

    def __init__(self, node_id: int, static_config: Mapping[str, str]):
        self.node_id = node_id
        self.static_config = dict(static_config)     # the controller's server.properties, as set

    # ------------------------------------------------------------------ effective values
    def resolve_topic_config(self, image: MetadataImage, name: str,
                             topic_overrides: Mapping[str, str]) -> tuple[str | None, int]:
        """(value, config source id) of topic config ``name``, in Kafka's resolution order."""
        if name in topic_overrides:
            return topic_overrides[name], DYNAMIC_TOPIC_CONFIG
        synonyms = TOPIC_CONFIG_SYNONYMS.get(name, ())
        layers = ((image.configs.broker_config(self.node_id), DYNAMIC_BROKER_CONFIG),
                  (image.configs.broker_config(""), DYNAMIC_DEFAULT_BROKER_CONFIG),
                  (self.static_config, STATIC_BROKER_CONFIG))
        for configs, source in layers:
            for synonym in synonyms:
                if synonym.name in configs:
                    return synonym.converter(configs[synonym.name]), source
        return TOPIC_CONFIG_DEF.default_string(name), DEFAULT_CONFIG

    def topic_config(self, image: MetadataImage, topic: str, name: str) -> str | None:
        return self.resolve_topic_config(image, name, image.configs.topic_config(topic))[0]

    def unclean_leader_election_enabled(self, image: MetadataImage, topic: str) -> bool:
        value = self.topic_config(image, topic, "unclean.leader.election.enable")
        return value is not None and value.strip().lower() == "true"

    def effective_topic_configs(self, image: MetadataImage,
                                creation_configs: Mapping[str, str]) -> list[tuple[str, str | None, int]]:
        """(name, value, source) of every topic config for a new topic, sorted by name.

        Internal configs (``internal.segment.bytes``) appear only when they were set,
        as ``KafkaConfigSchema.resolveEffectiveTopicConfigs`` does."""
        return [(key.name, *self.resolve_topic_config(image, key.name, creation_configs))
                for key in sorted(TOPIC_CONFIG_DEF.keys(), key=lambda k: k.name)
                if not key.internal or key.name in creation_configs]

    def log_defaults(self, image: MetadataImage) -> dict[str, str]:
        """The controller's defaults for every topic config (``KafkaConfig.extractLogConfigMap``)."""
        defaults = {}
        for name in TOPIC_CONFIG_DEF.names():
            value, source = self.resolve_topic_config(image, name, {})
            if source == DEFAULT_CONFIG:
                synonyms = TOPIC_CONFIG_SYNONYMS.get(name, ())
                broker_default = BROKER_CONFIG_DEF.default_string(synonyms[0].name) if synonyms else None
                value = synonyms[0].converter(broker_default) if broker_default is not None else value
            if value is not None:
                defaults[name] = value
        return defaults

    # ------------------------------------------------------------------ IncrementalAlterConfigs
    def incremental_alter_configs(self, image: MetadataImage,
                                  changes: Mapping[ConfigResource, Mapping[str, tuple[int, str | None]]],
                                  newly_created: bool = False) -> ControllerResult[dict[ConfigResource, ApiError]]:
        """Records for every resource that validates; response: {ConfigResource: ApiError}."""
        records: list[ConfigRecord] = []
        results: dict[ConfigResource, ApiError] = {}
        for resource, ops in changes.items():
            error, new_records = self._incremental_resource(image, resource, ops, newly_created)
            results[resource] = error
            if not error.is_failure:
                records.extend(new_records)
        return ControllerResult(tuple(records) + clear_elr_records(image, records), results)

    def _incremental_resource(self, image: MetadataImage, resource: ConfigResource,
                              ops: Mapping[str, tuple[int, str | None]],
                              newly_created: bool) -> tuple[ApiError, list[ConfigRecord]]:
        current = image.configs.config(resource)
        new_records: list[ConfigRecord] = []
        for name, (op, value) in ops.items():
            old = current.get(name)
            if op == AlterConfigOpType.SET:
                new = value
            elif op == AlterConfigOpType.DELETE:
                new = None
            elif op in (AlterConfigOpType.APPEND, AlterConfigOpType.SUBTRACT):
                if _config_type(resource, name) is not Type.LIST:
                    op_name = AlterConfigOpType(op).name
                    return ApiError(Errors.INVALID_CONFIG,
                                    f"Can't {op_name} to key {name} because its type is not LIST."), []
                new = _edit_list(resource, name, old, value or "", op)
            else:
                return ApiError(Errors.UNKNOWN_SERVER_ERROR), []   # Kafka fails on a null OpType
            if old != new or resource.type == ConfigResourceType.BROKER:
                new_records.append(ConfigRecord(resource_type=resource.type,
                                                resource_name=resource.name, name=name, value=new))
        error = self._validate(image, resource, new_records, (), newly_created)
        return error, new_records

    # ------------------------------------------------------------------ AlterConfigs (legacy)
    def legacy_alter_configs(self, image: MetadataImage,
                             new_configs: Mapping[ConfigResource, Mapping[str, str | None]],
                             newly_created: bool = False) -> ControllerResult[dict[ConfigResource, ApiError]]:
        records: list[ConfigRecord] = []
        results: dict[ConfigResource, ApiError] = {}
        for resource, configs in new_configs.items():
            current = image.configs.config(resource)
            altered = [ConfigRecord(resource_type=resource.type, resource_name=resource.name,
                                    name=name, value=value)
                       for name, value in configs.items()
                       if current.get(name) != value or resource.type == ConfigResourceType.BROKER]
            deleted = [ConfigRecord(resource_type=resource.type, resource_name=resource.name,
                                    name=name, value=None)
                       for name in current if name not in configs]
            error = self._validate(image, resource, altered, deleted, newly_created)
            results[resource] = error
            if not error.is_failure:
                records.extend(altered + deleted)
        return ControllerResult(tuple(records) + clear_elr_records(image, records), results)

    # ------------------------------------------------------------------ validation
    def _validate(self, image: MetadataImage, resource: ConfigResource, altered: Sequence[ConfigRecord],
                  deleted: Sequence[ConfigRecord], newly_created: bool) -> ApiError:
        configs = dict(image.configs.config(resource))
        for record in altered:
            if record.value is None:
                configs.pop(record.name, None)
            else:
                configs[record.name] = record.value
        for record in deleted:
            configs.pop(record.name, None)
        elr_error = _elr_min_isr_error(image, list(altered) + list(deleted))
        if elr_error is not None:
            return elr_error
        try:
            self._validate_resource(image, resource, configs, altered)
            if not newly_created:
                _check_exists(image, resource)
        except KafkaException as exc:
            return ApiError.from_exception(exc)
        return ApiError.NONE

    def _validate_resource(self, image: MetadataImage, resource: ConfigResource, configs: Mapping[str, str],
                           altered: Sequence[ConfigRecord]) -> None:
        if resource.type == ConfigResourceType.TOPIC:
            if resource.name == "":
                raise InvalidRequestException("Default topic resources are not allowed.")
            topic_rules.validate(resource.name)
            validate_topic_configs(configs, self.log_defaults(image))
        elif resource.type == ConfigResourceType.BROKER:
            _validate_broker_name(resource.name)
            problem = dynamic_update_error({r.name: r.value for r in altered if r.value is not None},
                                           per_broker=resource.name != "")
            if problem is not None:
                raise InvalidRequestException(problem)
        else:
            raise InvalidRequestException(f"Unknown resource type {_type_name(resource.type)}")


def clear_elr_records(image: MetadataImage, records: Iterable[ConfigRecord]) -> tuple[ClearElrRecord, ...]:
    """``createClearElrRecordsAsNeeded``: with ELR, every min.insync.replicas change clears ELRs.

    The ELR was computed against the old minimum, so it no longer says who is safe:
    a topic's own value clears that topic's, a broker-level one clears every topic's."""
    if not is_elr_enabled(image):
        return ()
    return tuple(ClearElrRecord(topic_name=r.resource_name if r.resource_type == ConfigResourceType.TOPIC else "")
                 for r in records if r.name == MIN_INSYNC_REPLICAS)


def _elr_min_isr_error(image: MetadataImage, records: Iterable[ConfigRecord]) -> ApiError | None:
    """With ELR, min ISR lives at topic and cluster level only, and the cluster value stays."""
    if not is_elr_enabled(image):
        return None
    for r in records:
        if r.name != MIN_INSYNC_REPLICAS or r.resource_type != ConfigResourceType.BROKER:
            continue
        if r.resource_name != "":
            return ApiError(Errors.INVALID_CONFIG,
                            "Broker-level min.insync.replicas cannot be altered while ELR is enabled.")
        if r.value is None:
            return ApiError(Errors.INVALID_CONFIG,
                            "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.")
    return None


def _type_name(resource_type: int) -> str:
    try:
        return ConfigResourceType(resource_type).name
    except ValueError:
        return str(resource_type)


def _validate_broker_name(name: str) -> None:
    if name == "":
        return
    try:
        broker_id = int(name, 10)
    except ValueError:
        raise InvalidRequestException("Unable to parse broker name as a base 10 number.") from None
    if broker_id < 0:
        raise InvalidRequestException("Invalid negative broker ID.")


def _check_exists(image: MetadataImage, resource: ConfigResource) -> None:
    """QuorumController.ConfigResourceExistenceChecker."""
    if resource.type == ConfigResourceType.TOPIC and image.topic(resource.name) is None:
        raise UnknownTopicOrPartitionException(f"The topic '{resource.name}' does not exist.")
    if resource.type == ConfigResourceType.BROKER and resource.name != "":
        node_id = int(resource.name)
        if node_id not in image.cluster.brokers and node_id not in image.cluster.controllers:
            raise BrokerIdNotRegisteredException(f"No node with id {node_id} found.")


def _config_type(resource: ConfigResource, name: str) -> Type | None:
    if resource.type == ConfigResourceType.TOPIC:
        return TOPIC_CONFIG_DEF.type_of(name)
    if resource.type == ConfigResourceType.BROKER:
        return BROKER_CONFIG_DEF.type_of(name)
    return None


def _edit_list(resource: ConfigResource, name: str, old: str | None, value: str, op: int) -> str:
    """APPEND or SUBTRACT the comma-separated items of ``value`` (Kafka's getParts)."""
    if old is None:
        config_def = TOPIC_CONFIG_DEF if resource.type == ConfigResourceType.TOPIC else BROKER_CONFIG_DEF
        old = config_def.default_string(name)
    items = [item for item in split_literal(old or "", ",") if item]
    for item in split_literal(value, ","):
        if op == AlterConfigOpType.APPEND and item not in items:
            items.append(item)
        elif op == AlterConfigOpType.SUBTRACT and item in items:
            items.remove(item)
    return ",".join(items)


def resources_stored(resource_type: int) -> bool:
    """True for resource types whose configs live in the metadata log."""
    return resource_type in _STORED_TYPES
