"""Building a `ClusterSnapshot` from the running nodes (on the driver's thread, in one go).

The metadata part (topics, replicas, ISR, leaders, broker registrations)
comes from the committed metadata image of the active controller, the
cluster's source of truth; if no controller is active, from any running
node.  The per-replica part (log end offset, high watermark, size) comes from
each broker's own logs, because that is where followers and leaders really
differ.  Disk bytes are the sizes of the ``.log`` segment files under a
node's data directory, which is what ``kafka-log-dirs.sh`` reports as size.
Each running node adds its node-level metrics (MBeans without tags).

The builder does not walk a node's objects: every live node describes itself
as plain data (`KafkaNode.snapshot`, a `KafkaNodeSnapshot`: Raft role and
epoch, metrics, its logs' offsets and, on a leader, its record of each
follower's fetches), and the builder joins those with the committed metadata.
`take_snapshot` runs `build_snapshot` where the nodes live; both receive the
cluster's `NodeProcesses` (layout, driver, event log) and nothing else.
"""

from __future__ import annotations


from minikafka.common.topic_partition import TopicPartition
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.metadata.image import ConfigResource
from minikafka.cluster.snapshot import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot,
                                QuorumSnapshot, ReplicaState, TopicSnapshot)
from minikafka.cluster.node_disks import NodeDisks
from minikafka.cluster.processes import NodeProcesses
from minikafka.server.kafka_node_snapshot import KafkaNodeSnapshot


def log_bytes(disks: NodeDisks, directory: str) -> int:
    """The bytes of every ``.log`` segment under ``directory``, on the node's disk."""
    disk = disks.owner(directory)
    total = 0
    for path in disks.walk_files(directory):
        if path.endswith(".log"):
            try:
                total += disk.size(path)
            except OSError:
                pass
    return total


def _local_snapshots(processes: NodeProcesses) -> dict[int, KafkaNodeSnapshot]:
    """What each live node process says of itself (`KafkaNode.snapshot`); a running one adds
    its node-level metrics (a paused process answers no metrics query)."""
    now = processes.driver.now()
    local = {}
    for node_id, handle in processes.driver.handles.items():
        if handle.state is not NodeState.DEAD:
            local[node_id] = handle.node.snapshot(now, with_metrics=handle.state is NodeState.RUNNING)
    return local


def _quorum(processes: NodeProcesses, active, local: dict[int, KafkaNodeSnapshot]) -> QuorumSnapshot:
    epochs = [local[c].raft_epoch for c in processes.layout.controllers if c in local]
    leader = None if active is None else local[active.node_id]
    return QuorumSnapshot(
        voters=tuple(processes.layout.controllers),
        leader=leader.node_id if leader is not None else None,
        # the leader's epoch; with no leader, the highest epoch any live controller has reached
        epoch=leader.raft_epoch if leader is not None else max(epochs) if epochs else 0,
        high_watermark=(leader.raft_high_watermark or 0) if leader is not None else 0)


def _registration_state(image, node_id: int, roles) -> str | None:
    if "broker" not in roles or image is None:
        return None
    registration = image.cluster.broker(node_id)
    if registration is None:
        return "unregistered"
    if registration.in_controlled_shutdown:
        return "controlled_shutdown"
    return "fenced" if registration.fenced else "unfenced"


def _node_snapshot(processes: NodeProcesses, node_id: int, image,
                   local: KafkaNodeSnapshot | None) -> NodeSnapshot:
    layout = processes.layout
    roles = layout.roles(node_id)
    raft_role = raft_epoch = None
    if local is not None:
        raft_role = "observer" if not local.raft_is_voter else local.raft_role.lower()
        raft_epoch = local.raft_epoch
    port = layout.broker_ports.get(node_id) if "broker" in roles else layout.controller_ports.get(node_id)
    network = processes.driver.network
    return NodeSnapshot(
        node_id=node_id, roles=roles, process=processes.state(node_id).value,
        isolated=network.is_isolated(node_id),
        registration=_registration_state(image, node_id, roles),
        raft_role=raft_role, raft_epoch=raft_epoch, host=layout.host, port=port,
        data_dir=str(layout.data_dir(node_id)), disk_bytes=log_bytes(layout.disks, str(layout.data_dir(node_id))),
        extra_latency_ms=network.extra_latency.get(node_id, 0),
        cut_from=network.cut_peers(node_id), metrics=local.metrics if local is not None else {})


def _replica_states(tp: TopicPartition, registration,
                    local: dict[int, KafkaNodeSnapshot]) -> tuple[ReplicaState, ...]:
    states = []
    leader = local.get(registration.leader)
    led = leader.replicas.get(tp) if leader is not None else None
    followers = led.followers if led is not None else {}   # the leader's record of their fetches
    for broker_id in registration.replicas:
        leo = hw = start = size = None
        hosted = local[broker_id].replicas.get(tp) if broker_id in local else None
        if hosted is not None:
            leo, hw, start, size = (hosted.log_end_offset, hosted.high_watermark,
                                    hosted.log_start_offset, hosted.size_in_bytes)
        seen = followers.get(broker_id)
        fetch_offset = last_fetch = caught_up = None
        if seen is not None and broker_id != registration.leader:
            fetch_offset = seen.log_end_offset if seen.log_end_offset >= 0 else None
            last_fetch = seen.last_fetch_time_ms or None
            caught_up = seen.last_caught_up_time_ms or None
        states.append(ReplicaState(broker_id, leo, hw, start, size, broker_id in registration.isr,
                                   broker_id == registration.leader, fetch_offset, last_fetch,
                                   caught_up))
    return tuple(states)


def _topic_snapshot(image, name: str, local: dict[int, KafkaNodeSnapshot]) -> TopicSnapshot:
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
            replica_states=_replica_states(TopicPartition(name, index), reg, local),
            elr=tuple(reg.elr), last_known_elr=tuple(reg.last_known_elr)))
    return TopicSnapshot(name=name, topic_id=str(topic.topic_id), internal=name.startswith("__"),
                         configs=configs, partitions=tuple(partitions))


def build_snapshot(processes: NodeProcesses) -> ClusterSnapshot:
    local = _local_snapshots(processes)
    source = processes.metadata_node()
    image = None if source is None else processes.image_of(source)
    nodes = tuple(_node_snapshot(processes, node_id, image, local.get(node_id))
                  for node_id in sorted(processes.layout.node_ids))
    topics = ()
    if image is not None:
        topics = tuple(_topic_snapshot(image, name, local) for name in sorted(image.topic_names()))
    return ClusterSnapshot(
        cluster_id=processes.layout.cluster_id, time_ms=processes.driver.now(),
        timing_profile=processes.layout.timing.name, simulated=processes.simulated,
        quorum=_quorum(processes, processes.active_controller_node(), local),
        nodes=nodes, topics=topics, last_event_seq=processes.events.last_seq)


def take_snapshot(processes: NodeProcesses) -> ClusterSnapshot:
    """The whole cluster as plain, frozen data (`ClusterSnapshot`), taken in one go."""
    return processes.call(lambda: build_snapshot(processes))
