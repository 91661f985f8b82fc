"""Checking a whole reassignment plan before any of it is sent (`Cluster.reassign_partitions`).

Theory of operation
-------------------
The controller judges each partition of an AlterPartitionReassignments
request on its own: the good ones start moving, the bad ones come back with
an error.  A plan with one typo would then be half applied.
``kafka-reassign-partitions.sh`` avoids that by checking the plan first
(unknown brokers, partitions that do not exist, duplicates) and refusing it
as a whole; the facade does the same, against the committed metadata, and
raises the error the controller itself would give for the first bad entry,
in its words (what ``Admin.alterPartitionReassignments`` reports):

* a topic or partition that does not exist: ``UnknownTopicOrPartitionException:
  Unable to find a topic named t.`` / ``Unable to find partition t:7.``;
* an empty replica list, a broker that is not registered, a broker named
  twice: ``InvalidReplicaAssignmentException: The manual partition assignment
  includes ...`` (the checks of ``validateManualPartitionAssignment``, which
  looks at the brokers in id order).

A cancellation (``None`` instead of a replica list) is only checked for the
partition's existence; whether a reassignment is in progress is the
controller's call.

Mirrors the checks of ``ReplicationControlManager.alterPartitionReassignment``
and ``validateManualPartitionAssignment`` (Kafka 4.x), applied up front as the
reassignment tool applies its own.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from minikafka.common.errors import UnknownTopicOrPartitionException


def check_replicas(image, replicas: Sequence[int]) -> None:
    """The controller's own check of a replica list (empty, unknown broker, a broker twice)."""
    from minikafka.controller.replication_control_manager import ReplicationControlManager
    ReplicationControlManager.validate_manual_partition_assignment(image, replicas, None)


def check_plan(image, plan: Mapping[tuple[str, int], Sequence[int] | None]) -> None:
    """Raise the controller's error for the first bad entry of ``plan``; return if all are good."""
    for (topic_name, partition), replicas in plan.items():
        topic = image.topic(topic_name)
        if topic is None:
            raise UnknownTopicOrPartitionException(f"Unable to find a topic named {topic_name}.")
        if topic.partition(int(partition)) is None:
            raise UnknownTopicOrPartitionException(
                f"Unable to find partition {topic_name}:{partition}.")
        if replicas is not None:
            check_replicas(image, [int(b) for b in replicas])
