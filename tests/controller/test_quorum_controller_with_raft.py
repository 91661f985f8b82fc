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
from minikafka.timing import TEACHING

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
