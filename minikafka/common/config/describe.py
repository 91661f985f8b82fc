"""DescribeConfigs: what a broker answers about a topic's or a broker's configs.

Theory of operation
-------------------
For every config the answer gives the effective value and where it came
from (its *source*), plus, on request, the *synonyms*: every place the
value could have come from, highest priority first.  For a topic::

    DYNAMIC_TOPIC_CONFIG           the topic's own override (kafka-configs --alter --topic)
    DYNAMIC_BROKER_CONFIG          a dynamic value set for this broker (--entity-name 1)
    DYNAMIC_DEFAULT_BROKER_CONFIG  a dynamic cluster-wide default (--entity-default)
    STATIC_BROKER_CONFIG           the broker's server.properties
    DEFAULT_CONFIG                 Kafka's built-in default

An entry is "default" (``is_default``) when its source is DEFAULT_CONFIG;
``kafka-topics.sh --describe`` prints the non-default ones in its
``Configs:`` column.  That is why a quickstart topic shows
``segment.bytes=1073741824``: the sample ``server.properties`` sets
``log.segment.bytes``, so the value is STATIC_BROKER_CONFIG.

The broker reproduces Kafka's quirks faithfully: a topic config's broker
synonyms are listed from the first broker synonym onwards only, so
``retention.ms`` on a plain cluster has *no* synonyms (``log.retention.ms``
is unset and the ``log.retention.hours`` default is dropped) and reports
DEFAULT_CONFIG even when ``server.properties`` sets ``log.retention.hours``.

`resolve_effective_topic_configs` is the controller's view of the same
question (used for the configs in a CreateTopics response): it follows every
synonym with its unit conversion, and carries no synonym list.

Mirrors ``kafka.server.ConfigHelper`` (broker side) and
``org.apache.kafka.metadata.KafkaConfigSchema`` (controller side), Kafka 4.3.1.
A topic's entries come in the broker's ``HashMap`` order (`admin_order`
gives the order Kafka's admin client and tools show).  Simplified: a
broker's entries come back sorted by name and cover only the configs the
sandbox defines; no documentation texts.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from minikafka.common import topic as topic_rules
from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF, broker_config_synonyms, is_read_only
from minikafka.common.config.config_def import Type, convert_to_string
from minikafka.common.config.java_values import hashmap_order, parse_int, string_hash
from minikafka.common.java_hashing import spread, to_int32
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.config.topic_configs import TOPIC_CONFIG_DEF, TOPIC_CONFIG_SYNONYMS, server_synonym
from minikafka.common.errors import Errors, KafkaException


class ConfigSource(enum.Enum):
    """Where a value came from; ``id`` is the code DescribeConfigs v1+ sends.

    Member names are the admin client's (what kafka-configs.sh prints).
    """

    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    DYNAMIC_CLIENT_METRICS_CONFIG = 7
    DYNAMIC_GROUP_CONFIG = 8

    @property
    def id(self) -> int:
        return self.value


@dataclass(frozen=True, slots=True)
class DescribeConfigsSynonym:
    name: str
    value: str | None
    source: ConfigSource


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One config in a DescribeConfigs answer."""

    name: str
    value: str | None                   # None for sensitive configs and unset ones
    source: ConfigSource
    read_only: bool
    is_sensitive: bool
    synonyms: tuple[DescribeConfigsSynonym, ...] = ()
    config_type: Type | None = None     # None = UNKNOWN (id 0)
    documentation: str | None = None

    @property
    def is_default(self) -> bool:
        """The admin client's ``ConfigEntry.isDefault()``.

        Kafka 4 serves DescribeConfigs v1-v4 only, so no is_default flag goes on the wire.
        """
        return self.source is ConfigSource.DEFAULT_CONFIG

    @property
    def config_type_id(self) -> int:
        return self.config_type.describe_id if self.config_type else 0


@dataclass(frozen=True, slots=True)
class DescribeConfigsResult:
    """The answer for one resource: an error (code and message) or the entries."""

    error: Errors
    error_message: str | None
    entries: tuple[ConfigEntry, ...]

    @classmethod
    def failed(cls, exc: KafkaException) -> "DescribeConfigsResult":
        return cls(exc.error, exc.message, ())

    def entry(self, name: str) -> ConfigEntry:
        return next(e for e in self.entries if e.name == name)


def _synonyms_for(base: str, broker: KafkaConfig, sensitive: bool) -> list[DescribeConfigsSynonym]:
    """``ConfigHelper.configSynonyms``: every layer's value for ``base``'s synonym group."""
    names = broker_config_synonyms(base)
    layers = ((broker.dynamic_broker, ConfigSource.DYNAMIC_BROKER_CONFIG),
              (broker.dynamic_default, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
              (broker.static_props, ConfigSource.STATIC_BROKER_CONFIG),
              (KafkaConfig.static_default_strings(), ConfigSource.DEFAULT_CONFIG))
    found = [DescribeConfigsSynonym(name, None if sensitive else layer[name], source)
             for layer, source in layers for name in names if name in layer]
    while found and found[0].name != base:     # Kafka's dropWhile: start at the base name itself
        found.pop(0)
    return found


def _wanted(names: Iterable[str], config_names: Iterable[str] | None) -> list[str]:
    wanted = set(config_names or ())
    return sorted(n for n in names if not wanted or n in wanted)


def _topic_order(overrides: Mapping[str, str | None], config_names: Iterable[str] | None) -> list[str]:
    """The order a broker lists a topic's configs in: overrides that are no config of
    ``nonInternalValues`` (an internal one), then that map's own ``HashMap`` order, built
    in definition order; asking for some keys keeps their place in that order."""
    defined = [key.name for key in TOPIC_CONFIG_DEF.keys() if not key.internal]
    extra = [n for n, v in overrides.items() if v is not None and n not in defined]
    wanted = set(config_names or ())
    return [n for n in extra + hashmap_order(defined) if not wanted or n in wanted]


def describe_topic(topic: str, overrides: Mapping[str, str] | None, broker: KafkaConfig,
                   include_synonyms: bool = False,
                   config_names: Iterable[str] | None = None) -> DescribeConfigsResult:
    """Describe a topic as broker ``broker`` would; ``overrides`` None means no such topic."""
    try:
        topic_rules.validate(topic)
    except KafkaException as exc:
        return DescribeConfigsResult.failed(exc)
    if overrides is None:                         # Kafka sends the code without a message
        return DescribeConfigsResult(Errors.UNKNOWN_TOPIC_OR_PARTITION, None, ())
    try:
        values = TOPIC_CONFIG_DEF.parse({**broker.log_config_map(), **overrides})
    except KafkaException as exc:                 # an override the controller should never have accepted
        return DescribeConfigsResult.failed(exc)
    entries = []
    for name in _topic_order(overrides, config_names):
        config_type = TOPIC_CONFIG_DEF.type_of(name)
        sensitive = config_type is None or config_type.is_sensitive
        key = TOPIC_CONFIG_DEF.get(name)
        raw = overrides[name] if key is not None and key.internal else values.get(name, overrides.get(name))
        value = None if sensitive else convert_to_string(raw, config_type)
        base = server_synonym(name)
        synonyms = _synonyms_for(base, broker, sensitive) if base else []
        if name in overrides:
            synonyms.insert(0, DescribeConfigsSynonym(name, value, ConfigSource.DYNAMIC_TOPIC_CONFIG))
        source = synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, False, sensitive,
                                   tuple(synonyms) if include_synonyms else (), config_type))
    return DescribeConfigsResult(Errors.NONE, None, tuple(entries))


def describe_broker(resource_name: str, broker: KafkaConfig, include_synonyms: bool = False,
                    config_names: Iterable[str] | None = None) -> DescribeConfigsResult:
    """Describe broker resource ``"<node id>"`` (all configs) or ``""`` (dynamic cluster defaults)."""
    if resource_name:
        try:
            requested = parse_int(resource_name)
        except ValueError:
            return _invalid_request(f"Broker id must be an integer, but it is: {resource_name}")
        if requested != broker.node_id:
            return _invalid_request(f"Unexpected broker id, expected {broker.node_id} or empty string, "
                                    f"but received {resource_name}")
        current: Mapping[str, Any] = {**broker.originals, **broker.non_internal_values}
    else:
        current = broker.dynamic_default
    entries = []
    for name in _wanted(current, config_names):
        config_type = BROKER_CONFIG_DEF.type_of(name)
        sensitive = config_type is None or config_type.is_sensitive
        raw = current[name]
        value = None if sensitive else (raw if isinstance(raw, str) else convert_to_string(raw, config_type))
        synonyms = _synonyms_for(name, broker, sensitive)
        if not resource_name:
            synonyms = [s for s in synonyms if s.source is ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]
        source = synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, is_read_only(name), sensitive,
                                   tuple(synonyms) if include_synonyms else (), config_type))
    return DescribeConfigsResult(Errors.NONE, None, tuple(entries))


def _invalid_request(message: str) -> DescribeConfigsResult:
    return DescribeConfigsResult(Errors.INVALID_REQUEST, message, ())


def resolve_effective_topic_configs(static_node: Mapping[str, str], dynamic_cluster: Mapping[str, str],
                                    dynamic_node: Mapping[str, str],
                                    topic_overrides: Mapping[str, str]) -> dict[str, ConfigEntry]:
    """``KafkaConfigSchema.resolveEffectiveTopicConfigs``: the controller's per-topic view."""
    result: dict[str, ConfigEntry] = {}
    for key in TOPIC_CONFIG_DEF.keys():
        if key.internal and key.name not in topic_overrides:
            continue
        value, source = _resolve_one(key.name, static_node, dynamic_cluster, dynamic_node, topic_overrides)
        result[key.name] = ConfigEntry(key.name, value, source, False, key.type.is_sensitive, (), key.type)
    return result


def _resolve_one(name: str, static_node: Mapping[str, str], dynamic_cluster: Mapping[str, str],
                 dynamic_node: Mapping[str, str], topic_overrides: Mapping[str, str]
                 ) -> tuple[str | None, ConfigSource]:
    if name in topic_overrides:
        return topic_overrides[name], ConfigSource.DYNAMIC_TOPIC_CONFIG
    synonyms = TOPIC_CONFIG_SYNONYMS.get(name, ())
    for layer, source in ((dynamic_node, ConfigSource.DYNAMIC_BROKER_CONFIG),
                          (dynamic_cluster, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
                          (static_node, ConfigSource.STATIC_BROKER_CONFIG)):
        for synonym in synonyms:
            if synonym.name in layer:
                raw = layer[synonym.name]
                return (None if raw is None else synonym.converter(raw)), source
    return TOPIC_CONFIG_DEF.default_string(name), ConfigSource.DEFAULT_CONFIG


def _scala_improved_hash(name: str) -> int:
    """Scala 2.13 ``mutable.HashMap``'s spread hash (``h ^ (h >>> 16)``) as a signed int."""
    return to_int32(spread(string_hash(name)))


def admin_order(entries: Iterable[ConfigEntry]) -> list[ConfigEntry]:
    """The order Kafka's admin client and tools list the entries of one resource in.

    The broker builds its answer in a Scala ``mutable.HashMap`` (buckets in
    index order, each bucket sorted by spread hash); the admin client's
    ``Config`` copies the entries into a ``java.util.HashMap`` keyed by name,
    whose buckets keep that insertion order.  ``kafka-topics.sh --describe``
    joins the non-default entries in this order, e.g.
    ``min.insync.replicas=1,segment.bytes=1073741824``.
    """
    by_name = {entry.name: entry for entry in entries}
    as_broker_sent = sorted(by_name, key=_scala_improved_hash)
    return [by_name[name] for name in hashmap_order(as_broker_sent)]


def topic_configs_column(result: DescribeConfigsResult) -> str:
    """The text after ``Configs: `` in ``kafka-topics.sh --describe``."""
    return ",".join(f"{e.name}={e.value}" for e in admin_order(result.entries) if not e.is_default)


__all__ = ["ConfigSource", "DescribeConfigsSynonym", "ConfigEntry", "DescribeConfigsResult",
           "describe_topic", "describe_broker", "resolve_effective_topic_configs", "admin_order",
           "topic_configs_column"]
