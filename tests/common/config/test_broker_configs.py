"""Broker config table, dynamic/read-only sets, synonyms and dynamic-update refusals."""

from __future__ import annotations

import pytest

from minikafka.common import timing
from minikafka.common.config.broker_configs import (
    BROKER_CONFIG_DEF, DYNAMIC_BROKER_CONFIGS, LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT, broker_config_synonyms,
    dynamic_update_error, is_read_only, parse_voters, timing_static_props)
from minikafka.common.config.config_def import convert_to_string
from minikafka.common.errors import ConfigException

# A selection of Kafka 4.3.1 broker defaults (the same as 4.1's), as DescribeConfigs prints them.
GOLDEN = {
    "num.partitions": "1", "default.replication.factor": "1", "min.insync.replicas": "1",
    "unclean.leader.election.enable": "false", "auto.create.topics.enable": "true",
    "delete.topic.enable": "true", "offsets.topic.num.partitions": "50",
    "offsets.topic.replication.factor": "3", "message.max.bytes": "1048588",
    "replica.fetch.max.bytes": "1048576", "socket.request.max.bytes": "104857600",
    "group.initial.rebalance.delay.ms": "3000", "group.min.session.timeout.ms": "6000",
    "group.max.session.timeout.ms": "1800000", "group.max.size": "2147483647",
    "log.dir": "/tmp/kafka-logs", "log.dirs": None, "log.segment.bytes": "1073741824",
    "log.roll.ms": None, "log.roll.hours": "168", "log.retention.ms": None, "log.retention.minutes": None,
    "log.retention.hours": "168", "log.retention.bytes": "-1", "log.cleanup.policy": "delete",
    "log.message.timestamp.after.max.ms": "3600000", "num.recovery.threads.per.data.dir": "2",
    "listeners": "PLAINTEXT://:9092", "advertised.listeners": None,
    "listener.security.protocol.map": "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
    "controller.quorum.voters": "", "controller.quorum.bootstrap.servers": "", "metadata.log.dir": None,
    "metadata.log.segment.bytes": "1073741824", "metadata.max.idle.interval.ms": "500",
    "broker.session.timeout.ms": "9000", "broker.heartbeat.interval.ms": "2000",
    "replica.lag.time.max.ms": "30000", "compression.type": "producer", "fetch.max.bytes": "57671680",
}


def test_golden_defaults():
    actual = {name: convert_to_string(BROKER_CONFIG_DEF[name].default, BROKER_CONFIG_DEF[name].type)
              for name in GOLDEN}
    assert actual == GOLDEN
    assert not BROKER_CONFIG_DEF["process.roles"].has_default
    assert not BROKER_CONFIG_DEF["node.id"].has_default
    assert BROKER_CONFIG_DEF["offsets.topic.replication.factor"].type.name == "SHORT"
    assert LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT == GOLDEN["listener.security.protocol.map"]


def test_list_rows_as_in_kafka_4_3_1():
    # Types, defaults and "Valid Values" as Kafka 4.3.1's KafkaConfig.configDef() prints them.
    rows = {name: (BROKER_CONFIG_DEF[name].type.name, BROKER_CONFIG_DEF[name].has_default,
                   str(BROKER_CONFIG_DEF[name].validator))
            for name in ("controller.listener.names", "log.dir", "log.dirs", "listeners", "advertised.listeners",
                         "process.roles", "log.cleanup.policy", "num.replica.fetchers")}
    assert rows == {
        "controller.listener.names": ("LIST", False, ""), "log.dir": ("LIST", True, ""),
        "log.dirs": ("LIST", True, ""), "listeners": ("LIST", True, ""), "advertised.listeners": ("LIST", True, ""),
        "process.roles": ("LIST", False, "[broker, controller]"),
        "log.cleanup.policy": ("LIST", True, "[compact, delete]"), "num.replica.fetchers": ("INT", True, "[1,...]")}


def test_every_timing_setting_is_a_broker_config_with_kafkas_default():
    assert timing_static_props(timing.KAFKA) == {}


def test_teaching_profile_becomes_static_props():
    props = timing_static_props(timing.TEACHING)
    assert props["broker.session.timeout.ms"] == "1800"
    assert "log.segment.delete.delay.ms" not in props        # not scaled: Kafka's default stays implicit
    assert "request.timeout.ms" not in props                   # unscaled: still Kafka's default


@pytest.mark.parametrize("name", ["log.retention.ms", "log.segment.bytes", "log.roll.ms", "min.insync.replicas",
                                  "message.max.bytes", "log.cleanup.policy", "unclean.leader.election.enable",
                                  "num.io.threads", "listeners", "log.message.timestamp.after.max.ms"])
def test_dynamic(name):
    assert name in DYNAMIC_BROKER_CONFIGS and not is_read_only(name)


@pytest.mark.parametrize("name", ["log.retention.hours", "log.roll.hours", "log.dirs", "node.id", "process.roles",
                                  "num.partitions", "default.replication.factor", "broker.session.timeout.ms",
                                  "offsets.topic.num.partitions", "custom.thing"])
def test_read_only(name):
    assert is_read_only(name)


@pytest.mark.parametrize("name, group", [
    ("log.retention.hours", ["log.retention.ms", "log.retention.minutes", "log.retention.hours"]),
    ("log.roll.ms", ["log.roll.ms", "log.roll.hours"]),
    ("log.roll.jitter.hours", ["log.roll.jitter.ms", "log.roll.jitter.hours"]),
    ("log.flush.interval.ms", ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]),
    ("log.flush.scheduler.interval.ms", ["log.flush.scheduler.interval.ms"]),
    ("listener.name.internal.max.connections", ["listener.name.internal.max.connections", "max.connections"]),
    ("num.partitions", ["num.partitions"]),
])
def test_synonyms(name, group):
    assert broker_config_synonyms(name) == group


def test_dynamic_update_refusals():
    assert dynamic_update_error({"log.retention.ms": "1000"}, per_broker=False) is None
    assert dynamic_update_error({"my.custom": "x"}, per_broker=False) is None
    assert dynamic_update_error({"log.dirs": "/x", "num.partitions": "3"}, per_broker=True) == (
        "Cannot update these configs dynamically: [num.partitions, log.dirs]")   # a Java HashSet (4.3)
    assert dynamic_update_error({"log.retention.ms": "soon"}, per_broker=True) == (
        "Invalid value soon for configuration log.retention.ms: Not a number of type LONG")
    assert dynamic_update_error({"log.segment.bytes": "1024"}, per_broker=True) == (
        "Invalid value 1024 for configuration log.segment.bytes: Value must be at least 1048576")
    assert dynamic_update_error({"listeners": "PLAINTEXT://:9092"}, per_broker=False) == (
        "Cannot update these configs at default cluster level, broker id must be specified: [listeners]")
    assert dynamic_update_error({"listeners": "PLAINTEXT://:9092"}, per_broker=True) is None
    assert dynamic_update_error({"num.replica.fetchers": "0"}, per_broker=True) == (
        "Invalid value 0 for configuration num.replica.fetchers: Value must be at least 1")
    assert dynamic_update_error({"log.cleanup.policy": "compact,"}, per_broker=False) == (
        "Configuration 'log.cleanup.policy' values must not be empty.")


def test_voter_parsing():
    assert parse_voters(["1@localhost:9093", "2@[::1]:9094"]) == {1: ("localhost", 9093), 2: ("::1", 9094)}
    form = "Each entry should be in the form `{id}@{host}:{port}`."
    for entry, text in [
        ("1localhost:9093", f"Invalid configuration value for controller.quorum.voters. {form}"),
        ("1@a@b:1", f"Invalid configuration value for controller.quorum.voters. {form}"),
        ("x@localhost:9093", "Failed to parse voter ID as an integer from x"),
        ("1@localhost", f"Failed to parse host name from entry 1@localhost for the configuration "
                        f"controller.quorum.voters. {form}"),
    ]:
        with pytest.raises(ConfigException) as info:
            parse_voters([entry])
        assert str(info.value) == text
