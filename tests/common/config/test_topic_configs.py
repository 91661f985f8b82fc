"""Topic configs: Kafka 4.3.1's table, validation texts, synonyms and the typed LogConfig."""

from __future__ import annotations

import pytest

from minikafka.common.config.config_def import convert_to_string
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.config.topic_configs import (
    TOPIC_CONFIG_DEF, TOPIC_CONFIG_SYNONYMS, effective_topic_config, server_synonym,
    validate_topic_configs)
from minikafka.common.errors import ConfigException, Errors, InvalidConfigurationException, KafkaException
from minikafka.storage.log_config import LogConfig, log_config_for

# name -> (type, default as DescribeConfigs prints it), in Kafka 4.3.1 LogConfig's definition order.
GOLDEN_DEFAULTS = {
    "segment.bytes": ("INT", "1073741824"),
    "segment.ms": ("LONG", "604800000"),
    "segment.jitter.ms": ("LONG", "0"),
    "segment.index.bytes": ("INT", "10485760"),
    "flush.messages": ("LONG", "9223372036854775807"),
    "flush.ms": ("LONG", "9223372036854775807"),
    "retention.bytes": ("LONG", "-1"),
    "retention.ms": ("LONG", "604800000"),
    "max.message.bytes": ("INT", "1048588"),
    "index.interval.bytes": ("INT", "4096"),
    "delete.retention.ms": ("LONG", "86400000"),
    "min.compaction.lag.ms": ("LONG", "0"),
    "max.compaction.lag.ms": ("LONG", "9223372036854775807"),
    "file.delete.delay.ms": ("LONG", "60000"),
    "min.cleanable.dirty.ratio": ("DOUBLE", "0.5"),
    "cleanup.policy": ("LIST", "delete"),
    "unclean.leader.election.enable": ("BOOLEAN", "false"),
    "min.insync.replicas": ("INT", "1"),
    "compression.type": ("STRING", "producer"),
    "compression.gzip.level": ("INT", "-1"),
    "compression.lz4.level": ("INT", "9"),
    "compression.zstd.level": ("INT", "3"),
    "preallocate": ("BOOLEAN", "false"),
    "message.timestamp.type": ("STRING", "CreateTime"),
    "message.timestamp.before.max.ms": ("LONG", "9223372036854775807"),
    "message.timestamp.after.max.ms": ("LONG", "3600000"),
    "leader.replication.throttled.replicas": ("LIST", ""),
    "follower.replication.throttled.replicas": ("LIST", ""),
    "remote.storage.enable": ("BOOLEAN", "false"),
    "local.retention.ms": ("LONG", "-2"),
    "local.retention.bytes": ("LONG", "-2"),
    "remote.log.copy.disable": ("BOOLEAN", "false"),
    "remote.log.delete.on.disable": ("BOOLEAN", "false"),
}


def test_defaults_table_is_kafkas():
    public = {k.name: (k.type.name, convert_to_string(k.default, k.type))
              for k in TOPIC_CONFIG_DEF.keys() if not k.internal}
    assert list(public) == list(GOLDEN_DEFAULTS)
    assert public == GOLDEN_DEFAULTS
    internal = TOPIC_CONFIG_DEF["internal.segment.bytes"]
    assert internal.internal and internal.type.name == "INT" and internal.default is None


def test_defaults_agree_with_storage_log_config():
    assert log_config_for({}) == LogConfig()


def broker(**extra) -> KafkaConfig:
    props = {"process.roles": "controller", "node.id": "1001",
             "controller.quorum.voters": "1001@localhost:9093", "controller.listener.names": "CONTROLLER"}
    props.update({k.replace("_", "."): v for k, v in extra.items()})
    return KafkaConfig(props)


def error_of(props, defaults=None) -> KafkaException:
    with pytest.raises(KafkaException) as info:
        validate_topic_configs(props, defaults if defaults is not None else broker())
    assert info.value.error is Errors.INVALID_CONFIG
    return info.value


@pytest.mark.parametrize("name", ["foo", "message.format.version", "message.downconversion.enable",
                                  "message.timestamp.difference.max.ms", "log.retention.ms"])
def test_unknown_names(name):
    error = error_of({name: "1"})
    assert isinstance(error, InvalidConfigurationException)
    assert str(error) == f"Unknown topic config name: {name}"


def test_null_values_are_listed():
    assert str(error_of({"a": None, "retention.ms": None})) == "Null value not supported for topic configs: a,retention.ms"


@pytest.mark.parametrize("props, text", [
    ({"retention.ms": "abc"}, "Invalid value abc for configuration retention.ms: Not a number of type LONG"),
    ({"retention.ms": "-2"}, "Invalid value -2 for configuration retention.ms: Value must be at least -1"),
    ({"segment.bytes": "1048575"}, "Invalid value 1048575 for configuration segment.bytes: Value must be at least 1048576"),
    ({"segment.ms": "0"}, "Invalid value 0 for configuration segment.ms: Value must be at least 1"),
    ({"segment.index.bytes": "3"}, "Invalid value 3 for configuration segment.index.bytes: Value must be at least 4"),
    ({"min.insync.replicas": "0"}, "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
    ({"max.message.bytes": "-1"}, "Invalid value -1 for configuration max.message.bytes: Value must be at least 0"),
    ({"min.cleanable.dirty.ratio": "1.5"},
     "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"),
    ({"min.cleanable.dirty.ratio": "2"},
     "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"),
    ({"cleanup.policy": "delete,Compact"},
     "Invalid value Compact for configuration cleanup.policy: String must be one of: compact, delete"),
    ({"cleanup.policy": "delete,"}, "Configuration 'cleanup.policy' values must not be empty."),   # Kafka 4.3.1
    ({"compression.type": "GZIP"}, "Invalid value GZIP for configuration compression.type: String must be one of: "
                                   "uncompressed, zstd, lz4, snappy, gzip, producer"),
    ({"compression.gzip.level": "10"},
     "Invalid value 10 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"),
    ({"compression.lz4.level": "0"}, "Invalid value 0 for configuration compression.lz4.level: Value must be at least 1"),
    ({"compression.zstd.level": "23"},
     "Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22"),
    ({"unclean.leader.election.enable": "yes"},
     "Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false"),
    ({"message.timestamp.type": "createtime"},
     "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"),
    ({"follower.replication.throttled.replicas": "0:1,x"},
     "Invalid value [0:1, x] for configuration follower.replication.throttled.replicas: "
     "follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
     "format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."),
    ({"local.retention.ms": "-3"}, "Invalid value -3 for configuration local.retention.ms: Value must be at least -2"),
    ({"internal.segment.bytes": "big"},
     "Invalid value big for configuration internal.segment.bytes: Not a number of type INT"),
])
def test_value_errors(props, text):
    error = error_of(props)
    assert isinstance(error, ConfigException) and str(error) == text


def test_first_bad_value_in_definition_order_is_reported():
    assert "retention.ms" in str(error_of({"min.insync.replicas": "0", "retention.ms": "x"}))


def test_cross_field_rules():
    error = error_of({"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"})
    assert isinstance(error, InvalidConfigurationException)
    assert str(error) == "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"
    assert str(error_of({"remote.storage.enable": "true"})) == (
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.")


@pytest.mark.parametrize("props", [
    {}, {"retention.ms": "-1"}, {"cleanup.policy": "compact,delete"}, {"cleanup.policy": ""},
    {"cleanup.policy": "delete,delete"},
    {"leader.replication.throttled.replicas": "*"}, {"leader.replication.throttled.replicas": "0:1, 1:2"},
    {"min.cleanable.dirty.ratio": "1"}, {"compression.gzip.level": "-1"}, {"internal.segment.bytes": "100"},
    {"segment.bytes": "1048576"}, {"retention.bytes": "-5"}, {"remote.storage.enable": "false"},
])
def test_valid_overrides(props):
    validate_topic_configs(props, broker())


def test_controller_defaults_take_part_in_validation():
    # Kafka parses the overrides laid over the controller's log defaults, so a bad
    # controller default would fail every topic; a conflicting override does too.
    validate_topic_configs({"min.compaction.lag.ms": "10"}, broker())
    error = error_of({"min.compaction.lag.ms": "10"}, {"max.compaction.lag.ms": 5})
    assert "min.compaction.lag.ms (10) > max.compaction.lag.ms (5)" in str(error)


def test_synonyms_table():
    assert [s.name for s in TOPIC_CONFIG_SYNONYMS["retention.ms"]] == [
        "log.retention.ms", "log.retention.minutes", "log.retention.hours"]
    assert [s.name for s in TOPIC_CONFIG_SYNONYMS["flush.ms"]] == ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]
    assert TOPIC_CONFIG_SYNONYMS["segment.ms"][1].converter("2") == "7200000"
    assert TOPIC_CONFIG_SYNONYMS["retention.ms"][1].converter(" 3 ") == "180000"
    assert TOPIC_CONFIG_SYNONYMS["retention.ms"][2].converter("oops") == "0"
    assert server_synonym("max.message.bytes") == "message.max.bytes"
    assert server_synonym("file.delete.delay.ms") == "log.segment.delete.delay.ms"
    assert server_synonym("min.cleanable.dirty.ratio") == "log.cleaner.min.cleanable.ratio"
    assert server_synonym("leader.replication.throttled.replicas") is None
    assert server_synonym("remote.storage.enable") is None
    assert set(TOPIC_CONFIG_SYNONYMS) <= set(TOPIC_CONFIG_DEF.names())


def test_log_config_uses_overrides_over_broker_defaults():
    b = broker(log_retention_hours="1", log_segment_bytes="2097152", log_roll_ms="1000")
    config = log_config_for({"retention.bytes": "100", "cleanup.policy": "compact, delete"}, b)
    assert config.retention_ms == 3_600_000 and config.segment_bytes == 2097152 and config.segment_ms == 1000
    assert config.retention_bytes == 100 and config.cleanup_policy == ("compact", "delete")


def test_internal_segment_bytes_replaces_segment_bytes():
    assert log_config_for({"internal.segment.bytes": "512"}).segment_bytes == 512
    assert log_config_for({"segment.bytes": "2097152"}).segment_bytes == 2097152
    assert log_config_for({"segment.bytes": "2097152", "internal.segment.bytes": "512"}).segment_bytes == 512


def test_every_log_config_field_is_filled_from_its_topic_config():
    overrides = {"segment.bytes": "2097152", "segment.ms": "11", "segment.jitter.ms": "12",
                 "segment.index.bytes": "13", "index.interval.bytes": "14", "retention.ms": "15",
                 "retention.bytes": "16", "max.message.bytes": "17", "cleanup.policy": "compact",
                 "min.insync.replicas": "2", "unclean.leader.election.enable": "true",
                 "message.timestamp.type": "LogAppendTime", "message.timestamp.before.max.ms": "18",
                 "message.timestamp.after.max.ms": "19", "compression.type": "zstd", "file.delete.delay.ms": "20",
                 "flush.messages": "21", "flush.ms": "22", "preallocate": "true"}
    config = log_config_for(overrides)
    defaults = LogConfig()
    changed = [name for name in LogConfig.field_names() if getattr(config, name) == getattr(defaults, name)]
    assert changed == [], f"LogConfig fields not mapped from topic configs: {changed}"


def test_effective_topic_config_is_typed():
    values = effective_topic_config({"min.cleanable.dirty.ratio": "0.25"})
    assert values["min.cleanable.dirty.ratio"] == 0.25 and values["message.timestamp.after.max.ms"] == 3600000
