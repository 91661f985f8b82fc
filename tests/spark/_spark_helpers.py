"""Helpers shared by the Spark data source tests."""

from __future__ import annotations

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.fake_kafka import FakeKafka


def options(kafka: FakeKafka, **extra: str) -> dict[str, str]:
    """Source/sink options that point the data source at ``kafka`` instead of a broker."""
    return {"kafka.bootstrap.servers": "127.0.0.1:9092", "_fakeKafkaDir": str(kafka.root), **extra}


def fill(kafka: FakeKafka, topic: str, counts: dict[int, int], start: int = 0) -> None:
    """Append ``counts[p]`` records to each partition p; values are ``p:<n>`` with n from ``start``."""
    for partition, count in counts.items():
        for n in range(start, start + count):
            kafka.produce(topic, f"{partition}:{n}".encode(), key=f"k{n}".encode(), partition=partition)


def tp(topic: str, partition: int) -> TopicPartition:
    return TopicPartition(topic, partition)


def rows(batches) -> list[tuple]:
    """The rows of the ``pyarrow.RecordBatch``es a reader yields, as tuples in schema order."""
    return [tuple(row.values()) for batch in batches for row in batch.to_pylist()]
