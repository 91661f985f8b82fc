"""BrokerTopicStats: which meters exist for all topics, which per topic, and who marks them."""

from minikafka.metrics.broker_topic_stats import BrokerTopicStats
from minikafka.metrics.metrics_registry import MetricsRegistry

T0 = 1_767_225_600_000
BTM = "kafka.server:type=BrokerTopicMetrics,name="


def stats():
    registry = MetricsRegistry(lambda: T0)
    return registry, BrokerTopicStats(registry)


def test_all_topics_meters_exist_from_the_start_and_topic_meters_at_first_use():
    registry, topic_stats = stats()
    names = set(registry.read(T0))
    assert BTM + "ReplicationBytesInPerSec" in names and BTM + "MessagesInPerSec" in names
    assert not any("topic=" in n for n in names)
    topic_stats.appended("orders", 100, 3, T0)
    names = set(registry.read(T0))
    assert {BTM + "BytesInPerSec,topic=orders", BTM + "MessagesInPerSec,topic=orders"} <= names
    assert BTM + "BytesOutPerSec,topic=orders" not in names


def test_appends_mark_the_topic_and_all_topics():
    registry, topic_stats = stats()
    topic_stats.appended("orders", 100, 3, T0)
    topic_stats.appended("payments", 50, 1, T0)
    read = registry.read(T0 + 1000)
    assert read[BTM + "MessagesInPerSec"]["Count"] == 4
    assert read[BTM + "MessagesInPerSec,topic=orders"]["Count"] == 3
    assert read[BTM + "BytesInPerSec,topic=payments"]["Count"] == 50


def test_follower_bytes_out_are_replication_for_all_topics_only():
    registry, topic_stats = stats()
    topic_stats.bytes_out("orders", True, 70, T0)
    topic_stats.bytes_out("orders", False, 30, T0)
    read = registry.read(T0)
    assert read[BTM + "ReplicationBytesOutPerSec"]["Count"] == 70
    assert read[BTM + "BytesOutPerSec"]["Count"] == 30
    assert read[BTM + "BytesOutPerSec,topic=orders"]["Count"] == 30
    assert BTM + "ReplicationBytesOutPerSec,topic=orders" not in read


def test_a_removed_topic_loses_its_meters_but_not_the_totals():
    registry, topic_stats = stats()
    topic_stats.appended("orders", 100, 3, T0)
    topic_stats.remove_topic("orders")
    read = registry.read(T0)
    assert not any("topic=orders" in n for n in read)
    assert read[BTM + "MessagesInPerSec"]["Count"] == 3


def test_node_level_read_leaves_out_tagged_metrics_and_families():
    registry, topic_stats = stats()
    registry.gauge("kafka.server:type=ReplicaManager,name=LeaderCount", lambda: 2)
    registry.gauges(lambda: [("kafka.log:type=Log,name=Size,topic=t,partition=0", 10)])
    topic_stats.appended("orders", 100, 3, T0)
    full, node_level = registry.read(T0), registry.read(T0, node_level=True)
    assert full["kafka.log:type=Log,name=Size,topic=t,partition=0"] == {"Value": 10}
    assert node_level["kafka.server:type=ReplicaManager,name=LeaderCount"] == {"Value": 2}
    assert not any("topic=" in n for n in node_level)
    assert list(full) == sorted(full)
