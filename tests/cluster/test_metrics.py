"""The facade's metrics verbs: which nodes answer, and clear errors for the ones that cannot."""

import pytest

from minikafka.cluster import Cluster

LEADERS = "kafka.server:type=ReplicaManager,name=LeaderCount"
MESSAGES_IN = "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=71, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=2)
    yield c
    c.stop()


def test_metrics_of_every_running_node_brokers_first(cluster):
    assert list(cluster.metrics()) == [1, 2, 3, 1001]
    assert LEADERS in cluster.broker_metrics(2)
    assert LEADERS not in cluster.controller_metrics(1001)


def test_metric_picks_value_of_a_gauge_and_count_of_a_meter(cluster):
    assert cluster.metric(LEADERS) == {1: 1, 2: 1, 3: 1}
    assert cluster.metric(MESSAGES_IN) == {1: 0, 2: 0, 3: 0}
    assert cluster.metric(MESSAGES_IN, "TenSecondRate") == {1: 0.0, 2: 0.0, 3: 0.0}
    assert cluster.metric("kafka.server:type=NoSuchThing,name=Nope") == {}
    with pytest.raises(KeyError, match="has no attribute 'Count'; it has Value"):
        cluster.metric(LEADERS, "Count")


def test_the_snapshot_carries_each_nodes_untagged_metrics(cluster):
    snapshot = cluster.snapshot()
    assert snapshot.node(1).metrics[LEADERS] == {"Value": 1}
    assert not any("topic=" in name for name in snapshot.node(1).metrics)
    assert snapshot.node(1001).metrics[
        "kafka.controller:type=KafkaController,name=ActiveControllerCount"] == {"Value": 1}


def test_wrong_role_or_unknown_node(cluster):
    with pytest.raises(ValueError, match="Node 1001 is not a broker"):
        cluster.broker_metrics(1001)
    with pytest.raises(ValueError, match="Node 2 is not a controller"):
        cluster.controller_metrics(2)
    with pytest.raises(ValueError, match="No node with id 9"):
        cluster.node_metrics(9)


def test_a_dead_or_paused_broker_answers_no_metrics(cluster):
    cluster.pause(3)
    try:
        with pytest.raises(RuntimeError, match="Cannot read the metrics of broker 3: it is paused"):
            cluster.broker_metrics(3)
        assert 3 not in cluster.metrics()
        assert cluster.snapshot().node(3).metrics == {}
    finally:
        cluster.resume(3)
    cluster.kill(3)
    try:
        with pytest.raises(RuntimeError, match="Cannot read the metrics of broker 3: it is dead"):
            cluster.broker_metrics(3)
        assert 3 not in cluster.metric(LEADERS)
    finally:
        cluster.restart(3)
        assert cluster.wait_until(cluster.is_ready, 20_000)
