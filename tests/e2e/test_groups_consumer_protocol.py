"""librdkafka consumers with ``group.protocol=consumer`` (KIP-848) against a live cluster.

The members never send JoinGroup or SyncGroup: they heartbeat with
ConsumerGroupHeartbeat and the coordinator hands out the partitions.  Two
members split a 6-partition topic (each partition owned by exactly one of
them), consume and commit with their member epoch (OffsetCommit v9); when
one leaves, the other is given every partition.  When the broker that
coordinates the group dies, the group's records are replayed by the new
coordinator and the members go on with their partitions.
"""

import time

import pytest
from minikafka import Cluster
from tests.e2e.groups_admin_helpers import produce_values

confluent_kafka = pytest.importorskip("confluent_kafka")
pytestmark = pytest.mark.live

TOPIC, PARTITIONS = "orders", 6


def consumer_for(cluster, group_id, name):
    return confluent_kafka.Consumer({
        "bootstrap.servers": cluster.bootstrap_servers, "group.id": group_id, "client.id": name,
        "group.protocol": "consumer", "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "fetch.wait.max.ms": 100})


def owned(consumer):
    return {tp.partition for tp in consumer.assignment()}


def poll_until(consumers, done, what, timeout_s=30.0, seen=None):
    """Poll every consumer until ``done()``; records go to ``seen[(partition, offset)] -> [names]``."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        for name, consumer in consumers.items():
            message = consumer.poll(0.05)
            if message is not None:
                assert message.error() is None, message.error()
                if seen is not None:
                    seen.setdefault((message.partition(), message.offset()), []).append(name)


def test_two_consumer_protocol_members_split_a_topic_and_one_takes_over():
    cluster = Cluster(brokers=3, controllers=1, seed=848).start()
    consumers = {}
    try:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        for name in ("a", "b"):
            consumers[name] = consumer_for(cluster, "kip848-app", name)
            consumers[name].subscribe([TOPIC])
        a, b = consumers["a"], consumers["b"]

        def split():
            mine, theirs = owned(a), owned(b)
            return mine and theirs and not mine & theirs and mine | theirs == set(range(PARTITIONS))
        poll_until(consumers, split, "the two members split the partitions")
        assert sorted((len(owned(a)), len(owned(b)))) == [3, 3]          # uniform: balanced

        produce_values(cluster, TOPIC, [f"o-{i}".encode() for i in range(60)])
        seen = {}
        poll_until(consumers, lambda: len(seen) == 60, "60 records consumed", seen=seen)
        assert all(len(names) == 1 for names in seen.values())           # each record read once
        for (partition, _), names in seen.items():                       # ... by the partition's owner
            assert partition in owned(consumers[names[0]])

        a.commit(asynchronous=False)                                     # OffsetCommit v9, member epoch
        b.commit(asynchronous=False)
        committed = a.committed([confluent_kafka.TopicPartition(TOPIC, p) for p in range(PARTITIONS)],
                                timeout=10)
        # a partition that got no record has nothing to commit (OFFSET_INVALID, negative)
        assert sum(tp.offset for tp in committed if tp.offset >= 0) == 60
        assert {tp.partition: tp.offset for tp in committed if tp.offset >= 0} == \
            {p: 1 + max(o for q, o in seen if q == p) for p in {q for q, _ in seen}}

        b.close()                                                        # heartbeat with epoch -1
        del consumers["b"]
        poll_until(consumers, lambda: owned(a) == set(range(PARTITIONS)), "a owns every partition")
        produce_values(cluster, TOPIC, [f"later-{i}".encode() for i in range(12)])
        later = {}
        poll_until(consumers, lambda: len(later) == 12, "12 more records consumed by a", seen=later)
        assert {p for p, _ in later} <= set(range(PARTITIONS))
        assert all(offset >= 0 for _, offset in later)
    finally:
        for consumer in consumers.values():
            consumer.close()
        cluster.stop()


def test_the_group_survives_the_death_of_its_coordinators_broker():
    from minikafka.coordinator.group_coordinator import partition_for
    cluster = Cluster(brokers=3, controllers=1, seed=849).start()
    consumers = {}
    try:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        for name in ("a", "b"):
            consumers[name] = consumer_for(cluster, "kip848-failover", name)
            consumers[name].subscribe([TOPIC])
        a, b = consumers["a"], consumers["b"]

        def split():
            mine, theirs = owned(a), owned(b)
            return mine and theirs and not mine & theirs and mine | theirs == set(range(PARTITIONS))
        poll_until(consumers, split, "the two members split the partitions")
        offsets_partition = partition_for("kip848-failover", 50)
        old = cluster.leader("__consumer_offsets", offsets_partition)
        cluster.kill(old)
        poll_until(consumers, lambda: cluster.leader("__consumer_offsets", offsets_partition) not in (None, old),
                   "a new coordinator")
        produce_values(cluster, TOPIC, [f"after-{i}".encode() for i in range(30)])
        seen = {}
        poll_until(consumers, lambda: len(seen) == 30 and split(), "30 records after the failover", seen=seen)
        assert all(len(names) == 1 for names in seen.values())
    finally:
        for consumer in consumers.values():
            consumer.close()
        cluster.stop()
