"""IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT on a resource's overrides.

Theory of operation
-------------------
A resource (a topic, a broker, or the cluster-wide broker default ``""``)
has a map of overrides in the metadata image.  An IncrementalAlterConfigs
request carries one operation per config name:

* ``SET name=value`` replaces the override; ``DELETE name`` removes it;
* ``APPEND`` / ``SUBTRACT`` add or remove comma-separated items of a LIST
  config, starting from the override or, when there is none, from the
  config's built-in default (so ``APPEND cleanup.policy=compact`` on a fresh
  topic gives ``delete,compact``).

The request is checked twice, as in a real cluster.  The broker that
receives it refuses duplicate names and null values (INVALID_REQUEST) and,
for broker resources, names that are not dynamic.  The controller then
applies the operations to its copy of the overrides, emits one ConfigRecord
per *changed* name (for brokers: per name, changed or not, so brokers
reload), and validates the whole resulting map.  `AlterOutcome` carries the
new map and the records to write; any refusal is raised as the Kafka
exception whose error code and message the response carries.

Mirrors ``ConfigurationControlManager.incrementalAlterConfigResource`` and
``ControllerConfigurationValidator`` (controller) and
``ConfigAdminManager.preprocess`` (broker), Kafka 4.3.1.  Simplified: policies
(``alter.config.policy.class.name``) are not supported; the caller checks
that the topic or broker exists (Kafka does it after validation).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, cast

from minikafka.common import topic as topic_rules
from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF, dynamic_update_error
from minikafka.common.config.config_def import ConfigDef, Type
from minikafka.common.config.java_values import SHORT_MAX, parse_int, split_literal, utf16_length
from minikafka.common.config.topic_configs import TOPIC_CONFIG_DEF, validate_topic_configs
from minikafka.common.errors import InvalidConfigurationException, InvalidRequestException

MIN_INSYNC = "min.insync.replicas"


class OpType(enum.IntEnum):
    """AlterConfigOp.OpType; the value is the code on the wire."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


@dataclass(frozen=True, slots=True)
class AlterConfigOp:
    name: str
    op: OpType
    value: str | None = None


@dataclass(frozen=True, slots=True)
class AlterOutcome:
    """The overrides after the change, and the ConfigRecords (name, value or None) to write."""

    configs: dict[str, str]
    records: tuple[tuple[str, str | None], ...]


def preprocess(ops: Iterable[AlterConfigOp]) -> list[AlterConfigOp]:
    """The receiving broker's checks (``ConfigAdminManager.preprocess``)."""
    ops = list(ops)
    names = [op.name for op in ops]
    if len(set(names)) != len(names):
        raise InvalidRequestException("Error due to duplicate config keys")
    nulls = [op.name for op in ops if op.op is not OpType.DELETE and op.value is None]
    if nulls:
        raise InvalidRequestException("Null value not supported for : " + ", ".join(nulls))
    return ops


def _parts(value: str | None, name: str, config_def: ConfigDef) -> list[str]:
    """``getParts``: the current items of a LIST config (its default when unset), empties dropped."""
    if value is None:
        value = config_def.default_string(name)
    if value is None:
        return []
    return [part for part in split_literal(value, ",") if part]


def apply_ops(current: Mapping[str, str], ops: Iterable[AlterConfigOp], config_def: ConfigDef,
              always_record: bool = False) -> AlterOutcome:
    """The controller's op semantics on one resource's override map."""
    configs = dict(current)
    records: list[tuple[str, str | None]] = []
    for op in ops:
        before = configs.get(op.name)
        if op.op is OpType.SET:
            after = op.value
        elif op.op is OpType.DELETE:
            after = None
        else:
            if config_def.type_of(op.name) is not Type.LIST:
                raise InvalidConfigurationException(
                    f"Can't {op.op.name} to key {op.name} because its type is not LIST.")
            items = _parts(before, op.name, config_def)
            for item in split_literal(cast(str, op.value), ","):  # APPEND and SUBTRACT carry a value
                if op.op is OpType.APPEND and item not in items:
                    items.append(item)
                elif op.op is OpType.SUBTRACT and item in items:
                    items.remove(item)            # Java's List.remove: the first occurrence only
            after = ",".join(items)
        if before != after or always_record:
            records.append((op.name, after))
        if after is None:
            configs.pop(op.name, None)
        else:
            configs[op.name] = after
    return AlterOutcome(configs, tuple(records))


def _check_value_sizes(records: Iterable[tuple[str, str | None]]) -> None:
    for _name, value in records:
        if value is not None and utf16_length(value) > SHORT_MAX:
            raise InvalidConfigurationException(
                "The configuration value cannot be added because it exceeds the maximum value size "
                f"of {SHORT_MAX} bytes.")


def alter_topic(topic: str, current: Mapping[str, str], ops: Iterable[AlterConfigOp],
                controller_config: Any = None) -> AlterOutcome:
    """IncrementalAlterConfigs on a TOPIC resource, end to end.

    ``controller_config`` is the active controller's KafkaConfig: its log
    defaults are what the new overrides are validated against.
    """
    ops = preprocess(ops)
    outcome = apply_ops(current, ops, TOPIC_CONFIG_DEF)
    _check_value_sizes(outcome.records)
    if topic == "":
        raise InvalidRequestException("Default topic resources are not allowed.")
    topic_rules.validate(topic)
    validate_topic_configs(outcome.configs, controller_config)
    return outcome


def create_topic_configs(topic: str, configs: Iterable[tuple[str, str | None]],
                         controller_config: Any = None) -> AlterOutcome:
    """The configs of a CreateTopics request: checked, and turned into ConfigRecords.

    As ``ReplicationControlManager.createTopics``: null values are refused,
    a repeated name keeps its last value, and the result is validated like
    an alter of a topic that has no overrides yet.
    """
    configs = list(configs)
    nulls = [name for name, value in configs if value is None]
    if nulls:
        raise InvalidConfigurationException("Null value not supported for topic configs: " + ",".join(nulls))
    latest = dict(configs)
    return alter_topic(topic, {}, [AlterConfigOp(name, OpType.SET, value) for name, value in latest.items()],
                       controller_config)


def alter_broker(resource_name: str, current: Mapping[str, str], ops: Iterable[AlterConfigOp],
                 receiving_node_id: int | None = None, elr_enabled: bool = True) -> AlterOutcome:
    """IncrementalAlterConfigs on a BROKER resource (``"<id>"`` or the cluster default ``""``).

    ``receiving_node_id`` is the broker the request reached; Kafka requires a
    per-broker change to be sent to that broker.  With ELR enabled (the
    default for clusters formatted with Kafka 4.1 or later) the controller refuses a
    per-broker ``min.insync.replicas`` and the removal of the cluster-wide one.
    """
    ops = preprocess(ops)
    per_broker = resource_name != ""
    if per_broker and receiving_node_id is not None:
        _check_receiving_node(resource_name, receiving_node_id)
    _broker_side_check(current, ops, per_broker)
    if per_broker:
        _check_broker_name(resource_name)
    outcome = apply_ops(current, ops, BROKER_CONFIG_DEF, always_record=True)
    for name, value in outcome.records:
        if elr_enabled and name == MIN_INSYNC and per_broker:
            raise InvalidConfigurationException(
                "Broker-level min.insync.replicas cannot be altered while ELR is enabled.")
        if elr_enabled and name == MIN_INSYNC and value is None:
            raise InvalidConfigurationException(
                "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.")
    _check_value_sizes(outcome.records)
    return outcome


def _check_receiving_node(resource_name: str, node_id: int) -> None:
    try:
        requested = parse_int(resource_name)
    except ValueError:
        raise InvalidRequestException(f"Node id must be an integer, but it is: {resource_name}") from None
    if requested != node_id:
        raise InvalidRequestException(f"Unexpected broker id, expected {node_id}, but received {resource_name}")


def _broker_side_check(current: Mapping[str, str], ops: list[AlterConfigOp], per_broker: bool) -> None:
    """``ConfigAdminManager.prepareIncrementalConfigs`` + ``DynamicBrokerConfig.validate``."""
    for op in ops:
        if op.op in (OpType.APPEND, OpType.SUBTRACT) and BROKER_CONFIG_DEF.type_of(op.name) is not Type.LIST:
            verb = "append" if op.op is OpType.APPEND else "subtract"
            raise InvalidConfigurationException(f"Config value {verb} is not allowed for config key: {op.name}")
    resulting = apply_ops(current, ops, BROKER_CONFIG_DEF).configs
    message = dynamic_update_error(resulting, per_broker)
    if message is not None:
        raise InvalidRequestException(message)


def _check_broker_name(name: str) -> None:
    """``ControllerConfigurationValidator.validateBrokerName``."""
    try:
        broker_id = parse_int(name)
    except ValueError:
        raise InvalidRequestException("Unable to parse broker name as a base 10 number.") from None
    if broker_id < 0:
        raise InvalidRequestException("Invalid negative broker ID.")
