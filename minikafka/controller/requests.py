"""The controller's request and response messages, named after Kafka's APIs.

Theory of operation
-------------------
Brokers talk to the active controller with BrokerRegistration (API 62),
BrokerHeartbeat (63), UnregisterBroker (64), AlterPartition (56) and
AllocateProducerIds (67); controllers register themselves with
ControllerRegistration (70); admin requests (CreateTopics, DeleteTopics,
CreatePartitions, IncrementalAlterConfigs, AlterConfigs, ElectLeaders,
AlterPartitionReassignments, ListPartitionReassignments) reach it forwarded
by a broker.  Inside the sandbox they travel as these frozen dataclasses; the
wire codec (``minikafka.network``) maps them to and from bytes.

Field names are the JSON field names of Kafka's message specs
(``clients/src/main/resources/common/message/*.json``) in snake_case, with
Kafka's defaults.  ``error_code`` fields hold an `Errors` member (its ``.code``
is the number on the wire); ``error_message`` holds Kafka's text or None.
Nested Kafka types keep their Kafka names (``CreatableTopic``,
``DeletableTopicResult`` ...).  Where two Kafka APIs reuse an inner name, the
sandbox prefixes it: AlterPartition's request ``TopicData``/``PartitionData``
are `AlterPartitionTopicData`/`AlterPartitionPartitionData`, its response's
are `AlterPartitionTopicResult`/`AlterPartitionPartitionResult`; AlterConfigs
and IncrementalAlterConfigs share `AlterableConfig` and `AlterConfigsResource`
(``config_operation`` is ignored by AlterConfigs).

Every request derives from `ControllerRequest`, which is how a node knows to
hand it to its controller role; `ControllerResponse` is the union of the
responses, what the controller's ``respond`` callbacks receive.

Simplified: ``throttle_time_ms`` is always 0; request timeouts are carried but
the controller answers when the records commit or leadership is lost.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid

NONE = Errors.NONE


class ControllerRequest:
    """Marker base of every request the `QuorumController` answers (``ControllerApis``' requests).

    A node routes a message to its controller role because of this type, not
    because of the module it comes from.
    """

    __slots__ = ()


class ElectionType(enum.IntEnum):
    """``org.apache.kafka.common.ElectionType``."""

    PREFERRED = 0
    UNCLEAN = 1


class ConfigResourceType(enum.IntEnum):
    """``org.apache.kafka.common.config.ConfigResource.Type`` ids."""

    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32


class AlterConfigOpType(enum.IntEnum):
    """``AlterConfigOp.OpType`` ids used by IncrementalAlterConfigs."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


# ---------------------------------------------------------------- BrokerRegistration (62)
@dataclass(frozen=True, slots=True)
class Listener:
    name: str
    host: str
    port: int
    security_protocol: int = 0          # 0 = PLAINTEXT


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    min_supported_version: int
    max_supported_version: int


@dataclass(frozen=True, slots=True)
class BrokerRegistrationRequest(ControllerRequest):
    broker_id: int
    cluster_id: str
    incarnation_id: Uuid
    listeners: tuple[Listener, ...] = ()
    features: tuple[Feature, ...] = ()
    rack: str | None = None
    is_migrating_zk_broker: bool = False
    log_dirs: tuple[Uuid, ...] = ()
    previous_broker_epoch: int = -1


@dataclass(frozen=True, slots=True)
class BrokerRegistrationResponse:
    error_code: Errors = NONE
    broker_epoch: int = -1
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- BrokerHeartbeat (63)
@dataclass(frozen=True, slots=True)
class BrokerHeartbeatRequest(ControllerRequest):
    broker_id: int
    broker_epoch: int = -1
    current_metadata_offset: int = -1
    want_fence: bool = False
    want_shut_down: bool = False
    offline_log_dirs: tuple[Uuid, ...] = ()
    cordoned_log_dirs: tuple[Uuid, ...] | None = None   # v2 (KIP-1066): None before RECOVERY


@dataclass(frozen=True, slots=True)
class BrokerHeartbeatResponse:
    error_code: Errors = NONE
    is_caught_up: bool = False
    is_fenced: bool = True
    should_shut_down: bool = False
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- UnregisterBroker (64)
@dataclass(frozen=True, slots=True)
class UnregisterBrokerRequest(ControllerRequest):
    broker_id: int


@dataclass(frozen=True, slots=True)
class UnregisterBrokerResponse:
    error_code: Errors = NONE
    error_message: str | None = None
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- AlterPartition (56)
@dataclass(frozen=True, slots=True)
class BrokerState:
    broker_id: int
    broker_epoch: int = -1              # -1: do not check the broker epoch


@dataclass(frozen=True, slots=True)
class AlterPartitionPartitionData:
    """Kafka's ``AlterPartitionRequestData.PartitionData``."""

    partition_index: int
    leader_epoch: int
    new_isr_with_epochs: tuple[BrokerState, ...]
    partition_epoch: int
    leader_recovery_state: int = 0      # 0 RECOVERED, 1 RECOVERING


@dataclass(frozen=True, slots=True)
class AlterPartitionTopicData:
    """Kafka's ``AlterPartitionRequestData.TopicData`` (v2+: by topic id)."""

    topic_id: Uuid
    partitions: tuple[AlterPartitionPartitionData, ...]


@dataclass(frozen=True, slots=True)
class AlterPartitionRequest(ControllerRequest):
    broker_id: int
    broker_epoch: int
    topics: tuple[AlterPartitionTopicData, ...]


@dataclass(frozen=True, slots=True)
class AlterPartitionPartitionResult:
    """Kafka's ``AlterPartitionResponseData.PartitionData``."""

    partition_index: int
    error_code: Errors = NONE
    leader_id: int = -1
    leader_epoch: int = -1
    isr: tuple[int, ...] = ()
    leader_recovery_state: int = 0
    partition_epoch: int = -1


@dataclass(frozen=True, slots=True)
class AlterPartitionTopicResult:
    """Kafka's ``AlterPartitionResponseData.TopicData``."""

    topic_id: Uuid
    partitions: tuple[AlterPartitionPartitionResult, ...]


@dataclass(frozen=True, slots=True)
class AlterPartitionResponse:
    topics: tuple[AlterPartitionTopicResult, ...] = ()
    error_code: Errors = NONE
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- CreateTopics (19)
@dataclass(frozen=True, slots=True)
class CreatableReplicaAssignment:
    partition_index: int
    broker_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CreatableTopicConfig:
    name: str
    value: str | None


@dataclass(frozen=True, slots=True)
class CreatableTopic:
    name: str
    num_partitions: int = -1            # -1: the controller's num.partitions
    replication_factor: int = -1        # -1: the controller's default.replication.factor
    assignments: tuple[CreatableReplicaAssignment, ...] = ()
    configs: tuple[CreatableTopicConfig, ...] = ()


@dataclass(frozen=True, slots=True)
class CreateTopicsRequest(ControllerRequest):
    topics: tuple[CreatableTopic, ...]
    timeout_ms: int = 60000
    validate_only: bool = False


@dataclass(frozen=True, slots=True)
class CreatableTopicConfigs:
    name: str
    value: str | None
    read_only: bool = False
    config_source: int = -1
    is_sensitive: bool = False


@dataclass(frozen=True, slots=True)
class CreatableTopicResult:
    name: str
    topic_id: Uuid = Uuid.ZERO
    error_code: Errors = NONE
    error_message: str | None = None
    topic_config_error_code: Errors = NONE
    num_partitions: int = -1
    replication_factor: int = -1
    configs: tuple[CreatableTopicConfigs, ...] | None = None


@dataclass(frozen=True, slots=True)
class CreateTopicsResponse:
    topics: tuple[CreatableTopicResult, ...]
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- DeleteTopics (20)
@dataclass(frozen=True, slots=True)
class DeleteTopicState:
    name: str | None = None
    topic_id: Uuid = Uuid.ZERO


@dataclass(frozen=True, slots=True)
class DeleteTopicsRequest(ControllerRequest):
    topics: tuple[DeleteTopicState, ...] = ()    # v6+: by name or by id
    topic_names: tuple[str, ...] = ()            # v0-5: by name
    timeout_ms: int = 60000


@dataclass(frozen=True, slots=True)
class DeletableTopicResult:
    name: str | None
    topic_id: Uuid = Uuid.ZERO
    error_code: Errors = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class DeleteTopicsResponse:
    responses: tuple[DeletableTopicResult, ...]
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- CreatePartitions (37)
@dataclass(frozen=True, slots=True)
class CreatePartitionsAssignment:
    broker_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CreatePartitionsTopic:
    name: str
    count: int                                   # the new total number of partitions
    assignments: tuple[CreatePartitionsAssignment, ...] | None = None


@dataclass(frozen=True, slots=True)
class CreatePartitionsRequest(ControllerRequest):
    topics: tuple[CreatePartitionsTopic, ...]
    timeout_ms: int = 60000
    validate_only: bool = False


@dataclass(frozen=True, slots=True)
class CreatePartitionsTopicResult:
    name: str
    error_code: Errors = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class CreatePartitionsResponse:
    results: tuple[CreatePartitionsTopicResult, ...]
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- AlterConfigs (33) / IncrementalAlterConfigs (44)
@dataclass(frozen=True, slots=True)
class AlterableConfig:
    name: str
    value: str | None
    config_operation: int = AlterConfigOpType.SET   # IncrementalAlterConfigs only


@dataclass(frozen=True, slots=True)
class AlterConfigsResource:
    resource_type: int                           # a ConfigResourceType
    resource_name: str
    configs: tuple[AlterableConfig, ...]


@dataclass(frozen=True, slots=True)
class IncrementalAlterConfigsRequest(ControllerRequest):
    resources: tuple[AlterConfigsResource, ...]
    validate_only: bool = False


@dataclass(frozen=True, slots=True)
class AlterConfigsRequest(ControllerRequest):
    resources: tuple[AlterConfigsResource, ...]
    validate_only: bool = False


@dataclass(frozen=True, slots=True)
class AlterConfigsResourceResponse:
    resource_type: int
    resource_name: str
    error_code: Errors = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class IncrementalAlterConfigsResponse:
    responses: tuple[AlterConfigsResourceResponse, ...]
    throttle_time_ms: int = 0


@dataclass(frozen=True, slots=True)
class AlterConfigsResponse:
    responses: tuple[AlterConfigsResourceResponse, ...]
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- ElectLeaders (43)
@dataclass(frozen=True, slots=True)
class TopicPartitions:
    topic: str
    partitions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ElectLeadersRequest(ControllerRequest):
    election_type: int = ElectionType.PREFERRED
    topic_partitions: tuple[TopicPartitions, ...] | None = None   # None: every partition
    timeout_ms: int = 60000


@dataclass(frozen=True, slots=True)
class PartitionResult:
    partition_id: int
    error_code: Errors = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class ReplicaElectionResult:
    topic: str
    partition_result: tuple[PartitionResult, ...]


@dataclass(frozen=True, slots=True)
class ElectLeadersResponse:
    replica_election_results: tuple[ReplicaElectionResult, ...]
    error_code: Errors = NONE
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- AlterPartitionReassignments (45)
@dataclass(frozen=True, slots=True)
class ReassignablePartition:
    partition_index: int
    replicas: tuple[int, ...] | None = None      # None cancels an ongoing reassignment


@dataclass(frozen=True, slots=True)
class ReassignableTopic:
    name: str
    partitions: tuple[ReassignablePartition, ...]


@dataclass(frozen=True, slots=True)
class AlterPartitionReassignmentsRequest(ControllerRequest):
    topics: tuple[ReassignableTopic, ...]
    timeout_ms: int = 60000
    allow_replication_factor_change: bool = True  # v1+ (KIP-860)


@dataclass(frozen=True, slots=True)
class ReassignablePartitionResponse:
    partition_index: int
    error_code: Errors = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class ReassignableTopicResponse:
    name: str
    partitions: tuple[ReassignablePartitionResponse, ...]


@dataclass(frozen=True, slots=True)
class AlterPartitionReassignmentsResponse:
    responses: tuple[ReassignableTopicResponse, ...]
    error_code: Errors = NONE
    error_message: str | None = None
    allow_replication_factor_change: bool = True
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- ListPartitionReassignments (46)
@dataclass(frozen=True, slots=True)
class ListPartitionReassignmentsTopics:
    name: str
    partition_indexes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ListPartitionReassignmentsRequest(ControllerRequest):
    topics: tuple[ListPartitionReassignmentsTopics, ...] | None = None   # None: all
    timeout_ms: int = 60000


@dataclass(frozen=True, slots=True)
class OngoingPartitionReassignment:
    partition_index: int
    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...]
    removing_replicas: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OngoingTopicReassignment:
    name: str
    partitions: tuple[OngoingPartitionReassignment, ...]


@dataclass(frozen=True, slots=True)
class ListPartitionReassignmentsResponse:
    topics: tuple[OngoingTopicReassignment, ...]
    error_code: Errors = NONE
    error_message: str | None = None
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- ControllerRegistration (70)
@dataclass(frozen=True, slots=True)
class ControllerRegistrationRequest(ControllerRequest):
    """KIP-919: a controller announces its listeners and supported features."""

    controller_id: int
    incarnation_id: Uuid
    zk_migration_ready: bool = False
    listeners: tuple[Listener, ...] = ()
    features: tuple[Feature, ...] = ()


@dataclass(frozen=True, slots=True)
class ControllerRegistrationResponse:
    error_code: Errors = NONE
    error_message: str | None = None
    throttle_time_ms: int = 0


# ---------------------------------------------------------------- AllocateProducerIds (67)
@dataclass(frozen=True, slots=True)
class AllocateProducerIdsRequest(ControllerRequest):
    broker_id: int
    broker_epoch: int = -1


@dataclass(frozen=True, slots=True)
class AllocateProducerIdsResponse:
    error_code: Errors = NONE
    producer_id_start: int = -1
    producer_id_len: int = 0
    throttle_time_ms: int = 0


ControllerResponse = (BrokerRegistrationResponse | BrokerHeartbeatResponse | UnregisterBrokerResponse
                      | AlterPartitionResponse | CreateTopicsResponse | DeleteTopicsResponse
                      | CreatePartitionsResponse | IncrementalAlterConfigsResponse | AlterConfigsResponse
                      | ElectLeadersResponse | AlterPartitionReassignmentsResponse
                      | ListPartitionReassignmentsResponse | ControllerRegistrationResponse
                      | AllocateProducerIdsResponse)
"""Every answer of the `QuorumController`: the response to one of the `ControllerRequest` types."""
