"""Broker MBeans named as Kafka names them: on a simulated cluster against known traffic and
states, and `register_broker_metrics` alone over fake partitions, state and logs."""

from types import SimpleNamespace

import pytest

from minikafka.cluster import Cluster
from minikafka.common.topic_partition import TopicPartition
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.server.broker_lifecycle_manager import BrokerState
from minikafka.server.broker_metrics import register_broker_metrics
from tests.client_batches import client_batch
from tests.server.apis.dataplane_harness import fetch, only_partition, produce

BTM = "kafka.server:type=BrokerTopicMetrics,name="
RM = "kafka.server:type=ReplicaManager,name="


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=41, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=3)
    yield c
    c.stop()


def value(cluster, broker, mbean, attribute="Value"):
    return cluster.broker_metrics(broker)[mbean][attribute]


def per_broker(cluster, mbean, attribute=None):
    return {b: v for b, v in cluster.metric(mbean, attribute).items() if b in cluster.broker_ids}


def test_messages_in_and_bytes_in_per_sec_count_what_the_leader_appended(cluster):
    leader = cluster.leader("orders", 0)
    batch = client_batch(count=3)
    for _ in range(10):
        assert only_partition(produce(cluster, leader, "orders", 0, batch)).error_code == 0
    for name in ("MessagesInPerSec", "MessagesInPerSec,topic=orders"):
        assert per_broker(cluster, BTM + name).get(leader) == 30
    assert value(cluster, leader, BTM + "BytesInPerSec", "Count") == 10 * len(batch)
    assert value(cluster, leader, BTM + "TotalProduceRequestsPerSec,topic=orders", "Count") == 10
    followers = [b for b in cluster.broker_ids if b != leader]
    for follower in followers:        # replicated data is not "in" on a follower
        assert value(cluster, follower, BTM + "MessagesInPerSec", "Count") == 0
        assert BTM + "MessagesInPerSec,topic=orders" not in cluster.broker_metrics(follower)


def test_replication_bytes_in_and_out_per_sec_count_the_followers_fetches(cluster):
    leader = cluster.leader("orders", 1)
    batch = client_batch(count=5)
    for _ in range(4):
        produce(cluster, leader, "orders", 1, batch)
    cluster.run_for(2_000)
    followers = [b for b in cluster.broker_ids if b != leader]
    for follower in followers:
        assert value(cluster, follower, BTM + "ReplicationBytesInPerSec", "Count") == 4 * len(batch)
    assert value(cluster, leader, BTM + "ReplicationBytesOutPerSec", "Count") == 2 * 4 * len(batch)
    assert value(cluster, leader, BTM + "BytesOutPerSec", "Count") == 0     # no consumer read yet
    assert BTM + "ReplicationBytesInPerSec,topic=orders" not in cluster.broker_metrics(leader)


def test_bytes_out_per_sec_counts_records_sent_to_consumers(cluster):
    leader = cluster.leader("orders", 2)
    batch = client_batch(count=2)
    produce(cluster, leader, "orders", 2, batch)
    produce(cluster, leader, "orders", 2, batch)
    response = fetch(cluster, leader, "orders", 2, 0)
    sent = len(response.responses[0].partitions[0].records)
    assert sent == 2 * len(batch)
    assert value(cluster, leader, BTM + "BytesOutPerSec,topic=orders", "Count") == sent
    assert value(cluster, leader, BTM + "TotalFetchRequestsPerSec,topic=orders", "Count") >= 1


def test_ten_second_rate_is_the_traffic_of_the_last_ten_seconds(cluster):
    leader = cluster.leader("orders", 0)
    for _ in range(50):                          # one record every 100 ms for 5 s
        produce(cluster, leader, "orders", 0, client_batch(count=1), acks=1)
        cluster.run_for(100)
    rate = value(cluster, leader, BTM + "MessagesInPerSec", "TenSecondRate")
    assert rate == pytest.approx(5.0)            # 50 messages / 10 s
    cluster.run_for(10_000)
    assert value(cluster, leader, BTM + "MessagesInPerSec", "TenSecondRate") == 0.0
    assert value(cluster, leader, BTM + "MessagesInPerSec", "Count") == 50


def test_failed_produce_requests_per_sec_counts_invalid_records_but_not_wrong_leaders(cluster):
    leader = cluster.leader("orders", 0)
    follower = next(b for b in cluster.broker_ids if b != leader)
    produce(cluster, follower, "orders", 0, client_batch())                  # NOT_LEADER_OR_FOLLOWER
    assert value(cluster, follower, BTM + "FailedProduceRequestsPerSec", "Count") == 0
    cluster.alter_topic_config("orders", set={"max.message.bytes": "20"})
    result = only_partition(produce(cluster, leader, "orders", 0, client_batch(value_size=100)))
    assert result.error_code != 0
    assert value(cluster, leader, BTM + "TotalProduceRequestsPerSec", "Count") == 1
    assert value(cluster, leader, BTM + "MessagesInPerSec", "Count") == 0


def test_leader_count_and_partition_count_per_broker(cluster):
    assert per_broker(cluster, RM + "LeaderCount") == {1: 1, 2: 1, 3: 1}
    assert per_broker(cluster, RM + "PartitionCount") == {1: 3, 2: 3, 3: 3}


def test_leader_count_after_an_election(cluster):
    victim = cluster.leader("orders", 0)
    cluster.kill_broker(victim)
    assert cluster.wait_until(
        lambda: sum(per_broker(cluster, RM + "LeaderCount").values()) == 3, 15_000)
    assert victim not in per_broker(cluster, RM + "LeaderCount")        # a dead broker reports nothing
    assert cluster.leader("orders", 0) != victim
    cluster.restart_broker(victim)
    assert cluster.wait_until(lambda: all(victim in cluster.isr("orders", p) for p in range(3)), 30_000)
    assert value(cluster, victim, RM + "LeaderCount") == 0     # back, but leads nothing yet
    cluster.elect_leaders("preferred")
    assert cluster.wait_until(
        lambda: per_broker(cluster, RM + "LeaderCount") == {1: 1, 2: 1, 3: 1}, 10_000)


def test_under_replicated_partitions_after_a_broker_is_killed(cluster):
    assert sum(per_broker(cluster, RM + "UnderReplicatedPartitions").values()) == 0
    cluster.kill_broker(3)
    assert cluster.wait_until(lambda: all(3 not in cluster.isr("orders", p) for p in range(3)), 20_000)
    cluster.run_for(1_000)                       # the leaders apply the new ISRs
    urp = per_broker(cluster, RM + "UnderReplicatedPartitions")
    assert urp == per_broker(cluster, RM + "LeaderCount")     # only leaders count their partitions
    assert sum(urp.values()) == 3
    cluster.restart_broker(3)
    assert cluster.wait_until(lambda: all(3 in cluster.isr("orders", p) for p in range(3)), 30_000)
    cluster.run_for(1_000)
    assert sum(per_broker(cluster, RM + "UnderReplicatedPartitions").values()) == 0
    assert sum(per_broker(cluster, RM + "IsrExpandsPerSec").values()) == 3


def test_isr_shrinks_per_sec_when_a_leader_drops_a_lagging_follower(cluster):
    led_by_1 = [p for p in range(3) if cluster.leader("orders", p) == 1]
    cluster.cut_link(1, 3)                       # 3 still heartbeats, but cannot fetch from 1
    # A follower only falls behind when the leader's log grows (Kafka's isCaughtUp).
    for _ in range(40):
        for p in led_by_1:
            produce(cluster, 1, "orders", p, client_batch(count=1), acks=1)
        cluster.run_for(250)
    assert all(3 not in cluster.isr("orders", p) for p in led_by_1)
    cluster.run_for(500)
    assert value(cluster, 1, RM + "IsrShrinksPerSec", "Count") == len(led_by_1)
    assert value(cluster, 1, RM + "UnderReplicatedPartitions") == len(led_by_1)
    assert value(cluster, 2, RM + "IsrShrinksPerSec", "Count") == 0


def test_under_and_at_min_isr_partition_counts(cluster):
    cluster.alter_topic_config("orders", set={"min.insync.replicas": "2"})
    cluster.kill_broker(3)
    assert cluster.wait_until(lambda: all(3 not in cluster.isr("orders", p) for p in range(3)), 20_000)
    cluster.run_for(1_000)
    assert sum(per_broker(cluster, RM + "AtMinIsrPartitionCount").values()) == 3
    cluster.kill_broker(2)
    assert cluster.wait_until(lambda: all(cluster.isr("orders", p) == [1] for p in range(3)), 20_000)
    cluster.run_for(1_000)
    assert value(cluster, 1, RM + "UnderMinIsrPartitionCount") == 3
    assert value(cluster, 1, RM + "AtMinIsrPartitionCount") == 0


def test_broker_state_and_log_gauges(cluster):
    leader = cluster.leader("orders", 0)
    produce(cluster, leader, "orders", 0, client_batch(count=4))
    metrics = cluster.broker_metrics(leader)
    assert metrics["kafka.server:type=KafkaServer,name=BrokerState"] == {"Value": 3}   # RUNNING
    tags = ",topic=orders,partition=0"
    assert metrics["kafka.log:type=Log,name=LogEndOffset" + tags] == {"Value": 4}
    assert metrics["kafka.log:type=Log,name=LogStartOffset" + tags] == {"Value": 0}
    assert metrics["kafka.log:type=Log,name=NumLogSegments" + tags] == {"Value": 1}
    size = cluster.snapshot().topic("orders").partitions[0].replica_states[0].size_bytes
    assert metrics["kafka.log:type=Log,name=Size" + tags]["Value"] == size > 0


# ---------------------------------------------------------------------- alone, with fake partitions
class FakePartition:
    """What the gauges read of a `Partition`: role, replica sets, ISR, min ISR and the log."""

    def __init__(self, leader: bool, replicas, isr, min_isr=1, adding=(), removing=()):
        self.is_leader = leader
        self.replicas, self.isr = tuple(replicas), tuple(isr)
        self.adding_replicas, self.removing_replicas = tuple(adding), tuple(removing)
        self.log = object()
        self._min_isr = min_isr

    def min_isr(self) -> int:
        return self._min_isr

    def is_under_min_isr(self) -> bool:
        return self.is_leader and len(self.isr) < self._min_isr


def test_gauges_read_the_partition_map_the_state_and_the_logs_each_time():
    registry = MetricsRegistry(lambda: 0)
    partitions, logs = {}, {}
    state = {"now": BrokerState.RECOVERY}
    meters = register_broker_metrics(registry, partitions=partitions,
                                     broker_state=lambda: state["now"], logs=logs)
    assert registry.read(0)[RM + "PartitionCount"]["Value"] == 0
    assert registry.read(0)["kafka.server:type=KafkaServer,name=BrokerState"]["Value"] == 2

    partitions.update({
        TopicPartition("t", 0): FakePartition(True, (1, 2, 3), (1, 2, 3), min_isr=2),
        TopicPartition("t", 1): FakePartition(True, (1, 2, 3), (1, 2), min_isr=2),       # at min ISR
        TopicPartition("t", 2): FakePartition(True, (1, 2, 3), (1,), min_isr=2),         # under
        TopicPartition("t", 3): FakePartition(False, (2, 1, 3), (2,)),                   # a follower
        TopicPartition("t", 4): FakePartition(True, (1, 2, 4), (1, 2), adding=(4,)),     # reassigning
    })
    logs[TopicPartition("t", 0)] = SimpleNamespace(number_of_segments=2, log_start_offset=5,
                                                   log_end_offset=9, size_in_bytes=700)
    state["now"] = BrokerState.RUNNING
    values = {name: v["Value"] for name, v in registry.read(0).items() if "Value" in v}
    assert {name[len(RM):]: values[name] for name in values if name.startswith(RM)} == {
        "LeaderCount": 4, "PartitionCount": 5, "OfflineReplicaCount": 0,
        "UnderReplicatedPartitions": 2, "UnderMinIsrPartitionCount": 1,
        "AtMinIsrPartitionCount": 1, "ReassigningPartitions": 1}
    assert values["kafka.server:type=KafkaServer,name=BrokerState"] == 3
    assert values["kafka.log:type=Log,name=Size,topic=t,partition=0"] == 700
    assert values["kafka.log:type=Log,name=LogStartOffset,topic=t,partition=0"] == 5
    assert meters.shrinks is registry.meters[RM + "IsrShrinksPerSec"]
