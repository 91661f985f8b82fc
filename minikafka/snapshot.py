"""Deprecated alias of `minikafka.cluster.snapshot`, where the snapshot types now live.

Kept so that code importing ``minikafka.snapshot`` (widgets, older notebooks) keeps
working; new code imports the types from ``minikafka`` (``from minikafka import
ClusterSnapshot``).
"""

from minikafka.cluster.snapshot import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot,  # noqa: F401
                                        QuorumSnapshot, ReplicaState, TopicSnapshot)
