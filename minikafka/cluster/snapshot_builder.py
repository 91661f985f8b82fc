"""Building a `ClusterSnapshot` from the running nodes (on the driver's thread, in one go).

The metadata part (topics, replicas, ISR, leaders, broker registrations)
comes from the committed metadata image of the active controller, the
cluster's source of truth; if no controller is active, from any running
node.  The per-replica part (log end offset, high watermark, size) comes from
each broker's own logs, because that is where followers and leaders really
differ.  Disk bytes are the sizes of the ``.log`` segment files under a
node's data directory, which is what ``kafka-log-dirs.sh`` reports as size.
Each running node adds its node-level metrics (MBeans without tags).

`take_snapshot` runs `build_snapshot` where the nodes live; both receive the
cluster's `NodeProcesses` (layout, driver, event log) and nothing else.
"""

from __future__ import annotations

import os

from minikafka.common.topic_partition import TopicPartition
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.metadata.image import ConfigResource
from minikafka.cluster.snapshot import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot,
                                QuorumSnapshot, ReplicaState, TopicSnapshot)
from minikafka.cluster.processes import NodeProcesses


def log_bytes(directory: str) -> int:
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            if name.endswith(".log"):
                try:
                    total += os.path.getsize(os.path.join(root, name))
                except OSError:
                    pass
    return total


def _image_and_quorum(processes: NodeProcesses):
    active = processes.active_controller_node()
    source = processes.metadata_node()
    image = None if source is None else processes.image_of(source)
    epochs = [processes.node(c).raft.epoch for c in processes.layout.controllers
              if processes.state(c) is not NodeState.DEAD]
    quorum = QuorumSnapshot(
        voters=tuple(processes.layout.controllers),
        leader=active.node_id if active is not None else None,
        # the leader's epoch; with no leader, the highest epoch any live controller has reached
        epoch=active.raft.epoch if active is not None else max(epochs) if epochs else 0,
        high_watermark=(active.raft.high_watermark or 0) if active is not None else 0)
    return image, quorum


def _registration_state(image, node_id: int, roles) -> str | None:
    if "broker" not in roles or image is None:
        return None
    registration = image.cluster.broker(node_id)
    if registration is None:
        return "unregistered"
    if registration.in_controlled_shutdown:
        return "controlled_shutdown"
    return "fenced" if registration.fenced else "unfenced"


def _node_snapshot(processes: NodeProcesses, node_id: int, image) -> NodeSnapshot:
    layout = processes.layout
    roles = layout.roles(node_id)
    state = processes.state(node_id)
    raft_role = raft_epoch = None
    metrics = {}
    if state is not NodeState.DEAD:
        raft = processes.node(node_id).raft
        raft_role = "observer" if not raft.is_voter else raft.role.lower()
        raft_epoch = raft.epoch
    if state is NodeState.RUNNING:          # a paused process answers no metrics query
        metrics = processes.node(node_id).metrics.read(processes.driver.now(), node_level=True)
    port = layout.broker_ports.get(node_id) if "broker" in roles else layout.controller_ports.get(node_id)
    network = processes.driver.network
    return NodeSnapshot(
        node_id=node_id, roles=roles, process=state.value,
        isolated=network.is_isolated(node_id),
        registration=_registration_state(image, node_id, roles),
        raft_role=raft_role, raft_epoch=raft_epoch, host=layout.host, port=port,
        data_dir=str(layout.data_dir(node_id)), disk_bytes=log_bytes(str(layout.data_dir(node_id))),
        extra_latency_ms=network.extra_latency.get(node_id, 0),
        cut_from=network.cut_peers(node_id), metrics=metrics)


def _leader_view(processes: NodeProcesses, tp: TopicPartition, leader: int) -> dict:
    """The leader's record of each follower's fetches (empty when the leader is not running)."""
    if leader < 0 or leader not in processes.driver.handles \
            or processes.state(leader) is NodeState.DEAD:
        return {}
    broker = processes.node(leader).broker
    partition = broker.replica_manager.partitions.get(tp) if broker else None
    if partition is None or not partition.is_leader:
        return {}
    return dict(partition.remote)


def _replica_states(processes: NodeProcesses, tp: TopicPartition, registration) -> tuple[ReplicaState, ...]:
    states = []
    remote = _leader_view(processes, tp, registration.leader)
    for broker_id in registration.replicas:
        leo = hw = start = size = None
        if broker_id in processes.driver.handles and processes.state(broker_id) is not NodeState.DEAD:
            node = processes.node(broker_id)
            log = node.broker.log_manager.get_log(tp) if node.broker else None
            if log is not None:
                leo, hw, start, size = (log.log_end_offset, log.high_watermark,
                                        log.log_start_offset, log.size_in_bytes)
        seen = remote.get(broker_id)
        fetch_offset = last_fetch = caught_up = None
        if seen is not None and broker_id != registration.leader:
            fetch_offset = seen.log_end_offset if seen.log_end_offset >= 0 else None
            last_fetch = seen.last_fetch_time_ms or None
            caught_up = seen.last_caught_up_time_ms or None
        states.append(ReplicaState(broker_id, leo, hw, start, size, broker_id in registration.isr,
                                   broker_id == registration.leader, fetch_offset, last_fetch,
                                   caught_up))
    return tuple(states)


def _topic_snapshot(processes: NodeProcesses, image, name: str) -> TopicSnapshot:
    topic = image.topics.get_topic(name)
    configs = dict(image.configs.config(ConfigResource(ConfigResource.TOPIC, name)))
    partitions = []
    for index in sorted(topic.partitions):
        reg = topic.partitions[index]
        partitions.append(PartitionSnapshot(
            topic=name, partition=index, replicas=tuple(reg.replicas), isr=tuple(reg.isr),
            leader=reg.leader if reg.leader >= 0 else None, leader_epoch=reg.leader_epoch,
            partition_epoch=reg.partition_epoch, adding_replicas=tuple(reg.adding_replicas),
            removing_replicas=tuple(reg.removing_replicas),
            replica_states=_replica_states(processes, TopicPartition(name, index), reg),
            elr=tuple(reg.elr), last_known_elr=tuple(reg.last_known_elr)))
    return TopicSnapshot(name=name, topic_id=str(topic.topic_id), internal=name.startswith("__"),
                         configs=configs, partitions=tuple(partitions))


def build_snapshot(processes: NodeProcesses) -> ClusterSnapshot:
    image, quorum = _image_and_quorum(processes)
    nodes = tuple(_node_snapshot(processes, node_id, image)
                  for node_id in sorted(processes.layout.node_ids))
    topics = ()
    if image is not None:
        topics = tuple(_topic_snapshot(processes, image, name) for name in sorted(image.topic_names()))
    return ClusterSnapshot(
        cluster_id=processes.layout.cluster_id, time_ms=processes.driver.now(),
        timing_profile=processes.layout.timing.name, simulated=processes.simulated, quorum=quorum,
        nodes=nodes, topics=topics, last_event_seq=processes.events.last_seq)


def take_snapshot(processes: NodeProcesses) -> ClusterSnapshot:
    """The whole cluster as plain, frozen data (`ClusterSnapshot`), taken in one go."""
    return processes.call(lambda: build_snapshot(processes))
