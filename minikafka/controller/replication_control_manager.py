"""``ReplicationControlManager``: topics, partitions, leaders and in-sync replicas.

Theory of operation
-------------------
This is the part of the controller that decides where partitions live and
who leads them.  Everything it decides becomes records:

* **CreateTopics** checks each topic in Kafka's order -- the name (illegal
  characters, a '.'/'_' collision with an existing topic, already exists),
  then the configs (null values, unknown names, bad values), then the
  partition count and replication factor (-1 means the controller's
  ``num.partitions`` / ``default.replication.factor``) or the explicit
  assignment -- and writes ``TopicRecord``, the topic's ``ConfigRecord`` s,
  then one ``PartitionRecord`` per partition.  A new partition's ISR is its
  replicas that are unfenced and not shutting down; its leader is the first
  of those; leader epoch and partition epoch start at 0.
* **DeleteTopics** writes one ``RemoveTopicRecord`` per topic (its configs go
  with it on replay).
* **CreatePartitions** places the new partitions with the topic's replication
  factor and writes their ``PartitionRecord`` s.

Leadership and ISR changes (AlterPartition, fencing, elections) are decided
by a `LeaderAndIsrControl` (``leader_and_isr.py``), reassignments by a
`PartitionReassignmentControl` (``partition_reassignment.py``).  In Kafka
they are one class; here this class builds the two collaborators, handing
each the control managers it consults, and forwards the controller's calls
to them, so the `QuorumController` still sees one ReplicationControlManager.

Randomness: Kafka draws placement offsets and topic ids from the active
controller's ``Random``.  The sandbox draws them from
``random.Random(f"{decision_seed}:{topic}:{n}")`` (``n`` = how many earlier
TopicRecords carried that name), handed in as ``rng_for(topic)``, so a topic
lands on the same brokers with the same id whichever controller is active.

Mirrors ``org.apache.kafka.controller.ReplicationControlManager`` (Kafka
4.x), with its error texts.  Simplified: no CreateTopicPolicy, no controller
mutation quota, and partitions are found by scanning the image rather than
through Kafka's ``BrokersToIsrs`` index.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable, Sequence

from minikafka.common import topic as topic_rules
from minikafka.common.errors import (Errors, InvalidPartitionsException, InvalidReplicaAssignmentException,
                                     InvalidReplicationFactorException, KafkaException,
                                     UnknownServerException, UnknownTopicIdException,
                                     UnknownTopicOrPartitionException)
from minikafka.common.uuid import Uuid
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_result import ApiError, ControllerResult
from minikafka.controller.leader_and_isr import LeaderAndIsrControl
from minikafka.controller.partition_reassignment import PartitionReassignmentControl
from minikafka.controller.requests import (AlterConfigOpType, AlterPartitionReassignmentsRequest,
                                           AlterPartitionRequest, AlterPartitionResponse,
                                           AlterPartitionReassignmentsResponse, BrokerHeartbeatRequest,
                                           BrokerHeartbeatResponse, CreatableTopic,
                                           CreatableTopicConfigs, CreatableTopicResult, CreatePartitionsTopic,
                                           CreatePartitionsTopicResult, CreateTopicsRequest, CreateTopicsResponse,
                                           ElectLeadersRequest, ElectLeadersResponse,
                                           ListPartitionReassignmentsResponse,
                                           ListPartitionReassignmentsTopics)
from minikafka.controller.striped_replica_placer import PlacementSpec, StripedReplicaPlacer
from minikafka.metadata.image import ConfigResource, MetadataImage
from minikafka.metadata.partition_registration import LeaderRecoveryState
from minikafka.metadata.records import MetadataRecord, PartitionRecord, RemoveTopicRecord, TopicRecord

RngFor = Callable[[str], random.Random]                 # topic name -> its decision RNG
PartitionsRngFor = Callable[[str, int], random.Random]  # (topic, first new partition) -> RNG
Assignment = tuple[list[int], list[int]]                # a new partition's (replicas, ISR)


class ReplicationControlManager:
    """Topic and partition decisions; every method reads an image and returns a ControllerResult."""

    def __init__(self, cluster_control: ClusterControlManager,
                 configuration_control: ConfigurationControlManager,
                 default_num_partitions: int = 1, default_replication_factor: int = 1):
        self.cluster_control = cluster_control
        self.configuration_control = configuration_control
        self.default_num_partitions = default_num_partitions          # num.partitions
        self.default_replication_factor = default_replication_factor  # default.replication.factor
        self.leader_and_isr = LeaderAndIsrControl(cluster_control, configuration_control)
        self.reassignment = PartitionReassignmentControl(self.leader_and_isr, configuration_control,
                                                         self.validate_manual_partition_assignment)

    # ------------------------------------------------------------------ leaders and ISRs (LeaderAndIsrControl)
    def alter_partition(self, image: MetadataImage,
                        request: AlterPartitionRequest) -> ControllerResult[AlterPartitionResponse]:
        return self.leader_and_isr.alter_partition(image, request)

    def process_broker_heartbeat(self, image: MetadataImage, request: BrokerHeartbeatRequest,
                                 register_offset: int) -> tuple[ControllerResult[BrokerHeartbeatResponse], bool]:
        return self.leader_and_isr.process_broker_heartbeat(image, request, register_offset)

    def handle_broker_shutdown(self, image: MetadataImage, broker_id: int, clean: bool) -> list[MetadataRecord]:
        return self.leader_and_isr.handle_broker_shutdown(image, broker_id, clean)

    def unregister_broker(self, image: MetadataImage, broker_id: int) -> ControllerResult[None]:
        return self.leader_and_isr.unregister_broker(image, broker_id)

    def maybe_fence_one_stale_broker(self, image: MetadataImage, now: int) -> ControllerResult[None]:
        return self.leader_and_isr.maybe_fence_one_stale_broker(image, now)

    def elect_leaders(self, image: MetadataImage,
                      request: ElectLeadersRequest) -> ControllerResult[ElectLeadersResponse]:
        return self.leader_and_isr.elect_leaders(image, request)

    def are_partition_leaders_imbalanced(self, image: MetadataImage) -> bool:
        return self.leader_and_isr.are_partition_leaders_imbalanced(image)

    def are_some_partitions_leaderless(self, image: MetadataImage) -> bool:
        return self.leader_and_isr.are_some_partitions_leaderless(image)

    def maybe_balance_partition_leaders(self, image: MetadataImage) -> ControllerResult[bool]:
        return self.leader_and_isr.maybe_balance_partition_leaders(image)

    def maybe_elect_unclean_leaders(self, image: MetadataImage) -> ControllerResult[bool]:
        return self.leader_and_isr.maybe_elect_unclean_leaders(image)

    # ------------------------------------------------------------------ reassignments (PartitionReassignmentControl)
    def alter_partition_reassignments(self, image: MetadataImage,
                                      request: AlterPartitionReassignmentsRequest
                                      ) -> ControllerResult[AlterPartitionReassignmentsResponse]:
        return self.reassignment.alter_partition_reassignments(image, request)

    def list_partition_reassignments(self, image: MetadataImage,
                                     topics: tuple[ListPartitionReassignmentsTopics, ...] | None
                                     ) -> ListPartitionReassignmentsResponse:
        return self.reassignment.list_partition_reassignments(image, topics)

    # ------------------------------------------------------------------ CreateTopics
    def create_topics(self, image: MetadataImage, request: CreateTopicsRequest,
                      rng_for: RngFor) -> ControllerResult[CreateTopicsResponse]:
        errors: dict[str, ApiError] = {}
        existing = list(image.topics.topics_by_name)
        for topic in request.topics:
            error = topic_rules.new_topic_name_error(topic.name, existing)
            if error is not None:
                errors[topic.name] = ApiError.from_exception(error)
        for topic in request.topics:
            nulls = [c.name for c in topic.configs if c.value is None]
            if topic.name not in errors and nulls:
                errors[topic.name] = ApiError(Errors.INVALID_CONFIG,
                                              "Null value not supported for topic configs: " + ",".join(nulls))
        records: list[MetadataRecord] = []
        results: dict[str, CreatableTopicResult] = {}
        for topic in request.topics:
            if topic.name in errors:
                continue
            try:
                topic_records, topic_result = self._create_topic(image, topic, rng_for(topic.name))
            except KafkaException as exc:
                errors[topic.name] = ApiError.from_exception(exc)
                continue
            records.extend(topic_records)
            results[topic.name] = topic_result
        answer = CreateTopicsResponse(tuple(
            results[t.name] if t.name not in errors else
            CreatableTopicResult(t.name, error_code=errors[t.name].error, error_message=errors[t.name].message)
            for t in request.topics))
        result = ControllerResult(tuple(records), answer)
        return result.without_records() if request.validate_only else result

    def _create_topic(self, image: MetadataImage, topic: CreatableTopic,
                      rng: random.Random) -> tuple[list[MetadataRecord], CreatableTopicResult]:
        # create_topics answered a topic with a null config value already: every value is a string
        configs = {c.name: c.value for c in topic.configs if c.value is not None}
        config_records: list[MetadataRecord] = []
        if configs:
            resource = ConfigResource(ConfigResource.TOPIC, topic.name)
            outcome = self.configuration_control.incremental_alter_configs(
                image, {resource: {name: (AlterConfigOpType.SET, value) for name, value in configs.items()}},
                newly_created=True)
            if outcome.response[resource].is_failure:
                raise outcome.response[resource].exception()
            config_records = list(outcome.records)
        assignments = (self._manual_assignments(image, topic) if topic.assignments
                       else self._placed_assignments(image, topic, rng))
        topic_id = Uuid.random(rng)
        records: list[MetadataRecord] = [TopicRecord(name=topic.name, topic_id=topic_id), *config_records]
        records += [self._partition_record(image, topic_id, index, replicas, isr)
                    for index, (replicas, isr) in enumerate(assignments)]
        result = CreatableTopicResult(
            topic.name, topic_id=topic_id, num_partitions=len(assignments),
            replication_factor=len(assignments[0][0]),
            configs=tuple(CreatableTopicConfigs(name, value, False, source, False) for name, value, source
                          in self.configuration_control.effective_topic_configs(image, configs)))
        return records, result

    def _manual_assignments(self, image: MetadataImage, topic: CreatableTopic) -> list[Assignment]:
        if topic.replication_factor != -1:
            raise Errors.INVALID_REQUEST.exception(
                "A manual partition assignment was specified, but replication factor was not set to -1.")
        if topic.num_partitions != -1:
            raise Errors.INVALID_REQUEST.exception(
                "A manual partition assignment was specified, but numPartitions was not set to -1.")
        by_index: dict[int, tuple[list[int], list[int]]] = {}
        replication_factor = None
        for assignment in topic.assignments:
            if assignment.partition_index in by_index:
                raise InvalidReplicaAssignmentException(
                    f"Found multiple manual partition assignments for partition {assignment.partition_index}")
            replicas = list(assignment.broker_ids)
            self.validate_manual_partition_assignment(image, replicas, replication_factor)
            replication_factor = len(replicas)
            isr = self._active_replicas(image, replicas)
            if not isr:
                raise InvalidReplicaAssignmentException(
                    f"All brokers specified in the manual partition assignment for partition "
                    f"{assignment.partition_index} are fenced or in controlled shutdown.")
            by_index[assignment.partition_index] = (replicas, isr)
        if sorted(by_index) != list(range(len(by_index))):
            raise InvalidReplicaAssignmentException("partitions should be a consecutive 0-based integer sequence")
        return [by_index[i] for i in range(len(by_index))]

    def _placed_assignments(self, image: MetadataImage, topic: CreatableTopic,
                            rng: random.Random) -> list[Assignment]:
        if topic.replication_factor < -1 or topic.replication_factor == 0:
            raise InvalidReplicationFactorException(
                "Replication factor must be larger than 0, or -1 to use the default value.")
        if topic.num_partitions < -1 or topic.num_partitions == 0:
            raise InvalidPartitionsException("Number of partitions was set to an invalid non-positive value.")
        num_partitions = self.default_num_partitions if topic.num_partitions == -1 else topic.num_partitions
        rf = self.default_replication_factor if topic.replication_factor == -1 else topic.replication_factor
        return self._place(image, PlacementSpec(0, num_partitions, rf), rng, wrap_errors=True)

    def _place(self, image: MetadataImage, spec: PlacementSpec, rng: random.Random,
               wrap_errors: bool) -> list[Assignment]:
        try:
            placed = StripedReplicaPlacer(rng).place(spec, self.cluster_control.usable_brokers(image))
        except InvalidReplicationFactorException as exc:
            if not wrap_errors:     # CreatePartitions passes the placer's message through as it is
                raise
            raise InvalidReplicationFactorException(
                f"Unable to replicate the partition {spec.num_replicas} time(s): {exc.message}") from None
        assignments: list[Assignment] = []
        for replicas in placed:
            isr = self._active_replicas(image, replicas)
            if not isr:
                raise InvalidReplicationFactorException(
                    f"Unable to replicate the partition {spec.num_replicas} time(s): All brokers are "
                    f"currently fenced or in controlled shutdown.")
            assignments.append((replicas, isr))
        return assignments

    def _active_replicas(self, image: MetadataImage, replicas: Iterable[int]) -> list[int]:
        return [r for r in replicas if self.cluster_control.is_active(image, r)]

    def _partition_record(self, image: MetadataImage, topic_id: Uuid, index: int,
                          replicas: Sequence[int], isr: Sequence[int]) -> PartitionRecord:
        return PartitionRecord(
            partition_id=index, topic_id=topic_id, replicas=tuple(replicas), isr=tuple(isr),
            leader=isr[0], leader_recovery_state=LeaderRecoveryState.RECOVERED, leader_epoch=0,
            partition_epoch=0, directories=tuple(self.cluster_control.default_dir(image, r) for r in replicas))

    @staticmethod
    def validate_manual_partition_assignment(image: MetadataImage, replicas: Sequence[int],
                                             replication_factor: int | None) -> None:
        if not replicas:
            raise InvalidReplicaAssignmentException(
                "The manual partition assignment includes an empty replica list.")
        previous = None
        for broker_id in sorted(replicas):
            if image.cluster.broker(broker_id) is None:
                raise InvalidReplicaAssignmentException(
                    f"The manual partition assignment includes broker {broker_id}, but no such broker "
                    f"is registered.")
            if broker_id == previous:
                raise InvalidReplicaAssignmentException(
                    f"The manual partition assignment includes the broker {previous} more than once.")
            previous = broker_id
        if replication_factor is not None and len(replicas) != replication_factor:
            raise InvalidReplicaAssignmentException(
                f"The manual partition assignment includes a partition with {len(replicas)} replica(s), "
                f"but this is not consistent with previous partitions, which have {replication_factor} "
                f"replica(s).")

    # ------------------------------------------------------------------ DeleteTopics
    @staticmethod
    def delete_topics(image: MetadataImage, topic_ids: Iterable[Uuid]) -> ControllerResult[dict[Uuid, ApiError]]:
        """One RemoveTopicRecord per known id; response: {topic id: ApiError}."""
        records: list[RemoveTopicRecord] = []
        results: dict[Uuid, ApiError] = {}
        for topic_id in topic_ids:
            if image.topic(topic_id) is None:
                exc = UnknownTopicIdException(Errors.UNKNOWN_TOPIC_ID.message)
                results[topic_id] = ApiError.from_exception(exc)
            else:
                records.append(RemoveTopicRecord(topic_id=topic_id))
                results[topic_id] = ApiError.NONE
        return ControllerResult(tuple(records), results)

    # ------------------------------------------------------------------ CreatePartitions
    def create_partitions(self, image: MetadataImage, topics: Sequence[CreatePartitionsTopic],
                          rng_for: PartitionsRngFor) -> ControllerResult[list[CreatePartitionsTopicResult]]:
        records: list[PartitionRecord] = []
        results: list[CreatePartitionsTopicResult] = []
        for topic in topics:
            try:
                records.extend(self._create_partitions(image, topic, rng_for))
                results.append(CreatePartitionsTopicResult(topic.name))
            except UnknownTopicOrPartitionException as exc:      # Kafka answers the bare code
                results.append(CreatePartitionsTopicResult(topic.name, exc.error, None))
            except KafkaException as exc:
                results.append(CreatePartitionsTopicResult(topic.name, exc.error, exc.message))
        return ControllerResult(tuple(records), results)

    def _create_partitions(self, image: MetadataImage, topic: CreatePartitionsTopic,
                           rng_for: PartitionsRngFor) -> list[PartitionRecord]:
        info = image.topic(topic.name)
        if info is None:
            raise UnknownTopicOrPartitionException()
        current = len(info.partitions)
        if topic.count == current:
            raise InvalidPartitionsException(f"Topic already has {current} partition(s).")
        if topic.count < current:
            raise InvalidPartitionsException(
                f"The topic {topic.name} currently has {current} partition(s); {topic.count} would not "
                f"be an increase.")
        additional = topic.count - current
        if topic.assignments is not None and len(topic.assignments) != additional:
            raise InvalidReplicaAssignmentException(
                f"Attempted to add {additional} additional partition(s), but only "
                f"{len(topic.assignments)} assignment(s) were specified.")
        if not info.partitions:
            raise UnknownServerException(f"Invalid state: topic {topic.name} appears to have no partitions.")
        rf = len(info.partitions[min(info.partitions)].replicas)
        assignments: list[Assignment]
        if topic.assignments is None:
            assignments = self._place(image, PlacementSpec(current, additional, rf),
                                      rng_for(topic.name, current), wrap_errors=False)
        else:
            assignments = []
            for i, assignment in enumerate(topic.assignments):
                replicas = list(assignment.broker_ids)
                self.validate_manual_partition_assignment(image, replicas, rf)
                isr = self._active_replicas(image, replicas)
                if not isr:
                    raise InvalidReplicaAssignmentException(
                        f"All brokers specified in the manual partition assignment for partition "
                        f"{current + i} are fenced or in controlled shutdown.")
                assignments.append((replicas, isr))
        return [self._partition_record(image, info.topic_id, current + i, replicas, isr)
                for i, (replicas, isr) in enumerate(assignments)]
