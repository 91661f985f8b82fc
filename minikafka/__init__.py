"""minikafka: a readable, in-process, multi-broker Apache Kafka 4.x for learning.

Public API (what lessons and widgets import):

* `Cluster` -- start a cluster, look inside it, break it, watch it heal;
* `ClusterSnapshot` and friends -- the cluster as plain data;
* `RequestCounts` -- which requests each broker answered (``cluster.request_counts()``);
* `ClusterEvent` / `EventLog` -- what happened, when and why;
* `TimingProfile`, `TEACHING`, `KAFKA` -- the time settings in force;
* `replay_metadata`, `MetadataRecordEntry` -- read and replay the metadata log;
* `TopicPartition`, `Uuid`, `Errors`, `KafkaException` -- Kafka's vocabulary.
* `minikafka.drills` -- classroom failure drills (``from minikafka import drills``).

Everything else is implementation, organised by Kafka concept (see
``docs/architecture.md``).
"""

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.cluster.metadata_log import MetadataRecordEntry, replay_metadata
from minikafka.cluster.request_counts import PartitionRequestCount, RequestCount, RequestCounts
from minikafka.runtime.events import ClusterEvent, EventLog
from minikafka.cluster.snapshot import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot,
                                        QuorumSnapshot, ReplicaState, TopicSnapshot)
from minikafka.common.timing import KAFKA, TEACHING, TimingProfile

__all__ = ["Cluster", "ClusterSnapshot", "NodeSnapshot", "PartitionSnapshot", "QuorumSnapshot",
           "ReplicaState", "TopicSnapshot", "ClusterEvent", "EventLog", "TimingProfile", "TEACHING",
           "KAFKA", "TopicPartition", "Uuid", "Errors", "KafkaException", "MetadataRecordEntry",
           "replay_metadata", "RequestCounts", "RequestCount", "PartitionRequestCount"]

__version__ = "0.1.0"


def __getattr__(name: str):
    # `Cluster` pulls in the whole broker stack; load it on first use, so that code
    # needing only the vocabulary (e.g. Spark's Python workers) starts quickly.
    if name == "Cluster":
        from minikafka.cluster import Cluster
        return Cluster
    raise AttributeError(f"module 'minikafka' has no attribute {name!r}")
