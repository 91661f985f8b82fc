"""A fake Raft and helpers to drive a QuorumController in tests.

`FakeRaft` keeps the metadata log as a list of `Batch` and commits only when
the test says so (``commit()``), so a test can look at the controller
between "written" and "committed".  It mimics the parts of KafkaRaftClient
the controller uses: ``prepare_append`` (offsets handed out at once, NotLeaderException
when not the leader of that epoch), ``leader_and_epoch``, ``high_watermark``,
and the listener callbacks, firing ``handle_leader_change`` for the new leader
only after its LeaderChangeMessage batch was committed and delivered.
"""

from __future__ import annotations

import random

from minikafka.common.uuid import Uuid
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.quorum_controller import QuorumController, QuorumControllerConfig
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerRegistrationRequest,
                                           CreatableTopic, CreateTopicsRequest, Feature, Listener)
from minikafka.raft.errors import NotLeaderException
from minikafka.raft.quorum_state import LeaderAndEpoch
from minikafka.raft.replicated_log import Batch
from minikafka.runtime.node import Node
from minikafka.common.timing import TEACHING

START = 1767225600000
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
BROKER_FEATURES = tuple(Feature(name, low, high) for name, (low, high) in SUPPORTED_FEATURES_4_3.items())


class FakeRaft:
    def __init__(self, node_id: int):
        self.node_id = node_id
        self.batches: list[Batch] = []
        self.leader = LeaderAndEpoch(None, 0)
        self.listener = None
        self.delivered = 0            # batches handed to the listener
        self.now = START

    @property
    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.leader

    @property
    def end_offset(self) -> int:
        return self.batches[-1].next_offset if self.batches else 0

    @property
    def high_watermark(self) -> int:
        return self.batches[self.delivered - 1].next_offset if self.delivered else 0

    def register_listener(self, listener) -> None:
        self.listener = listener

    def prepare_append(self, records, epoch: int) -> int:
        if not self.leader.is_leader(self.node_id) or epoch != self.leader.epoch:
            raise NotLeaderException("Append failed because the replica is not the current leader")
        batch = Batch(self.end_offset, epoch, self.now, tuple(records))
        self.batches.append(batch)
        return batch.last_offset

    def schedule_prepared_append(self) -> None:
        """Nothing to do: batches are in the log at once and commit when the test says."""

    def commit(self, upto_batches: int | None = None) -> None:
        """Deliver every (or the first ``upto_batches``) appended batch as committed."""
        target = len(self.batches) if upto_batches is None else upto_batches
        while self.delivered < target:
            batch = self.batches[self.delivered]
            self.delivered += 1
            self.listener.handle_commit(batch)

    def elect(self, leader_id: int | None, epoch: int) -> None:
        """A new epoch; a leader first writes (and commits) its LeaderChangeMessage batch."""
        self.leader = LeaderAndEpoch(leader_id, epoch)
        if leader_id == self.node_id:
            self.batches = self.batches[:self.delivered]     # uncommitted tail is truncated
            self.batches.append(Batch(self.end_offset, epoch, self.now, ("LeaderChangeMessage",), True))
            self.commit()
        self.listener.handle_leader_change(self.leader)

    def all_records(self) -> list:
        return [r for b in self.batches[:self.delivered] if not b.is_control for r in b.records]


class ControllerHarness:
    """One controller node with a fake Raft; ``tick(ms)`` advances virtual time."""

    def __init__(self, node_id: int = 1001, seed: str = "lesson", static_config=None, timing=TEACHING,
                 bootstrap_features=None):
        self.node = Node(node_id, random.Random(f"test:{node_id}"))
        self.node.start(START)
        self.raft = FakeRaft(node_id)
        features = {} if bootstrap_features is None else {"bootstrap_features": dict(bootstrap_features)}
        self.controller = QuorumController(self.node, self.raft, QuorumControllerConfig(
            CLUSTER_ID, seed, dict(static_config or {}), timing, **features))
        self.incarnations: dict[int, Uuid] = {}
        self.epochs: dict[int, int] = {}

    @property
    def now(self) -> int:
        return self.node.now

    def tick(self, ms: int) -> None:
        """Advance time, running due timers; commit whatever they wrote."""
        target = self.node.now + ms
        while True:
            deadline = self.node.next_deadline()
            if deadline is None or deadline > target:
                break
            self._set_now(deadline)
            self.node.poll(deadline)
            self.raft.commit()
        self._set_now(target)

    def _set_now(self, now: int) -> None:
        self.node.now = now
        self.raft.now = now

    def request(self, request, commit: bool = True):
        """Send ``request``; returns the response (None if it is still waiting for a commit)."""
        answers = []
        self.controller.handle_request(request, answers.append)
        if commit:
            self.raft.commit()
        return answers[0] if answers else None

    def activate(self) -> None:
        self.raft.elect(self.node.node_id, 1)
        self.raft.commit()

    def events(self, kind: str | None = None) -> list:
        _, events = self.node.drain()
        return [e for e in events if kind is None or e.kind == kind]

    # ------------------------------------------------------------------ brokers
    def register(self, broker_id: int, rack: str | None = None, incarnation: Uuid | None = None,
                 previous_broker_epoch: int = -1):
        incarnation = incarnation or Uuid(broker_id, 7)
        self.incarnations[broker_id] = incarnation
        response = self.request(BrokerRegistrationRequest(
            broker_id, CLUSTER_ID, incarnation, (Listener("PLAINTEXT", "localhost", 9091 + broker_id),),
            BROKER_FEATURES, rack, log_dirs=(Uuid(broker_id, 1000 + broker_id),),
            previous_broker_epoch=previous_broker_epoch))
        self.epochs[broker_id] = response.broker_epoch
        return response

    def heartbeat(self, broker_id: int, want_fence=False, want_shut_down=False, offset=None):
        offset = self.raft.high_watermark if offset is None else offset
        return self.request(BrokerHeartbeatRequest(broker_id, self.epochs[broker_id], offset,
                                                   want_fence, want_shut_down))

    def start_brokers(self, *broker_ids: int, rack_of=None) -> None:
        for broker_id in broker_ids:
            self.register(broker_id, rack_of(broker_id) if rack_of else None)
        for broker_id in broker_ids:
            self.heartbeat(broker_id)

    def create_topic(self, name: str, partitions: int = 1, rf: int = 1, configs=(), assignments=()):
        response = self.request(CreateTopicsRequest((CreatableTopic(name, partitions, rf, assignments,
                                                                    configs),)))
        return response.topics[0]

    def partition(self, topic: str, index: int):
        return self.controller.committed_image.partition(topic, index)
