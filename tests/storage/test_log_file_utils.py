import random

import pytest

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.storage import log_file_utils as names


def test_twenty_digit_names():
    assert names.filename_prefix_from_offset(0) == "00000000000000000000"
    assert names.filename_prefix_from_offset(1234) == "00000000000000001234"
    assert names.log_file("d", 42).endswith("d/00000000000000000042.log")
    assert names.offset_index_file("d", 42, ".deleted").endswith("00000000000000000042.index.deleted")
    assert names.time_index_file("d", 42).endswith("00000000000000000042.timeindex")
    assert names.producer_snapshot_file("d", 7).endswith("00000000000000000007.snapshot")
    assert names.offset_from_file_name("00000000000000001234.timeindex") == 1234


def test_partition_directory_names():
    assert names.log_dir_name(TopicPartition("orders", 3)) == "orders-3"
    assert names.parse_topic_partition_name("/x/my-topic-12") == TopicPartition("my-topic", 12)
    deleted = names.log_delete_dir_name(TopicPartition("orders", 0), random.Random(1))
    assert deleted.startswith("orders-0.") and deleted.endswith("-delete") and len(deleted) == 9 + 32 + 7
    assert names.parse_topic_partition_name("/x/" + deleted) == TopicPartition("orders", 0)
    assert names.is_deleted_dir("/x/" + deleted)


def test_long_topic_names_are_cut_to_fit_255_characters():
    name = names.log_delete_dir_name(TopicPartition("t" * 249, 0), random.Random(1))
    assert len(name) == 255


@pytest.mark.parametrize("bad", ["orders", "orders-x", "-1", "orders-0.abc-delete-x", "orders-0-delete"])
def test_foreign_directories_are_refused_in_kafkas_words(bad):
    with pytest.raises(KafkaException, match="is not in the form of topic-partition or "
                                             r"topic-partition.uniqueId-delete \(if marked for deletion\)"):
        names.parse_topic_partition_name("/data/" + bad)
