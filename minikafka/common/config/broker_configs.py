"""Broker and controller configs: the names, types and defaults of Kafka 4.3.1's KafkaConfig.

Theory of operation
-------------------
A node reads its ``server.properties`` through one big ConfigDef
(`BROKER_CONFIG_DEF`).  A few settings may also be changed while the
cluster runs, by ``kafka-configs.sh --alter --entity-type brokers``: either
for one broker (``--entity-name 2``) or as the cluster-wide default
(``--entity-default``, resource name ``""``).  `DYNAMIC_BROKER_CONFIGS` lists
the ones this sandbox defines; everything else is read-only and describes
with ``read_only=True``.  Listener settings can only be changed per broker
(`PER_BROKER_CONFIGS`).

Several settings have synonyms that mean the same thing in other units:
``log.roll.ms`` or ``log.roll.hours``, ``log.retention.ms`` or ``.minutes``
or ``.hours``.  `broker_config_synonyms` gives the group a name belongs to,
highest priority first, as DescribeConfigs reports them.

The listener and directory lists (``listeners``, ``advertised.listeners``,
``controller.listener.names``, ``log.dir``, ``log.dirs``) must not be empty
nor contain an empty element: ``log.dirs=`` fails with ``Configuration
'log.dirs' must not be empty. Valid values include: any non-empty value``,
``log.dirs=/a,`` with ``Configuration 'log.dirs' values must not be empty.``
A repeated element is dropped (``process.roles=broker,broker`` is one role).

The time settings named in ``minikafka.common.timing`` are all defined here, with
Kafka's defaults; `timing_static_props` turns a timing profile into the
``server.properties`` lines a node starts with, so a learner who describes a
broker sees the teaching values as STATIC_BROKER_CONFIG, which is exactly
what Kafka would show for a broker started with those lines.

Mirrors ``AbstractKafkaConfig.CONFIG_DEF`` and the constants of
``DynamicBrokerConfig`` (Kafka 4.3.1): ``ServerConfigs``, ``KRaftConfigs``,
``MetadataLogConfig``, ``QuorumConfig``, ``SocketServerConfigs``,
``ReplicationConfigs``, ``GroupCoordinatorConfig``, ``CleanerConfig``,
``LogConfig.SERVER_CONFIG_DEF`` and ``RemoteLogManagerConfig``.
Simplified: only the ~100 settings the sandbox uses or a lesson may show are
defined (Kafka has several hundred, e.g. SSL, SASL, quotas, share groups);
unknown names are kept as custom properties, as Kafka keeps them.
"""

from __future__ import annotations

import re
from typing import Mapping

from minikafka.common.config.config_def import ConfigDef, Type, config_error
from minikafka.common.config.java_values import INT_MAX, LONG_MAX, hashmap_order, parse_int, split_literal
from minikafka.common.config.topic_configs import (
    COMPRESSION_TYPES, DEFAULT_MAX_MESSAGE_BYTES, GZIP_LEVEL, LZ4_LEVEL, MIN_SEGMENT_BYTES,
    TIMESTAMP_TYPES, TOPIC_CONFIG_SYNONYMS, ZSTD_LEVEL)
from minikafka.common.config.validators import (
    CaseInsensitiveValidString, LambdaValidator, Range, ValidList, ValidString,
)
from minikafka.common.errors import ConfigException
from minikafka.common.timing import TimingProfile

MIB = 1024 * 1024
# HashMap order of Kafka's generated default (see SocketServerConfigs).
LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"
_HOST_PORT = re.compile(r"^(?:[0-9a-zA-Z\-%._]*://)?\[?([0-9a-zA-Z\-%._:]*)]?:([0-9]+)")


def _voter_entry_error(entry: str) -> ConfigException | None:
    """What QuorumConfig.parseVoterConnections says about one ``{id}@{host}:{port}`` entry."""
    form = "Each entry should be in the form `{id}@{host}:{port}`."
    parts = split_literal(entry, "@")
    if len(parts) != 2:
        return ConfigException(f"Invalid configuration value for controller.quorum.voters. {form}")
    voter_id, address = parts
    try:
        parse_int(voter_id)
    except ValueError:
        return ConfigException(f"Failed to parse voter ID as an integer from {voter_id}")
    if not _HOST_PORT.fullmatch(address):
        return ConfigException(f"Failed to parse host name from entry {entry} for the configuration "
                               f"controller.quorum.voters. {form}")
    return None


def _check_voters(name: str, value: list[str] | None) -> None:
    if value is None:
        raise config_error(name, None)
    for entry in value:
        error = _voter_entry_error(entry)
        if error is not None:
            raise error


def _check_bootstrap_servers(name: str, value: list[str] | None) -> None:
    if value is None:
        raise config_error(name, None)
    for entry in value:
        if not _HOST_PORT.fullmatch(entry):
            raise ConfigException(f"Failed to parse host name from {entry} for the configuration "
                                  f"controller.quorum.bootstrap.servers. Each entry should be in the "
                                  f'form "{{host}}:{{port}}"')


def parse_voters(voters: list[str]) -> dict[int, tuple[str, int]]:
    """``controller.quorum.voters`` entries -> {id: (host, port)}; raises Kafka's ConfigException."""
    result: dict[int, tuple[str, int]] = {}
    for entry in voters:
        error = _voter_entry_error(entry)
        if error is not None:
            raise error
        voter_id, address = split_literal(entry, "@")
        match = _HOST_PORT.fullmatch(address)
        assert match is not None  # _voter_entry_error checked the form
        result[parse_int(voter_id)] = (match.group(1), int(match.group(2)))
    return result


QUORUM_VOTERS = LambdaValidator(_check_voters, "non-empty list")
QUORUM_BOOTSTRAP_SERVERS = LambdaValidator(_check_bootstrap_servers, "non-empty list")
# Listener and directory lists: at least one element, none of them empty.
NON_EMPTY_LIST = ValidList.any_non_duplicate_values(empty_allowed=False, null_allowed=False)
NON_EMPTY_LIST_OR_NULL = ValidList.any_non_duplicate_values(empty_allowed=False, null_allowed=True)

BROKER_CONFIG_DEF = (
    ConfigDef()
    # ServerConfigs
    .define("broker.id", Type.INT, -1)
    .define("message.max.bytes", Type.INT, DEFAULT_MAX_MESSAGE_BYTES, Range.at_least(0))
    .define("num.io.threads", Type.INT, 8, Range.at_least(1))
    .define("background.threads", Type.INT, 10, Range.at_least(1))
    .define("request.timeout.ms", Type.INT, 30000)
    .define("broker.rack", Type.STRING, None)
    .define("controlled.shutdown.enable", Type.BOOLEAN, True)
    .define("delete.topic.enable", Type.BOOLEAN, True)
    .define("compression.type", Type.STRING, "producer", ValidString.in_(*COMPRESSION_TYPES))
    .define("compression.gzip.level", Type.INT, -1, GZIP_LEVEL)
    .define("compression.lz4.level", Type.INT, 9, LZ4_LEVEL)
    .define("compression.zstd.level", Type.INT, 3, ZSTD_LEVEL)
    .define("fetch.max.bytes", Type.INT, 55 * MIB, Range.at_least(1024))
    # KRaftConfigs
    .define("process.roles", Type.LIST, validator=ValidList.in_("broker", "controller", empty_allowed=False))
    .define("node.id", Type.INT, validator=Range.at_least(0))
    .define("initial.broker.registration.timeout.ms", Type.INT, 60000)
    .define("broker.heartbeat.interval.ms", Type.INT, 2000)
    .define("broker.session.timeout.ms", Type.INT, 9000)
    .define("controller.listener.names", Type.LIST, validator=NON_EMPTY_LIST)
    # MetadataLogConfig
    .define("metadata.log.max.record.bytes.between.snapshots", Type.LONG, 20 * MIB, Range.at_least(1))
    .define("metadata.log.max.snapshot.interval.ms", Type.LONG, 3600000, Range.at_least(0))
    .define("metadata.log.dir", Type.STRING, None)
    .define("metadata.log.segment.bytes", Type.INT, 1024 * MIB, Range.at_least(8 * MIB))
    .define("metadata.log.segment.ms", Type.LONG, 7 * 24 * 3600000)
    .define("metadata.max.retention.bytes", Type.LONG, 100 * MIB)
    .define("metadata.max.retention.ms", Type.LONG, 7 * 24 * 3600000)
    .define("metadata.max.idle.interval.ms", Type.INT, 500, Range.at_least(0))
    # SocketServerConfigs
    .define("listeners", Type.LIST, "PLAINTEXT://:9092", NON_EMPTY_LIST)
    .define("advertised.listeners", Type.LIST, None, NON_EMPTY_LIST_OR_NULL)
    .define("listener.security.protocol.map", Type.STRING, LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT)
    .define("socket.request.max.bytes", Type.INT, 100 * MIB, Range.at_least(1))
    .define("num.network.threads", Type.INT, 3, Range.at_least(1))
    # ReplicationConfigs
    .define("default.replication.factor", Type.INT, 1)
    .define("replica.lag.time.max.ms", Type.LONG, 30000)
    .define("replica.socket.timeout.ms", Type.INT, 30000)
    .define("replica.fetch.max.bytes", Type.INT, MIB, Range.at_least(0))
    .define("replica.fetch.wait.max.ms", Type.INT, 500)
    .define("replica.fetch.backoff.ms", Type.INT, 1000, Range.at_least(0))
    .define("replica.fetch.min.bytes", Type.INT, 1)
    .define("replica.fetch.response.max.bytes", Type.INT, 10 * MIB, Range.at_least(0))
    .define("num.replica.fetchers", Type.INT, 1, Range.at_least(1))
    # ReplicationQuotaManagerConfig: the throttle's rate is measured over these windows
    .define("replication.quota.window.num", Type.INT, 11, Range.at_least(1))
    .define("replication.quota.window.size.seconds", Type.INT, 1, Range.at_least(1))
    .define("replica.high.watermark.checkpoint.interval.ms", Type.LONG, 5000)
    .define("auto.leader.rebalance.enable", Type.BOOLEAN, True)
    .define("leader.imbalance.check.interval.seconds", Type.LONG, 300, Range.at_least(1))
    .define_internal("unclean.leader.election.interval.ms", Type.LONG, 300000, Range.at_least(1))
    .define("unclean.leader.election.enable", Type.BOOLEAN, False)
    .define("inter.broker.listener.name", Type.STRING, None)
    # GroupCoordinatorConfig
    .define("offsets.topic.num.partitions", Type.INT, 50, Range.at_least(1))
    .define("offsets.commit.timeout.ms", Type.INT, 5000, Range.at_least(1))
    .define("offsets.topic.replication.factor", Type.SHORT, 3, Range.at_least(1))
    .define("offsets.topic.segment.bytes", Type.INT, 100 * MIB, Range.at_least(1))
    .define("offset.metadata.max.bytes", Type.INT, 4096)
    .define("offsets.retention.minutes", Type.INT, 7 * 24 * 60, Range.at_least(1))
    .define("offsets.retention.check.interval.ms", Type.LONG, 600000, Range.at_least(1))
    .define("group.min.session.timeout.ms", Type.INT, 6000)
    .define("group.max.session.timeout.ms", Type.INT, 1800000)
    .define("group.initial.rebalance.delay.ms", Type.INT, 3000)
    .define("group.max.size", Type.INT, INT_MAX, Range.at_least(1))
    .define("group.consumer.session.timeout.ms", Type.INT, 45000, Range.at_least(1))
    .define("group.consumer.min.session.timeout.ms", Type.INT, 45000, Range.at_least(1))
    .define("group.consumer.max.session.timeout.ms", Type.INT, 60000, Range.at_least(1))
    .define("group.consumer.heartbeat.interval.ms", Type.INT, 5000, Range.at_least(1))
    .define("group.consumer.min.heartbeat.interval.ms", Type.INT, 5000, Range.at_least(1))
    .define("group.consumer.max.heartbeat.interval.ms", Type.INT, 15000, Range.at_least(1))
    .define("group.consumer.max.size", Type.INT, INT_MAX, Range.at_least(1))
    .define("group.consumer.assignment.interval.ms", Type.INT, 1000, Range.at_least(0))
    .define("group.consumer.migration.policy", Type.STRING, "bidirectional",
            CaseInsensitiveValidString.in_("bidirectional", "upgrade", "downgrade", "disabled"))
    # CleanerConfig
    .define("log.cleaner.threads", Type.INT, 1, Range.at_least(0))
    .define("log.cleaner.dedupe.buffer.size", Type.LONG, 128 * MIB)
    .define("log.cleaner.backoff.ms", Type.LONG, 15000, Range.at_least(0))
    .define("log.cleaner.min.cleanable.ratio", Type.DOUBLE, 0.5, Range.between(0, 1))
    .define("log.cleaner.enable", Type.BOOLEAN, True)
    .define("log.cleaner.delete.retention.ms", Type.LONG, 24 * 3600000, Range.at_least(0))
    .define("log.cleaner.min.compaction.lag.ms", Type.LONG, 0, Range.at_least(0))
    .define("log.cleaner.max.compaction.lag.ms", Type.LONG, LONG_MAX, Range.at_least(1))
    # LogConfig.SERVER_CONFIG_DEF
    .define("num.partitions", Type.INT, 1, Range.at_least(1))
    .define("log.dir", Type.LIST, "/tmp/kafka-logs", NON_EMPTY_LIST)
    .define("log.dirs", Type.LIST, None, NON_EMPTY_LIST_OR_NULL)
    .define("log.segment.bytes", Type.INT, 1024 * MIB, Range.at_least(MIN_SEGMENT_BYTES))
    .define("log.roll.ms", Type.LONG, None)
    .define("log.roll.hours", Type.INT, 168, Range.at_least(1))
    .define("log.roll.jitter.ms", Type.LONG, None)
    .define("log.roll.jitter.hours", Type.INT, 0, Range.at_least(0))
    .define("log.retention.ms", Type.LONG, None)
    .define("log.retention.minutes", Type.INT, None)
    .define("log.retention.hours", Type.INT, 168)
    .define("log.retention.bytes", Type.LONG, -1)
    .define("log.retention.check.interval.ms", Type.LONG, 300000, Range.at_least(1))
    .define("log.cleanup.policy", Type.LIST, "delete", ValidList.in_("compact", "delete"))
    .define("log.index.size.max.bytes", Type.INT, 10 * MIB, Range.at_least(4))
    .define("log.index.interval.bytes", Type.INT, 4096, Range.at_least(0))
    .define("log.flush.interval.messages", Type.LONG, LONG_MAX, Range.at_least(1))
    .define("log.segment.delete.delay.ms", Type.LONG, 60000, Range.at_least(0))
    .define("log.flush.scheduler.interval.ms", Type.LONG, LONG_MAX)
    .define("log.flush.interval.ms", Type.LONG, None)
    .define("log.flush.offset.checkpoint.interval.ms", Type.INT, 60000, Range.at_least(0))
    .define("log.flush.start.offset.checkpoint.interval.ms", Type.INT, 60000, Range.at_least(0))
    .define("log.preallocate", Type.BOOLEAN, False)
    .define("num.recovery.threads.per.data.dir", Type.INT, 2, Range.at_least(1))
    .define("auto.create.topics.enable", Type.BOOLEAN, True)
    .define("min.insync.replicas", Type.INT, 1, Range.at_least(1))
    .define("log.message.timestamp.type", Type.STRING, "CreateTime", ValidString.in_(*TIMESTAMP_TYPES))
    .define("log.message.timestamp.before.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
    .define("log.message.timestamp.after.max.ms", Type.LONG, 3600000, Range.at_least(0))
    .define("create.topic.policy.class.name", Type.CLASS, None)
    .define("alter.config.policy.class.name", Type.CLASS, None)
    .define("log.dir.failure.timeout.ms", Type.LONG, 30000, Range.at_least(1))
    .define_internal("log.initial.task.delay.ms", Type.LONG, 30000, Range.at_least(0))
    # QuorumConfig
    .define("controller.quorum.voters", Type.LIST, [], QUORUM_VOTERS)
    .define("controller.quorum.bootstrap.servers", Type.LIST, [], QUORUM_BOOTSTRAP_SERVERS)
    .define("controller.quorum.election.timeout.ms", Type.INT, 1000, Range.at_least(0))
    .define("controller.quorum.fetch.timeout.ms", Type.INT, 2000, Range.at_least(0))
    .define("controller.quorum.election.backoff.max.ms", Type.INT, 1000, Range.at_least(0))
    .define("controller.quorum.append.linger.ms", Type.INT, 25, Range.at_least(0))
    .define("controller.quorum.request.timeout.ms", Type.INT, 2000, Range.at_least(0))
    .define("controller.quorum.retry.backoff.ms", Type.INT, 20, Range.at_least(0))
    # RemoteLogManagerConfig
    .define("remote.log.storage.system.enable", Type.BOOLEAN, False)
    .define("log.local.retention.ms", Type.LONG, -2, Range.at_least(-2))
    .define("log.local.retention.bytes", Type.LONG, -2, Range.at_least(-2))
)

# DynamicLogConfig: the first broker synonym of every topic config.
_DYNAMIC_LOG_CONFIGS = frozenset(synonyms[0].name for synonyms in TOPIC_CONFIG_SYNONYMS.values())
# DynamicBrokerConfig.PerBrokerConfigs (listeners, security): never a cluster-wide default.
PER_BROKER_CONFIGS = frozenset({"listeners", "listener.security.protocol.map"})
DYNAMIC_BROKER_CONFIGS = _DYNAMIC_LOG_CONFIGS | PER_BROKER_CONFIGS | frozenset({
    "log.cleaner.threads", "log.cleaner.dedupe.buffer.size", "log.cleaner.backoff.ms",  # LogCleaner
    "message.max.bytes",
    "num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir",       # DynamicThreadPool
    "background.threads", "num.network.threads",
})
NON_DYNAMIC_CONFIGS = frozenset(BROKER_CONFIG_DEF.names()) - DYNAMIC_BROKER_CONFIGS

_LISTENER_OVERRIDE = re.compile(r"listener\.name\.[^.]*\.(.*)")
_RETENTION = ["log.retention.ms", "log.retention.minutes", "log.retention.hours"]
_SYNONYMS: dict[str, list[str]] = {
    "log.roll.ms": ["log.roll.ms", "log.roll.hours"],
    "log.roll.hours": ["log.roll.ms", "log.roll.hours"],
    "log.roll.jitter.ms": ["log.roll.jitter.ms", "log.roll.jitter.hours"],
    "log.roll.jitter.hours": ["log.roll.jitter.ms", "log.roll.jitter.hours"],
    # log.flush.scheduler.interval.ms is only the fallback of log.flush.interval.ms, not the reverse.
    "log.flush.interval.ms": ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"],
    **{name: _RETENTION for name in _RETENTION},
}


def broker_config_synonyms(name: str, match_listener_override: bool = True) -> list[str]:
    """``DynamicBrokerConfig.brokerConfigSynonyms``: the names that set the same thing."""
    if name in _SYNONYMS:
        return list(_SYNONYMS[name])
    override = _LISTENER_OVERRIDE.fullmatch(name)
    if override and match_listener_override:
        return [name, override.group(1)]
    return [name]


def is_read_only(name: str) -> bool:
    """DescribeConfigs' read_only flag for a broker config."""
    return name not in DYNAMIC_BROKER_CONFIGS


def timing_static_props(profile: TimingProfile) -> dict[str, str]:
    """The ``server.properties`` lines that make a node use ``profile``'s timings.

    Only values that differ from Kafka's defaults are written, as an operator
    would.  The timing name ``file.delete.delay.ms`` is a topic config; its
    broker setting is ``log.segment.delete.delay.ms``.
    """
    props: dict[str, str] = {}
    for name, value in profile.values.items():
        broker_name = "log.segment.delete.delay.ms" if name == "file.delete.delay.ms" else name
        key = BROKER_CONFIG_DEF.get(broker_name)
        if key is None:
            raise KeyError(f"timing setting {name} has no broker config")
        if key.default != value:
            props[broker_name] = str(value)
    return props


def dynamic_update_error(props: Mapping[str, str], per_broker: bool) -> str | None:
    """Why ``DynamicBrokerConfig.validateConfigs`` refuses a dynamic broker update, or None.

    Kafka checks read-only names first, then types and ranges, then the
    per-broker-only names for a cluster-wide default.  The broker wraps the
    text in an InvalidRequestException (INVALID_REQUEST).
    """
    read_only = [name for name in props if name in NON_DYNAMIC_CONFIGS]
    if read_only:
        return f"Cannot update these configs dynamically: {_java_set(read_only)}"
    try:
        BROKER_CONFIG_DEF.parse_known(props, DYNAMIC_BROKER_CONFIGS & set(props))
    except ConfigException as exc:
        return exc.message
    if not per_broker:
        only_per_broker = [name for name in props if name in PER_BROKER_CONFIGS]
        if only_per_broker:
            return ("Cannot update these configs at default cluster level, broker id must be "
                    f"specified: {_java_set(only_per_broker)}")
    return None


def _java_set(names: list[str]) -> str:
    """A Java ``HashSet`` of names as ``toString`` prints it: ``[a, b]`` in hash order."""
    return "[" + ", ".join(hashmap_order(dict.fromkeys(names))) + "]"
