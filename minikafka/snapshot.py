"""Deprecated alias of `minikafka.cluster.snapshot`, where the snapshot types now live.

Kept so that older notebooks importing ``minikafka.snapshot`` keep working, with a
DeprecationWarning; nothing in the project imports it any more.  New code imports the
types from ``minikafka`` (``from minikafka import ClusterSnapshot``).
"""

import warnings

from minikafka.cluster.snapshot import (ClusterSnapshot, NodeSnapshot, PartitionSnapshot,  # noqa: F401
                                        QuorumSnapshot, ReplicaState, TopicSnapshot)

warnings.warn("minikafka.snapshot is deprecated: import the snapshot types from minikafka "
              "(from minikafka import ClusterSnapshot)", DeprecationWarning, stacklevel=2)
