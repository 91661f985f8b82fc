"""IncrementalAlterConfigs semantics: SET/DELETE/APPEND/SUBTRACT, records, refusals."""

from __future__ import annotations

import pytest

from minikafka.common.config.alter import (
    AlterConfigOp as Op, OpType, alter_broker, alter_topic, apply_ops, create_topic_configs)
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.config.topic_configs import TOPIC_CONFIG_DEF
from minikafka.common.errors import (
    ConfigException, Errors, InvalidConfigurationException, InvalidRequestException, InvalidTopicException)

SET, DELETE, APPEND, SUBTRACT = OpType.SET, OpType.DELETE, OpType.APPEND, OpType.SUBTRACT
CONTROLLER = KafkaConfig({"process.roles": "controller", "node.id": "1001",
                          "controller.quorum.voters": "1001@localhost:9093", "controller.listener.names": "CONTROLLER"})


def test_op_codes():
    assert [int(op) for op in (SET, DELETE, APPEND, SUBTRACT)] == [0, 1, 2, 3]


def test_set_and_delete():
    outcome = alter_topic("t", {"retention.ms": "1", "segment.ms": "5"},
                          [Op("retention.ms", SET, "2"), Op("segment.ms", DELETE)], CONTROLLER)
    assert outcome.configs == {"retention.ms": "2"}
    assert outcome.records == (("retention.ms", "2"), ("segment.ms", None))


def test_unchanged_topic_values_write_no_record():
    outcome = alter_topic("t", {"retention.ms": "1"}, [Op("retention.ms", SET, "1"), Op("flush.ms", DELETE)],
                          CONTROLLER)
    assert outcome.records == () and outcome.configs == {"retention.ms": "1"}


def test_append_starts_from_the_default():
    outcome = alter_topic("t", {}, [Op("cleanup.policy", APPEND, "compact")], CONTROLLER)
    assert outcome.configs == {"cleanup.policy": "delete,compact"}


def test_append_and_subtract_on_lists():
    current = {"leader.replication.throttled.replicas": "0:1,1:2"}
    appended = apply_ops(current, [Op("leader.replication.throttled.replicas", APPEND, "1:2,2:3")], TOPIC_CONFIG_DEF)
    assert appended.configs["leader.replication.throttled.replicas"] == "0:1,1:2,2:3"
    removed = apply_ops(current, [Op("leader.replication.throttled.replicas", SUBTRACT, "0:1,9:9")], TOPIC_CONFIG_DEF)
    assert removed.configs["leader.replication.throttled.replicas"] == "1:2"
    emptied = alter_topic("t", {}, [Op("cleanup.policy", SUBTRACT, "delete")], CONTROLLER)
    assert emptied.configs == {"cleanup.policy": ""}


def test_append_to_a_non_list_is_refused():
    with pytest.raises(InvalidConfigurationException) as info:
        alter_topic("t", {}, [Op("retention.ms", APPEND, "5")], CONTROLLER)
    assert str(info.value) == "Can't APPEND to key retention.ms because its type is not LIST."
    with pytest.raises(InvalidConfigurationException, match="^Can't SUBTRACT to key foo because its type is not LIST.$"):
        alter_topic("t", {}, [Op("foo", SUBTRACT, "5")], CONTROLLER)


def test_the_whole_result_is_validated():
    with pytest.raises(ConfigException) as info:
        alter_topic("t", {}, [Op("cleanup.policy", APPEND, "compacted")], CONTROLLER)
    assert str(info.value) == "Invalid value compacted for configuration cleanup.policy: String must be one of: compact, delete"
    with pytest.raises(InvalidConfigurationException, match="^Unknown topic config name: foo$"):
        alter_topic("t", {}, [Op("foo", SET, "1")], CONTROLLER)
    with pytest.raises(InvalidConfigurationException, match=r"min.compaction.lag.ms \(10\) > max.compaction.lag.ms \(5\)"):
        alter_topic("t", {"max.compaction.lag.ms": "5"}, [Op("min.compaction.lag.ms", SET, "10")], CONTROLLER)


def test_request_level_refusals():
    with pytest.raises(InvalidRequestException, match="^Error due to duplicate config keys$"):
        alter_topic("t", {}, [Op("retention.ms", SET, "1"), Op("retention.ms", DELETE)], CONTROLLER)
    with pytest.raises(InvalidRequestException) as info:
        alter_topic("t", {}, [Op("retention.ms", SET, None), Op("segment.ms", APPEND, None)], CONTROLLER)
    assert str(info.value) == "Null value not supported for : retention.ms, segment.ms"
    assert info.value.error is Errors.INVALID_REQUEST


def test_topic_resource_names():
    with pytest.raises(InvalidRequestException, match="^Default topic resources are not allowed.$"):
        alter_topic("", {}, [Op("retention.ms", SET, "1")], CONTROLLER)
    with pytest.raises(InvalidTopicException, match="^Topic name is invalid: '..' is not allowed$"):
        alter_topic("..", {}, [Op("retention.ms", SET, "1")], CONTROLLER)


def test_value_size_limit():
    with pytest.raises(InvalidConfigurationException) as info:
        alter_topic("t", {}, [Op("leader.replication.throttled.replicas", SET, "1:1," * 9000)], CONTROLLER)
    assert str(info.value) == ("The configuration value cannot be added because it exceeds the maximum value "
                               "size of 32767 bytes.")


def test_failed_alter_leaves_the_input_untouched():
    current = {"retention.ms": "1"}
    with pytest.raises(ConfigException):
        alter_topic("t", current, [Op("retention.ms", SET, "x")], CONTROLLER)
    assert current == {"retention.ms": "1"}


def test_broker_alters_always_write_records():
    outcome = alter_broker("", {"log.retention.ms": "5"}, [Op("log.retention.ms", SET, "5")])
    assert outcome.records == (("log.retention.ms", "5"),)
    per_broker = alter_broker("1", {}, [Op("listeners", SET, "PLAINTEXT://:9092")], receiving_node_id=1)
    assert per_broker.configs == {"listeners": "PLAINTEXT://:9092"}


def test_broker_refusals():
    cases = [
        (lambda: alter_broker("", {}, [Op("log.dirs", SET, "/x")]), InvalidRequestException,
         "Cannot update these configs dynamically: [log.dirs]"),
        (lambda: alter_broker("", {}, [Op("listeners", SET, "P://:1")]), InvalidRequestException,
         "Cannot update these configs at default cluster level, broker id must be specified: [listeners]"),
        (lambda: alter_broker("", {}, [Op("log.retention.ms", SET, "x")]), InvalidRequestException,
         "Invalid value x for configuration log.retention.ms: Not a number of type LONG"),
        (lambda: alter_broker("", {}, [Op("log.retention.ms", APPEND, "1")]), InvalidConfigurationException,
         "Config value append is not allowed for config key: log.retention.ms"),
        (lambda: alter_broker("2", {}, [Op("log.retention.ms", SET, "1")], receiving_node_id=1),
         InvalidRequestException, "Unexpected broker id, expected 1, but received 2"),
        (lambda: alter_broker("x", {}, [Op("log.retention.ms", SET, "1")], receiving_node_id=1),
         InvalidRequestException, "Node id must be an integer, but it is: x"),
        (lambda: alter_broker("x", {}, [Op("log.retention.ms", SET, "1")]), InvalidRequestException,
         "Unable to parse broker name as a base 10 number."),
        (lambda: alter_broker("-1", {}, [Op("log.retention.ms", SET, "1")]), InvalidRequestException,
         "Invalid negative broker ID."),
        (lambda: alter_broker("1", {}, [Op("min.insync.replicas", SET, "2")]), InvalidConfigurationException,
         "Broker-level min.insync.replicas cannot be altered while ELR is enabled."),
        (lambda: alter_broker("", {"min.insync.replicas": "2"}, [Op("min.insync.replicas", DELETE)]),
         InvalidConfigurationException, "Cluster-level min.insync.replicas cannot be removed while ELR is enabled."),
    ]
    for call, exc_type, text in cases:
        with pytest.raises(exc_type) as info:
            call()
        assert str(info.value) == text


def test_min_insync_without_elr():
    outcome = alter_broker("1", {}, [Op("min.insync.replicas", SET, "2")], elr_enabled=False)
    assert outcome.configs == {"min.insync.replicas": "2"}
    assert alter_broker("", {}, [Op("min.insync.replicas", SET, "2")]).configs == {"min.insync.replicas": "2"}


def test_create_topic_configs():
    outcome = create_topic_configs("t", [("retention.ms", "1"), ("cleanup.policy", "compact"), ("retention.ms", "2")],
                                   CONTROLLER)
    assert outcome.configs == {"retention.ms": "2", "cleanup.policy": "compact"}
    assert outcome.records == (("retention.ms", "2"), ("cleanup.policy", "compact"))
    with pytest.raises(InvalidConfigurationException) as info:
        create_topic_configs("t", [("a", None), ("retention.ms", None)], CONTROLLER)
    assert str(info.value) == "Null value not supported for topic configs: a,retention.ms"
    with pytest.raises(ConfigException, match="segment.bytes: Value must be at least 1048576"):
        create_topic_configs("t", [("segment.bytes", "1000")], CONTROLLER)
    assert create_topic_configs("t", [], CONTROLLER).records == ()
