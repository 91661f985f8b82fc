import pytest

from minikafka.common.errors import ConfigException
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig


def test_defaults_are_kafkas():
    config = GroupCoordinatorConfig.from_configs({}, "kafka")
    assert (config.min_session_timeout_ms, config.max_session_timeout_ms) == (6000, 1800000)
    assert config.initial_rebalance_delay_ms == 3000 and config.offsets_topic_num_partitions == 50
    assert config.offset_metadata_max_bytes == 4096 and config.max_size == 2**31 - 1
    assert config.offsets_retention_ms == 7 * 24 * 3600 * 1000


def test_teaching_profile_shortens_the_initial_delay_but_not_the_session_bounds():
    config = GroupCoordinatorConfig.from_configs(None, "teaching")
    assert config.initial_rebalance_delay_ms == 600
    assert config.min_session_timeout_ms == 6000


def test_broker_configs_override_defaults():
    config = GroupCoordinatorConfig.from_configs({"offsets.topic.num.partitions": "3",
                                                  "group.max.size": 10, "unrelated": "x"})
    assert (config.offsets_topic_num_partitions, config.max_size) == (3, 10)


@pytest.mark.parametrize("name,value,message", [
    ("group.max.size", 0, "Invalid value 0 for configuration group.max.size: Value must be at least 1"),
    ("offsets.topic.num.partitions", "x",
     "Invalid value x for configuration offsets.topic.num.partitions: Not a number of type INT"),
])
def test_bad_values_are_refused_in_kafkas_words(name, value, message):
    with pytest.raises(ConfigException) as info:
        GroupCoordinatorConfig.from_configs({name: value})
    assert str(info.value) == message


def test_consumer_protocol_bounds_are_kafkas_and_the_teaching_profile_scales_them_too():
    kafka = GroupCoordinatorConfig.from_configs({}, "kafka")
    assert (kafka.consumer_group_min_session_timeout_ms, kafka.consumer_group_session_timeout_ms,
            kafka.consumer_group_max_session_timeout_ms) == (45000, 45000, 60000)
    assert (kafka.consumer_group_min_heartbeat_interval_ms, kafka.consumer_group_heartbeat_interval_ms,
            kafka.consumer_group_max_heartbeat_interval_ms) == (5000, 5000, 15000)
    teaching = GroupCoordinatorConfig.from_configs({}, "teaching")
    for name in ("session_timeout_ms", "min_session_timeout_ms", "max_session_timeout_ms",
                 "heartbeat_interval_ms", "min_heartbeat_interval_ms", "max_heartbeat_interval_ms"):
        assert getattr(teaching, "consumer_group_" + name) * 5 == getattr(kafka, "consumer_group_" + name)


@pytest.mark.parametrize("configs,message", [
    ({"group.consumer.max.heartbeat.interval.ms": 4000},
     "group.consumer.max.heartbeat.interval.ms must be greater than or equal to "
     "group.consumer.min.heartbeat.interval.ms"),
    ({"group.consumer.heartbeat.interval.ms": 1000},
     "group.consumer.heartbeat.interval.ms must be greater than or equal to "
     "group.consumer.min.heartbeat.interval.ms"),
    ({"group.consumer.heartbeat.interval.ms": 16000},
     "group.consumer.heartbeat.interval.ms must be less than or equal to "
     "group.consumer.max.heartbeat.interval.ms"),
    ({"group.consumer.max.session.timeout.ms": 40000},
     "group.consumer.max.session.timeout.ms must be greater than or equal to "
     "group.consumer.min.session.timeout.ms"),
    ({"group.consumer.session.timeout.ms": 9000},
     "group.consumer.session.timeout.ms must be greater than or equal to "
     "group.consumer.min.session.timeout.ms"),
    ({"group.consumer.session.timeout.ms": 61000},
     "group.consumer.session.timeout.ms must be less than or equal to "
     "group.consumer.max.session.timeout.ms"),
    ({"group.consumer.min.session.timeout.ms": 10000, "group.consumer.session.timeout.ms": 12000,
      "group.consumer.heartbeat.interval.ms": 14000},
     "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms"),
    # two violations: 4.3.1 checks the heartbeat bounds first
    ({"group.consumer.session.timeout.ms": 1, "group.consumer.heartbeat.interval.ms": 1},
     "group.consumer.heartbeat.interval.ms must be greater than or equal to "
     "group.consumer.min.heartbeat.interval.ms"),
])
def test_consumer_protocol_requirements_in_kafkas_order_and_words(configs, message):
    """The ``Utils.require`` checks of 4.3.1's GroupCoordinatorConfig (an IllegalArgumentException)."""
    with pytest.raises(ConfigException) as info:
        GroupCoordinatorConfig.from_configs(configs, "kafka")
    assert str(info.value) == message
    assert info.value.java_class == "java.lang.IllegalArgumentException"


def test_a_cluster_refuses_a_bad_consumer_protocol_setting_before_writing_anything(tmp_path):
    from minikafka import Cluster
    with pytest.raises(ConfigException, match="^group.consumer.session.timeout.ms must be greater than or "
                                              "equal to group.consumer.min.session.timeout.ms$"):
        Cluster(brokers=1, controllers=1, data_dir=tmp_path / "c",
                broker_config={"group.consumer.session.timeout.ms": 5000})
    assert not (tmp_path / "c").exists()
