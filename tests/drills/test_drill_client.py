"""The drills' in-process producer and reader (minikafka/drills/drill_client.py)."""

import pytest

from minikafka import Cluster
from minikafka.drills.drill_client import DrillClient


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed="drill-client", simulated=True).start()
    c.create_topic("payments", partitions=1, replication_factor=3, config={"min.insync.replicas": "3"})
    yield c
    c.stop()


def test_produce_answers_with_kafkas_error_names_and_read_gets_what_a_consumer_gets(cluster):
    client = DrillClient(cluster)
    first = client.produce("payments", 0, [b"a", b"b"], keys=[b"k1", None])
    assert (first.ok, first.error, first.base_offset, first.leader) == (True, "NONE", 0,
                                                                      cluster.leader("payments", 0))
    records = client.read("payments", 0)
    assert [(r.offset, r.key, r.value) for r in records] == [(0, b"k1", b"a"), (1, None, b"b")]
    leader = cluster.leader("payments", 0)
    follower = next(b for b in cluster.replicas("payments", 0) if b != leader)
    cluster.kill(follower)
    cluster.wait_until(lambda: follower not in cluster.isr("payments", 0), 10_000)
    cluster.run_for(500)                   # the leader applies the controller's smaller ISR
    refused = client.produce("payments", 0, [b"c"])
    assert (refused.ok, refused.error, refused.base_offset) == (False, "NOT_ENOUGH_REPLICAS", -1)
    assert client.produce("payments", 0, [b"c"], acks=1).ok
    cluster.restart(follower)
