"""confluent-kafka (librdkafka) against a live sandbox: idempotent produce, consume, codecs, keys."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from tests.e2e.dataplane_helpers import live_cluster, wait_for_leaders

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def cluster():
    c = live_cluster(seed=121)
    c.create_topic("rd", partitions=3, replication_factor=3)
    wait_for_leaders(c, "rd", 3)
    yield c
    c.stop()


def produce_all(cluster, records, **config):
    delivered, failed = [], []

    def report(error, message):
        (failed if error else delivered).append(error or message)

    p = Producer({"bootstrap.servers": cluster.bootstrap_servers, "enable.idempotence": True, "acks": "all",
                  "partitioner": "murmur2_random", "linger.ms": 5, **config})
    for key, value in records:
        p.produce("rd", key=key, value=value, on_delivery=report)
    assert p.flush(20) == 0
    assert failed == []
    return delivered


def consume(cluster, wanted, expected: int, timeout_s: float = 20.0):
    """Messages whose value satisfies ``wanted`` until ``expected`` of them arrived."""
    c = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "rd-reader",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition("rd", p, 0) for p in range(3)])
    out, deadline = [], time.monotonic() + timeout_s
    while len(out) < expected and time.monotonic() < deadline:
        message = c.poll(0.2)
        if message is None:
            continue
        assert message.error() is None or message.error().code() == KafkaError._PARTITION_EOF
        if message.error() is None and wanted(message.value()):
            out.append(message)
    c.close()
    assert len(out) == expected, f"{len(out)} of {expected} messages arrived"
    return out


# Java's murmur2 partitioner (the reference notes' table, n = 3)
JAVA_PARTITIONS = {b"key-0": 1, b"key-1": 0, b"key-2": 2, b"user-1": 2}


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_librdkafka_produces_and_consumes_with_each_codec(cluster, codec):
    records = [(key, f"{codec}-{key.decode()}".encode()) for key in JAVA_PARTITIONS]
    delivered = produce_all(cluster, records, **{"compression.type": codec})
    assert {m.key(): m.partition() for m in delivered} == JAVA_PARTITIONS
    assert all(m.offset() >= 0 for m in delivered)


def test_librdkafka_reads_back_everything_in_partition_order(cluster):
    mine = [(b"key-%d" % (i % 3), b"seq-%03d" % i) for i in range(90)]
    produce_all(cluster, mine)
    messages = consume(cluster, lambda value: value.startswith(b"seq-"), 90)
    values = [m.value() for m in messages]
    assert sorted(values) == sorted(v for _, v in mine)
    for partition in range(3):
        ours = [m.value() for m in messages if m.partition() == partition]
        assert ours == sorted(ours)                       # per-partition order is the send order
