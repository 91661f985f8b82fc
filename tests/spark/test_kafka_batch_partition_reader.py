from __future__ import annotations

import logging
import pickle

import pytest
from pyspark.sql.datasource import InputPartition

from minikafka.spark.errors import KafkaIllegalStateException, SparkAssertionError
from minikafka.spark.kafka_batch_partition_reader import (
    KafkaBatchInputPartition,
    fetch_range,
    read_partition,
    resolve_range,
)
from minikafka.spark.kafka_offset_range_limit import EARLIEST, LATEST, KafkaOffsetRange
from minikafka.spark.kafka_source_provider import client_config
from tests.spark._spark_helpers import fill, options, tp


@pytest.fixture
def cluster(kafka):
    kafka.create_topic("t", 1)
    fill(kafka, "t", {0: 10})
    return kafka


def offsets(records):
    return [r.offset for r in records]


def test_late_binding_replaces_sentinels(cluster):
    cluster.delete_records(tp("t", 0), 3)
    assert resolve_range(cluster, KafkaOffsetRange(tp("t", 0), EARLIEST, LATEST)) == KafkaOffsetRange(tp("t", 0), 3, 10)


def test_a_start_after_the_end_is_an_assertion(cluster):
    with pytest.raises(SparkAssertionError) as error:
        resolve_range(cluster, KafkaOffsetRange(tp("t", 0), 12, LATEST))
    assert str(error.value) == (
        "assertion failed: Beginning offset 12 is after the ending offset 10 for topic t partition 0. "
        "You either provided an invalid fromOffset, or the Kafka topic has been damaged"
    )


def test_reads_exactly_the_half_open_range(cluster):
    assert offsets(fetch_range(cluster, KafkaOffsetRange(tp("t", 0), 2, 6), True, "g")) == [2, 3, 4, 5]


def test_missing_start_fails_when_fail_on_data_loss(cluster):
    cluster.delete_records(tp("t", 0), 4)
    with pytest.raises(KafkaIllegalStateException) as error:
        list(fetch_range(cluster, KafkaOffsetRange(tp("t", 0), 2, 6), True, "g-executor"))
    assert error.value.condition == "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"
    assert str(error.value).endswith(
        "Could not read records in offset [2, 6) for topic partition t-0\nwith consumer group g-executor."
    )


def test_missing_start_skips_to_earliest_otherwise(cluster, caplog):
    cluster.delete_records(tp("t", 0), 4)
    with caplog.at_level(logging.WARNING, logger="minikafka.spark"):
        assert offsets(fetch_range(cluster, KafkaOffsetRange(tp("t", 0), 2, 6), False, "g")) == [4, 5]
    assert "Recovering from the earliest offset: 4" in caplog.text


def test_a_range_entirely_gone_reads_nothing(cluster):
    cluster.delete_records(tp("t", 0), 8)
    assert offsets(fetch_range(cluster, KafkaOffsetRange(tp("t", 0), 2, 6), False, "g")) == []


def test_read_partition_yields_arrow_batches_and_ignores_the_placeholder(cluster):
    partition = KafkaBatchInputPartition(KafkaOffsetRange(tp("t", 0), 3, LATEST), client_config(options(cluster)),
                                         True, False, "g")
    partition = pickle.loads(pickle.dumps(partition))  # as Spark ships it to a task
    batches = list(read_partition(partition, batch_rows=3))
    assert [batch.num_rows for batch in batches] == [3, 3, 1]
    rows = [row for batch in batches for row in batch.to_pylist()]
    assert [(r["topic"], r["partition"], r["offset"], r["value"]) for r in rows] == [
        ("t", 0, n, f"0:{n}".encode()) for n in range(3, 10)
    ]
    assert list(read_partition(InputPartition(None))) == []
