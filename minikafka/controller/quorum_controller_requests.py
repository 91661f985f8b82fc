"""The QuorumController's entry point for each controller API.

Theory of operation
-------------------
Each method takes one request and the ``respond`` callback, runs the checks
``ControllerApis`` makes (duplicates, name/id resolution), asks the right
control manager for a `ControllerResult` computed on the working image, and
hands it to the controller's ``write``, which appends the records and calls
``respond`` once they are committed.

`QuorumControllerRequests` is a collaborator of the `QuorumController`, not
part of it: its constructor receives the three control managers it asks,
the ``delete.topic.enable`` setting, and the controller itself seen through
the small `ControllerWriter` protocol -- the working image, the offset the
next record will get, the clock, the per-topic random generators, ``write``
and ``reschedule_fence_check``.  It decides nothing by itself: every state
change still happens by replaying the records ``write`` appends.  A `KafkaException` raised on the way
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

import random
from typing import Any, Callable, Protocol

from minikafka.common.errors import Errors, StaleBrokerEpochException
from minikafka.common.uuid import Uuid
from minikafka.controller.controller_apis import (resolve_delete_topics, split_config_resources,
                                                  split_create_partitions, split_create_topics)
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_result import ApiError, ControllerResult
from minikafka.controller.producer_id_control_manager import ProducerIdControlManager
from minikafka.controller.replication_control_manager import ReplicationControlManager
from minikafka.controller.requests import (
    AllocateProducerIdsRequest, AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse,
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, AlterPartitionRequest,
    BrokerHeartbeatRequest, BrokerRegistrationRequest, ControllerRegistrationRequest,
    ControllerRegistrationResponse, ControllerRequest, ControllerResponse, CreatePartitionsRequest,
    CreatePartitionsResponse, CreateTopicsRequest,
    CreateTopicsResponse, DeletableTopicResult, DeleteTopicsRequest, DeleteTopicsResponse,
    ElectLeadersRequest, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
    UnregisterBrokerRequest, UnregisterBrokerResponse)
from minikafka.metadata.image import ConfigResource, MetadataImage

Respond = Callable[[ControllerResponse], None]
"""How the controller answers: called once with the response, when its records are committed."""


class ControllerWriter(Protocol):
    """What the request methods need from the `QuorumController` that owns them."""

    @property
    def image(self) -> MetadataImage: ...          # the working image: committed plus our own records

    @property
    def is_active(self) -> bool: ...

    @property
    def next_write_offset(self) -> int: ...        # the offset our next record will get

    @property
    def now(self) -> int: ...

    def rng_for_topic(self, name: str) -> random.Random: ...

    def rng_for_partitions(self, name: str, first_new_partition: int) -> random.Random: ...

    def write(self, result: ControllerResult[Any], request: ControllerRequest | None = None,
              respond: Respond | None = None) -> int | None: ...

    def reschedule_fence_check(self) -> None: ...


class QuorumControllerRequests:
    """One method per controller request type (see `handlers`), each ending in ``controller.write``."""

    def __init__(self, controller: ControllerWriter, cluster_control: ClusterControlManager,
                 configuration_control: ConfigurationControlManager,
                 replication_control: ReplicationControlManager, delete_topic_enable: bool):
        self.controller = controller
        self.cluster_control = cluster_control
        self.configuration_control = configuration_control
        self.replication_control = replication_control
        self.delete_topic_enable = delete_topic_enable

    def handlers(self) -> dict[type[ControllerRequest], Callable[[Any, Respond], None]]:
        """Request type -> its method (each method takes that type: a dict cannot say so, hence Any)."""
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
        existing = self.controller.image.cluster.broker(request.broker_id)
        result = self.cluster_control.register_broker(self.controller.image, request, self.controller.next_write_offset,
                                                      self.controller.now)
        if existing is not None and existing.incarnation_id != request.incarnation_id:
            # A new incarnation: its old ISR places go first, with or without ELR (Kafka 4.3's
            # handleBrokerShutdown); with ELR, after an unclean shutdown its ELR places go too.
            clean = existing.epoch == request.previous_broker_epoch
            shutdown = self.replication_control.handle_broker_shutdown(self.controller.image, request.broker_id, clean)
            result = ControllerResult(tuple(shutdown) + result.records, result.response, result.events)
        self.controller.write(result, request, respond)
        self.controller.reschedule_fence_check()

    def process_broker_heartbeat(self, request: BrokerHeartbeatRequest, respond: Respond) -> None:
        # The session of the heartbeat's (id, epoch) is refreshed first, whatever comes of the heartbeat.
        self.cluster_control.track_broker_heartbeat(request.broker_id, request.broker_epoch, self.controller.now)
        register_offset = self.cluster_control.register_broker_record_offset(request.broker_id)
        if register_offset is None:
            raise StaleBrokerEpochException(
                f"Receive a heartbeat from broker {request.broker_id} before registration")
        result, in_controlled_shutdown = self.replication_control.process_broker_heartbeat(
            self.controller.image, request, register_offset)
        offset = self.controller.write(result, request, respond)
        heartbeats = self.cluster_control.heartbeat_manager       # None unless active
        if in_controlled_shutdown and offset is not None and self.controller.is_active and heartbeats is not None:
            heartbeats.maybe_update_controlled_shutdown_offset(
                request.broker_id, offset)
        if self.controller.is_active:
            self.controller.reschedule_fence_check()

    def unregister_broker(self, request: UnregisterBrokerRequest, respond: Respond) -> None:
        result = self.replication_control.unregister_broker(self.controller.image, request.broker_id)
        self.controller.write(ControllerResult(result.records, UnregisterBrokerResponse(), result.events),
                    request, respond)

    def register_controller(self, request: ControllerRegistrationRequest, respond: Respond) -> None:
        result = self.cluster_control.register_controller(
            request.controller_id, request.incarnation_id, request.listeners, request.features)
        self.controller.write(ControllerResult(result.records, ControllerRegistrationResponse()), request, respond)

    def alter_partition(self, request: AlterPartitionRequest, respond: Respond) -> None:
        result = self.replication_control.alter_partition(self.controller.image, request)
        self.controller.write(result, request, respond)

    def allocate_producer_ids(self, request: AllocateProducerIdsRequest, respond: Respond) -> None:
        result = ProducerIdControlManager.generate_next_producer_id(self.controller.image, request)
        self.controller.write(result, request, respond)

    # ------------------------------------------------------------------ topics
    def create_topics(self, request: CreateTopicsRequest, respond: Respond) -> None:
        effective, refused = split_create_topics(request)
        result = self.replication_control.create_topics(self.controller.image, effective,
                                                        self.controller.rng_for_topic)
        response = CreateTopicsResponse(result.response.topics + tuple(refused))
        self.controller.write(ControllerResult(result.records, response, result.events), request, respond)

    def delete_topics(self, request: DeleteTopicsRequest, respond: Respond) -> None:
        if not self.delete_topic_enable:
            raise Errors.TOPIC_DELETION_DISABLED.exception()
        to_delete, answers = resolve_delete_topics(self.controller.image, request)
        result = self.replication_control.delete_topics(self.controller.image, list(to_delete))
        answers += [DeletableTopicResult(to_delete[topic_id], topic_id, error.error, error.message)
                    for topic_id, error in result.response.items()]
        order = _request_positions(request)
        answers.sort(key=lambda a: min(order.get(a.name, len(order)), order.get(a.topic_id, len(order))))
        self.controller.write(ControllerResult(result.records, DeleteTopicsResponse(tuple(answers))), request, respond)

    def create_partitions(self, request: CreatePartitionsRequest, respond: Respond) -> None:
        topics, answers = split_create_partitions(request)
        result = self.replication_control.create_partitions(self.controller.image, topics,
                                                            self.controller.rng_for_partitions)
        outcome = ControllerResult(result.records, CreatePartitionsResponse(tuple(answers) + tuple(result.response)))
        self.controller.write(outcome.without_records() if request.validate_only else outcome, request, respond)

    # ------------------------------------------------------------------ configs
    def incremental_alter_configs(self, request: IncrementalAlterConfigsRequest, respond: Respond) -> None:
        changes, answers = split_config_resources(request, incremental=True)
        result = self.configuration_control.incremental_alter_configs(self.controller.image, changes)
        self._write_config_result(request, respond, result, answers, IncrementalAlterConfigsResponse)

    def legacy_alter_configs(self, request: AlterConfigsRequest, respond: Respond) -> None:
        changes, answers = split_config_resources(request, incremental=False)
        result = self.configuration_control.legacy_alter_configs(self.controller.image, changes)
        self._write_config_result(request, respond, result, answers, AlterConfigsResponse)

    def _write_config_result(self, request: IncrementalAlterConfigsRequest | AlterConfigsRequest, respond: Respond,
                             result: ControllerResult[dict[ConfigResource, ApiError]],
                             answers: list[AlterConfigsResourceResponse],
                             response_type: type[IncrementalAlterConfigsResponse] | type[AlterConfigsResponse]
                             ) -> None:
        responses = [AlterConfigsResourceResponse(resource.type, resource.name, error.error, error.message)
                     for resource, error in result.response.items()]
        outcome = ControllerResult(result.records, response_type(tuple(responses + answers)))
        self.controller.write(outcome.without_records() if request.validate_only else outcome, request, respond)

    # ------------------------------------------------------------------ leaders and reassignments
    def elect_leaders(self, request: ElectLeadersRequest, respond: Respond) -> None:
        self.controller.write(self.replication_control.elect_leaders(self.controller.image, request), request, respond)

    def alter_partition_reassignments(self, request: AlterPartitionReassignmentsRequest,
                                      respond: Respond) -> None:
        if not request.topics:
            respond(AlterPartitionReassignmentsResponse(
                (), allow_replication_factor_change=request.allow_replication_factor_change))
            return
        self.controller.write(self.replication_control.alter_partition_reassignments(self.controller.image, request),
                    request, respond)


def _request_positions(request: DeleteTopicsRequest) -> dict[str | Uuid | None, int]:
    """Name or id -> its position in the request, to answer in request order."""
    positions: dict[str | Uuid | None, int] = {}
    entries: list[tuple[str | None, Uuid | None]] = [(name, None) for name in request.topic_names]
    entries += [(t.name, t.topic_id) for t in request.topics]
    for index, (name, topic_id) in enumerate(entries):
        for key in (name, topic_id):
            if key is not None and key != Uuid.ZERO:
                positions.setdefault(key, index)
    return positions
