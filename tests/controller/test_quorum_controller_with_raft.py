"""The QuorumController on the real KafkaRaftClient: a one-voter quorum in virtual time."""

import random

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.quorum_controller import QuorumController, QuorumControllerConfig
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerRegistrationRequest, CreatableTopic,
                                           CreateTopicsRequest, Listener)
from minikafka.metadata.records import FeatureLevelRecord, RegisterBrokerRecord
from minikafka.raft import KafkaRaftClient, MemoryQuorumStateStore, MemoryReplicatedLog
from minikafka.runtime.node import Node
from minikafka.common.timing import TEACHING

from tests.controller.harness import BROKER_FEATURES, CLUSTER_ID, START


class ControllerNode(Node):
    def __init__(self):
        super().__init__(1001, random.Random("raft-test"))
        self.log = MemoryReplicatedLog()
        self.raft = KafkaRaftClient(self, {1001: "CONTROLLER://localhost:9093"}, self.log,
                                    MemoryQuorumStateStore(), TEACHING, CLUSTER_ID)
        self.controller = None

    def on_start(self) -> None:
        self.raft.start()
        self.controller = QuorumController(self, self.raft, QuorumControllerConfig(CLUSTER_ID, "seed"))

    def run(self, ms: int) -> None:
        target = self.now + ms
        while (deadline := self.next_deadline()) is not None and deadline <= target:
            self.poll(deadline)
        self.now = target

    def ask(self, request, ms: int = 200):
        answers = []
        self.controller.handle_request(request, answers.append)
        self.run(ms)
        return answers[0]


def records(node):
    return [r for b in node.log.read(0, 10**6) if not b.is_control for r in b.records]


def test_single_voter_bootstraps_registers_and_creates_a_topic():
    node = ControllerNode()
    node.start(START)
    node.run(500)
    assert node.controller.is_active
    assert FeatureLevelRecord(name="metadata.version", feature_level=30) in records(node)
    response = node.ask(BrokerRegistrationRequest(1, CLUSTER_ID, Uuid(1, 7), (Listener("PLAINTEXT", "h", 9092),),
                                                  BROKER_FEATURES, log_dirs=(Uuid(1, 1001),)))
    register = [(b.base_offset + i, r) for b in node.log.read(0, 10**6) for i, r in enumerate(b.records)
                if isinstance(r, RegisterBrokerRecord)]
    assert response.error_code is Errors.NONE and response.broker_epoch == register[0][0]
    heartbeat = node.ask(BrokerHeartbeatRequest(1, response.broker_epoch, node.raft.high_watermark))
    assert not heartbeat.is_fenced
    created = node.ask(CreateTopicsRequest((CreatableTopic("orders", 3, 1),))).topics[0]
    assert created.error_code is Errors.NONE
    assert sorted(node.controller.committed_image.topic("orders").partitions) == [0, 1, 2]
    node.run(1000)
    assert node.controller.image is node.controller.committed_image      # nothing left uncommitted



def test_a_write_committed_during_its_own_append_is_answered_and_logged_at_once():
    """A starved thread runs the linger timer late: the next append drains the lingering batch
    with its own records, and a single voter commits them inside that very call.  The controller
    registers a write before scheduling it (Kafka's prepareAppend / schedulePreparedAppend), so
    the answer and the event do not wait for the next commit (a no-op 500 ms later)."""
    node = ControllerNode()
    node.start(START)
    node.run(500)
    registered = node.ask(BrokerRegistrationRequest(1, CLUSTER_ID, Uuid(1, 7), (Listener("PLAINTEXT", "h", 9092),),
                                                    BROKER_FEATURES, log_dirs=(Uuid(1, 1001),)))
    node.ask(BrokerHeartbeatRequest(1, registered.broker_epoch, node.raft.high_watermark))
    node.drain()
    first, second = [], []
    node.controller.handle_request(CreateTopicsRequest((CreatableTopic("first", 1, 1),)), first.append)
    assert not first                     # lingering: not committed yet
    node.now += 100                      # the 25 ms linger timer is overdue: nothing ran it
    node.controller.handle_request(CreateTopicsRequest((CreatableTopic("second", 1, 1),)), second.append)
    assert first and second, "a committed CreateTopics was not answered"
    assert [t.error_code for t in first[0].topics + second[0].topics] == [Errors.NONE, Errors.NONE]
    created = [e.data["topic"] for e in node.drain()[1] if e.kind == "topic_created"]
    assert created == ["first", "second"]
    assert set(node.controller.committed_image.topic_names()) == {"first", "second"}
    node.run(1000)                       # later writes still line up with the log
    third = node.ask(CreateTopicsRequest((CreatableTopic("third", 1, 1),)))
    assert third.topics[0].error_code is Errors.NONE
    assert node.controller.image.topic_names() == node.controller.committed_image.topic_names()
