"""The batch reader driven directly, as Spark's planning and task workers call it."""

from __future__ import annotations

import pytest

from minikafka.spark.errors import IllegalArgumentException
from minikafka.spark.kafka_batch import KafkaBatch
from tests.spark._spark_helpers import fill, options, rows


@pytest.fixture
def cluster(kafka):
    kafka.create_topic("t", 3)
    fill(kafka, "t", {0: 4, 1: 0, 2: 2})
    return kafka


def read_all(batch):
    return sorted((row[3], row[4]) for partition in batch.partitions() for row in rows(batch.read(partition)))


def test_one_partition_per_kafka_partition_even_when_empty(cluster):
    batch = KafkaBatch(options(cluster, subscribe="t"))
    assert [p.offset_range.topic_partition.partition for p in batch.partitions()] == [0, 1, 2]
    assert read_all(batch) == [(0, 0), (0, 1), (0, 2), (0, 3), (2, 0), (2, 1)]


def test_offsets_bind_when_the_task_runs(cluster):
    batch = KafkaBatch(options(cluster, subscribe="t"))
    planned = batch.partitions()
    fill(cluster, "t", {2: 1}, start=2)  # arrives after planning, before the task
    assert [row[4] for row in rows(batch.read(planned[2]))] == [0, 1, 2]


def test_starting_and_ending_offsets_select_a_slice(cluster):
    batch = KafkaBatch(options(cluster, subscribe="t", startingOffsets='{"t":{"0":1,"1":-2,"2":1}}',
                               endingOffsets='{"t":{"0":3,"1":-1,"2":-1}}'))
    assert read_all(batch) == [(0, 1), (0, 2), (2, 1)]


def test_batch_options_are_checked_when_the_reader_is_made(cluster):
    with pytest.raises(IllegalArgumentException):
        KafkaBatch(options(cluster, subscribe="t", startingOffsets="latest"))
