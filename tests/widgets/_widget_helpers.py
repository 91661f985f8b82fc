"""Synthetic snapshots and a fake cluster for the widget tests.

`make_snapshot` builds a `ClusterSnapshot` from a short description;
`FakeCluster` offers the facade's names (``snapshot()``, ``events``,
``kill/restart/pause/resume/isolate/heal``, ``broker_ids``,
``controller_ids``) over such a snapshot, mutating it and appending events
the way the driver's fault verbs do, and raising ``RuntimeError`` for a
verb that does not apply (as `ClusterRuntime` does).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Callable

from minikafka.runtime.events import ClusterEvent, EventLog
from minikafka import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot, QuorumSnapshot,
                                ReplicaState, TopicSnapshot)

NOW = 1767225600000

# (replicas, isr, leader) per partition
PartitionSpec = tuple[tuple[int, ...], tuple[int, ...], int | None]


def node(node_id: int, roles: tuple[str, ...] = ("broker",), *, process: str = "running",
         isolated: bool = False, registration: str | None = "unfenced",
         raft_role: str | None = None, raft_epoch: int | None = None,
         port: int | None = None, disk_bytes: int = 0) -> NodeSnapshot:
    is_broker = "broker" in roles
    if port is None:
        port = 9091 + node_id if is_broker else 19093 + node_id - 1001
    return NodeSnapshot(
        node_id=node_id, roles=roles, process=process, isolated=isolated,
        registration=registration if is_broker else None,
        raft_role=raft_role if raft_role is not None else ("observer" if roles == ("broker",)
                                                           else None),
        raft_epoch=raft_epoch, host="localhost", port=port,
        data_dir=f"/tmp/cluster/{'broker' if roles == ('broker',) else 'controller'}-{node_id}",
        disk_bytes=disk_bytes)


def partition(topic: str, index: int, spec: PartitionSpec, *, epoch: int = 0,
              adding: tuple[int, ...] = (), removing: tuple[int, ...] = (),
              leo: int | None = None) -> PartitionSnapshot:
    replicas, isr, leader = spec
    states = tuple(
        ReplicaState(broker=b, log_end_offset=leo, high_watermark=leo, log_start_offset=0,
                     size_bytes=0, in_sync=b in isr, is_leader=b == leader)
        for b in replicas) if leo is not None else ()
    return PartitionSnapshot(topic=topic, partition=index, replicas=replicas, isr=isr,
                             leader=leader, leader_epoch=epoch, partition_epoch=epoch,
                             adding_replicas=adding, removing_replicas=removing,
                             replica_states=states)


def topic(name: str, specs: list[PartitionSpec], *, internal: bool = False,
          **kwargs) -> TopicSnapshot:
    return TopicSnapshot(name=name, topic_id="AAAAAAAAAAAAAAAAAAAAAA", internal=internal,
                         configs={}, partitions=tuple(partition(name, i, spec, **kwargs)
                                                      for i, spec in enumerate(specs)))


def make_snapshot(nodes: list[NodeSnapshot], topics: list[TopicSnapshot], *,
                  voters: tuple[int, ...] = (1001,), leader: int | None = 1001,
                  epoch: int = 1) -> ClusterSnapshot:
    return ClusterSnapshot(
        cluster_id="MkU3OEVBNTcwNTJENDM2Qg", time_ms=NOW, timing_profile="teaching",
        simulated=True, quorum=QuorumSnapshot(voters=voters, leader=leader, epoch=epoch,
                                              high_watermark=10),
        nodes=tuple(nodes), topics=tuple(topics))


def three_brokers() -> ClusterSnapshot:
    """The course picture: 3 brokers, one controller, topic orders with RF 3."""
    return make_snapshot(
        [node(1001, ("controller",), raft_role="leader", raft_epoch=1, disk_bytes=4096),
         node(1, disk_bytes=12_600), node(2, disk_bytes=900), node(3, disk_bytes=3 * 1024 ** 2)],
        [topic("orders", [((1, 2, 3), (1, 2, 3), 1), ((2, 3, 1), (2, 3, 1), 2),
                          ((3, 1, 2), (3, 1), 3)])])


def big_cluster(brokers: int = 5, partitions: int = 20, rf: int = 3) -> ClusterSnapshot:
    """``brokers`` brokers, three controllers and one topic striped like Kafka's placer."""
    specs = []
    for p in range(partitions):
        replicas = tuple((p + i) % brokers + 1 for i in range(rf))
        isr = replicas if p % 7 else replicas[:-1]
        specs.append((replicas, isr, replicas[0]))
    nodes = [node(c, ("controller",), raft_role="leader" if c == 1001 else "follower",
                  raft_epoch=3, disk_bytes=20_000) for c in (1001, 1002, 1003)]
    nodes += [node(b, disk_bytes=b * 1_000_000) for b in range(1, brokers + 1)]
    return make_snapshot(nodes, [topic("orders", specs, leo=42),
                                 topic("__consumer_offsets", [((1,), (1,), 1)] * 50,
                                       internal=True)],
                         voters=(1001, 1002, 1003), epoch=3)


class FakeCluster:
    """The facade's names over a synthetic snapshot (see the module docstring)."""

    def __init__(self, snapshot: ClusterSnapshot):
        self._snapshot = snapshot
        self._lock = threading.Lock()
        self.events = EventLog()
        self.calls: list[tuple[str, int | None]] = []      # verbs called, in order
        self.snapshot_hook: Callable[[], None] | None = None  # runs inside snapshot()

    @property
    def broker_ids(self) -> list[int]:
        return [n.node_id for n in self._snapshot.nodes if n.is_broker]

    @property
    def controller_ids(self) -> list[int]:
        return [n.node_id for n in self._snapshot.nodes if n.is_controller]

    def snapshot(self) -> ClusterSnapshot:
        if self.snapshot_hook is not None:
            self.snapshot_hook()
        with self._lock:
            return dataclasses.replace(self._snapshot, last_event_seq=self.events.last_seq)

    def emit(self, kind: str, text: str, node_id: int | None = None) -> ClusterEvent:
        return self.events.append(ClusterEvent(NOW + 1000 * (self.events.last_seq + 1), kind,
                                               node_id, text))

    def replace_node(self, node_id: int, **changes) -> None:
        with self._lock:
            nodes = tuple(dataclasses.replace(n, **changes) if n.node_id == node_id else n
                          for n in self._snapshot.nodes)
            self._snapshot = dataclasses.replace(self._snapshot, nodes=nodes)

    def _describe(self, node_id: int) -> str:
        n = self._snapshot.node(node_id)
        return "node" if n.is_broker and n.is_controller else n.roles[0]

    def _verb(self, verb: str, node_id: int, need: str, becomes: dict, kind: str, text: str):
        self.calls.append((verb, node_id))
        current = self._snapshot.node(node_id)
        if current.process != need:
            raise RuntimeError(f"node {node_id} is not {'running' if need == 'running' else need}")
        self.replace_node(node_id, **becomes)
        self.emit(kind, f"{self._describe(node_id)} {node_id} {text}", node_id)

    def kill(self, node_id: int) -> None:
        self._verb("kill", node_id, "running", {"process": "dead"}, "node_killed", "killed")

    def restart(self, node_id: int) -> None:
        self._verb("restart", node_id, "dead", {"process": "running"}, "node_restarted",
                   "restarted")

    def pause(self, node_id: int) -> None:
        self._verb("pause", node_id, "running", {"process": "paused"}, "node_paused", "paused")

    def resume(self, node_id: int) -> None:
        self._verb("resume", node_id, "paused", {"process": "running"}, "node_resumed",
                   "resumed")

    def isolate(self, node_id: int) -> None:
        self.calls.append(("isolate", node_id))
        self.replace_node(node_id, isolated=True)
        self.emit("network_isolated", f"{self._describe(node_id)} {node_id} isolated", node_id)

    def heal(self) -> None:
        self.calls.append(("heal", None))
        for n in self._snapshot.nodes:
            self.replace_node(n.node_id, isolated=False)
        self.emit("network_healed", "network healed")


def failure_states() -> ClusterSnapshot:
    """Every node state, a leaderless partition and a reassignment in one snapshot."""
    return make_snapshot(
        [node(1001, ("controller",), raft_role="leader", raft_epoch=2),
         node(1002, ("controller",), process="dead", raft_role=None),
         node(1003, ("controller",), isolated=True, raft_role="leader", raft_epoch=1),
         node(1, process="dead", registration="unfenced"),
         node(2, registration="fenced"),
         node(3, process="paused"),
         node(4, isolated=True, registration="fenced"),
         node(5, registration="controlled_shutdown")],
        [topic("orders", [((1, 2, 3), (2, 3), 2), ((2, 3, 4), (2,), None)]),
         topic("payments", [((1, 5), (1,), 1)], adding=(5,), removing=(1,))],
        voters=(1001, 1002, 1003), epoch=2)
