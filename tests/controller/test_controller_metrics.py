"""KafkaController MBeans on a simulated cluster: the active controller, partitions and brokers."""

from minikafka.cluster import Cluster

KC = "kafka.controller:type=KafkaController,name="


def test_active_controller_count_is_1_on_exactly_one_controller():
    cluster = Cluster(brokers=3, controllers=3, seed=51, simulated=True).start()
    try:
        counts = cluster.metric(KC + "ActiveControllerCount")
        assert sorted(counts) == [1001, 1002, 1003]          # controllers only, never brokers
        assert list(counts.values()).count(1) == 1
        assert counts[cluster.active_controller] == 1
        first = cluster.active_controller
        cluster.kill(first)
        assert cluster.wait_until(lambda: cluster.active_controller not in (None, first), 15_000)
        counts = cluster.metric(KC + "ActiveControllerCount")
        assert first not in counts and sum(counts.values()) == 1
        assert counts[cluster.active_controller] == 1
    finally:
        cluster.stop()


def test_offline_partitions_count_when_the_only_replica_is_lost():
    cluster = Cluster(brokers=3, controllers=1, seed=52, simulated=True).start()
    try:
        cluster.create_topic("events", partitions=3, replication_factor=1)
        metrics = cluster.controller_metrics(1001)
        assert metrics[KC + "OfflinePartitionsCount"] == {"Value": 0}
        assert metrics[KC + "GlobalTopicCount"] == {"Value": 1}
        assert metrics[KC + "GlobalPartitionCount"] == {"Value": 3}
        assert metrics[KC + "ActiveBrokerCount"] == {"Value": 3}
        holder = cluster.replicas("events", 0)[0]
        cluster.kill_broker(holder)
        assert cluster.wait_until(lambda: cluster.leader("events", 0) is None, 15_000)
        metrics = cluster.controller_metrics(1001)
        lost = sum(1 for p in range(3) if cluster.replicas("events", p) == [holder])
        assert metrics[KC + "OfflinePartitionsCount"] == {"Value": lost}
        assert metrics[KC + "FencedBrokerCount"] == {"Value": 1}
        assert metrics[KC + "ActiveBrokerCount"] == {"Value": 2}
        assert metrics[KC + "GlobalPartitionCount"] == {"Value": 3}
    finally:
        cluster.stop()


def test_preferred_replica_imbalance_count_after_a_failover_and_a_preferred_election():
    cluster = Cluster(brokers=3, controllers=1, seed=53, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        imbalance = KC + "PreferredReplicaImbalanceCount"
        assert cluster.metric(imbalance) == {1001: 0}
        victim = cluster.leader("orders", 1)
        cluster.kill_broker(victim)
        assert cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, victim), 15_000)
        moved = sum(1 for p in range(3) if cluster.replicas("orders", p)[0] == victim)
        assert cluster.metric(imbalance) == {1001: moved}
        cluster.restart_broker(victim)
        assert cluster.wait_until(lambda: all(victim in cluster.isr("orders", p) for p in range(3)),
                                  30_000)
        cluster.elect_leaders("preferred")
        assert cluster.metric(imbalance) == {1001: 0}
    finally:
        cluster.stop()


def test_standby_controllers_report_the_image_metrics_too():
    cluster = Cluster(brokers=3, controllers=3, seed=54, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=4, replication_factor=2)
        cluster.run_for(1_000)                   # standbys replay the committed records
        counts = cluster.metric(KC + "GlobalPartitionCount")
        assert counts == {1001: 4, 1002: 4, 1003: 4}
    finally:
        cluster.stop()
