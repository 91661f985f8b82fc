"""`ClusterSnapshot`: the whole cluster as plain, immutable data.

Theory of operation
-------------------
Widgets, lessons and the tool-output formatters never reach into node
objects.  They ask the cluster for a snapshot, a tree of frozen dataclasses
built on the driver's thread in one go (so it is consistent), and render
that.  ``as_dict()`` gives the same tree as JSON-compatible dicts and lists.

What is in it:

* nodes: id, roles, process state (running / paused / dead), whether the
  network isolates it, its broker registration state as the active
  controller sees it (unfenced / fenced / controlled_shutdown / unregistered),
  its KRaft role (leader / follower / candidate / unattached / resigned /
  observer), port, data directory and bytes on disk, and its node-level
  metrics under Kafka's MBean names (``metrics``: the untagged ones);
* the controller quorum: voters, active controller, epoch, high watermark;
* every topic and partition as the controller's committed metadata says
  (replicas, ISR, leader, epochs, reassignment), plus, per replica, what that
  broker's log says (log end offset, high watermark, log start offset, size).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ReplicaState:
    broker: int
    log_end_offset: int | None        # None when the broker is down or has no log yet
    high_watermark: int | None
    log_start_offset: int | None
    size_bytes: int | None
    in_sync: bool                      # in the partition's ISR
    is_leader: bool
    # The leader's view of this follower (Kafka's Replica state); None for the leader
    # itself and when no live leader knows it.
    fetch_offset: int | None = None    # the offset its last fetch asked for (its log end offset)
    last_fetch_time_ms: int | None = None       # when it last fetched from the leader
    last_caught_up_time_ms: int | None = None   # last time it had everything the leader had


@dataclass(frozen=True, slots=True)
class PartitionSnapshot:
    topic: str
    partition: int
    replicas: tuple[int, ...]          # assignment order; replicas[0] is the preferred leader
    isr: tuple[int, ...]               # in Kafka's stored order
    leader: int | None                 # None = no leader ("Leader: none")
    leader_epoch: int
    partition_epoch: int
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()
    replica_states: tuple[ReplicaState, ...] = ()
    elr: tuple[int, ...] = ()              # eligible leader replicas (KIP-966), stored order
    last_known_elr: tuple[int, ...] = ()   # ELR members (or the last leader) no longer known to be safe

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def under_replicated(self) -> bool:
        return len(self.isr) < len(self.replicas)


@dataclass(frozen=True, slots=True)
class TopicSnapshot:
    name: str
    topic_id: str
    internal: bool
    configs: dict[str, str]            # topic-level overrides only (what `Configs:` shows)
    partitions: tuple[PartitionSnapshot, ...]

    @property
    def replication_factor(self) -> int:
        return len(self.partitions[0].replicas) if self.partitions else 0


@dataclass(frozen=True, slots=True)
class NodeSnapshot:
    node_id: int
    roles: tuple[str, ...]             # ("broker",), ("controller",), ("broker", "controller")
    process: str                       # running | paused | dead
    isolated: bool                     # cut off from other nodes by a network partition
    registration: str | None           # brokers: unfenced | fenced | controlled_shutdown | unregistered
    raft_role: str | None              # leader | follower | candidate | unattached | ... | observer
    raft_epoch: int | None
    host: str
    port: int | None                   # the node's listener port (None if it has none)
    data_dir: str
    disk_bytes: int                    # bytes of all files under the data directory
    extra_latency_ms: int = 0
    cut_from: tuple[int, ...] = ()     # nodes whose network link to this one is cut
    # The node's own MBeans without tags (totals such as LeaderCount, MessagesInPerSec,
    # ActiveControllerCount), as cluster.node_metrics() gives them; empty unless running.
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles

    @property
    def state(self) -> str:
        """One word for diagrams: dead, paused, isolated, fenced or alive."""
        if self.process != "running":
            return self.process
        if self.isolated:
            return "isolated"
        if self.registration in ("fenced", "unregistered"):
            return "fenced"
        return "alive"


@dataclass(frozen=True, slots=True)
class QuorumSnapshot:
    voters: tuple[int, ...]
    leader: int | None                 # the active controller
    epoch: int
    high_watermark: int


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    cluster_id: str
    time_ms: int
    timing_profile: str
    simulated: bool
    quorum: QuorumSnapshot
    nodes: tuple[NodeSnapshot, ...]
    topics: tuple[TopicSnapshot, ...]
    last_event_seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def node(self, node_id: int) -> NodeSnapshot:
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        raise KeyError(f"no node {node_id}")

    def topic(self, name: str) -> TopicSnapshot:
        for topic in self.topics:
            if topic.name == name:
                return topic
        raise KeyError(f"no topic {name}")

    @property
    def brokers(self) -> tuple[NodeSnapshot, ...]:
        return tuple(n for n in self.nodes if n.is_broker)

    @property
    def controllers(self) -> tuple[NodeSnapshot, ...]:
        return tuple(n for n in self.nodes if n.is_controller)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
