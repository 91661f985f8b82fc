"""kafka-python 3.x against a live sandbox: codecs, the partitioner, positions and offsets APIs."""

from __future__ import annotations

import pytest
from kafka import TopicPartition
from kafka.partitioner.default import murmur2

from minikafka.server import kafka_apis as handlers
from minikafka.record import record_batch as rb
from tests.e2e.dataplane_helpers import (consumer, drain, live_cluster, producer, stored_log,
                                         wait_for_leaders)

pytestmark = pytest.mark.live

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]
CODEC_IDS = {None: 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


@pytest.fixture(scope="module")
def cluster():
    c = live_cluster(seed=101)
    for codec in CODECS:
        c.create_topic(f"codec-{codec or 'none'}", partitions=1, replication_factor=3)
    c.create_topic("keyed3", partitions=3, replication_factor=1)
    c.create_topic("keyed5", partitions=5, replication_factor=1)
    c.create_topic("timeline", partitions=1, replication_factor=3)
    yield c
    c.stop()


@pytest.fixture
def captured_batches(monkeypatch):
    """Every Produce request's record bytes, as the client sent them, by (topic, partition)."""
    seen: dict[tuple[str, int], list[bytes]] = {}
    original = handlers.HANDLERS[0]

    def recording(ctx, request, broker):
        for topic in request.topic_data:
            for partition in topic.partition_data:
                seen.setdefault((topic.name, partition.index), []).append(bytes(partition.records))
        return original(ctx, request, broker)

    monkeypatch.setitem(handlers.HANDLERS, 0, recording)
    return seen


@pytest.mark.parametrize("codec", CODECS)
def test_every_codec_round_trips_and_is_stored_as_the_client_built_it(cluster, captured_batches, codec):
    topic = f"codec-{codec or 'none'}"
    values = [f"{codec}-{i}".encode() * 20 for i in range(50)]
    p = producer(cluster, compression_type=codec, linger_ms=50, batch_size=64 * 1024)
    for value in values:
        p.send(topic, value=value, key=b"k")
    p.flush(timeout=20)
    p.close()
    c = consumer(cluster, (topic, 0))
    received = drain(c, len(values))
    c.close()
    assert [r.value for r in received] == values and [r.offset for r in received] == list(range(50))
    sent = captured_batches[(topic, 0)]
    stored = stored_log(cluster, cluster.leader(topic, 0), topic, 0)
    batches = list(rb.iter_batches(stored))
    assert len(batches) == len(sent)
    for client_bytes, batch in zip(sent, batches):
        on_disk = stored[batch.position:batch.position + batch.size_in_bytes]
        assert batch.attributes & rb.COMPRESSION_CODEC_MASK == CODEC_IDS[codec]
        # the broker only stamps baseOffset and partitionLeaderEpoch, both outside the CRC
        assert on_disk[rb.MAGIC_OFFSET:] == client_bytes[rb.MAGIC_OFFSET:]
        assert on_disk[rb.LENGTH_OFFSET:rb.PARTITION_LEADER_EPOCH_OFFSET] == \
            client_bytes[rb.LENGTH_OFFSET:rb.PARTITION_LEADER_EPOCH_OFFSET]


# kafka-python's murmur2, (h & 0x7fffffff) % n: the table in the reference notes (Java's partitioner)
EXPECTED_PARTITIONS = {3: {b"key-0": 1, b"key-1": 0, b"key-2": 2, b"user-1": 2},
                       5: {b"key-0": 1, b"key-1": 0, b"key-2": 2, b"user-1": 3}}


@pytest.mark.parametrize("count", [3, 5])
def test_keyed_records_land_where_javas_partitioner_puts_them(cluster, count):
    topic = f"keyed{count}"
    wait_for_leaders(cluster, topic, count)
    p = producer(cluster)
    futures = {key: p.send(topic, key=key, value=b"v") for key in EXPECTED_PARTITIONS[count]}
    p.flush(timeout=20)
    p.close()
    landed = {key: future.get(timeout=10).partition for key, future in futures.items()}
    assert landed == EXPECTED_PARTITIONS[count]
    assert murmur2(b"21") == -973932308 & 0xFFFFFFFF        # Java's UtilsTest vector, unsigned
    c = consumer(cluster, *[(topic, i) for i in range(count)])
    by_key = {r.key: r.partition for r in drain(c, len(landed))}
    c.close()
    assert by_key == EXPECTED_PARTITIONS[count]


def test_seek_offsets_for_times_beginning_end_and_pause(cluster):
    tp = TopicPartition("timeline", 0)
    p = producer(cluster)
    stamps = [1_700_000_000_000 + 1000 * i for i in range(10)]
    for i, stamp in enumerate(stamps):
        p.send("timeline", value=str(i).encode(), timestamp_ms=stamp)
    p.flush(timeout=20)
    p.close()
    c = consumer(cluster, ("timeline", 0))
    assert c.beginning_offsets([tp]) == {tp: 0}
    assert c.end_offsets([tp]) == {tp: 10}
    found = c.offsets_for_times({tp: stamps[4] - 1})[tp]
    assert (found.offset, found.timestamp) == (4, stamps[4])
    assert c.offsets_for_times({tp: stamps[-1] + 1})[tp] is None
    c.seek(tp, 7)
    assert [r.value for r in drain(c, 3)] == [b"7", b"8", b"9"]
    c.seek_to_beginning(tp)
    c.pause(tp)
    assert c.poll(timeout_ms=300) == {}
    c.resume(tp)
    assert drain(c, 10)[0].offset == 0
    c.close()


def test_admin_client_data_plane_calls(cluster):
    from kafka import KafkaAdminClient
    from kafka.admin import OffsetSpec
    tp = TopicPartition("timeline", 0)
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=10_000)
    try:
        p = producer(cluster)
        for i in range(4):
            p.send("timeline", value=b"extra-%d" % i)
        p.flush(timeout=20)
        p.close()
        end = admin.list_partition_offsets({tp: OffsetSpec.LATEST})[tp].offset
        assert end >= 4
        admin.delete_records({tp: end - 2}, timeout_ms=10_000)
        assert admin.list_partition_offsets({tp: OffsetSpec.EARLIEST})[tp].offset == end - 2
        described = admin.describe_topic_partitions(["timeline"])
        assert "timeline" in str(described)
        dirs = admin.describe_log_dirs({"timeline": [0]})
        leader = cluster.leader("timeline", 0)
        assert str(cluster.broker_data_dir(leader)) in str(dirs)
        cluster_info = admin.describe_cluster()
        assert cluster_info["cluster_id"] == cluster.cluster_id
        assert sorted(b["broker_id"] for b in cluster_info["brokers"]) == cluster.broker_ids
    finally:
        admin.close()
