"""The brokers' request view with a real client: kafka-python talks to each partition's leader."""

from __future__ import annotations

import pytest

from tests.e2e.dataplane_helpers import consumer, drain, live_cluster, producer, wait_for_leaders

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def cluster():
    c = live_cluster(seed=111)
    c.create_topic("orders", partitions=3, replication_factor=3)
    wait_for_leaders(c, "orders", 3)
    yield c
    c.stop()


def test_a_producer_sends_each_partition_to_its_leader_under_its_client_id(cluster):
    before = cluster.request_counts()
    p = producer(cluster, client_id="lesson-producer", acks="all")
    for i in range(30):
        p.send("orders", value=b"order %d" % i, partition=i % 3).get(timeout=20)
    p.close()
    counts = cluster.request_counts(since=before)
    leaders = {f"orders-{n}": cluster.leader("orders", n) for n in range(3)}
    by_partition = counts.by("partition", "broker", api="Produce", client_id="lesson-producer")
    assert set(by_partition) == {(tp, leader) for tp, leader in leaders.items()}
    assert counts.total(api="Produce", client_id="lesson-producer", error="NONE") == 30
    assert counts.total(api="Metadata", client_id="lesson-producer") >= 1
    assert counts.total(api="ApiVersions", client_id="lesson-producer") >= 1
    messages_in = cluster.metric("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders")
    assert sum(messages_in.values()) == 30


def test_a_consumer_fetches_from_the_leaders(cluster):
    before = cluster.request_counts()
    c = consumer(cluster, *[("orders", n) for n in range(3)], client_id="lesson-consumer")
    assert len(drain(c, 30)) == 30
    c.close()
    counts = cluster.request_counts(since=before)
    fetched = counts.by("partition", "broker", api="Fetch", client_id="lesson-consumer", error="NONE")
    assert {tp for tp, _ in fetched} == {"orders-0", "orders-1", "orders-2"}
    assert all(broker == cluster.leader("orders", int(tp[-1])) for tp, broker in fetched)
    bytes_out = cluster.metric("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=orders")
    assert sum(bytes_out.values()) > 0
