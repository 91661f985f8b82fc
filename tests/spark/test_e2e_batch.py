"""Batch reads and writes through Spark against a live sandbox cluster (kafka-python on both sides)."""

from __future__ import annotations

import pytest
from kafka import TopicPartition
from kafka.partitioner.default import murmur2

from tests.spark._e2e_helpers import START_MS, admin, consume_all, live_cluster, produce, producer, source

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]

COLUMNS = ("key", "value", "topic", "partition", "offset", "unix_millis(timestamp) AS ms", "timestampType", "headers")


@pytest.fixture(scope="module")
def cluster():
    with live_cluster(seed=1401) as running:
        yield running


def test_a_batch_read_returns_every_field_kafka_stored(spark, cluster):
    cluster.create_topic("batch-in", partitions=3, replication_factor=3, config={"retention.ms": -1})
    sender = producer(cluster)
    expected = []
    for n in range(60):
        key = None if n % 10 == 0 else f"customer-{n % 7}".encode()
        headers = [("seq", str(n).encode()), ("trace", b"")] if n % 3 == 0 else []
        value = None if n == 59 else f"order-{n}".encode()  # a tombstone too
        metadata = sender.send("batch-in", key=key, value=value, headers=headers,
                               timestamp_ms=START_MS + 1000 * n).get(timeout=10)
        expected.append((key, value, "batch-in", metadata.partition, metadata.offset, START_MS + 1000 * n, 0,
                         headers or None))
    sender.close()
    df = spark.read.format("minikafka").options(**source(cluster, "batch-in", includeHeaders="true")).load()
    rows = df.selectExpr(*COLUMNS).collect()
    got = [(r.key, r.value, r.topic, r.partition, r.offset, r.ms, r.timestampType,
            [(h.key, h.value) for h in r.headers] if r.headers is not None else None) for r in rows]
    assert sorted(got, key=lambda row: (row[3], row[4])) == sorted(expected, key=lambda row: (row[3], row[4]))
    assert {row[3] for row in got} == {0, 1, 2}  # every partition was read
    assert df.rdd.getNumPartitions() == 3  # one Spark task per Kafka partition


def test_the_sink_writes_rows_that_read_back_identically(spark, cluster):
    for topic in ("sink-a", "sink-b"):
        cluster.create_topic(topic, partitions=2, replication_factor=3)
    written = [
        ("k1", b"one", "sink-a", 1, [("origin", b"spark")]),
        (None, b"two", "sink-a", 0, None),
        ("k3", None, "sink-b", 1, []),
        ("k4", b"four", "sink-b", None, [("a", b"1"), ("b", b"")]),  # no partition: the key decides
    ]
    df = spark.createDataFrame(written, "key STRING, value BINARY, topic STRING, partition INT, "
                                        "headers ARRAY<STRUCT<key: STRING, value: BINARY>>")
    writer = df.write.format("minikafka").option("kafka.bootstrap.servers", cluster.bootstrap_servers)
    with pytest.raises(Exception) as error:  # PySpark refuses a Python data source's default mode
        writer.save()
    assert 'The data source "minikafka" cannot be written in the "ErrorIfExists" mode' in str(error.value)
    writer.mode("append").save()

    by_kafka_python = {r.value: r for topic in ("sink-a", "sink-b") for r in consume_all(cluster, topic, 2)}
    assert by_kafka_python[b"one"].partition == 1 and by_kafka_python[b"one"].headers == [("origin", b"spark")]
    assert by_kafka_python[None].key == b"k3" and by_kafka_python[None].topic == "sink-b"
    assert by_kafka_python[b"four"].partition == (murmur2(b"k4") & 0x7FFFFFFF) % 2  # the producer's partitioner
    back = (spark.read.format("minikafka")
            .options(**{**source(cluster, "sink-a,sink-b"), "includeHeaders": "true"}).load().collect())
    seen = sorted(((r.key, r.value, r.topic, [(h.key, h.value) for h in r.headers or []]) for r in back), key=repr)
    assert seen == sorted(((None if k is None else k.encode(), v, t, h or []) for k, v, t, _, h in written), key=repr)
    assert {(r.value, r.partition) for r in back} >= {(b"one", 1), (b"two", 0), (None, 1)}


def test_offsets_deleted_below_the_start_fail_or_are_skipped_by_failOnDataLoss(spark, cluster):
    cluster.create_topic("trimmed", partitions=1, replication_factor=3)
    produce(cluster, "trimmed", range(10))
    client = admin(cluster)
    client.delete_records({TopicPartition("trimmed", 0): 6})  # Admin.deleteRecords: offsets 0..5 are gone
    client.close()
    start_at_2 = source(cluster, "trimmed", startingOffsets='{"trimmed":{"0":2}}')

    with pytest.raises(Exception) as error:
        spark.read.format("minikafka").options(**start_at_2).load().collect()
    assert "Could not read records in offset [2, 10) for topic partition trimmed-0" in str(error.value)

    rows = spark.read.format("minikafka").options(**start_at_2, failOnDataLoss="false").load().collect()
    assert sorted((r.offset, r.value) for r in rows) == [(n, f"value-{n}".encode()) for n in range(6, 10)]
