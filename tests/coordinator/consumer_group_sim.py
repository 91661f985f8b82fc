"""A virtual-time driver around `ConsumerGroupHeartbeat`, with protocol-following clients.

The coordinator's records go through their byte encoding into a log (the
``__consumer_offsets`` partition); a *failover* builds a new coordinator by
decoding and replaying that log, as a broker taking over the partition would.
Timers are the coordinator's `TimerChange` requests, fired by ``advance``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group import ConsumerGroup
from minikafka.coordinator.consumer_group_heartbeat import (
    ConsumerGroupHeartbeat, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, CoordinatorResult,
)
from minikafka.coordinator.consumer_group_records import decode_record, encode_record
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage

START = 1767225600000
GROUP = "demo"
ORDERS = Uuid(0, 1)
PAYMENTS = Uuid(0, 2)
CONFIG = GroupCoordinatorConfig(consumer_group_session_timeout_ms=3000, consumer_group_heartbeat_interval_ms=500)


def default_image() -> TopicsImage:
    return TopicsImage.of(TopicMetadata(ORDERS, "orders", 12), TopicMetadata(PAYMENTS, "payments", 4))


def snapshot(group: ConsumerGroup) -> dict:
    """Everything a replay must rebuild."""
    return {
        "epoch": group.group_epoch, "hash": group.metadata_hash, "deleted": group.deleted,
        "target_epoch": group.target_assignment_epoch, "target": group.target_assignment,
        "members": dict(group.members), "static": dict(group.static_members),
        "partition_epochs": group.current_partition_epoch, "state": group.state,
    }


@dataclass
class Client:
    name: str
    topics: tuple[str, ...] = ("orders",)
    regex: str | None = None
    instance_id: str | None = None
    assignor: str | None = None
    member_id: str = ""
    epoch: int = 0
    owned: dict[Uuid, frozenset[int]] = field(default_factory=dict)
    running: bool = True            # a stopped client neither heartbeats nor consumes

    def __post_init__(self):
        self.member_id = self.member_id or f"{self.name}-id"

    def request(self) -> ConsumerGroupHeartbeatRequest:
        owned = tuple((t, tuple(sorted(p))) for t, p in sorted(self.owned.items()))
        if self.epoch == 0:
            return ConsumerGroupHeartbeatRequest(
                GROUP, self.member_id, 0, self.instance_id, rebalance_timeout_ms=2000,
                subscribed_topic_names=self.topics if self.regex is None else None,
                subscribed_topic_regex=self.regex, server_assignor=self.assignor, topic_partitions=())
        return ConsumerGroupHeartbeatRequest(GROUP, self.member_id, self.epoch, self.instance_id,
                                             topic_partitions=owned)

    def on_response(self, response: ConsumerGroupHeartbeatResponse) -> None:
        if response.error in (Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID):
            self.owned, self.epoch = {}, 0                 # lose everything, rejoin
            return
        if response.error in (Errors.UNRELEASED_INSTANCE_ID, Errors.FENCED_INSTANCE_ID):
            self.owned, self.running = {}, False           # fatal for the client: it shuts down
            return
        assert response.error is Errors.NONE, response
        self.epoch = response.member_epoch
        if response.assignment is not None:
            self.owned = {t: frozenset(p) for t, p in response.assignment}


class Sim:
    def __init__(self, image: TopicsImage | None = None, config: GroupCoordinatorConfig = CONFIG):
        self.now = START
        self.image = image or default_image()
        self.config = config
        self.log: list[tuple[bytes, bytes | None]] = []
        self.timers: dict[tuple[str, str, str], tuple[int, int]] = {}
        self.clients: dict[str, Client] = {}
        self._ids = 0
        self.coordinator = self._new_coordinator()

    def _new_coordinator(self) -> ConsumerGroupHeartbeat:
        return ConsumerGroupHeartbeat(self.config, lambda: self.image, self._new_member_id)

    def _new_member_id(self) -> str:
        self._ids += 1
        return f"generated-{self._ids}"

    @property
    def group(self) -> ConsumerGroup:
        return self.coordinator.groups[GROUP]

    def apply(self, result: CoordinatorResult) -> CoordinatorResult:
        self.log.extend(encode_record(r) for r in result.records)
        for t in result.timers:
            key = (t.kind, t.group_id, t.member_id)
            if t.deadline_ms is None:
                self.timers.pop(key, None)
            else:
                self.timers[key] = (t.deadline_ms, t.member_epoch)
        return result

    def send(self, request: ConsumerGroupHeartbeatRequest, **kw) -> ConsumerGroupHeartbeatResponse:
        return self.apply(self.coordinator.consumer_group_heartbeat(request, self.now, **kw)).response

    def heartbeat(self, client: Client) -> ConsumerGroupHeartbeatResponse:
        response = self.send(client.request())
        client.on_response(response)
        return response

    def add(self, client: Client) -> Client:
        self.clients[client.name] = client
        self.heartbeat(client)
        return client

    def advance(self, ms: int) -> None:
        end = self.now + ms
        while True:
            due = sorted((d, k, e) for k, (d, e) in self.timers.items() if d <= end)
            if not due:
                break
            deadline, key, epoch = due[0]
            del self.timers[key]
            self.now = max(self.now, deadline)
            kind, group_id, member_id = key
            if kind == "session":
                self.apply(self.coordinator.on_session_timeout(group_id, member_id, self.now))
            else:
                self.apply(self.coordinator.on_rebalance_timeout(group_id, member_id, epoch, self.now))
        self.now = end

    def round(self, order=None) -> None:
        """Every running client heartbeats once (then time moves one heartbeat interval)."""
        for name in order or sorted(self.clients):
            client = self.clients[name]
            if client.running:
                self.heartbeat(client)
        self.advance(self.config.consumer_group_heartbeat_interval_ms)

    def failover(self) -> None:
        """A new coordinator loads the log; the old one's state must come back exactly."""
        before = {g: snapshot(grp) for g, grp in self.coordinator.groups.items()}
        self.coordinator = self._new_coordinator()
        for key, value in self.log:
            self.coordinator.replay(decode_record(key, value))
        after = {g: snapshot(grp) for g, grp in self.coordinator.groups.items()}
        assert after == before
        self.timers.clear()
        self.apply(CoordinatorResult(timers=self.coordinator.on_loaded(self.now)))

    # ------------------------------------------------------------------ invariants
    def running_owners(self) -> dict[tuple[Uuid, int], str]:
        """Who consumes what, among running clients that are still members of the group.

        A client whose session expired while it was silent is no longer a member: the
        coordinator may already have given its partitions away, and the client learns it at its
        next heartbeat (UNKNOWN_MEMBER_ID: it drops everything).  Kafka guards that window by
        fencing the zombie's offset commits (STALE_MEMBER_EPOCH), not by ownership.
        """
        owners: dict[tuple[Uuid, int], str] = {}
        members = self.coordinator.groups[GROUP].members if GROUP in self.coordinator.groups else {}
        for client in self.clients.values():
            if not client.running or client.member_id not in members:
                continue
            for t, ps in client.owned.items():
                for p in ps:
                    assert (t, p) not in owners, f"{t}-{p} owned by {owners[(t, p)]} and {client.name}"
                    owners[(t, p)] = client.name
        return owners

    def check_no_double_ownership(self) -> None:
        self.running_owners()
        if GROUP in self.coordinator.groups:
            seen: set = set()
            for m in self.group.members.values():
                mine = m.owned_partitions()
                assert not (mine & seen)
                seen |= mine

    def check_stable_and_complete(self) -> None:
        group = self.group
        assert group.state.value in ("Stable", "Empty"), group.state
        running = [c for c in self.clients.values() if c.running and c.epoch > 0]
        if not running:
            return
        subscribed = set()                         # as the coordinator holds them: names and regex
        for c in running:
            member = group.members[c.member_id]
            subscribed |= set(member.subscribed_topic_names)
            if member.subscribed_topic_regex:
                subscribed |= {t.name for t in self.image.topics
                               if re.fullmatch(member.subscribed_topic_regex, t.name)}
        expected = {(t.topic_id, p) for t in self.image.topics if t.name in subscribed
                    for p in range(t.num_partitions)}
        assert set(self.running_owners()) == expected
        for c in running:
            assert {t: frozenset(p) for t, p in group.members[c.member_id].assigned_partitions.items()} == c.owned
