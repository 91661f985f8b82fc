"""`KafkaNodeSnapshot`: what one node process says about itself, as plain data.

Theory of operation
-------------------
The facade's `ClusterSnapshot` shows, for every node, its Raft role and epoch,
its node-level metrics and, for every replica it hosts, the log's offsets and
(on a leader) its record of each follower's fetches.  Rather than the facade
walking a node's objects (``node.broker.replica_manager.partitions``...), the
node describes itself: `snapshot_of` reads the node's Raft client, its
metrics registry, its broker's logs and the leader partitions' follower
states, and returns frozen values the facade's snapshot builder consumes (named tuples for the many
small ones: a snapshot is taken on every redraw, and they are the cheapest
immutable values to build).
It runs where the node lives (the driver's thread), at one instant, so the
values agree with each other.

Mirrors no single Kafka class: it gathers what Kafka exposes through JMX
(``kafka.server:type=ReplicaManager``, ``Log`` MBeans) and what
``DescribeQuorum`` / ``DescribeLogDirs`` answer, in one read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

from minikafka.common.topic_partition import TopicPartition


class FollowerFetchSnapshot(NamedTuple):
    """A leader's record of one follower's fetches (Kafka's ``Replica`` state)."""

    log_end_offset: int            # the follower's LEO from its last fetch (-1: unknown)
    last_fetch_time_ms: int        # 0: never fetched
    last_caught_up_time_ms: int    # 0: never caught up


class LocalReplicaSnapshot(NamedTuple):
    """One partition's log on this broker, and (leader only) what it knows of its followers."""

    log_end_offset: int
    high_watermark: int
    log_start_offset: int
    size_in_bytes: int
    followers: Mapping[int, FollowerFetchSnapshot]     # empty unless this broker leads it


@dataclass(frozen=True, slots=True)
class KafkaNodeSnapshot:
    """One node process at one instant: its Raft state, metrics and the replicas it hosts."""

    node_id: int
    raft_role: str                 # Kafka's epoch-state name: Leader, Follower, Candidate...
    raft_is_voter: bool
    raft_epoch: int
    raft_high_watermark: int | None
    metrics: dict[str, dict[str, Any]]              # node-level MBeans; empty unless asked for
    replicas: Mapping[TopicPartition, LocalReplicaSnapshot]


def _replicas(broker) -> dict[TopicPartition, LocalReplicaSnapshot]:
    replicas = {}
    partitions = broker.replica_manager.partitions
    for tp, log in broker.log_manager.logs.items():
        partition = partitions.get(tp)
        followers = {}
        if partition is not None and partition.is_leader:
            followers = {replica_id: FollowerFetchSnapshot(state.log_end_offset, state.last_fetch_time_ms,
                                                           state.last_caught_up_time_ms)
                         for replica_id, state in partition.remote.items()}
        replicas[tp] = LocalReplicaSnapshot(log.log_end_offset, log.high_watermark, log.log_start_offset,
                                            log.size_in_bytes, followers)
    return replicas


def snapshot_of(node, now: int, with_metrics: bool) -> KafkaNodeSnapshot:
    """``node`` (a `KafkaNode`) as plain data; its node-level metrics at ``now`` if asked for
    (a paused process answers no metrics query, so the caller asks only of a running one)."""
    raft = node.raft
    return KafkaNodeSnapshot(
        node_id=node.node_id, raft_role=raft.role, raft_is_voter=raft.is_voter, raft_epoch=raft.epoch,
        raft_high_watermark=raft.high_watermark,
        metrics=node.metrics.read(now, node_level=True) if with_metrics else {},
        replicas={} if node.broker is None else _replicas(node.broker))


__all__ = ["FollowerFetchSnapshot", "KafkaNodeSnapshot", "LocalReplicaSnapshot", "snapshot_of"]
