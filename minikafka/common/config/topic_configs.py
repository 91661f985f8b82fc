"""Topic-level configs: every name Kafka 4.3.1 defines, their validation and effective values.

Theory of operation
-------------------
A topic's configuration is the broker's log defaults with the topic's own
overrides on top.  The broker's defaults come from its ``log.*`` (and a few
other) settings under different names: ``segment.bytes`` follows
``log.segment.bytes``, ``retention.ms`` follows ``log.retention.ms``, then
``log.retention.minutes``, then ``log.retention.hours``.  `TOPIC_CONFIG_SYNONYMS`
is that table, in Kafka's order of precedence.

When a topic is created or its configs altered, the KRaft controller checks
the new override map (`validate_topic_configs`) exactly as Kafka's
``LogConfig.validate`` does:

1. every name must be a topic config (``Unknown topic config name: foo``);
2. the overrides, laid over the *controller's own* broker defaults, are
   parsed row by row in definition order, so the first bad value wins;
3. cross-field rules: ``min.compaction.lag.ms`` <= ``max.compaction.lag.ms``,
   and tiered storage (``remote.storage.enable=true``) is refused because
   this cluster, like a default Kafka broker, has
   ``remote.log.storage.system.enable=false``.

`effective_topic_config` gives every typed value, from which storage builds
its `LogConfig` (``minikafka.storage.log_config.log_config_for``).  Kafka (4.1
and later, 4.3.1 too) refuses ``segment.bytes`` below 1 MiB (1048576);
lessons that need small segments set the internal config
``internal.segment.bytes``, which Kafka 4.1 added for tests: it has no lower
bound and, when set, replaces ``segment.bytes`` as the size at which a
segment rolls.

Mirrors ``org.apache.kafka.storage.internals.log.LogConfig``,
``org.apache.kafka.common.config.TopicConfig`` and
``org.apache.kafka.server.config.ServerTopicConfigSynonyms`` (Kafka 4.3.1:
rows, defaults, validators and synonyms checked against its jars).
Simplified: tiered storage can never be enabled, so the rules that only
apply once it is on (local retention vs. retention, turning it off) are not
modelled; with several unknown names, Kafka names whichever its Hashtable
yields first, the sandbox the first in the request.  ``cleanup.policy`` may
be empty (never clean up); a repeated policy is dropped and an empty one
(``delete,``) refused with ``Configuration 'cleanup.policy' values must not
be empty.`` (see `validators`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from minikafka.common.config.config_def import ConfigDef, Type, config_error, convert_to_string
from minikafka.common.config.java_values import LONG_MAX, java_trim, parse_int
from minikafka.common.config.validators import LambdaValidator, Range, ValidList, ValidString
from minikafka.common.errors import ConfigException, InvalidConfigurationException

INTERNAL_SEGMENT_BYTES = "internal.segment.bytes"
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")  # BrokerCompressionType order
TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
CLEANUP_POLICIES = ("compact", "delete")
MIN_SEGMENT_BYTES = 1024 * 1024            # Kafka 4.1+: segment.bytes / log.segment.bytes minimum
DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12   # 1 MiB + Records.LOG_OVERHEAD
WEEK_MS = 7 * 24 * 60 * 60 * 1000


def _check_gzip_level(name: str, value: Any) -> None:
    if value is None:
        raise config_error(name, None, "Value must be non-null")
    if value > 9 or (value < 1 and value != -1):
        raise config_error(name, value, "Value must be between 1 and 9 or equal to -1")


GZIP_LEVEL = LambdaValidator(_check_gzip_level, "[1,...,9] or -1")
LZ4_LEVEL = Range.between(1, 17)
ZSTD_LEVEL = Range.between(-131072, 22)


def _check_throttled_replicas(name: str, value: Any) -> None:
    if not isinstance(value, (list, tuple)):
        raise config_error(name, value, f"{name} must be a List but was {type(value).__name__}")
    proposed = [java_trim(str(item)) for item in value]
    wildcard = "".join(proposed) == "*"
    pairs = all(item == "" or _is_replica_pair(item) for item in proposed)
    if not (pairs or wildcard):
        raise config_error(name, value, f"{name} must be the literal '*' or a list of replicas in the "
                                         "following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")


def _is_replica_pair(item: str) -> bool:
    partition, sep, broker = item.partition(":")
    return sep == ":" and _ascii_digits(partition) and _ascii_digits(broker)


def _ascii_digits(text: str) -> bool:
    """Java's ``[0-9]+``."""
    return text != "" and all("0" <= c <= "9" for c in text)


THROTTLED_REPLICAS = LambdaValidator(_check_throttled_replicas,
                                     "[partitionId]:[brokerId],[partitionId]:[brokerId],...")

# Kafka 4.3.1's LogConfig, row for row and in its order (parse errors surface in this order).
TOPIC_CONFIG_DEF = (
    ConfigDef()
    .define("segment.bytes", Type.INT, 1024 * 1024 * 1024, Range.at_least(MIN_SEGMENT_BYTES))
    .define("segment.ms", Type.LONG, WEEK_MS, Range.at_least(1))
    .define("segment.jitter.ms", Type.LONG, 0, Range.at_least(0))
    .define("segment.index.bytes", Type.INT, 10 * 1024 * 1024, Range.at_least(4))
    .define("flush.messages", Type.LONG, LONG_MAX, Range.at_least(1))
    .define("flush.ms", Type.LONG, LONG_MAX, Range.at_least(0))
    .define("retention.bytes", Type.LONG, -1)
    .define("retention.ms", Type.LONG, WEEK_MS, Range.at_least(-1))
    .define("max.message.bytes", Type.INT, DEFAULT_MAX_MESSAGE_BYTES, Range.at_least(0))
    .define("index.interval.bytes", Type.INT, 4096, Range.at_least(0))
    .define("delete.retention.ms", Type.LONG, 24 * 60 * 60 * 1000, Range.at_least(0))
    .define("min.compaction.lag.ms", Type.LONG, 0, Range.at_least(0))
    .define("max.compaction.lag.ms", Type.LONG, LONG_MAX, Range.at_least(1))
    .define("file.delete.delay.ms", Type.LONG, 60000, Range.at_least(0))
    .define("min.cleanable.dirty.ratio", Type.DOUBLE, 0.5, Range.between(0, 1))
    .define("cleanup.policy", Type.LIST, "delete", ValidList.in_(*CLEANUP_POLICIES))
    .define("unclean.leader.election.enable", Type.BOOLEAN, False)
    .define("min.insync.replicas", Type.INT, 1, Range.at_least(1))
    .define("compression.type", Type.STRING, "producer", ValidString.in_(*COMPRESSION_TYPES))
    .define("compression.gzip.level", Type.INT, -1, GZIP_LEVEL)
    .define("compression.lz4.level", Type.INT, 9, LZ4_LEVEL)
    .define("compression.zstd.level", Type.INT, 3, ZSTD_LEVEL)
    .define("preallocate", Type.BOOLEAN, False)
    .define("message.timestamp.type", Type.STRING, "CreateTime", ValidString.in_(*TIMESTAMP_TYPES))
    .define("message.timestamp.before.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
    .define("message.timestamp.after.max.ms", Type.LONG, 3600000, Range.at_least(0))
    .define("leader.replication.throttled.replicas", Type.LIST, [], THROTTLED_REPLICAS)
    .define("follower.replication.throttled.replicas", Type.LIST, [], THROTTLED_REPLICAS)
    .define("remote.storage.enable", Type.BOOLEAN, False)
    .define("local.retention.ms", Type.LONG, -2, Range.at_least(-2))
    .define("local.retention.bytes", Type.LONG, -2, Range.at_least(-2))
    .define("remote.log.copy.disable", Type.BOOLEAN, False)
    .define("remote.log.delete.on.disable", Type.BOOLEAN, False)
    .define_internal(INTERNAL_SEGMENT_BYTES, Type.INT, None)
)


def _hours_to_ms(text: str) -> str:
    return str(_lenient_int(text) * 3_600_000)


def _minutes_to_ms(text: str) -> str:
    return str(_lenient_int(text) * 60_000)


def _lenient_int(text: str | None) -> int:
    """ConfigSynonym.valueToInt: an unparsable or empty value counts as 0 (Kafka logs an error)."""
    try:
        return parse_int(java_trim(text or ""))
    except ValueError:
        return 0


@dataclass(frozen=True, slots=True)
class ConfigSynonym:
    """A broker config that supplies a topic config's default, with its unit conversion."""

    name: str
    converter: Callable[[str], str] = str


# topic config -> its broker synonyms, highest priority first (ServerTopicConfigSynonyms).
TOPIC_CONFIG_SYNONYMS: dict[str, tuple[ConfigSynonym, ...]] = {
    "segment.bytes": (ConfigSynonym("log.segment.bytes"),),
    "segment.ms": (ConfigSynonym("log.roll.ms"), ConfigSynonym("log.roll.hours", _hours_to_ms)),
    "segment.jitter.ms": (ConfigSynonym("log.roll.jitter.ms"),
                          ConfigSynonym("log.roll.jitter.hours", _hours_to_ms)),
    "segment.index.bytes": (ConfigSynonym("log.index.size.max.bytes"),),
    "flush.messages": (ConfigSynonym("log.flush.interval.messages"),),
    "flush.ms": (ConfigSynonym("log.flush.interval.ms"), ConfigSynonym("log.flush.scheduler.interval.ms")),
    "retention.bytes": (ConfigSynonym("log.retention.bytes"),),
    "retention.ms": (ConfigSynonym("log.retention.ms"),
                     ConfigSynonym("log.retention.minutes", _minutes_to_ms),
                     ConfigSynonym("log.retention.hours", _hours_to_ms)),
    "max.message.bytes": (ConfigSynonym("message.max.bytes"),),
    "index.interval.bytes": (ConfigSynonym("log.index.interval.bytes"),),
    "delete.retention.ms": (ConfigSynonym("log.cleaner.delete.retention.ms"),),
    "min.compaction.lag.ms": (ConfigSynonym("log.cleaner.min.compaction.lag.ms"),),
    "max.compaction.lag.ms": (ConfigSynonym("log.cleaner.max.compaction.lag.ms"),),
    "file.delete.delay.ms": (ConfigSynonym("log.segment.delete.delay.ms"),),
    "min.cleanable.dirty.ratio": (ConfigSynonym("log.cleaner.min.cleanable.ratio"),),
    "cleanup.policy": (ConfigSynonym("log.cleanup.policy"),),
    "unclean.leader.election.enable": (ConfigSynonym("unclean.leader.election.enable"),),
    "min.insync.replicas": (ConfigSynonym("min.insync.replicas"),),
    "compression.type": (ConfigSynonym("compression.type"),),
    "compression.gzip.level": (ConfigSynonym("compression.gzip.level"),),
    "compression.lz4.level": (ConfigSynonym("compression.lz4.level"),),
    "compression.zstd.level": (ConfigSynonym("compression.zstd.level"),),
    "preallocate": (ConfigSynonym("log.preallocate"),),
    "message.timestamp.type": (ConfigSynonym("log.message.timestamp.type"),),
    "message.timestamp.before.max.ms": (ConfigSynonym("log.message.timestamp.before.max.ms"),),
    "message.timestamp.after.max.ms": (ConfigSynonym("log.message.timestamp.after.max.ms"),),
    "local.retention.ms": (ConfigSynonym("log.local.retention.ms"),),
    "local.retention.bytes": (ConfigSynonym("log.local.retention.bytes"),),
}


def server_synonym(topic_config: str) -> str | None:
    """The highest-priority broker config behind a topic config (None for e.g. throttled replicas)."""
    synonyms = TOPIC_CONFIG_SYNONYMS.get(topic_config)
    return synonyms[0].name if synonyms else None


class LogConfigSource(Protocol):
    """What the topic-config checks read of a node's configuration (a `KafkaConfig`)."""

    def log_config_map(self) -> Mapping[str, Any]: ...


BrokerDefaults = LogConfigSource | Mapping[str, Any] | None  # a KafkaConfig, its log_config_map(), or none


def _log_defaults(broker_defaults: BrokerDefaults) -> Mapping[str, Any]:
    """Accept a KafkaConfig (anything with ``log_config_map()``) or a ready mapping."""
    if broker_defaults is None:
        return {}
    if isinstance(broker_defaults, Mapping):
        return broker_defaults
    return broker_defaults.log_config_map()


def validate_topic_configs(props: Mapping[str, str | None], broker_defaults: BrokerDefaults = None) -> None:
    """Check a topic's new override map as the KRaft controller does; raise in Kafka's words.

    ``broker_defaults`` is the *controller's* KafkaConfig (or its ``log_config_map()``):
    Kafka lays the overrides over the controller's own log defaults before parsing.
    Raises InvalidConfigurationException or ConfigException (both INVALID_CONFIG).
    """
    nulls = [name for name, value in props.items() if value is None]
    if nulls:
        raise InvalidConfigurationException("Null value not supported for topic configs: " + ",".join(nulls))
    for name in props:
        if name not in TOPIC_CONFIG_DEF:
            raise InvalidConfigurationException(f"Unknown topic config name: {name}")
    defaults = _log_defaults(broker_defaults)
    values = TOPIC_CONFIG_DEF.parse({**defaults, **props})
    low, high = values["min.compaction.lag.ms"], values["max.compaction.lag.ms"]
    if low > high:
        raise InvalidConfigurationException(
            f"conflict topic config setting min.compaction.lag.ms ({low}) > max.compaction.lag.ms ({high})")
    # Kafka checks the tiered-storage rules only when it has broker defaults (always, on a
    # controller).  This cluster, like a default broker, has remote.log.storage.system.enable=false.
    if defaults and values["remote.storage.enable"]:
        raise ConfigException("Tiered Storage functionality is disabled in the broker. "
                              "Topic cannot be configured with remote log storage.")


def effective_topic_config(overrides: Mapping[str, str], broker_defaults: BrokerDefaults = None) -> dict[str, Any]:
    """Every topic config's typed value for a topic: overrides over the broker's defaults."""
    return TOPIC_CONFIG_DEF.parse({**_log_defaults(broker_defaults), **overrides})


def describe_value(name: str, value: Any) -> str | None:
    """A typed topic config value printed as DescribeConfigs prints it."""
    return convert_to_string(value, TOPIC_CONFIG_DEF.type_of(name))
