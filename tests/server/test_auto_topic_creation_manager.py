"""AutoTopicCreationManager on a simulated cluster: what it asks the controller for, and when."""

from minikafka import Cluster
from minikafka.common.errors import Errors


def test_creation_requests_are_sent_once_and_use_the_broker_defaults():
    c = Cluster(brokers=3, controllers=1, seed=71, simulated=True,
                broker_config={"num.partitions": 4, "default.replication.factor": 2}).start()
    try:
        manager = c._node(1).broker.auto_topic_creation
        first = c.driver.invoke(1, lambda node: manager.create_topics(["fresh", "bad/name"]))
        assert first == {"fresh": Errors.UNKNOWN_TOPIC_OR_PARTITION, "bad/name": Errors.INVALID_TOPIC_EXCEPTION}
        assert manager.inflight_topics == {"fresh"}
        again = c.driver.invoke(1, lambda node: manager.create_topics(["fresh"]))
        assert again == {"fresh": Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert c.wait_until(lambda: not manager.inflight_topics, 5000)
        assert "fresh" in c.topics()
        assert [len(c.replicas("fresh", p)) for p in range(4)] == [2, 2, 2, 2]
    finally:
        c.stop()


def test_internal_topics_get_their_coordinators_settings():
    c = Cluster(brokers=1, controllers=1, seed=72, simulated=True).start()
    try:
        manager = c._node(1).broker.auto_topic_creation
        offsets = manager.creatable_topic("__consumer_offsets")
        assert (offsets.num_partitions, offsets.replication_factor) == (50, 1)
        assert {(k.name, k.value) for k in offsets.configs} >= {("cleanup.policy", "compact")}
        txn = manager.creatable_topic("__transaction_state")
        assert (txn.num_partitions, txn.replication_factor) == (50, 3)
        assert ("min.insync.replicas", "2") in {(k.name, k.value) for k in txn.configs}
        plain = manager.creatable_topic("plain")
        assert (plain.num_partitions, plain.replication_factor, plain.configs) == (1, 1, ())
    finally:
        c.stop()
