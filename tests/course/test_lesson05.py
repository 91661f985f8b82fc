"""Lesson 05's harness (minikafka.course.lesson05): the coordinator's partition, the readers,
and the task checks, which must read the cluster (a live one: real clients, real ports)."""

from __future__ import annotations

import logging

import pytest
from kafka import KafkaConsumer

from minikafka import Cluster
from minikafka.coordinator.group_coordinator import partition_for as engine_partition_for
from minikafka.course.lesson05 import (Member, advertises_own_listener, end_offsets, group_caught_up,
                                       group_rows, java_string_hash, partition_for, read_until_idle,
                                       settled, unreachable_listener, write_each_partition)


# ---------------------------------------------------------------------- no cluster
def test_java_string_hash_is_javas():
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == -(2**31)        # the one hash Math.abs cannot fix


def test_partition_for_is_kafkas_formula():
    assert partition_for("billing") == 9
    assert partition_for("reports") == 49
    assert partition_for("polygenelubricants") == 0                 # Utils.abs(MIN_VALUE) is 0
    for group in ("billing", "reports", "audit", "from-earliest", "g", "Grüße"):
        assert partition_for(group) == engine_partition_for(group, 50)
        assert partition_for(group, 3) == engine_partition_for(group, 3)


def test_group_rows_reads_describe_output_by_partition():
    text = ("\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID\n"
            "billing         orders          2          11              12              1    m-2  /h  c2\n"
            "billing         orders          0          14              14              0    m-1  /h  c1\n"
            "billingx        orders          1          1               1               0    m-3  /h  c3\n")
    assert group_rows(text) == [(0, "14", "14", "0"), (2, "11", "12", "1")]
    assert group_rows(text, "billingx") == [(1, "1", "1", "0")]


class FakeConsumer:
    """poll() hands out the given batches one per call, then nothing."""

    def __init__(self, batches):
        self.batches, self.polls = list(batches), 0

    def poll(self, timeout_ms):
        self.polls += 1
        return self.batches.pop(0) if self.batches else {}


def test_read_until_idle_gathers_every_batch_and_stops_after_the_idle_time():
    consumer = FakeConsumer([{"tp0": [1, 2]}, {}, {"tp1": [3]}, {"tp0": [4], "tp1": [5]}])
    assert sorted(read_until_idle(consumer, idle_ms=500)) == [1, 2, 3, 4, 5]
    assert consumer.polls == 4 + 2                                  # two empty polls of 250 ms end it


def test_unreachable_listener_names_a_port_nobody_listens_on():
    import socket
    listener = unreachable_listener()
    assert listener.startswith("PLAINTEXT://127.0.0.1:")
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", int(listener.rsplit(":", 1)[1]))) != 0


# ---------------------------------------------------------------------- a live cluster
@pytest.fixture(scope="module")
def cluster():
    logging.getLogger("kafka").setLevel(logging.CRITICAL)
    c = Cluster(brokers=3, controllers=1, seed=5).start()
    c.create_topic("orders", partitions=3, replication_factor=3)
    yield c
    c.stop()


@pytest.mark.live
def test_advertises_own_listener_follows_the_file_and_the_registration(cluster):
    assert advertises_own_listener(cluster, 3).done
    cluster.set_advertised_listener(3, unreachable_listener())
    outcome = advertises_own_listener(cluster, 3)
    assert not outcome.done and "still has advertised.listeners=" in outcome.detail
    cluster.shutdown(3)
    cluster.restart_broker(3)
    cluster.wait_until(lambda: all(len(cluster.isr("orders", p)) == 3 for p in range(3)), timeout_ms=30_000)
    cluster.elect_leaders("preferred")                              # give broker 3 its leaderships back
    cluster.wait_until(lambda: 3 in {cluster.leader("orders", p) for p in range(3)}, timeout_ms=10_000)
    written = write_each_partition(cluster, cluster.bootstrap_servers, show=False)
    unreachable = {p for p in range(3) if cluster.leader("orders", p) == 3}
    assert unreachable and {p for p, r in written.items() if not isinstance(r, int)} == unreachable
    cluster.set_advertised_listener(3, None)                        # fixed in the file, not yet registered
    outcome = advertises_own_listener(cluster, 3)
    assert not outcome.done and "reads server.properties only when it starts" in outcome.detail
    cluster.shutdown(3)
    cluster.restart_broker(3)
    outcome = advertises_own_listener(cluster, 3)                   # waits for the new registration
    assert outcome.done, outcome.detail
    written = write_each_partition(cluster, cluster.bootstrap_servers, show=False)
    assert all(isinstance(r, int) for r in written.values())


@pytest.mark.live
def test_group_caught_up_reads_the_committed_offsets(cluster):
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers)
    for i in range(9):
        producer.send("orders", value=b"x", partition=i % 3)
    producer.flush()
    producer.close()
    assert sum(end_offsets(cluster).values()) >= 9
    assert group_caught_up(cluster, "reports").detail == "group reports has committed no offset on orders"
    reader = KafkaConsumer("orders", bootstrap_servers=cluster.bootstrap_servers, group_id="reports",
                           auto_offset_reset="earliest", enable_auto_commit=False)
    read_until_idle(reader)
    reader.commit()
    reader.close()
    assert group_caught_up(cluster, "reports").done
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers)
    producer.send("orders", value=b"late", partition=1).get(timeout=10)
    producer.close()
    outcome = group_caught_up(cluster, "reports")
    assert not outcome.done and "orders-1: 1" in outcome.detail


@pytest.mark.live
def test_members_share_the_partitions_and_leave(cluster):
    members = [Member(cluster, f"t-{n}", group="t") for n in (1, 2)]
    try:
        assert settled(cluster, members, group="t")
        assert sorted(len(m.partitions) for m in members) == [1, 2]
    finally:
        for member in members:
            member.leave()
    assert all(not m._thread.is_alive() for m in members)
