"""Lesson 03's helpers (`minikafka.course.lesson03`): what they read from a cluster and a client.

The checks and waits run against a simulated cluster (virtual time, no sockets);
`read_values` and `send_outcome` need a real client, so one test starts a small live
cluster.
"""

from __future__ import annotations

import pytest
from kafka.errors import KafkaTimeoutError, NotEnoughReplicasError

from minikafka import Cluster
from minikafka.course import lesson03
from minikafka.course.lesson03 import (ACCEPTED, NO_ANSWER, SEND_OUTCOMES, below_min_isr, caught_up,
                                       kafka_error_name, records_on, send_outcome, truncated_records)
from tests.server.test_replica_manager import batch, produce


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=21, simulated=True).start()
    c.create_topic("orders", partitions=1, replication_factor=3, config={"min.insync.replicas": "2"})
    yield c
    c.stop()


def test_records_on_says_how_many_the_partition_holds(cluster):
    started = cluster.driver.now()
    outcome = records_on(cluster, "orders", 0, at_least=5)
    assert not outcome.done and outcome.detail == "orders-0 holds 0 record(s), not 5 yet"
    assert cluster.driver.now() - started < 100          # nothing sent: no waiting
    produce(cluster, batch(b"a", b"b", b"c", b"d", b"e"), acks=1)
    outcome = records_on(cluster, "orders", 0, at_least=5)
    assert outcome.done and outcome.detail == "orders-0 holds 5 records"


def test_caught_up_waits_for_every_in_sync_replica(cluster):
    produce(cluster, batch(b"a", b"b"), acks=1)
    assert cluster.wait_until(lambda: caught_up(cluster, "orders"), 5_000)
    leader = cluster.leader("orders", 0)
    cut = [b for b in cluster.replicas("orders", 0) if b != leader][0]
    cluster.cut_link(leader, cut)
    produce(cluster, batch(b"c"), acks=1)
    cluster.run_for(1_000)
    assert not caught_up(cluster, "orders")              # the cut follower is still in the ISR
    assert cluster.wait_until(lambda: cut not in cluster.isr("orders", 0), 30_000)
    assert cluster.wait_until(lambda: caught_up(cluster, "orders"), 5_000)
    assert lesson03.replica(cluster, leader, "orders").high_watermark == 3


def test_below_min_isr_with_every_broker_running(cluster):
    outcome = below_min_isr(cluster, "orders")
    assert not outcome.done
    isr = cluster.isr("orders", 0)
    assert outcome.detail.startswith(f"ISR {isr}, min.insync.replicas 2 (a follower leaves the ISR")
    leader = cluster.leader("orders", 0)
    for follower in cluster.replicas("orders", 0):
        if follower != leader:
            cluster.cut_link(leader, follower)
    cluster.run_for(30_000)
    assert len(cluster.isr("orders", 0)) == 3       # cut off, but nothing to fall behind on
    produce(cluster, batch(b"left behind"), acks=1)
    assert cluster.wait_until(lambda: cluster.isr("orders", 0) == [leader], 30_000)
    outcome = below_min_isr(cluster, "orders")
    assert outcome.done and outcome.detail == f"ISR [{leader}], min.insync.replicas 2"


def test_below_min_isr_refuses_a_stopped_broker(cluster):
    victim = [b for b in cluster.replicas("orders", 0) if b != cluster.leader("orders", 0)][0]
    cluster.kill_broker(victim)
    outcome = below_min_isr(cluster, "orders")
    assert not outcome.done and f"broker(s) [{victim}] not running" in outcome.detail


def test_truncated_records_reads_the_first_truncation(cluster):
    assert truncated_records(cluster, "orders-0") is None

    class Event:
        def __init__(self, kind, **data):
            self.kind, self.data = kind, data

    class Events:
        events = [Event("log_truncated", partition="other-0", old_log_end_offset=9, truncation_offset=1),
                  Event("log_truncated", partition="orders-0", old_log_end_offset=16, truncation_offset=8),
                  Event("log_truncated", partition="orders-0", old_log_end_offset=4, truncation_offset=3)]

    assert truncated_records(Events(), "orders-0") == 8


class _Future:
    def __init__(self, error=None):
        self.error = error

    def get(self, timeout=None):
        if self.error is not None:
            raise self.error
        return object()


class _Producer:
    def __init__(self, error=None):
        self.error, self.sent = error, []

    def send(self, topic, value=None):
        self.sent.append((topic, value))
        return _Future(self.error)


def test_send_outcome_names_what_the_producer_got():
    assert send_outcome(_Producer(), b"x") == ACCEPTED
    assert send_outcome(_Producer(NotEnoughReplicasError()), b"x") == "NOT_ENOUGH_REPLICAS"
    assert send_outcome(_Producer(KafkaTimeoutError("Timeout after waiting for 2 secs.")), b"x") == NO_ANSWER
    producer = _Producer()
    send_outcome(producer, b"y", topic="clicks")
    assert producer.sent == [("clicks", b"y")]
    assert {ACCEPTED, NO_ANSWER, "NOT_ENOUGH_REPLICAS"} <= set(SEND_OUTCOMES)


def test_kafka_error_name_falls_back_to_the_class_name():
    assert kafka_error_name(NotEnoughReplicasError()) == "NOT_ENOUGH_REPLICAS"
    assert kafka_error_name(KafkaTimeoutError()) == "KafkaTimeoutError"
    assert kafka_error_name(ValueError("no code")) == "ValueError"


@pytest.mark.live
def test_read_values_and_send_outcome_on_a_live_cluster():
    from kafka import KafkaProducer

    cluster = Cluster(brokers=1, controllers=1, seed=5).start()
    producer = None
    try:
        cluster.create_topic("notes", partitions=1, replication_factor=1)
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers)
        assert [send_outcome(producer, f"note {i}".encode(), topic="notes") for i in range(3)] == [ACCEPTED] * 3
        assert lesson03.read_values(cluster, "notes") == ["note 0", "note 1", "note 2"]
        assert records_on(cluster, "notes", 0, at_least=3).done
    finally:
        if producer is not None:
            producer.close()
        cluster.stop()
