"""Shared helpers for the data-plane handler tests: a simulated cluster and raw requests to it.

Every request goes through ``InProcessConnection``: kafka-python encodes it,
the broker's codec decodes it, the handler answers on the broker node, and
kafka-python parses the response -- the same bytes a TCP client would see,
in virtual time and deterministically.
"""

from __future__ import annotations

from minikafka.cluster import Cluster
from minikafka.network.codec import request_class
from minikafka.drivers.inprocess import InProcessConnection
from minikafka.record.memory_records import SimpleRecord, build_batch

Metadata, Produce, Fetch = request_class(3), request_class(0), request_class(1)
ListOffsets, OffsetForLeaderEpoch, DeleteRecords = request_class(2), request_class(23), request_class(21)
InitProducerId, DescribeCluster, DescribeTopicPartitions = request_class(22), request_class(60), request_class(75)
DescribeLogDirs, AlterReplicaLogDirs = request_class(35), request_class(34)


def start_cluster(seed: int = 7, **kwargs) -> Cluster:
    options = {"brokers": 3, "controllers": 1, "seed": seed, "simulated": True, **kwargs}
    return Cluster(**options).start()


def now(cluster: Cluster) -> int:
    return cluster.driver.now()


def send(cluster: Cluster, broker_id: int, request):
    return InProcessConnection(cluster, broker_id).send(request)


def batch(cluster: Cluster, values: list[bytes], **kwargs) -> bytes:
    """A producer-style batch (base offset 0) stamped with the cluster's clock."""
    at = now(cluster)
    return build_batch([SimpleRecord(value=v, key=None, timestamp=at) for v in values], **kwargs)


def produce(cluster: Cluster, broker_id: int, topic: str, partition: int, records: bytes | None,
            acks: int = -1, version: int = 9, timeout_ms: int = 5000, transactional_id=None):
    request = Produce[version](
        transactional_id=transactional_id, acks=acks, timeout_ms=timeout_ms,
        topic_data=[Produce.TopicProduceData(name=topic, partition_data=[
            Produce.TopicProduceData.PartitionProduceData(index=partition, records=records)])])
    return send(cluster, broker_id, request)


def only_partition(produce_response):
    [topic] = produce_response.responses
    [partition] = topic.partition_responses
    return partition


def fetch(cluster: Cluster, broker_id: int, topic: str, partition: int, offset: int, version: int = 12,
          max_wait_ms: int = 0, min_bytes: int = 1, **partition_fields):
    fields = {"partition": partition, "fetch_offset": offset, "partition_max_bytes": 1 << 20,
              "current_leader_epoch": -1, "last_fetched_epoch": -1, "log_start_offset": -1,
              **partition_fields}
    topic_fields = ({"topic_id": cluster_topic_id(cluster, topic)} if version >= 13 else {"topic": topic})
    request = Fetch[version](
        replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=50 << 20,
        isolation_level=0, session_id=0, session_epoch=-1,
        topics=[Fetch.FetchTopic(partitions=[Fetch.FetchTopic.FetchPartition(**fields)], **topic_fields)],
        forgotten_topics_data=[], rack_id="")
    return send(cluster, broker_id, request)


def cluster_topic_id(cluster: Cluster, topic: str):
    import uuid
    image = cluster.processes.cluster_image()
    return uuid.UUID(bytes=image.topic(topic).topic_id.to_bytes())


def leader_of(cluster: Cluster, topic: str, partition: int) -> int:
    return cluster.leader(topic, partition)


def follower_of(cluster: Cluster, topic: str, partition: int) -> int:
    leader = leader_of(cluster, topic, partition)
    return next(r for r in cluster.replicas(topic, partition) if r != leader)
