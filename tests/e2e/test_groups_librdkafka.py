"""A librdkafka (confluent-kafka) consumer group against a live cluster.

librdkafka speaks older versions than kafka-python (FindCoordinator v2,
JoinGroup v5, SyncGroup v3, Heartbeat v3, LeaveGroup v1) and newer ones for
offsets (OffsetCommit/OffsetFetch up to v9), so it exercises other version
foldings of the same handlers.
"""

import time

import pytest
from minikafka import Cluster
from tests.e2e.groups_admin_helpers import admin_client, eventually, produce_values

confluent_kafka = pytest.importorskip("confluent_kafka")
pytestmark = pytest.mark.live


def consumer_for(cluster, group_id, **overrides):
    config = {"bootstrap.servers": cluster.bootstrap_servers, "group.id": group_id,
              "auto.offset.reset": "earliest", "enable.auto.commit": False,
              "session.timeout.ms": 6000, "heartbeat.interval.ms": 300, "fetch.wait.max.ms": 100,
              **overrides}
    return confluent_kafka.Consumer(config)


def consume(consumer, count, timeout_s=30.0):
    values = []
    deadline = time.monotonic() + timeout_s
    while len(values) < count:
        assert time.monotonic() < deadline, f"only {len(values)} of {count} records within {timeout_s}s"
        message = consumer.poll(0.2)
        if message is None:
            continue
        assert message.error() is None, message.error()
        values.append((message.partition(), message.offset(), message.value()))
    return values


def test_librdkafka_group_commits_and_resumes():
    cluster = Cluster(brokers=3, controllers=1, seed=103).start()
    try:
        cluster.create_topic("clicks", 2, 3)
        produce_values(cluster, "clicks", [f"click-{i}".encode() for i in range(20)])
        first = consumer_for(cluster, "rd-app")
        first.subscribe(["clicks"])
        seen = consume(first, 20)
        assert sorted(v for _, _, v in seen) == sorted(f"click-{i}".encode() for i in range(20))
        first.commit(asynchronous=False)
        committed = first.committed([confluent_kafka.TopicPartition("clicks", p) for p in (0, 1)], timeout=10)
        by_partition = {tp.partition: tp.offset for tp in committed}
        assert sum(by_partition.values()) == 20
        first.close()                                            # LeaveGroup v1

        admin = admin_client(cluster)
        try:
            stored = admin.list_group_offsets({"rd-app": None})["rd-app"]
            assert {tp.partition: meta.offset for tp, meta in stored.items()} == by_partition
            description = eventually(lambda: (d := admin.describe_groups(["rd-app"])["rd-app"])
                                     and d["group_state"] == "Empty" and d, what="the group emptied")
            assert description["protocol_type"] == "consumer" and description["members"] == []
        finally:
            admin.close()

        produce_values(cluster, "clicks", [f"later-{i}".encode() for i in range(6)])
        second = consumer_for(cluster, "rd-app")
        second.subscribe(["clicks"])
        resumed = consume(second, 6)
        assert sorted(v for _, _, v in resumed) == sorted(f"later-{i}".encode() for i in range(6))
        assert all(offset >= by_partition[partition] for partition, offset, _ in resumed)
        second.close()
    finally:
        cluster.stop()

