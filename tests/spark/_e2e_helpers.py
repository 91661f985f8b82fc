"""Helpers for the end-to-end tests: a live sandbox cluster, kafka-python clients, Spark options.

Records are produced with kafka-python (the same client a learner uses) and
their partition, offset and timestamp are taken from the broker's
acknowledgement, so a test compares what Spark read with what Kafka stored,
not with what the test assumed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition

from minikafka import Cluster
from tests.waiting import CLIENT_TIMEOUTS

# A fixed record timestamp (2026-01-01T00:00:00Z).  A topic holding such records needs
# retention.ms=-1: time-based retention compares record timestamps with the broker's
# clock and would delete them within a minute (the teaching profile's retention check).
START_MS = 1767225600000

logging.getLogger("kafka").setLevel(logging.ERROR)  # retries during failover are expected


@contextmanager
def live_cluster(seed: int) -> Iterator[Cluster]:
    cluster = Cluster(brokers=3, controllers=1, seed=seed).start()
    try:
        yield cluster
    finally:
        cluster.stop()


def source(cluster: Cluster, topic: str, **extra: str) -> dict[str, str]:
    """Options of a ``format("kafka")`` read of ``topic``."""
    return {"kafka.bootstrap.servers": cluster.bootstrap_servers, "subscribe": topic, **extra}


def producer(cluster: Cluster, **overrides) -> KafkaProducer:
    return KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all", enable_idempotence=True,
                         **{**CLIENT_TIMEOUTS, **overrides})


def produce(cluster: Cluster, topic: str, numbers: range) -> set[tuple[int, int, bytes]]:
    """Send ``value-<n>`` for each n (key ``key-<n mod 7>``); returns {(partition, offset, value)}."""
    sender = producer(cluster, linger_ms=5)
    futures = [sender.send(topic, key=f"key-{n % 7}".encode(), value=f"value-{n}".encode()) for n in numbers]
    sender.flush(timeout=60)
    sender.close()
    acked = [(future.get(timeout=1), f"value-{n}".encode()) for future, n in zip(futures, numbers)]
    return {(metadata.partition, metadata.offset, value) for metadata, value in acked}


def consume_all(cluster: Cluster, topic: str, partitions: int) -> list:
    """Every record of ``topic`` read with a plain kafka-python consumer (independent of Spark)."""
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=None, enable_auto_commit=False,
                             auto_offset_reset="earliest", consumer_timeout_ms=3000, **CLIENT_TIMEOUTS)
    tps = [TopicPartition(topic, p) for p in range(partitions)]
    consumer.assign(tps)
    ends = consumer.end_offsets(tps)
    records = []
    for record in consumer:
        records.append(record)
        if all(consumer.position(tp) >= ends[tp] for tp in tps):
            break
    consumer.close()
    return records


def admin(cluster: Cluster) -> KafkaAdminClient:
    return KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, **CLIENT_TIMEOUTS)
