"""Helpers for the group and admin handler tests: a simulated cluster and requests to it.

Requests travel through ``InProcessConnection`` (kafka-python encodes, the
broker's codec decodes, the handler answers on the broker node in virtual
time, kafka-python parses the answer), so what a test sees is what a real
client would receive.
"""

from __future__ import annotations

import uuid

from minikafka.cluster import Cluster
from minikafka.coordinator.group_coordinator import partition_for
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS
from minikafka.network.codec import request_class
from minikafka.drivers.inprocess import InProcessConnection
from minikafka.network.codec import from_wire_uuid, to_wire_uuid

FindCoordinator, JoinGroup, Heartbeat, LeaveGroup, SyncGroup = (request_class(k) for k in (10, 11, 12, 13, 14))
OffsetCommit, OffsetFetch = request_class(8), request_class(9)
DescribeGroups, ListGroups, DeleteGroups = request_class(15), request_class(16), request_class(42)
CreateTopics, DeleteTopics, CreatePartitions = request_class(19), request_class(20), request_class(37)
DescribeConfigs, AlterConfigs, IncrementalAlterConfigs = request_class(32), request_class(33), request_class(44)
ListConfigResources = request_class(74)
ElectLeaders, AlterReassignments, ListReassignments = request_class(43), request_class(45), request_class(46)
DescribeQuorum = request_class(55)
OffsetDelete = request_class(47)


def versions(api_key: int) -> range:
    """Every version of ``api_key`` a sandbox broker advertises."""
    low, high = ADVERTISED_API_VERSIONS[api_key]
    return range(low, high + 1)


def start_cluster(seed: int = 11, **kwargs) -> Cluster:
    options = {"brokers": 3, "controllers": 1, "seed": seed, "simulated": True, **kwargs}
    return Cluster(**options).start()


def send(cluster: Cluster, broker_id: int, request, timeout_ms: int = 60_000):
    return InProcessConnection(cluster, broker_id).send(request, timeout_ms=timeout_ms)


def coordinator_of(cluster: Cluster, group_id: str) -> int:
    """The group's coordinator, after making sure ``__consumer_offsets`` exists and has leaders."""
    request = FindCoordinator[3](key=group_id, key_type=0)
    for _ in range(100):                      # the broker retries until its metadata has leaders
        response = send(cluster, cluster.broker_ids[0], request)
        if response.error_code != 15:        # COORDINATOR_NOT_AVAILABLE
            break
        cluster.run_for(100)
    assert response.error_code == 0, response
    assert response.node_id == cluster.leader("__consumer_offsets", partition_for(group_id, 50))
    return response.node_id


def not_coordinator_of(cluster: Cluster, group_id: str) -> int:
    coordinator = coordinator_of(cluster, group_id)
    return next(b for b in cluster.broker_ids if b != coordinator)


def join(cluster: Cluster, broker_id: int, group_id: str, member_id: str = "", version: int = 7,
         metadata: bytes = b"subscription", session_timeout_ms: int = 10_000):
    protocols = [JoinGroup.JoinGroupRequestProtocol(name="range", metadata=metadata)]
    return send(cluster, broker_id, JoinGroup[version](
        group_id=group_id, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=10_000,
        member_id=member_id, group_instance_id=None, protocol_type="consumer", protocols=protocols))


def join_as_only_member(cluster: Cluster, group_id: str) -> tuple[int, str, int]:
    """(coordinator, member id, generation) of a one-member group that completed its SyncGroup."""
    coordinator = coordinator_of(cluster, group_id)
    first = join(cluster, coordinator, group_id)
    assert first.error_code == 79                        # MEMBER_ID_REQUIRED (v4+)
    joined = join(cluster, coordinator, group_id, first.member_id)
    assert joined.error_code == 0 and joined.leader == first.member_id
    synced = send(cluster, coordinator, SyncGroup[5](
        group_id=group_id, generation_id=joined.generation_id, member_id=joined.member_id,
        group_instance_id=None, protocol_type="consumer", protocol_name="range",
        assignments=[SyncGroup.SyncGroupRequestAssignment(member_id=joined.member_id, assignment=b"plan")]))
    assert synced.error_code == 0 and synced.assignment == b"plan"
    return coordinator, joined.member_id, joined.generation_id


def wire_topic_id(cluster: Cluster, topic: str) -> uuid.UUID:
    """The topic's id as a client sends it (a random id for a topic that does not exist)."""
    known = cluster.processes.cluster_image().topics.get_topic(topic)
    return to_wire_uuid(known.topic_id) if known is not None else uuid.uuid5(uuid.NAMESPACE_URL, topic)


def topic_names(cluster: Cluster, response_topics) -> list[str]:
    """The names of a v10+ answer's topics, which carry only ids ("?" for an id the cluster lacks)."""
    image = cluster.processes.cluster_image()
    names = []
    for t in response_topics:
        known = image.topics.get_topic(from_wire_uuid(t.topic_id))
        names.append(known.name if known is not None else "?")
    return names


def commit(cluster: Cluster, broker_id: int, group_id: str, offsets: dict, version: int = 8,
           generation: int = -1, member_id: str = ""):
    """OffsetCommit of ``{(topic, partition): offset}``, topics in first-seen order (by id from v10)."""
    by_topic: dict[str, list] = {}
    for (topic, partition), offset in offsets.items():
        by_topic.setdefault(topic, []).append(OffsetCommit.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
            partition_index=partition, committed_offset=offset, committed_metadata="meta"))
    return send(cluster, broker_id, OffsetCommit[version](
        group_id=group_id, generation_id_or_member_epoch=generation, member_id=member_id,
        topics=[OffsetCommit.OffsetCommitRequestTopic(name=t, topic_id=wire_topic_id(cluster, t), partitions=ps)
                for t, ps in by_topic.items()]))


def commit_errors(response, cluster: Cluster | None = None) -> list[tuple[str, int, int]]:
    """``(topic, partition, error)``; give ``cluster`` to name the topics of a v10+ answer."""
    names = topic_names(cluster, response.topics) if cluster is not None else [t.name for t in response.topics]
    return [(name, p.partition_index, p.error_code) for name, t in zip(names, response.topics)
            for p in t.partitions]


def broker_node(cluster: Cluster, broker_id: int):
    return cluster.processes.node(broker_id).broker
