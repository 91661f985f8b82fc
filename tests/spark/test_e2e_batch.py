"""Batch reads and writes through Spark's own Kafka connector against a live sandbox cluster.

Records go in with kafka-python and come back through ``format("kafka")``
(Spark's connector and the Java client under it), and the other way round,
so every field is compared with what the brokers acknowledged or stored.
"""

from __future__ import annotations

import json

import pytest
from kafka import TopicPartition
from kafka.partitioner.default import murmur2

from minikafka.spark.java_errors import java_error_line
from tests.spark._e2e_helpers import START_MS, admin, consume_all, live_cluster, produce, producer, source

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]

COLUMNS = ("key", "value", "topic", "partition", "offset", "unix_millis(timestamp) AS ms", "timestampType", "headers")


@pytest.fixture(scope="module")
def cluster():
    with live_cluster(seed=1401) as running:
        yield running


def read(spark, cluster, topic: str, **options: str):
    return spark.read.format("kafka").options(**source(cluster, topic, **options)).load()


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
                         headers or None))  # a record without headers has a null headers column
    sender.close()
    df = read(spark, cluster, "batch-in", includeHeaders="true")
    rows = df.selectExpr(*COLUMNS).collect()
    got = [(r.key, r.value, r.topic, r.partition, r.offset, r.ms, r.timestampType,
            None if r.headers is None else [(h.key, h.value) for h in r.headers]) for r in rows]
    assert sorted(got, key=lambda row: (row[3], row[4])) == sorted(expected, key=lambda row: (row[3], row[4]))
    assert {row[3] for row in got} == {0, 1, 2}  # every partition was read
    assert df.rdd.getNumPartitions() == 3  # one Spark task per Kafka partition
    without_headers = read(spark, cluster, "batch-in")
    assert "headers" not in without_headers.columns  # includeHeaders defaults to false


def test_starting_and_ending_offsets_as_json_select_exact_ranges(spark, cluster):
    cluster.create_topic("ranges", partitions=2, replication_factor=3)
    produced = produce(cluster, "ranges", range(40))
    ends = {p: 1 + max(o for q, o, _ in produced if q == p) for p in (0, 1)}
    df = read(spark, cluster, "ranges", startingOffsets=json.dumps({"ranges": {"0": 3, "1": -2}}),
              endingOffsets=json.dumps({"ranges": {"0": 7, "1": -1}}))
    got = sorted((r.partition, r.offset, r.value) for r in df.collect())
    # -2 means earliest, -1 latest, a number that offset (inclusive start, exclusive end)
    assert got == sorted(record for record in produced if (record[0] == 0 and 3 <= record[1] < 7)
                         or (record[0] == 1 and record[1] < ends[1]))


def test_startingOffsetsByTimestamp_starts_at_the_first_record_at_or_after_it(spark, cluster):
    cluster.create_topic("timed", partitions=2, replication_factor=3, config={"retention.ms": -1})
    sender = producer(cluster)
    for n in range(20):  # partition n % 2, timestamps one second apart
        sender.send("timed", value=f"t{n}".encode(), partition=n % 2, timestamp_ms=START_MS + 1000 * n)
    sender.flush()
    sender.close()
    by_time = json.dumps({"timed": {"0": START_MS + 9500, "1": START_MS + 4000}})
    rows = read(spark, cluster, "timed", startingOffsetsByTimestamp=by_time).collect()
    # partition 0 holds t0, t2, ...: first at or after +9.5 s is t10 (offset 5); partition 1: t5 (offset 2)
    assert sorted((r.partition, r.offset, r.value.decode()) for r in rows) == (
        [(0, offset, f"t{2 * offset}") for offset in range(5, 10)]
        + [(1, offset, f"t{2 * offset + 1}") for offset in range(2, 10)])
    later = json.dumps({"timed": {"0": START_MS + 60_000, "1": START_MS + 60_000}})
    with pytest.raises(Exception, match="(?s)No offset matched from request of topic-partition timed-"):
        read(spark, cluster, "timed", startingOffsetsByTimestamp=later).collect()  # Spark's default: error


def test_the_sink_writes_key_topic_partition_and_headers(spark, cluster):
    for topic in ("sink-a", "sink-b"):
        cluster.create_topic(topic, partitions=2, replication_factor=3)
    written = [
        ("k1", b"one", "sink-a", 1, [("origin", b"spark")]),
        (None, b"two", "sink-a", 0, []),
        ("k3", None, "sink-b", 1, []),
        ("k4", b"four", "sink-b", None, [("a", b"1"), ("b", None)]),  # no partition: the key decides
    ]
    df = spark.createDataFrame(written, "key STRING, value BINARY, topic STRING, partition INT, "
                                        "headers ARRAY<STRUCT<key: STRING, value: BINARY>>")
    df.write.format("kafka").option("kafka.bootstrap.servers", cluster.bootstrap_servers).save()

    by_kafka_python = {r.value: r for topic in ("sink-a", "sink-b") for r in consume_all(cluster, topic, 2)}
    assert by_kafka_python[b"one"].partition == 1 and by_kafka_python[b"one"].headers == [("origin", b"spark")]
    assert by_kafka_python[None].key == b"k3" and by_kafka_python[None].topic == "sink-b"
    assert by_kafka_python[b"four"].partition == (murmur2(b"k4") & 0x7FFFFFFF) % 2  # the producer's partitioner
    assert by_kafka_python[b"four"].headers == [("a", b"1"), ("b", None)]
    back = read(spark, cluster, "sink-a,sink-b", includeHeaders="true").collect()
    seen = sorted(((r.key, r.value, r.topic, [(h.key, h.value) for h in r.headers or []]) for r in back), key=repr)
    assert seen == sorted(((None if k is None else k.encode(), v, t, h) for k, v, t, _, h in written), key=repr)


def test_the_topic_option_overrides_the_topic_column_and_a_missing_value_is_refused(spark, cluster):
    cluster.create_topic("sink-forced", partitions=1, replication_factor=3)
    df = spark.createDataFrame([("x", "elsewhere")], "value STRING, topic STRING")
    (df.write.format("kafka").option("kafka.bootstrap.servers", cluster.bootstrap_servers)
     .option("topic", "sink-forced").save())
    assert [r.value for r in consume_all(cluster, "sink-forced", 1)] == [b"x"]
    with pytest.raises(Exception, match="Required attribute 'value' not found"):
        (spark.createDataFrame([("k",)], "key STRING").write.format("kafka")
         .option("kafka.bootstrap.servers", cluster.bootstrap_servers).option("topic", "sink-forced").save())


def test_offsets_deleted_below_the_start_fail_or_are_skipped_by_failOnDataLoss(spark, cluster):
    cluster.create_topic("trimmed", partitions=1, replication_factor=3)
    produce(cluster, "trimmed", range(10))
    client = admin(cluster)
    client.delete_records({TopicPartition("trimmed", 0): 6})  # Admin.deleteRecords: offsets 0..5 are gone
    client.close()
    start_at_2 = {"startingOffsets": '{"trimmed":{"0":2}}'}

    with pytest.raises(Exception) as error:
        read(spark, cluster, "trimmed", **start_at_2).collect()
    line = java_error_line(error.value)  # what a notebook shows: Spark's data-loss condition
    assert line.startswith("org.apache.spark.sql.kafka010.KafkaIllegalStateException: Some data may have been lost")
    assert "set the source option failOnDataLoss to false" in line
    assert "Reason: Could not read records in offset [2, 10) for topic partition trimmed-0" in line

    rows = read(spark, cluster, "trimmed", **start_at_2, failOnDataLoss="false").collect()
    assert sorted((r.offset, r.value) for r in rows) == [(n, f"value-{n}".encode()) for n in range(6, 10)]
    earliest = read(spark, cluster, "trimmed").collect()  # earliest is the new log start offset
    assert sorted(r.offset for r in earliest) == list(range(6, 10))
