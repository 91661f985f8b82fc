"""A virtual-time harness around one broker's GroupCoordinator, plus a tiny consumer.

The broker side is a real sans-IO `Node` (its timers and event log) and a fake
``__consumer_offsets``: ``append`` queues the records and the test decides when
they are committed (``settle``) or fail (``fail_appends``).  Time only moves in
``advance``, which fires timers in deadline order.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from minikafka.common.errors import Errors
from minikafka.coordinator.group_coordinator import GroupCoordinator
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.requests import (
    HeartbeatRequest, JoinGroupRequest, JoinGroupRequestProtocol, LeaveGroupRequest,
    MemberIdentity, OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
    OffsetFetchRequest, OffsetFetchRequestTopics, SyncGroupRequest, SyncGroupRequestAssignment,
)
from minikafka.runtime.node import Node

START = 1767225600000  # the simulated driver's epoch (2026-01-01T00:00:00Z)
GROUP = "demo"


class Box:
    """Captures what a ``respond`` callback was given (and how often)."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __call__(self, value: Any) -> None:
        self.values.append(value)

    @property
    def done(self) -> bool:
        return bool(self.values)

    @property
    def value(self) -> Any:
        assert len(self.values) == 1, f"expected one response, got {self.values}"
        return self.values[0]


class Harness:
    def __init__(self, seed: int = 7, node_id: int = 1, config: GroupCoordinatorConfig | None = None,
                 log: dict[int, list] | None = None, start: int = START):
        self.node = Node(node_id, random.Random(f"{seed}:{node_id}:0"))
        self.node.start(start)
        self.log: dict[int, list] = log if log is not None else defaultdict(list)  # committed records
        self.queued: list[tuple[int, list, Any]] = []  # appends awaiting commit
        self.config = config or GroupCoordinatorConfig(initial_rebalance_delay_ms=3000)
        self.coordinator = GroupCoordinator(self.node, self.config, self._append)
        self.events: list = []

    # ------------------------------------------------------------------ broker side
    def _append(self, partition: int, records: list, callback) -> None:
        self.queued.append((partition, records, callback))

    def settle(self) -> None:
        """Commit every queued append (in order), as acks=all would."""
        while self.queued:
            partition, records, callback = self.queued.pop(0)
            self.log[partition].extend(records)
            callback(Errors.NONE)
        self._drain()

    def fail_appends(self, error: Errors = Errors.NOT_ENOUGH_REPLICAS) -> None:
        while self.queued:
            _, _, callback = self.queued.pop(0)
            callback(error)
        self._drain()

    def advance(self, ms: int, settle: bool = True) -> None:
        """Move virtual time forward by ``ms``, firing timers on the way."""
        target = self.node.now + ms
        while True:
            if settle:
                self.settle()
            deadline = self.node.next_deadline()
            if deadline is None or deadline > target:
                break
            self.node.poll(max(deadline, self.node.now))
        self.node.poll(target)
        if settle:
            self.settle()
        self._drain()

    def _drain(self) -> None:
        _, events = self.node.drain()
        self.events.extend(events)

    def kinds(self) -> list[str]:
        self._drain()
        return [e.kind for e in self.events]

    def elect_all(self, epoch: int = 0) -> None:
        for p in range(self.config.offsets_topic_num_partitions):
            self.coordinator.on_elected(p, epoch, list(self.log.get(p, [])))
        self._drain()

    @property
    def partition(self) -> int:
        return self.coordinator.partition_for(GROUP)

    def group(self, group_id: str = GROUP):
        return self.coordinator.group(group_id)


class Consumer:
    """Just enough of a classic-protocol consumer to drive the coordinator by hand."""

    def __init__(self, h: Harness, client_id: str, group_id: str = GROUP, session_timeout_ms: int = 10000,
                 rebalance_timeout_ms: int = 30000, protocols: tuple[str, ...] = ("range", "roundrobin"),
                 instance_id: str | None = None, api_version: int = 7, subscription: bytes = b"sub"):
        self.h, self.client_id, self.group_id = h, client_id, group_id
        self.session_timeout_ms, self.rebalance_timeout_ms = session_timeout_ms, rebalance_timeout_ms
        self.protocols = tuple(JoinGroupRequestProtocol(p, subscription) for p in protocols)
        self.instance_id, self.api_version = instance_id, api_version
        self.member_id = ""
        self.generation = -1

    def join_request(self) -> JoinGroupRequest:
        return JoinGroupRequest(self.group_id, self.session_timeout_ms, self.member_id, "consumer",
                                self.protocols, self.rebalance_timeout_ms, self.instance_id,
                                api_version=self.api_version, client_id=self.client_id,
                                client_host="/127.0.0.1")

    def join(self) -> Box:
        """Send JoinGroup; on MEMBER_ID_REQUIRED take the id and send it again at once."""
        box = Box()
        self.h.coordinator.handle_join_group(self.join_request(), box)
        if box.done and box.value.error_code is Errors.MEMBER_ID_REQUIRED:
            self.member_id = box.value.member_id
            box = Box()
            self.h.coordinator.handle_join_group(self.join_request(), box)
        self.h.settle()
        return box

    def joined(self, box: Box) -> None:
        response = box.value
        assert response.error_code is Errors.NONE, response
        self.member_id, self.generation = response.member_id, response.generation_id

    def sync(self, assignments: dict[str, bytes] | None = None, protocol: str | None = "range") -> Box:
        box = Box()
        pairs = tuple(SyncGroupRequestAssignment(m, a) for m, a in (assignments or {}).items())
        self.h.coordinator.handle_sync_group(SyncGroupRequest(
            self.group_id, self.generation, self.member_id, self.instance_id, "consumer", protocol,
            pairs), box)
        self.h.settle()
        return box

    def heartbeat(self) -> Errors:
        box = Box()
        self.h.coordinator.handle_heartbeat(HeartbeatRequest(
            self.group_id, self.generation, self.member_id, self.instance_id), box)
        return box.value.error_code

    def leave(self) -> Box:
        box = Box()
        self.h.coordinator.handle_leave_group(LeaveGroupRequest(
            self.group_id, (MemberIdentity(self.member_id, self.instance_id, "closing"),)), box)
        self.h.settle()
        return box

    def commit(self, offsets: dict[tuple[str, int], int], generation: int | None = None,
               member_id: str | None = None, api_version: int = 8) -> Box:
        by_topic: dict[str, list] = defaultdict(list)
        for (topic, partition), offset in offsets.items():
            by_topic[topic].append(OffsetCommitRequestPartition(partition, offset, 3, "meta"))
        box = Box()
        self.h.coordinator.handle_offset_commit(OffsetCommitRequest(
            self.group_id, tuple(OffsetCommitRequestTopic(t, tuple(ps)) for t, ps in by_topic.items()),
            self.generation if generation is None else generation,
            self.member_id if member_id is None else member_id, self.instance_id,
            api_version=api_version), box)
        self.h.settle()
        return box

    def fetch(self, partitions: dict[str, tuple[int, ...]] | None) -> Box:
        topics = None if partitions is None else tuple(
            OffsetFetchRequestTopics(t, ps) for t, ps in partitions.items())
        box = Box()
        self.h.coordinator.handle_offset_fetch(OffsetFetchRequest.single(self.group_id, topics), box)
        return box


def form_group(h: Harness, consumers: list[Consumer]) -> None:
    """Join every consumer, let the rebalance complete, sync with a leader assignment."""
    boxes = [c.join() for c in consumers]
    # Each newcomer extends the initial rebalance delay, so wait as long as it takes.
    while not all(b.done for b in boxes):
        h.advance(h.config.initial_rebalance_delay_ms)
    for consumer, box in zip(consumers, boxes):
        consumer.joined(box)
    leader = next(c for c, b in zip(consumers, boxes) if b.value.members)
    plan = {c.member_id: f"assignment-of-{c.client_id}".encode() for c in consumers}
    syncs = [c.sync(plan if c is leader else None) for c in consumers if c is not leader]
    syncs.append(leader.sync(plan))
    h.settle()
    for box in syncs:
        assert box.value.error_code is Errors.NONE, box.values
