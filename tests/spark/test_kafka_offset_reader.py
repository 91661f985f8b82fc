from __future__ import annotations

import pytest

from minikafka.spark.consumer_strategy import SubscribeStrategy
from minikafka.spark.errors import IllegalStateException, KafkaIllegalStateException, SparkAssertionError
from minikafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    KafkaOffsetRange,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
)
from minikafka.spark.kafka_offset_reader import KafkaOffsetReader
from tests.spark._spark_helpers import fill, tp


class Reports:
    """Collects report_data_loss calls: the message and the exception that would be raised."""

    def __init__(self):
        self.calls: list[tuple[str, Exception]] = []

    def __call__(self, message, make_exception):
        self.calls.append((message, make_exception()))


@pytest.fixture
def reader(kafka):
    kafka.create_topic("t", 2)
    fill(kafka, "t", {0: 5, 1: 3})
    return KafkaOffsetReader(SubscribeStrategy(("t",)), kafka)


def test_earliest_and_latest_of_the_covered_partitions(reader, kafka):
    kafka.delete_records(tp("t", 0), 2)
    assert reader.fetch_earliest_offsets() == {tp("t", 0): 2, tp("t", 1): 0}
    assert reader.fetch_latest_offsets() == {tp("t", 0): 5, tp("t", 1): 3}
    assert reader.fetch_earliest_offsets([tp("t", 1), tp("gone", 0)]) == {tp("t", 1): 0}


def test_specific_offsets_resolve_sentinels(reader):
    resolved = reader.fetch_specific_offsets({tp("t", 0): EARLIEST, tp("t", 1): LATEST})
    assert resolved == {tp("t", 0): 0, tp("t", 1): 3}
    assert reader.fetch_specific_offsets({tp("t", 0): 4, tp("t", 1): 1}) == {tp("t", 0): 4, tp("t", 1): 1}


def test_specific_offsets_must_name_every_partition(reader):
    with pytest.raises(SparkAssertionError) as error:
        reader.fetch_specific_offsets({tp("t", 0): 1})
    assert str(error.value) == (
        "assertion failed: If startingOffsets contains specific offsets, you must specify all TopicPartitions.\n"
        "Use -1 for latest, -2 for earliest, if you don't care.\n"
        "Specified: Set(t-0) Assigned: Set(t-0, t-1)"
    )


def test_batch_ranges_keep_sentinels_for_late_binding(reader):
    ranges = reader.offset_ranges_from_unresolved(EarliestOffsetRangeLimit(), LatestOffsetRangeLimit())
    assert ranges == [KafkaOffsetRange(tp("t", 0), EARLIEST, LATEST), KafkaOffsetRange(tp("t", 1), EARLIEST, LATEST)]
    specific = SpecificOffsetRangeLimit({tp("t", 0): 1, tp("t", 1): EARLIEST})
    assert reader.offset_ranges_from_unresolved(specific, LatestOffsetRangeLimit())[0] == (
        KafkaOffsetRange(tp("t", 0), 1, LATEST)
    )


def test_batch_limit_naming_other_partitions_fails(reader):
    with pytest.raises(KafkaIllegalStateException) as error:
        reader.offset_ranges_from_unresolved(SpecificOffsetRangeLimit({tp("t", 0): 1}), LatestOffsetRangeLimit())
    assert error.value.condition == "KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED"


def test_batch_start_and_end_must_cover_the_same_partitions(reader, kafka):
    class Growing:  # adds a partition between the two planning calls
        calls = 0

        def assigned_topic_partitions(self, client):
            self.calls += 1
            if self.calls == 2:
                kafka.add_partitions("t", 3)
            return SubscribeStrategy(("t",)).assigned_topic_partitions(client)

    growing = KafkaOffsetReader(Growing(), kafka)
    with pytest.raises(IllegalStateException) as error:
        growing.offset_ranges_from_unresolved(EarliestOffsetRangeLimit(), LatestOffsetRangeLimit())
    assert str(error.value) == (
        "different topic partitions for starting offsets topics[t-0,t-1] and ending offsets topics[t-0,t-1,t-2]"
    )


def test_resolved_ranges_drop_empty_ranges(reader):
    reports = Reports()
    ranges = reader.offset_ranges_from_resolved({tp("t", 0): 2, tp("t", 1): 3}, {tp("t", 0): 5, tp("t", 1): 3}, reports)
    assert ranges == [KafkaOffsetRange(tp("t", 0), 2, 5)]
    assert reports.calls == []


def test_a_new_partition_is_read_from_its_earliest_offset(reader, kafka):
    kafka.add_partitions("t", 3)
    fill(kafka, "t", {2: 4})
    reports = Reports()
    ranges = reader.offset_ranges_from_resolved({tp("t", 0): 5, tp("t", 1): 3},
                                                {tp("t", 0): 5, tp("t", 1): 3, tp("t", 2): 4}, reports)
    assert ranges == [KafkaOffsetRange(tp("t", 2), 0, 4)]
    assert reports.calls == []


def test_a_new_partition_not_starting_at_zero_is_reported(reader, kafka):
    kafka.add_partitions("t", 3)
    fill(kafka, "t", {2: 4})
    kafka.delete_records(tp("t", 2), 1)
    reports = Reports()
    ranges = reader.offset_ranges_from_resolved({tp("t", 0): 5}, {tp("t", 0): 5, tp("t", 2): 4}, reports)
    assert ranges == [KafkaOffsetRange(tp("t", 2), 1, 4)]
    [(text, error)] = [call for call in reports.calls if "Added" in call[0]]
    assert text == "Added partition t-2 starts from 1 instead of 0. Some data may have been missed"
    assert str(error).endswith("Reason: Added partition t-2 starts from 1 instead of 0.")


def test_a_deleted_partition_is_reported(reader):
    reports = Reports()
    reader.offset_ranges_from_resolved({tp("t", 0): 5, tp("gone", 0): 3}, {tp("t", 0): 5}, reports)
    [(text, error)] = reports.calls
    assert text == "Set(gone-0) are gone. Some data may have been missed."
    assert error.condition == "KAFKA_DATA_LOSS.PARTITIONS_DELETED"


def test_a_deleted_partition_with_a_custom_group_id_adds_the_warning(kafka, reader):
    custom = KafkaOffsetReader(reader.strategy, kafka, custom_group_id=True)
    reports = Reports()
    custom.offset_ranges_from_resolved({tp("gone", 0): 3}, {}, reports)
    [(text, error)] = reports.calls
    assert text.startswith("Set(gone-0) are gone.Kafka option 'kafka.group.id' has been set on this query")
    assert error.condition == "KAFKA_DATA_LOSS.PARTITIONS_DELETED_AND_GROUP_ID_CONFIG_PRESENT"
    assert "Kafka option 'kafka.group.id' has been set on this query, it is\nnot recommended" in str(error)


def test_an_offset_that_went_backwards_is_reported(reader):
    reports = Reports()
    reader.offset_ranges_from_resolved({tp("t", 0): 9}, {tp("t", 0): 5}, reports)
    [(text, error)] = reports.calls
    assert text == "Partition t-0's offset was changed from 9 to 5, some data may have been missed"
    assert str(error).endswith("Reason: Partition t-0 offset was changed from 9 to 5.")
