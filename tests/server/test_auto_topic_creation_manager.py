"""AutoTopicCreationManager: what it asks the controller for, and when.

On a simulated cluster first, then alone with a fake forwarding channel and a real
`KafkaConfig` (tests/server/harness.py).
"""

from minikafka import Cluster
from minikafka.common.errors import Errors
from minikafka.controller.requests import (CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
                                           CreateTopicsResponse)
from minikafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from tests.server.harness import broker_kafka_config


def test_creation_requests_are_sent_once_and_use_the_broker_defaults():
    c = Cluster(brokers=3, controllers=1, seed=71, simulated=True,
                broker_config={"num.partitions": 4, "default.replication.factor": 2}).start()
    try:
        manager = c.processes.node(1).broker.auto_topic_creation
        first = c.driver.invoke(1, lambda node: manager.create_topics(["fresh", "bad/name"]))
        assert first == {"fresh": Errors.UNKNOWN_TOPIC_OR_PARTITION, "bad/name": Errors.INVALID_TOPIC_EXCEPTION}
        assert manager.inflight_topics == {"fresh"}
        again = c.driver.invoke(1, lambda node: manager.create_topics(["fresh"]))
        assert again == {"fresh": Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert c.wait_until(lambda: not manager.inflight_topics, 5000)
        assert "fresh" in c.topics()
        assert [len(c.replicas("fresh", p)) for p in range(4)] == [2, 2, 2, 2]
        fresh = manager.creatable_topic("fresh")                  # set in server.properties: sent as set
        assert (fresh.num_partitions, fresh.replication_factor) == (4, 2)
    finally:
        c.stop()


def test_internal_topics_get_their_coordinators_settings():
    c = Cluster(brokers=1, controllers=1, seed=72, simulated=True).start()
    try:
        manager = c.processes.node(1).broker.auto_topic_creation
        offsets = manager.creatable_topic("__consumer_offsets")
        assert (offsets.num_partitions, offsets.replication_factor) == (50, 1)
        assert {(k.name, k.value) for k in offsets.configs} >= {("cleanup.policy", "compact")}
        txn = manager.creatable_topic("__transaction_state")
        assert (txn.num_partitions, txn.replication_factor) == (50, 3)
        assert ("min.insync.replicas", "2") in {(k.name, k.value) for k in txn.configs}
        plain = manager.creatable_topic("plain")          # not set: -1, the controller's defaults (KAFKA-19655)
        assert (plain.num_partitions, plain.replication_factor, plain.configs) == (-1, -1, ())
        c.driver.invoke(1, lambda node: manager.create_topics(["plain"]))
        assert c.wait_until(lambda: "plain" in c.topics(), 5000)
        assert len(c.snapshot().topic("plain").partitions) == 1 and len(c.replicas("plain", 0)) == 1
    finally:
        c.stop()


# ---------------------------------------------------------------------- alone, with fakes
class ForwardedRequests:
    """Stands in for BrokerServer.forward_to_controller: keeps each request until answered."""

    def __init__(self) -> None:
        self.sent: list[tuple[CreateTopicsRequest, object, int | None]] = []   # (request, respond, timeout)

    def __call__(self, request, respond, timeout_ms=None) -> None:
        self.sent.append((request, respond, timeout_ms))

    def answer(self, index: int = 0) -> None:
        _, respond, _ = self.sent[index]
        respond(CreateTopicsResponse(()))


def alone(**config):
    forwarded = ForwardedRequests()
    kafka_config = broker_kafka_config(**config)
    manager = AutoTopicCreationManager(kafka_config=lambda: kafka_config,
                                       forward_to_controller=forwarded)
    return manager, forwarded


def test_one_create_topics_request_carries_every_new_name_with_the_request_timeout():
    manager, forwarded = alone(num_partitions=3, default_replication_factor=2,
                                  request_timeout_ms=12000)
    errors = manager.create_topics(["a", "b"])
    assert errors == {"a": Errors.UNKNOWN_TOPIC_OR_PARTITION, "b": Errors.UNKNOWN_TOPIC_OR_PARTITION}
    [(request, _, timeout_ms)] = forwarded.sent
    assert request == CreateTopicsRequest((CreatableTopic("a", 3, 2), CreatableTopic("b", 3, 2)), 12000)
    assert timeout_ms == 12000


def test_a_name_in_flight_is_not_sent_again_until_the_controller_answers():
    manager, forwarded = alone()
    manager.create_topics(["a"])
    assert manager.create_topics(["a", "c"]) == {"a": Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                 "c": Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert [[t.name for t in r.topics] for r, _, _ in forwarded.sent] == [["a"], ["c"]]
    forwarded.answer(0)
    assert manager.inflight_topics == {"c"}
    manager.create_topics(["a"])
    assert [t.name for t in forwarded.sent[-1][0].topics] == ["a"]


def test_a_name_kafka_refuses_gets_invalid_topic_and_nothing_is_sent():
    manager, forwarded = alone()
    errors = manager.create_topics(["bad name", "x" * 250, "..", ""])
    assert set(errors.values()) == {Errors.INVALID_TOPIC_EXCEPTION}
    assert forwarded.sent == [] and manager.inflight_topics == set()


def test_consumer_offsets_gets_the_offsets_topic_settings_and_a_compacted_log():
    manager, forwarded = alone(offsets_topic_num_partitions=7, offsets_topic_replication_factor=2,
                                  offsets_topic_segment_bytes=1048576, num_partitions=3)
    manager.create_topics(["__consumer_offsets"])
    [topic] = forwarded.sent[0][0].topics
    assert topic == CreatableTopic("__consumer_offsets", 7, 2, configs=(
        CreatableTopicConfig("cleanup.policy", "compact"),
        CreatableTopicConfig("compression.type", "producer"),
        CreatableTopicConfig("segment.bytes", "1048576")))

