"""The QuorumController's entry point for each controller API.

Theory of operation
-------------------
Each method takes one request and the ``respond`` callback, runs the checks
``ControllerApis`` makes (duplicates, name/id resolution), asks the right
control manager for a `ControllerResult` computed on the working image, and
hands it to ``QuorumController._write``, which appends the records and calls
``respond`` once they are committed.  A `KafkaException` raised on the way
becomes the API's whole-request error response (see
``controller_apis.error_response``).

Two APIs keep a little controller-only state up to date after the write:
BrokerRegistration and BrokerHeartbeat reschedule the session-expiry check,
and a heartbeat that starts a controlled shutdown records the offset the
shutdown must see committed everywhere before the broker may stop.

Mirrors the public methods of ``org.apache.kafka.controller.QuorumController``
(``registerBroker``, ``processBrokerHeartbeat``, ``createTopics``, ...).
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.errors import Errors, StaleBrokerEpochException
from minikafka.common.uuid import Uuid
from minikafka.controller.controller_apis import (resolve_delete_topics, split_config_resources,
                                                  split_create_partitions, split_create_topics)
from minikafka.controller.controller_result import ControllerResult
from minikafka.controller.producer_id_control_manager import ProducerIdControlManager
from minikafka.controller.requests import (
    AllocateProducerIdsRequest, AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse,
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, AlterPartitionRequest,
    BrokerHeartbeatRequest, BrokerRegistrationRequest, ControllerRegistrationRequest,
    ControllerRegistrationResponse, CreatePartitionsRequest, CreatePartitionsResponse, CreateTopicsRequest,
    CreateTopicsResponse, DeletableTopicResult, DeleteTopicsRequest, DeleteTopicsResponse,
    ElectLeadersRequest, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
    UnregisterBrokerRequest, UnregisterBrokerResponse)

Respond = Callable[[Any], None]


class QuorumControllerRequests:
    """Mixed into QuorumController: one method per request type (see `handlers`)."""

    def handlers(self) -> dict[type, Callable[[Any, Respond], None]]:
        return {
            BrokerRegistrationRequest: self.register_broker,
            BrokerHeartbeatRequest: self.process_broker_heartbeat,
            UnregisterBrokerRequest: self.unregister_broker,
            ControllerRegistrationRequest: self.register_controller,
            AlterPartitionRequest: self.alter_partition,
            CreateTopicsRequest: self.create_topics,
            DeleteTopicsRequest: self.delete_topics,
            CreatePartitionsRequest: self.create_partitions,
            IncrementalAlterConfigsRequest: self.incremental_alter_configs,
            AlterConfigsRequest: self.legacy_alter_configs,
            ElectLeadersRequest: self.elect_leaders,
            AlterPartitionReassignmentsRequest: self.alter_partition_reassignments,
            AllocateProducerIdsRequest: self.allocate_producer_ids,
        }

    # ------------------------------------------------------------------ brokers and controllers
    def register_broker(self, request: BrokerRegistrationRequest, respond: Respond) -> None:
        existing = self.image.cluster.broker(request.broker_id)
        result = self.cluster_control.register_broker(self.image, request, self._next_write_offset,
                                                      self.node.now)
        if existing is not None and existing.incarnation_id != request.incarnation_id:
            # A new incarnation: its old ISR places go first, with or without ELR (Kafka 4.3's
            # handleBrokerShutdown); with ELR, after an unclean shutdown its ELR places go too.
            clean = existing.epoch == request.previous_broker_epoch
            shutdown = self.replication_control.handle_broker_shutdown(self.image, request.broker_id, clean)
            result = ControllerResult(tuple(shutdown) + result.records, result.response, result.events)
        self._write(result, request, respond)
        self._reschedule_fence_check()

    def process_broker_heartbeat(self, request: BrokerHeartbeatRequest, respond: Respond) -> None:
        # The session of the heartbeat's (id, epoch) is refreshed first, whatever comes of the heartbeat.
        self.cluster_control.track_broker_heartbeat(request.broker_id, request.broker_epoch, self.node.now)
        register_offset = self.cluster_control.register_broker_record_offset(request.broker_id)
        if register_offset is None:
            raise StaleBrokerEpochException(
                f"Receive a heartbeat from broker {request.broker_id} before registration")
        result, in_controlled_shutdown = self.replication_control.process_broker_heartbeat(
            self.image, request, register_offset)
        offset = self._write(result, request, respond)
        if in_controlled_shutdown and offset is not None and self.is_active:
            self.cluster_control.heartbeat_manager.maybe_update_controlled_shutdown_offset(
                request.broker_id, offset)
        if self.is_active:
            self._reschedule_fence_check()

    def unregister_broker(self, request: UnregisterBrokerRequest, respond: Respond) -> None:
        result = self.replication_control.unregister_broker(self.image, request.broker_id)
        self._write(ControllerResult(result.records, UnregisterBrokerResponse(), result.events),
                    request, respond)

    def register_controller(self, request: ControllerRegistrationRequest, respond: Respond) -> None:
        result = self.cluster_control.register_controller(
            request.controller_id, request.incarnation_id, request.listeners, request.features)
        self._write(ControllerResult(result.records, ControllerRegistrationResponse()), request, respond)

    def alter_partition(self, request: AlterPartitionRequest, respond: Respond) -> None:
        self._write(self.replication_control.alter_partition(self.image, request), request, respond)

    def allocate_producer_ids(self, request: AllocateProducerIdsRequest, respond: Respond) -> None:
        self._write(ProducerIdControlManager.generate_next_producer_id(self.image, request), request, respond)

    # ------------------------------------------------------------------ topics
    def create_topics(self, request: CreateTopicsRequest, respond: Respond) -> None:
        effective, refused = split_create_topics(request)
        result = self.replication_control.create_topics(self.image, effective, self.rng_for_topic)
        response = CreateTopicsResponse(result.response.topics + tuple(refused))
        self._write(ControllerResult(result.records, response, result.events), request, respond)

    def delete_topics(self, request: DeleteTopicsRequest, respond: Respond) -> None:
        if not self.delete_topic_enable:
            raise Errors.TOPIC_DELETION_DISABLED.exception()
        to_delete, answers = resolve_delete_topics(self.image, request)
        result = self.replication_control.delete_topics(self.image, list(to_delete))
        answers += [DeletableTopicResult(to_delete[topic_id], topic_id, error.error, error.message)
                    for topic_id, error in result.response.items()]
        order = _request_positions(request)
        answers.sort(key=lambda a: min(order.get(a.name, len(order)), order.get(a.topic_id, len(order))))
        self._write(ControllerResult(result.records, DeleteTopicsResponse(tuple(answers))), request, respond)

    def create_partitions(self, request: CreatePartitionsRequest, respond: Respond) -> None:
        topics, answers = split_create_partitions(request)
        result = self.replication_control.create_partitions(self.image, topics, self.rng_for_partitions)
        outcome = ControllerResult(result.records, CreatePartitionsResponse(tuple(answers) + tuple(result.response)))
        self._write(outcome.without_records() if request.validate_only else outcome, request, respond)

    # ------------------------------------------------------------------ configs
    def incremental_alter_configs(self, request: IncrementalAlterConfigsRequest, respond: Respond) -> None:
        changes, answers = split_config_resources(request, incremental=True)
        result = self.configuration_control.incremental_alter_configs(self.image, changes)
        self._write_config_result(request, respond, result, answers, IncrementalAlterConfigsResponse)

    def legacy_alter_configs(self, request: AlterConfigsRequest, respond: Respond) -> None:
        changes, answers = split_config_resources(request, incremental=False)
        result = self.configuration_control.legacy_alter_configs(self.image, changes)
        self._write_config_result(request, respond, result, answers, AlterConfigsResponse)

    def _write_config_result(self, request, respond, result, answers, response_type) -> None:
        responses = [AlterConfigsResourceResponse(resource.type, resource.name, error.error, error.message)
                     for resource, error in result.response.items()]
        outcome = ControllerResult(result.records, response_type(tuple(responses + answers)))
        self._write(outcome.without_records() if request.validate_only else outcome, request, respond)

    # ------------------------------------------------------------------ leaders and reassignments
    def elect_leaders(self, request: ElectLeadersRequest, respond: Respond) -> None:
        self._write(self.replication_control.elect_leaders(self.image, request), request, respond)

    def alter_partition_reassignments(self, request: AlterPartitionReassignmentsRequest,
                                      respond: Respond) -> None:
        if not request.topics:
            respond(AlterPartitionReassignmentsResponse(
                (), allow_replication_factor_change=request.allow_replication_factor_change))
            return
        self._write(self.replication_control.alter_partition_reassignments(self.image, request),
                    request, respond)


def _request_positions(request: DeleteTopicsRequest) -> dict:
    """Name or id -> its position in the request, to answer in request order."""
    positions: dict = {}
    entries = [(name, None) for name in request.topic_names] + [(t.name, t.topic_id) for t in request.topics]
    for index, (name, topic_id) in enumerate(entries):
        for key in (name, topic_id):
            if key is not None and key != Uuid.ZERO:   # type: ignore[attr-defined]
                positions.setdefault(key, index)
    return positions
