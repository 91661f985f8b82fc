"""The ready-made task checks, against a simulated cluster: each says what the cluster shows."""

from __future__ import annotations

import pytest

from minikafka import Cluster
from minikafka.course import checks


@pytest.fixture(scope="module")
def cluster():
    with Cluster(brokers=3, controllers=1, simulated=True, seed=4) as running:
        running.create_topic("orders", partitions=3, replication_factor=3)
        yield running


def test_topic_has(cluster):
    assert checks.topic_has(cluster, "payments").detail == "there is no topic 'payments' yet"
    cluster.create_topic("payments", partitions=2, replication_factor=1, config={"retention.ms": "1000"})
    assert checks.topic_has(cluster, "payments", partitions=6).detail == "payments has 2 partitions, not 6"
    assert checks.topic_has(cluster, "payments", replication_factor=3).detail == \
        "payments's partitions have 1 replica(s), not 3"
    assert checks.topic_has(cluster, "payments", config={"retention.ms": 2000}).detail == \
        "payments has retention.ms=1000, not 2000"
    done = checks.topic_has(cluster, "payments", partitions=2, replication_factor=1,
                            config={"retention.ms": 1000})
    assert done.done and done.detail == "payments: 2 partitions, 1 replica each, retention.ms=1000"
    assert checks.topic_has(cluster, "payments").detail == "payments exists"
    assert checks.topic_has(cluster, "payments", config={"retention.ms": 1000}).detail == \
        "payments: retention.ms=1000"


def test_leaders_and_processes(cluster):
    leader = cluster.leader("orders", 1)
    others = [b for b in cluster.broker_ids if b != leader]
    assert checks.leader_is(cluster, "orders", 1, leader).done
    assert checks.leader_is(cluster, "orders", 1, others[0]).detail == \
        f"orders-1 is led by broker {leader}, not {others[0]}"
    assert checks.leader_not(cluster, "orders", 1, [leader]).detail == \
        f"orders-1 is still led by broker {leader}"
    assert not checks.broker_process(cluster, leader, "dead").done
    cluster.kill_broker(leader)
    assert checks.broker_process(cluster, leader, "dead").done
    cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, leader), timeout_ms=20_000)
    assert checks.leader_not(cluster, "orders", 1, [leader]).done


def test_holds_compares_a_learners_value_with_the_clusters():
    assert checks.holds(..., 2, "my_partition").detail == "my_partition is not set yet"
    assert checks.holds(1, 2, "my_partition").detail == \
        "my_partition is 1, which is not what the cluster says"
    assert checks.holds(2, 2, "my_partition").done
