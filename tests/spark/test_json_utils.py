from __future__ import annotations

import pytest

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark import json_utils
from minikafka.spark.errors import IllegalArgumentException


def test_partitions_reads_the_assign_option():
    assert json_utils.partitions('{"a":[0,1],"b":[2]}') == [
        TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 2)
    ]


@pytest.mark.parametrize("text", ['["a"]', '{"a":0}', '{"a":["0"]}', '{"a":[true]}', "not json", ""])
def test_partitions_rejects_other_shapes_with_sparks_message(text):
    with pytest.raises(IllegalArgumentException) as error:
        json_utils.partitions(text)
    assert str(error.value) == f'Expected e.g. {{"topicA":[0,1],"topicB":[0,1]}}, got {text}'


def test_partition_offsets_reads_offsets_and_sentinels():
    parsed = json_utils.partition_offsets('{"a":{"0":23,"1":-1},"b":{"0":-2}}')
    assert parsed == {TopicPartition("a", 0): 23, TopicPartition("a", 1): -1, TopicPartition("b", 0): -2}


@pytest.mark.parametrize("text", ['{"a":[0]}', '{"a":{"x":1}}', '{"a":{"0":"5"}}', '{"a":{"0":1.5}}', "latest!"])
def test_partition_offsets_rejects_other_shapes_with_sparks_message(text):
    with pytest.raises(IllegalArgumentException) as error:
        json_utils.partition_offsets(text)
    assert str(error.value) == f'Expected e.g. {{"topicA":{{"0":23,"1":-1}},"topicB":{{"0":-2}}}}, got {text}'


def test_offsets_are_written_sorted_with_string_partition_keys():
    offsets = {TopicPartition("b", 0): 0, TopicPartition("a", 10): 3, TopicPartition("a", 2): 2,
               TopicPartition("a", 0): 1}
    assert json_utils.to_offset_dict(offsets) == {"a": {"0": 1, "2": 2, "10": 3}, "b": {"0": 0}}
    assert list(json_utils.to_offset_dict(offsets)["a"]) == ["0", "2", "10"]
    assert json_utils.partition_offsets_json(offsets) == '{"a":{"0":1,"2":2,"10":3},"b":{"0":0}}'


def test_offset_dicts_round_trip():
    offsets = {TopicPartition("t", 0): 7, TopicPartition("t", 1): 0}
    assert json_utils.from_offset_dict(json_utils.to_offset_dict(offsets)) == offsets


def test_from_offset_dict_rejects_a_non_integer_offset():
    with pytest.raises(IllegalArgumentException):
        json_utils.from_offset_dict({"t": {"0": "7"}})
