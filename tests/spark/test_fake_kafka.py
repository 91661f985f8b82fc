from __future__ import annotations

import multiprocessing

import pytest

from minikafka.common.errors import (
    InvalidPartitionsException,
    OffsetOutOfRangeException,
    TopicExistsException,
    UnknownTopicOrPartitionException,
)
from minikafka.spark.fake_kafka import FAKE_CLOCK_START_MS, FakeKafka
from tests.spark._spark_helpers import tp


def test_records_get_consecutive_offsets_and_deterministic_timestamps(kafka):
    kafka.create_topic("t", 2)
    kafka.produce("t", b"a", partition=1)
    kafka.produce("t", b"b", partition=1, headers=[("h", b"1"), ("n", None)])
    records = kafka.records(tp("t", 1))
    assert [(r.offset, r.value, r.timestamp, r.timestamp_type) for r in records] == [
        (0, b"a", FAKE_CLOCK_START_MS, 0), (1, b"b", FAKE_CLOCK_START_MS + 1, 0)
    ]
    assert records[1].headers == (("h", b"1"), ("n", None))
    assert kafka.latest([tp("t", 0), tp("t", 1)]) == {tp("t", 0): 0, tp("t", 1): 2}


def test_same_key_same_partition(kafka):
    kafka.create_topic("t", 3)
    chosen = {kafka.produce("t", b"v", key=b"customer-7") for _ in range(5)}
    assert len(chosen) == 1


def test_state_is_shared_through_the_directory(kafka):
    kafka.create_topic("t")
    kafka.produce("t", b"x", key=None)
    assert FakeKafka(kafka.root).records(tp("t", 0))[0].value == b"x"


def test_delete_records_moves_earliest_and_hides_older_offsets(kafka):
    kafka.create_topic("t")
    for n in range(5):
        kafka.produce("t", bytes([n]))
    kafka.delete_records(tp("t", 0), 3)
    assert kafka.earliest([tp("t", 0)]) == {tp("t", 0): 3}
    assert [r.offset for r in kafka.records(tp("t", 0))] == [3, 4]
    with pytest.raises(OffsetOutOfRangeException) as error:
        list(kafka.read_range(tp("t", 0), 1, 5))
    assert str(error.value) == "Offsets out of range with no configured reset policy for partitions: {t-0=1}"


def test_topic_administration_errors(kafka):
    kafka.create_topic("t", 2)
    with pytest.raises(TopicExistsException):
        kafka.create_topic("t")
    with pytest.raises(InvalidPartitionsException):
        kafka.add_partitions("t", 2)
    kafka.add_partitions("t", 3)
    assert kafka.partitions("t") == {0, 1, 2}
    kafka.delete_topic("t")
    with pytest.raises(UnknownTopicOrPartitionException):
        kafka.partitions("t")
    with pytest.raises(UnknownTopicOrPartitionException):
        kafka.produce("t", b"x")


def _append_many(root: str, tag: int) -> None:
    cluster = FakeKafka(root)
    for n in range(40):
        cluster.produce("t", f"{tag}-{n}".encode(), partition=0)


def test_parallel_writers_never_lose_or_duplicate_offsets(kafka):
    kafka.create_topic("t")
    context = multiprocessing.get_context("fork")  # the child only needs FakeKafka, already imported
    workers = [context.Process(target=_append_many, args=(str(kafka.root), tag)) for tag in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    records = kafka.records(tp("t", 0))
    assert [r.offset for r in records] == list(range(120))
    assert sorted(r.value for r in records) == sorted(f"{t}-{n}".encode() for t in range(3) for n in range(40))
