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
