"""Partition reassignment (KIP-455): AlterPartitionReassignments and ListPartitionReassignments.

Theory of operation
-------------------
``kafka-reassign-partitions.sh --execute`` sends a target replica list per
partition.  The controller writes one PartitionChangeRecord that makes the
partition's replicas the union of target and current replicas, with
``adding_replicas`` and ``removing_replicas`` set (see
`partition_reassignment_replicas`).  The new replicas fetch from the leader
and the leader adds them to the ISR with AlterPartition; the AlterPartition
that puts the last target replica into the ISR also finishes the move: the
same PartitionChangeRecord drops the removed replicas from replicas and ISR
and clears adding/removing (and, if the leader itself was removed, elects a
new one).  Four stages, as a lesson shows them::

    replicas [1,2,3]                      isr [1,2,3]   (start)
    replicas [1,2,4,3] adding [4] removing [3]          (reassignment_started)
    isr [1,2,3,4]                                       (4 caught up)
    replicas [1,2,4]                      isr [1,2,4]   (reassignment_completed)

A request whose target is already in the ISR (a reordering, or dropping a
replica) completes at once.  ``replicas=None`` cancels: the partition goes
back to its original replicas, and the replicas being added leave the ISR;
if that would empty the ISR the revert needs an unclean election and is only
allowed when the topic permits unclean leader election.  With
``allow_replication_factor_change=False`` (KIP-860) a target with a
different replica count is refused.

`PartitionReassignmentControl` receives what it uses: the
`LeaderAndIsrControl` that makes each partition's `PartitionChangeBuilder`,
the `ConfigurationControlManager` (may a cancel elect uncleanly?) and the
check of a manual replica list that CreateTopics uses too.
`ReplicationControlManager` builds it and forwards its public methods.

Mirrors ``ReplicationControlManager.alterPartitionReassignments``,
``changePartitionReassignment``, ``cancelPartitionReassignment`` and
``listPartitionReassignments`` (Kafka 4.x), with their error texts.
"""

from __future__ import annotations

from typing import Callable, Sequence

from minikafka.common.errors import (Errors, InvalidReplicaAssignmentException,
                                     InvalidReplicationFactorException, KafkaException,
                                     NoReassignmentInProgressException, UnknownTopicOrPartitionException)
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_result import ControllerResult
from minikafka.controller.leader_and_isr import LeaderAndIsrControl
from minikafka.controller.partition_change_builder import Election
from minikafka.controller.partition_reassignment_replicas import (PartitionReassignmentReplicas,
                                                                  PartitionReassignmentRevert)
from minikafka.controller.requests import (AlterPartitionReassignmentsRequest,
                                           AlterPartitionReassignmentsResponse, ListPartitionReassignmentsResponse,
                                           ListPartitionReassignmentsTopics, OngoingPartitionReassignment,
                                           OngoingTopicReassignment, ReassignablePartition,
                                           ReassignablePartitionResponse, ReassignableTopicResponse)
from minikafka.metadata.image import MetadataImage, TopicImage
from minikafka.metadata.partition_registration import PartitionRegistration
from minikafka.metadata.records import PartitionChangeRecord


ValidateAssignment = Callable[[MetadataImage, Sequence[int], "int | None"], None]   # raises if refused


class PartitionReassignmentControl:
    """AlterPartitionReassignments and ListPartitionReassignments; reads an image, returns records."""

    def __init__(self, leader_and_isr: LeaderAndIsrControl, configuration_control: ConfigurationControlManager,
                 validate_manual_partition_assignment: ValidateAssignment):
        self.leader_and_isr = leader_and_isr
        self.configuration_control = configuration_control
        self.validate_manual_partition_assignment = validate_manual_partition_assignment

    def alter_partition_reassignments(self, image: MetadataImage,
                                      request: AlterPartitionReassignmentsRequest
                                      ) -> ControllerResult[AlterPartitionReassignmentsResponse]:
        records: list[PartitionChangeRecord] = []
        responses: list[ReassignableTopicResponse] = []
        for topic in request.topics:
            partitions: list[ReassignablePartitionResponse] = []
            for target in topic.partitions:
                try:
                    record = self._alter_reassignment(image, topic.name, target,
                                                      request.allow_replication_factor_change)
                    if record is not None:
                        records.append(record)
                    partitions.append(ReassignablePartitionResponse(target.partition_index))
                except KafkaException as exc:
                    partitions.append(ReassignablePartitionResponse(target.partition_index, exc.error,
                                                                    exc.message))
            responses.append(ReassignableTopicResponse(topic.name, tuple(partitions)))
        response = AlterPartitionReassignmentsResponse(
            tuple(responses), allow_replication_factor_change=request.allow_replication_factor_change)
        return ControllerResult(tuple(records), response)

    def _alter_reassignment(self, image: MetadataImage, topic_name: str, target: ReassignablePartition,
                            allow_rf_change: bool) -> PartitionChangeRecord | None:
        topic = image.topic(topic_name)
        if topic is None:
            raise UnknownTopicOrPartitionException(f"Unable to find a topic named {topic_name}.")
        partition = topic.partition(target.partition_index)
        if partition is None:
            raise UnknownTopicOrPartitionException(
                f"Unable to find partition {topic_name}:{target.partition_index}.")
        if target.replicas is None:
            return self._cancel_reassignment(image, topic, target.partition_index, partition)
        return self._change_reassignment(image, topic, target, partition, allow_rf_change)

    def _cancel_reassignment(self, image: MetadataImage, topic: TopicImage, index: int,
                             partition: PartitionRegistration) -> PartitionChangeRecord | None:
        if not partition.is_reassigning():
            raise NoReassignmentInProgressException(Errors.NO_REASSIGNMENT_IN_PROGRESS.message)
        revert = PartitionReassignmentRevert.of(partition)
        unclean_allowed = self.configuration_control.unclean_leader_election_enabled(image, topic.name)
        if revert.unclean and not unclean_allowed:
            raise InvalidReplicaAssignmentException(
                f"Unable to revert partition assignment for {topic.name}:{index} because it would "
                f"require an unclean leader election.")
        builder = self.leader_and_isr.builder(image, topic, index, partition,
                                              election=Election.UNCLEAN if unclean_allowed else Election.ONLINE)
        return (builder.set_target_isr(revert.isr).set_target_replicas(revert.replicas)
                .set_target_removing([]).set_target_adding([]).build())

    def _change_reassignment(self, image: MetadataImage, topic: TopicImage, target: ReassignablePartition,
                             partition: PartitionRegistration, allow_rf_change: bool
                             ) -> PartitionChangeRecord | None:
        wanted = list(target.replicas or ())
        self.validate_manual_partition_assignment(image, wanted, None)
        if not allow_rf_change:
            current_rf = len(partition.replicas) - len(partition.removing_replicas)
            if current_rf != len(wanted):
                raise InvalidReplicationFactorException(
                    f"The replication factor is changed from {current_rf} to {len(wanted)}")
        reassignment = PartitionReassignmentReplicas.between(partition.replicas, wanted)
        builder = self.leader_and_isr.builder(image, topic, target.partition_index, partition,
                                              election=Election.ONLINE)
        if reassignment.replicas != list(partition.replicas):
            builder.set_target_replicas(reassignment.replicas)
        if reassignment.removing:
            builder.set_target_removing(reassignment.removing)
        if reassignment.adding:
            builder.set_target_adding(reassignment.adding)
        return builder.build()

    @staticmethod
    def list_partition_reassignments(image: MetadataImage,
                                     topics: tuple[ListPartitionReassignmentsTopics, ...] | None
                                     ) -> ListPartitionReassignmentsResponse:
        """Ongoing reassignments (of the given partitions, or all), read from committed metadata."""
        if topics is None:
            wanted = [(name, sorted(image.topics.topics_by_name[name].partitions))
                      for name in sorted(image.topics.topics_by_name)]
        else:
            wanted = [(t.name, list(t.partition_indexes)) for t in topics]
        ongoing_topics = []
        for name, indexes in wanted:
            topic = image.topic(name)
            if topic is None:
                continue
            ongoing = [OngoingPartitionReassignment(i, p.replicas, p.adding_replicas, p.removing_replicas)
                       for i in indexes if (p := topic.partition(i)) is not None and p.is_reassigning()]
            if ongoing:
                ongoing_topics.append(OngoingTopicReassignment(name, tuple(ongoing)))
        return ListPartitionReassignmentsResponse(tuple(ongoing_topics))
