"""Leaders and ISRs: AlterPartition, broker fencing and elections, a collaborator of ReplicationControlManager.

Theory of operation
-------------------
Every leader or ISR change is a `PartitionChangeRecord` built by
`PartitionChangeBuilder`; this module decides *when* to build one:

* **AlterPartition** -- a partition leader asks to shrink or expand its ISR.
  The request must come from the current leader, with the current leader
  epoch and partition epoch, naming only replicas that are registered,
  unfenced, not shutting down and (if it gives one) at the right broker
  epoch; otherwise the partition gets Kafka's error (FENCED_LEADER_EPOCH,
  INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA, ...).  An ISR change that
  completes a reassignment may move leadership: the leader then gets
  NEW_LEADER_ELECTED.
* **A broker is fenced** (missed heartbeats, asked to be, or shut down): it
  leaves every ISR it was in, and every partition it led gets a new leader --
  the first remaining ISR member in replica order, or, if the topic has
  ``unclean.leader.election.enable=true``, the first live replica even outside
  the ISR; or none (-1).  Then ``BrokerRegistrationChangeRecord(fenced=1)``.
* **A broker is unfenced**: ``BrokerRegistrationChangeRecord(fenced=-1)``,
  then every leaderless partition whose ISR holds it gets it as leader.
* **Controlled shutdown**: ``in_controlled_shutdown=1``, then the broker
  leaves ISRs and leaderships as if fenced.
* **ElectLeaders** (``kafka-leader-election.sh``), the periodic preferred
  leader rebalance (``auto.leader.rebalance.enable``) and the periodic
  unclean election for leaderless partitions of topics that allow it.

With eligible leader replicas (``eligible.leader.replicas.version`` 1) every
builder gets the topic's effective ``min.insync.replicas`` (at most its
replication factor) and keeps the ELR (see `partition_change_builder`);
unregistering a broker also visits the partitions whose ELR holds it; and a
broker registering a new incarnation is first taken out of its ISRs -- and,
if its ``.kafka_cleanshutdown`` did not carry its registered epoch (it
crashed), out of its ELRs too, since it may have lost the tail of its logs.

`LeaderAndIsrControl` receives the two control managers it consults: the
`ClusterControlManager` (which brokers may lead or join an ISR, their
default directories, broker epochs, the heartbeat manager's sessions) and
the `ConfigurationControlManager` (``unclean.leader.election.enable`` and
``min.insync.replicas`` per topic).  `ReplicationControlManager` builds it
and forwards its public methods; `PartitionReassignmentControl` uses its
`builder`.

Mirrors the corresponding methods of
``org.apache.kafka.controller.ReplicationControlManager`` (Kafka 4.3), where
they are part of that one class.
A heartbeat that reports its broker's cordoned log directories (KIP-1066) for
the first time, or another set of them, writes
``BrokerRegistrationChangeRecord(cordonedLogDirs=...)``.

Simplified: offline log directories are not modelled; partitions are found by
scanning the image, not through ``BrokersToIsrs``/``BrokersToElrs``.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from minikafka.common.errors import (BrokerIdNotRegisteredException, Errors, InvalidRequestException)
from minikafka.controller.broker_heartbeat_manager import BrokerControlState
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_result import ApiError, ControllerEvent, ControllerResult
from minikafka.controller.partition_change_builder import (NO_LEADER, NO_LEADER_CHANGE, Election,
                                                          PartitionChangeBuilder)
from minikafka.controller.requests import (AlterPartitionPartitionData, AlterPartitionPartitionResult,
                                           AlterPartitionRequest,
                                           AlterPartitionResponse, AlterPartitionTopicResult,
                                           BrokerHeartbeatRequest, BrokerHeartbeatResponse, ElectionType,
                                           ElectLeadersRequest, ElectLeadersResponse, PartitionResult,
                                           ReplicaElectionResult)
from minikafka.controller.feature_control_manager import METADATA_VERSION_4_3_IV0, is_elr_enabled
from minikafka.metadata.image import MetadataImage, TopicImage
from minikafka.metadata.partition_registration import LeaderRecoveryState, PartitionRegistration
from minikafka.metadata.records import (BrokerRegistrationChangeRecord, MetadataRecord, PartitionChangeRecord,
                                        UnregisterBrokerRecord)

MAX_ELECTIONS_PER_IMBALANCE = 1000

PartitionRef = tuple[TopicImage, int, PartitionRegistration]


def iter_partitions(image: MetadataImage) -> Iterator[PartitionRef]:
    """Every partition, by topic name then index (Kafka walks hash maps; the sandbox sorts)."""
    for name in sorted(image.topics.topics_by_name):
        topic = image.topics.topics_by_name[name]
        for index in sorted(topic.partitions):
            yield topic, index, topic.partitions[index]


class LeaderAndIsrControl:
    """When and how leaders and ISRs change; every method reads an image and returns records."""

    def __init__(self, cluster_control: ClusterControlManager, configuration_control: ConfigurationControlManager):
        self.cluster_control = cluster_control
        self.configuration_control = configuration_control

    # ------------------------------------------------------------------ helpers
    def builder(self, image: MetadataImage, topic: TopicImage, index: int, partition: PartitionRegistration,
                acceptable: Callable[[int], bool] | None = None,
                election: Election | None = None) -> PartitionChangeBuilder:
        is_active = (lambda r: self.cluster_control.is_active(image, r)) if acceptable is None else acceptable
        builder = PartitionChangeBuilder(partition, topic.topic_id, index, is_active,
                                         lambda r: self.cluster_control.default_dir(image, r),
                                         min_isr=self.effective_min_isr(image, topic))
        builder.set_elr_enabled(is_elr_enabled(image))
        if election is not None:
            builder.set_election(election)
        elif self.configuration_control.unclean_leader_election_enabled(image, topic.name):
            builder.set_election(Election.UNCLEAN)
        return builder

    def effective_min_isr(self, image: MetadataImage, topic: TopicImage) -> int:
        """``getTopicEffectiveMinIsr``: the topic's min.insync.replicas, at most its replication factor."""
        value = self.configuration_control.topic_config(image, topic.name, "min.insync.replicas")
        configured = int(value if value is not None else "1")   # never None: the config has a default
        first = topic.partitions.get(0)
        return configured if first is None else min(configured, len(first.replicas))

    def generate_leader_and_isr_updates(self, image: MetadataImage, broker_to_remove: int, broker_to_add: int,
                                        partitions: list[PartitionRef],
                                        broker_with_unclean_shutdown: int = NO_LEADER) -> list[MetadataRecord]:
        """``generateLeaderAndIsrUpdates``: drop ``broker_to_remove`` from ISRs and leaderships.

        ``broker_with_unclean_shutdown`` (ELR only) leaves the ISR and the ELR and may not lead."""
        gone = (broker_to_remove, broker_with_unclean_shutdown)

        def acceptable(replica: int) -> bool:
            return replica not in gone and (
                replica == broker_to_add or self.cluster_control.is_active(image, replica))
        records: list[MetadataRecord] = []
        for topic, index, partition in partitions:
            builder = self.builder(image, topic, index, partition, acceptable)
            if broker_with_unclean_shutdown != NO_LEADER:
                builder.set_unclean_shutdown_replicas([broker_with_unclean_shutdown])
            builder.set_target_isr([r for r in partition.isr if r not in gone])
            record = builder.build()
            if record is not None:
                records.append(record)
        return records

    @staticmethod
    def partitions_with_broker_in_isr(image: MetadataImage, broker_id: int) -> list[PartitionRef]:
        return [ref for ref in iter_partitions(image) if broker_id in ref[2].isr]

    @staticmethod
    def partitions_with_broker_in_elr(image: MetadataImage, broker_id: int) -> list[PartitionRef]:
        return [ref for ref in iter_partitions(image) if broker_id in ref[2].elr]

    @staticmethod
    def partitions_with_no_leader(image: MetadataImage) -> list[PartitionRef]:
        return [ref for ref in iter_partitions(image) if ref[2].leader == NO_LEADER]

    @staticmethod
    def has_leaderships(image: MetadataImage, broker_id: int) -> bool:
        return any(ref[2].leader == broker_id for ref in iter_partitions(image))

    # ------------------------------------------------------------------ broker lifecycle
    def handle_broker_fenced(self, image: MetadataImage, broker_id: int) -> list[MetadataRecord]:
        broker = image.cluster.broker(broker_id)
        if broker is None:
            raise RuntimeError(f"Can't find broker registration for broker {broker_id}")
        records = self.generate_leader_and_isr_updates(
            image, broker_id, NO_LEADER, self.partitions_with_broker_in_isr(image, broker_id))
        records.append(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker.epoch, fenced=1))
        return records

    def handle_broker_shutdown(self, image: MetadataImage, broker_id: int, clean: bool) -> list[MetadataRecord]:
        """``handleBrokerShutdown``: a new incarnation of ``broker_id`` is registering.

        With ELR, a broker that did not shut down cleanly (the epoch in its
        ``.kafka_cleanshutdown`` is not its registered one) may have lost the tail
        of its logs: it leaves every ISR and ELR.  Otherwise it is treated as fenced."""
        if image.cluster.broker(broker_id) is None:
            return []
        if not (is_elr_enabled(image) and not clean):
            return self.generate_leader_and_isr_updates(
                image, broker_id, NO_LEADER, self.partitions_with_broker_in_isr(image, broker_id))
        records = self.generate_leader_and_isr_updates(
            image, NO_LEADER, NO_LEADER, self.partitions_with_broker_in_isr(image, broker_id), broker_id)
        return records + self.generate_leader_and_isr_updates(
            image, NO_LEADER, NO_LEADER, self.partitions_with_broker_in_elr(image, broker_id), broker_id)

    def handle_broker_unfenced(self, image: MetadataImage, broker_id: int,
                               broker_epoch: int) -> list[MetadataRecord]:
        records: list[MetadataRecord] = [
            BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker_epoch, fenced=-1)]
        return records + self.generate_leader_and_isr_updates(
            image, NO_LEADER, broker_id, self.partitions_with_no_leader(image))

    def handle_broker_in_controlled_shutdown(self, image: MetadataImage, broker_id: int,
                                             broker_epoch: int) -> list[MetadataRecord]:
        records: list[MetadataRecord] = []
        broker = image.cluster.broker(broker_id)
        if broker is not None and not broker.in_controlled_shutdown:
            records.append(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker_epoch,
                                                          in_controlled_shutdown=1))
        return records + self.generate_leader_and_isr_updates(
            image, broker_id, NO_LEADER, self.partitions_with_broker_in_isr(image, broker_id))

    def unregister_broker(self, image: MetadataImage, broker_id: int) -> ControllerResult[None]:
        broker = image.cluster.broker(broker_id)
        if broker is None:
            raise BrokerIdNotRegisteredException(f"Broker ID {broker_id} is not currently registered")
        records = self.generate_leader_and_isr_updates(
            image, broker_id, NO_LEADER, self.partitions_with_broker_in_isr(image, broker_id))
        # Both passes read the state before either (Kafka replays the records only afterwards);
        # a broker is never in a partition's ISR and ELR at once, so no partition is visited twice.
        records += self.generate_leader_and_isr_updates(
            image, broker_id, NO_LEADER, self.partitions_with_broker_in_elr(image, broker_id))
        records.append(UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=broker.epoch))
        event = ControllerEvent("broker_shutdown", f"broker {broker_id} unregistered",
                                {"broker": broker_id, "phase": "unregistered"})
        return ControllerResult(tuple(records), None, (event,))

    def maybe_fence_one_stale_broker(self, image: MetadataImage, now: int) -> ControllerResult[None]:
        """Drop one expired session, if any; fence its broker if it is the current registration's session,
        even an already fenced broker (so one stopped cleanly gets a second fence record); unknown broker or
        older epoch: no record."""
        heartbeats = self.cluster_control.active_heartbeat_manager()
        expired = heartbeats.tracker.maybe_remove_expired(now)
        if expired is None:
            return ControllerResult()
        broker_id, broker_epoch, contact_ms = expired
        broker = image.cluster.broker(broker_id)
        if broker is None:
            heartbeats.remove(broker_id)
            return ControllerResult()
        if broker.epoch != broker_epoch:
            return ControllerResult()
        records = self.handle_broker_fenced(image, broker_id)
        heartbeats.fence(broker_id)
        silent_ms, again = now - contact_ms, " again" if broker.fenced else ""
        event = ControllerEvent(
            "broker_fenced",
            f"broker {broker_id} fenced{again} after {silent_ms} ms without heartbeat "
            f"(broker.session.timeout.ms={heartbeats.session_timeout_ms})",
            {"broker": broker_id, "reason": "session timeout", "ms_without_heartbeat": silent_ms,
             "already_fenced": broker.fenced})
        return ControllerResult(tuple(records), None, (event,))

    def process_broker_heartbeat(self, image: MetadataImage, request: BrokerHeartbeatRequest,
                                 register_offset: int) -> tuple[ControllerResult[BrokerHeartbeatResponse], bool]:
        """The heartbeat's records and reply, and whether the broker is now in controlled shutdown."""
        broker_id = request.broker_id
        self.cluster_control.check_broker_epoch(image, broker_id, request.broker_epoch)
        heartbeats = self.cluster_control.active_heartbeat_manager()
        states = heartbeats.calculate_next_broker_state(
            broker_id, request.want_fence, request.want_shut_down, request.current_metadata_offset,
            register_offset, lambda: self.has_leaderships(image, broker_id))
        records: list[MetadataRecord] = []
        events: list[ControllerEvent] = []
        if states.current is not states.next:
            records, events = self._broker_state_change(image, request, states.next, register_offset)
        records += handle_directories_cordoned(image, request)
        heartbeats.touch(broker_id, states.next.fenced, request.current_metadata_offset)
        reply = BrokerHeartbeatResponse(is_caught_up=request.current_metadata_offset >= register_offset,
                                        is_fenced=states.next.fenced,
                                        should_shut_down=states.next.should_shut_down)
        return ControllerResult(tuple(records), reply, tuple(events)), states.next.in_controlled_shutdown

    def _broker_state_change(self, image: MetadataImage, request: BrokerHeartbeatRequest,
                             next_state: BrokerControlState, register_offset: int
                             ) -> tuple[list[MetadataRecord], list[ControllerEvent]]:
        broker_id, data = request.broker_id, {"broker": request.broker_id}
        if next_state is BrokerControlState.UNFENCED:
            return self.handle_broker_unfenced(image, broker_id, request.broker_epoch), [ControllerEvent(
                "broker_unfenced", f"broker {broker_id} unfenced: it has caught up with the offset of its "
                                   f"register broker record ({register_offset})", data)]
        if next_state is BrokerControlState.CONTROLLED_SHUTDOWN:
            return self.handle_broker_in_controlled_shutdown(image, broker_id, request.broker_epoch), [
                ControllerEvent("broker_shutdown", f"broker {broker_id} began a controlled shutdown: its "
                                                   f"partition leaderships move to other brokers",
                                {**data, "phase": "started"})]
        records = self.handle_broker_fenced(image, broker_id)
        if next_state is BrokerControlState.SHUTDOWN_NOW:
            return records, [ControllerEvent("broker_shutdown", f"broker {broker_id} may shut down now; "
                                                                f"it is fenced", {**data, "phase": "finished"})]
        return records, [ControllerEvent("broker_fenced", f"broker {broker_id} fenced at its own request",
                                         {**data, "reason": "requested by the broker"})]

    # ------------------------------------------------------------------ AlterPartition
    def alter_partition(self, image: MetadataImage,
                        request: AlterPartitionRequest) -> ControllerResult[AlterPartitionResponse]:
        self.cluster_control.check_broker_epoch(image, request.broker_id, request.broker_epoch)
        records: list[PartitionChangeRecord] = []
        topics: list[AlterPartitionTopicResult] = []
        for topic_data in request.topics:
            topic = image.topic(topic_data.topic_id)
            results: list[AlterPartitionPartitionResult] = []
            for data in topic_data.partitions:
                if topic is None:
                    results.append(AlterPartitionPartitionResult(data.partition_index, Errors.UNKNOWN_TOPIC_ID))
                    continue
                record, result = self._alter_one(image, topic, request.broker_id, data)
                if record is not None:
                    records.append(record)
                results.append(result)
            topics.append(AlterPartitionTopicResult(topic_data.topic_id, tuple(results)))
        return ControllerResult(tuple(records), AlterPartitionResponse(tuple(topics)))

    def _alter_one(self, image: MetadataImage, topic: TopicImage, broker_id: int, data: AlterPartitionPartitionData
                   ) -> tuple[PartitionChangeRecord | None, AlterPartitionPartitionResult]:
        partition = topic.partition(data.partition_index)
        if partition is None:
            return None, AlterPartitionPartitionResult(data.partition_index, Errors.UNKNOWN_TOPIC_OR_PARTITION)
        error = self._validate_alter_partition(image, broker_id, partition, data)
        if error is not Errors.NONE:
            return None, AlterPartitionPartitionResult(data.partition_index, error)
        builder = self.builder(image, topic, data.partition_index, partition)
        builder.set_target_isr([b.broker_id for b in data.new_isr_with_epochs])
        builder.set_target_leader_recovery_state(data.leader_recovery_state)
        record = builder.build()
        if record is not None:
            partition = partition.merge(record)
            if record.leader not in (broker_id, NO_LEADER_CHANGE):
                return record, AlterPartitionPartitionResult(data.partition_index, Errors.NEW_LEADER_ELECTED)
        return record, AlterPartitionPartitionResult(
            data.partition_index, Errors.NONE, partition.leader, partition.leader_epoch, partition.isr,
            partition.leader_recovery_state, partition.partition_epoch)

    def _validate_alter_partition(self, image: MetadataImage, broker_id: int, partition: PartitionRegistration,
                                  data: AlterPartitionPartitionData) -> Errors:
        if data.leader_epoch > partition.leader_epoch or data.partition_epoch > partition.partition_epoch:
            return Errors.NOT_CONTROLLER          # the leader knows a newer state than this controller
        if data.leader_epoch < partition.leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            return Errors.INVALID_REQUEST
        if data.partition_epoch < partition.partition_epoch:
            return Errors.INVALID_UPDATE_VERSION
        new_isr = [b.broker_id for b in data.new_isr_with_epochs]
        if not _valid_isr(partition.replicas, new_isr) or partition.leader not in new_isr:
            return Errors.INVALID_REQUEST
        if data.leader_recovery_state == LeaderRecoveryState.RECOVERING and len(new_isr) > 1:
            return Errors.INVALID_REQUEST
        if (partition.leader_recovery_state == LeaderRecoveryState.RECOVERED
                and data.leader_recovery_state == LeaderRecoveryState.RECOVERING):
            return Errors.INVALID_REQUEST
        for state in data.new_isr_with_epochs:
            broker = image.cluster.broker(state.broker_id)
            if (broker is None or broker.in_controlled_shutdown or broker.fenced
                    or (state.broker_epoch != -1 and broker.epoch != state.broker_epoch)):
                return Errors.INELIGIBLE_REPLICA
        return Errors.NONE

    # ------------------------------------------------------------------ elections
    def elect_leaders(self, image: MetadataImage,
                      request: ElectLeadersRequest) -> ControllerResult[ElectLeadersResponse]:
        if request.election_type not in (ElectionType.PREFERRED, ElectionType.UNCLEAN):
            raise InvalidRequestException(f"Unknown election type {int(request.election_type)}")
        records: list[PartitionChangeRecord] = []
        results: list[ReplicaElectionResult] = []
        if request.topic_partitions is None:
            wanted = [(name, sorted(image.topics.topics_by_name[name].partitions), True)
                      for name in sorted(image.topics.topics_by_name)]
        else:
            wanted = [(tp.topic, list(tp.partitions), False) for tp in request.topic_partitions]
        for topic, partitions, skip_not_needed in wanted:
            partition_results: list[PartitionResult] = []
            for index in partitions:
                error, record = self.elect_leader(image, topic, index, request.election_type)
                if record is not None:
                    records.append(record)
                if not (skip_not_needed and error.error is Errors.ELECTION_NOT_NEEDED):
                    partition_results.append(PartitionResult(index, error.error, error.message))
            results.append(ReplicaElectionResult(topic, tuple(partition_results)))
        return ControllerResult(tuple(records), ElectLeadersResponse(tuple(results)))

    def elect_leader(self, image: MetadataImage, topic_name: str, index: int,
                     election_type: int) -> tuple[ApiError, PartitionChangeRecord | None]:
        """(ApiError, record or None) for one partition's preferred or unclean election."""
        topic = image.topic(topic_name)
        if topic is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic_name}"), None
        partition = topic.partition(index)
        if partition is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic_name}-{index}"), None
        if ((election_type == ElectionType.PREFERRED and partition.has_preferred_leader())
                or (election_type == ElectionType.UNCLEAN and partition.has_leader())):
            return ApiError(Errors.ELECTION_NOT_NEEDED), None
        election = Election.PREFERRED if election_type == ElectionType.PREFERRED else Election.UNCLEAN
        record = self.builder(image, topic, index, partition, election=election).build()
        if record is None:
            error = (Errors.PREFERRED_LEADER_NOT_AVAILABLE if election_type == ElectionType.PREFERRED
                     else Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
            return ApiError(error), None
        return ApiError.NONE, record

    @staticmethod
    def are_partition_leaders_imbalanced(image: MetadataImage) -> bool:
        return any(not ref[2].has_preferred_leader() for ref in iter_partitions(image))

    def are_some_partitions_leaderless(self, image: MetadataImage) -> bool:
        return bool(self.partitions_with_no_leader(image))

    def maybe_balance_partition_leaders(self, image: MetadataImage) -> ControllerResult[bool]:
        """Preferred elections for every partition not led by its first replica; response: more to do."""
        records: list[PartitionChangeRecord] = []
        for topic, index, partition in iter_partitions(image):
            if len(records) >= MAX_ELECTIONS_PER_IMBALANCE:
                break
            if not partition.has_preferred_leader():
                record = self.builder(image, topic, index, partition, election=Election.PREFERRED).build()
                if record is not None:
                    records.append(record)
        return ControllerResult(tuple(records), len(records) >= MAX_ELECTIONS_PER_IMBALANCE)

    def maybe_elect_unclean_leaders(self, image: MetadataImage) -> ControllerResult[bool]:
        """Unclean elections for leaderless partitions of topics that allow them."""
        records: list[PartitionChangeRecord] = []
        for topic, index, partition in self.partitions_with_no_leader(image):
            if len(records) >= MAX_ELECTIONS_PER_IMBALANCE:
                break
            if self.configuration_control.unclean_leader_election_enabled(image, topic.name):
                _, record = self.elect_leader(image, topic.name, index, ElectionType.UNCLEAN)
                if record is not None:
                    records.append(record)
        return ControllerResult(tuple(records), len(records) >= MAX_ELECTIONS_PER_IMBALANCE)


def _valid_isr(replicas: Sequence[int], isr: Sequence[int]) -> bool:
    """``Replicas.validateIsr``: distinct, non-negative members of the replica list."""
    return len(set(isr)) == len(isr) and all(r >= 0 and r in replicas for r in isr)


def handle_directories_cordoned(image: MetadataImage, request: BrokerHeartbeatRequest) -> list[MetadataRecord]:
    """``ReplicationControlManager.handleDirectoriesCordoned`` (KIP-1066, metadata.version 4.3-IV0+):
    a heartbeat's cordoned log dirs become a ``BrokerRegistrationChangeRecord`` (v3) when they
    differ from what the registration holds -- always for the first heartbeat after a broker
    registers, whose RegisterBrokerRecord carries none (null)."""
    if request.cordoned_log_dirs is None or (image.metadata_version() or 0) < METADATA_VERSION_4_3_IV0:
        return []
    registration = image.cluster.broker(request.broker_id)
    if registration is None or not registration.cordoned_dir_changed(request.cordoned_log_dirs):
        return []
    return [BrokerRegistrationChangeRecord(broker_id=request.broker_id, broker_epoch=request.broker_epoch,
                                           cordoned_log_dirs=request.cordoned_log_dirs)]
