"""KafkaConfig: start-up parsing and checks, dynamic layering, derived log defaults."""

from __future__ import annotations

import pytest

from minikafka.common.config.kafka_config import KafkaConfig, RequirementFailed
from minikafka.common.errors import ConfigException

BROKER = {"process.roles": "broker", "node.id": "1", "controller.quorum.voters": "1001@localhost:9093",
          "controller.listener.names": "CONTROLLER"}
CONTROLLER = {"process.roles": "controller", "node.id": "1001",
              "controller.quorum.voters": "1001@localhost:9093,1002@localhost:9094",
              "controller.listener.names": "CONTROLLER"}


def failure(props) -> ConfigException:
    with pytest.raises(ConfigException) as info:
        KafkaConfig(props)
    return info.value


def test_a_plain_broker():
    config = KafkaConfig(BROKER)
    assert config.node_id == 1 and config.get("broker.id") == 1
    assert config.process_roles == ("broker",) and config.is_broker and not config.is_controller
    assert config.log_dirs == ["/tmp/kafka-logs"] and config.metadata_log_dir == "/tmp/kafka-logs"
    assert config.quorum_voters == {1001: ("localhost", 9093)}
    assert config.static_props["broker.id"] == "1"         # populated from node.id, as Kafka does


def test_required_settings():
    assert str(failure({})) == 'Missing required configuration "process.roles" which has no default value.'
    props = dict(BROKER)
    del props["node.id"]
    assert str(failure(props)) == 'Missing required configuration "node.id" which has no default value.'


def test_bad_values_fail_at_start_up():
    assert str(failure({**BROKER, "log.segment.bytes": "100"})) == (
        "Invalid value 100 for configuration log.segment.bytes: Value must be at least 1048576")
    assert str(failure({**BROKER, "process.roles": "broker,zookeeper"})) == (
        "Invalid value zookeeper for configuration process.roles: String must be one of: broker, controller")
    assert str(failure({**BROKER, "broker.id": "2"})) == "You must set `node.id` to the same value as `broker.id`."


@pytest.mark.parametrize("extra, text", [
    ({"log.roll.ms": "0"}, "log.roll.ms must be greater than or equal to 1"),
    ({"log.roll.jitter.ms": "-1"}, "log.roll.jitter.ms must be greater than or equal to 0"),
    ({"log.retention.ms": "0"}, "log.retention.ms must be unlimited (-1) or, greater than or equal to 1"),
    ({"replica.fetch.wait.max.ms": "40000"}, "replica.socket.timeout.ms should always be at least "
                                             "replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"),
    ({"replica.lag.time.max.ms": "100"}, "replica.fetch.wait.max.ms should always be less than or equal to "
                                         "replica.lag.time.max.ms to prevent frequent changes in ISR"),
    ({"controller.quorum.voters": "1@localhost:9093"}, "If process.roles contains just the 'broker' role, the node "
     "id 1 must not be included in the set of voters controller.quorum.voters=Set(1)"),
])
def test_requirements(extra, text):
    error = failure({**BROKER, **extra})
    assert isinstance(error, RequirementFailed)
    assert str(error) == f"requirement failed: {text}"
    assert error.java_class == "java.lang.IllegalArgumentException"


def test_a_repeated_role_is_dropped():
    # Kafka 4.3.1 KafkaConfig.fromProps: process.roles=broker,broker is Set(broker).
    assert KafkaConfig({**BROKER, "process.roles": "broker, broker"}).process_roles == ("broker",)


def test_listener_names_are_required_and_non_empty():
    props = dict(BROKER)
    del props["controller.listener.names"]
    assert str(failure(props)) == (
        'Missing required configuration "controller.listener.names" which has no default value.')
    assert KafkaConfig({**BROKER, "controller.listener.names": "A, B,A"}).controller_listener_names == ["A", "B"]


@pytest.mark.parametrize("name, value, text", [   # texts of Kafka 4.3.1 KafkaConfig.fromProps
    ("controller.listener.names", " ", "Configuration 'controller.listener.names' must not be empty. "
                                       "Valid values include: any non-empty value"),
    ("controller.listener.names", "A,", "Configuration 'controller.listener.names' values must not be empty."),
    ("log.dirs", "", "Configuration 'log.dirs' must not be empty. Valid values include: any non-empty value"),
    ("log.dirs", "/a,", "Configuration 'log.dirs' values must not be empty."),
    ("log.dir", " , ", "Configuration 'log.dir' values must not be empty."),
    ("listeners", "", "Configuration 'listeners' must not be empty. Valid values include: any non-empty value"),
    ("advertised.listeners", "PLAINTEXT://h:9092,", "Configuration 'advertised.listeners' values must not be empty."),
    ("process.roles", " ", "Configuration 'process.roles' must not be empty. Valid values include: "
                           "[broker, controller]"),
    ("process.roles", "broker,", "Configuration 'process.roles' values must not be empty."),
    ("num.replica.fetchers", "0", "Invalid value 0 for configuration num.replica.fetchers: Value must be at least 1"),
])
def test_list_settings_refuse_empty_values(name, value, text):
    error = failure({**BROKER, name: value})
    assert str(error) == text and not isinstance(error, RequirementFailed)


def test_log_dirs_are_lists():
    assert KafkaConfig({**BROKER, "log.dir": "/a,/b"}).log_dirs == ["/a", "/b"]
    assert KafkaConfig({**BROKER, "log.dir": "/x", "log.dirs": "/a, /a ,/b"}).log_dirs == ["/a", "/b"]


def test_negative_retention_means_forever():
    assert KafkaConfig({**BROKER, "log.retention.ms": "-5"}).log_retention_time_millis == -1


def test_controller_must_be_a_voter():
    KafkaConfig(CONTROLLER)
    error = failure({**CONTROLLER, "node.id": "1003"})
    assert str(error) == ("requirement failed: If process.roles contains the 'controller' role, the node id 1003 "
                          "must be included in the set of voters controller.quorum.voters=Set(1001, 1002)")


def test_quorum_must_be_configured():
    error = failure({**BROKER, "controller.quorum.voters": ""})
    assert str(error) == ("If using process.roles, either controller.quorum.bootstrap.servers must contain the set "
                          "of bootstrap controllers or controller.quorum.voters must contain a parseable set of "
                          "controllers.")
    KafkaConfig({**BROKER, "controller.quorum.voters": "", "controller.quorum.bootstrap.servers": "localhost:9093"})


def test_log_config_map_follows_synonym_precedence():
    config = KafkaConfig({**BROKER, "log.retention.hours": "2", "log.retention.minutes": "3", "log.roll.hours": "1",
                          "log.flush.scheduler.interval.ms": "500", "log.cleanup.policy": "compact"})
    m = config.log_config_map()
    assert m["retention.ms"] == 180_000 and m["segment.ms"] == 3_600_000 and m["flush.ms"] == 500
    assert m["cleanup.policy"] == ["compact"] and m["max.message.bytes"] == 1048588
    assert m["file.delete.delay.ms"] == 60000 and m["message.timestamp.after.max.ms"] == 3600000
    explicit = KafkaConfig({**BROKER, "log.retention.ms": "10", "log.retention.hours": "2"})
    assert explicit.log_config_map()["retention.ms"] == 10


def test_dynamic_layers():
    static = KafkaConfig({**BROKER, "log.retention.ms": "100"})
    layered = static.with_dynamic({"log.retention.ms": "200", "num.partitions": "9", "listeners": "X://:1",
                                   "log.segment.bytes": "7", "my.custom": "v"},
                                  {"log.retention.ms": "300"})
    assert layered.get("log.retention.ms") == 300
    assert layered.get("num.partitions") == 1                 # read-only: a dynamic value is ignored
    assert layered.get("listeners") == ["PLAINTEXT://:9092"]  # per-broker only: ignored as a cluster default
    assert layered.get("log.segment.bytes") == 1073741824     # invalid dynamic value: ignored
    assert layered.dynamic_default == {"log.retention.ms": "200", "my.custom": "v"}
    assert layered.custom_props == {"my.custom": "v"}
    assert static.with_dynamic({"log.retention.ms": "200"}).get("log.retention.ms") == 200


def test_ms_converts_units():
    config = KafkaConfig(BROKER)
    assert config.ms("leader.imbalance.check.interval.seconds") == 300_000
    assert config.ms("offsets.retention.minutes") == 7 * 24 * 60 * 60_000
    assert config.ms("broker.session.timeout.ms") == 9000


def test_static_default_strings():
    defaults = KafkaConfig.static_default_strings()
    assert defaults["log.retention.hours"] == "168" and "log.retention.ms" not in defaults
