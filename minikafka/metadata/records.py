"""The KRaft metadata records: what the active controller writes to ``__cluster_metadata``.

Theory of operation
-------------------
In KRaft the cluster's metadata is a log.  The active controller decides
something (register a broker, create a topic, move a leader) by appending
records; every controller and broker applies the committed records, in log
order, to its in-memory `MetadataImage` (see `delta`).  Nothing else changes
metadata, so printing the log and replaying it rebuilds the cluster state.

Each class below is one record type, named as Kafka names it, with:

* ``API_KEY``: the record type id (``MetadataRecordType``), written in front of
  every record in the log;
* ``VERSION``: the version Kafka 4.3 (metadata.version 4.3-IV0) writes;
  `written_version` refines it where Kafka picks the version per use
  (``BrokerRegistrationChangeRecord``);
* fields in snake_case of the JSON spec's names, with Kafka's defaults --
  notably ``PartitionChangeRecord.leader == -2`` and ``isr is None`` mean "no
  change";
* ``SCHEMA``: the field specs transcribed from
  ``metadata/src/main/resources/common/metadata/<Name>.json``;
* ``to_json()``: the payload text ``kafka-dump-log.sh --cluster-metadata-decoder``
  prints, e.g. ``{"type":"TOPIC_RECORD","version":0,"data":{...}}``.

Mirrors the generated classes in ``org.apache.kafka.common.metadata`` and
``org.apache.kafka.server.common.ApiMessageAndVersion``.  Simplified: records
Kafka 4.x keeps only for old logs or features the sandbox lacks (ACLs, SCRAM,
quotas, delegation tokens, ZK migration, Fence/UnfenceBrokerRecord) are
known by name only (`METADATA_RECORD_TYPE_NAMES`); ``RegisterBrokerRecord.rack``
defaults to None (what Kafka writes for a broker without ``broker.rack``)
rather than the generated class's empty string; records are written at the
versions of metadata.version 4.3-IV0 whatever level the log finalized (the
sandbox always formats with 4.3-IV0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from minikafka.common.uuid import Uuid
import minikafka.metadata.json_converters as json_converters
from minikafka.metadata.schema import (BOOL, INT8, INT16, INT32, INT64, STRING, UINT16, UUID,
                                       ArrayOf, FieldSpec as F, Struct)

# MetadataRecordType: every id Kafka 4.x knows, including the ones the sandbox never writes.
METADATA_RECORD_TYPE_NAMES: dict[int, str] = {
    0: "REGISTER_BROKER_RECORD", 1: "UNREGISTER_BROKER_RECORD", 2: "TOPIC_RECORD",
    3: "PARTITION_RECORD", 4: "CONFIG_RECORD", 5: "PARTITION_CHANGE_RECORD",
    7: "FENCE_BROKER_RECORD", 8: "UNFENCE_BROKER_RECORD", 9: "REMOVE_TOPIC_RECORD",
    10: "DELEGATION_TOKEN_RECORD", 11: "USER_SCRAM_CREDENTIAL_RECORD", 12: "FEATURE_LEVEL_RECORD",
    14: "CLIENT_QUOTA_RECORD", 15: "PRODUCER_IDS_RECORD", 17: "BROKER_REGISTRATION_CHANGE_RECORD",
    18: "ACCESS_CONTROL_ENTRY_RECORD", 19: "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", 20: "NO_OP_RECORD",
    21: "ZK_MIGRATION_STATE_RECORD", 22: "REMOVE_USER_SCRAM_CREDENTIAL_RECORD",
    23: "BEGIN_TRANSACTION_RECORD", 24: "END_TRANSACTION_RECORD", 25: "ABORT_TRANSACTION_RECORD",
    26: "REMOVE_DELEGATION_TOKEN_RECORD", 27: "REGISTER_CONTROLLER_RECORD", 28: "CLEAR_ELR_RECORD",
}

NO_LEADER = -1          # LeaderConstants.NO_LEADER
NO_LEADER_CHANGE = -2   # LeaderConstants.NO_LEADER_CHANGE: PartitionChangeRecord.leader "unchanged"


class MetadataRecord(Struct):
    """Base of every metadata record type."""

    __slots__ = ()
    API_KEY: ClassVar[int]
    VERSION: ClassVar[int]
    HIGHEST_SUPPORTED_VERSION: ClassVar[int]

    @classmethod
    def type_name(cls) -> str:
        """``MetadataRecordType`` name, e.g. ``PARTITION_CHANGE_RECORD``."""
        return METADATA_RECORD_TYPE_NAMES[cls.API_KEY]

    def written_version(self) -> int:
        """The version Kafka 4.3's controller writes this record at."""
        return self.VERSION

    def to_json(self, version: int | None = None) -> str:
        """The payload as ``kafka-dump-log.sh --cluster-metadata-decoder`` prints it."""
        return json_converters.payload_json(self, self.written_version() if version is None else version)


@dataclass(frozen=True, slots=True)
class ApiMessageAndVersion:
    """A record and the version it is (or was) written at, as stored in the log."""

    message: MetadataRecord
    version: int

    def to_json(self) -> str:
        return self.message.to_json(self.version)


# ----------------------------------------------------------------------------- brokers
@dataclass(frozen=True, slots=True)
class BrokerEndpoint(Struct):
    """RegisterBrokerRecord.EndPoints[]: one listener the broker serves."""

    name: str = ""                 # listener name, e.g. PLAINTEXT
    host: str = ""
    port: int = 0
    security_protocol: int = 0     # SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL
    SCHEMA: ClassVar = (F("Name", STRING), F("Host", STRING), F("Port", UINT16),
                        F("SecurityProtocol", INT16))


@dataclass(frozen=True, slots=True)
class BrokerFeature(Struct):
    """RegisterBrokerRecord.Features[]: a feature range the broker's software supports."""

    name: str = ""
    min_supported_version: int = 0
    max_supported_version: int = 0
    SCHEMA: ClassVar = (F("Name", STRING), F("MinSupportedVersion", INT16),
                        F("MaxSupportedVersion", INT16))


@dataclass(frozen=True, slots=True)
class RegisterBrokerRecord(MetadataRecord):
    """A broker registered (or re-registered after a restart); it starts fenced.

    ``cordoned_log_dirs`` (v4, KIP-1066) stays None ("not reported yet") until the
    broker's first heartbeat says which of its directories are cordoned.
    """

    API_KEY: ClassVar = 0
    VERSION: ClassVar = 4
    HIGHEST_SUPPORTED_VERSION: ClassVar = 4
    broker_id: int = 0
    is_migrating_zk_broker: bool = False
    incarnation_id: Uuid = Uuid.ZERO
    broker_epoch: int = 0
    end_points: tuple[BrokerEndpoint, ...] = ()
    features: tuple[BrokerFeature, ...] = ()
    rack: str | None = None
    fenced: bool = True
    in_controlled_shutdown: bool = False
    log_dirs: tuple[Uuid, ...] = ()
    cordoned_log_dirs: tuple[Uuid, ...] | None = None
    SCHEMA: ClassVar = (
        F("BrokerId", INT32), F("IsMigratingZkBroker", BOOL, since=2), F("IncarnationId", UUID),
        F("BrokerEpoch", INT64), F("EndPoints", ArrayOf(BrokerEndpoint)),
        F("Features", ArrayOf(BrokerFeature)), F("Rack", STRING, nullable=True),
        F("Fenced", BOOL, default=True), F("InControlledShutdown", BOOL, since=1),
        F("LogDirs", ArrayOf(UUID), since=3, tag=0),
        F("CordonedLogDirs", ArrayOf(UUID), since=4, tag=1, nullable=True, default=None))


@dataclass(frozen=True, slots=True)
class UnregisterBrokerRecord(MetadataRecord):
    """A broker was removed from the cluster (``kafka-cluster.sh unregister``)."""

    API_KEY: ClassVar = 1
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    broker_id: int = 0
    broker_epoch: int = 0
    SCHEMA: ClassVar = (F("BrokerId", INT32), F("BrokerEpoch", INT64))


@dataclass(frozen=True, slots=True)
class BrokerRegistrationChangeRecord(MetadataRecord):
    """A change to a registered broker: fenced (1) / unfenced (-1), controlled shutdown, log dirs.

    ``fenced``: -1 unfenced, 0 no change, 1 fenced.  ``in_controlled_shutdown``:
    0 no change, 1 in controlled shutdown.  ``log_dirs`` empty = no change.
    ``cordoned_log_dirs`` None = no change (v3, KIP-1066).
    """

    API_KEY: ClassVar = 17
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 3
    broker_id: int = 0
    broker_epoch: int = 0
    fenced: int = 0
    in_controlled_shutdown: int = 0
    log_dirs: tuple[Uuid, ...] = ()
    cordoned_log_dirs: tuple[Uuid, ...] | None = None
    SCHEMA: ClassVar = (
        F("BrokerId", INT32), F("BrokerEpoch", INT64), F("Fenced", INT8, tag=0),
        F("InControlledShutdown", INT8, since=1, tag=1), F("LogDirs", ArrayOf(UUID), since=2, tag=2),
        F("CordonedLogDirs", ArrayOf(UUID), since=3, tag=3, nullable=True, default=None))

    def written_version(self) -> int:
        # ReplicationControlManager writes fence/unfence at v0, controlled
        # shutdown at v1, offline log dirs at v2 and cordoned log dirs at v3.
        if self.cordoned_log_dirs is not None:
            return 3
        if self.log_dirs:
            return 2
        return 1 if self.in_controlled_shutdown else 0


@dataclass(frozen=True, slots=True)
class ControllerEndpoint(Struct):
    """RegisterControllerRecord.EndPoints[]: a controller listener."""

    name: str = ""
    host: str = ""
    port: int = 0
    security_protocol: int = 0
    SCHEMA: ClassVar = BrokerEndpoint.SCHEMA


@dataclass(frozen=True, slots=True)
class ControllerFeature(Struct):
    """RegisterControllerRecord.Features[]: a feature range the controller supports."""

    name: str = ""
    min_supported_version: int = 0
    max_supported_version: int = 0
    SCHEMA: ClassVar = BrokerFeature.SCHEMA


@dataclass(frozen=True, slots=True)
class RegisterControllerRecord(MetadataRecord):
    """A controller registered itself (KIP-919); every 4.x controller does, static quorum or not."""

    API_KEY: ClassVar = 27
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    controller_id: int = 0
    incarnation_id: Uuid = Uuid.ZERO
    zk_migration_ready: bool = False
    end_points: tuple[ControllerEndpoint, ...] = ()
    features: tuple[ControllerFeature, ...] = ()
    SCHEMA: ClassVar = (
        F("ControllerId", INT32), F("IncarnationId", UUID), F("ZkMigrationReady", BOOL),
        F("EndPoints", ArrayOf(ControllerEndpoint)), F("Features", ArrayOf(ControllerFeature)))


# ----------------------------------------------------------------------------- topics
@dataclass(frozen=True, slots=True)
class TopicRecord(MetadataRecord):
    """A topic was created: its name and id (partitions follow as PartitionRecords)."""

    API_KEY: ClassVar = 2
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    name: str = ""
    topic_id: Uuid = Uuid.ZERO
    SCHEMA: ClassVar = (F("Name", STRING), F("TopicId", UUID))


@dataclass(frozen=True, slots=True)
class PartitionRecord(MetadataRecord):
    """The full state of one partition: written at creation (and in snapshots)."""

    API_KEY: ClassVar = 3
    VERSION: ClassVar = 2
    HIGHEST_SUPPORTED_VERSION: ClassVar = 2
    partition_id: int = -1
    topic_id: Uuid = Uuid.ZERO
    replicas: tuple[int, ...] = ()
    isr: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()
    adding_replicas: tuple[int, ...] = ()
    leader: int = -1
    leader_recovery_state: int = 0          # 0 RECOVERED, 1 RECOVERING (after an unclean election)
    leader_epoch: int = -1
    partition_epoch: int = -1
    directories: tuple[Uuid, ...] = ()      # log dir id of each replica, in replica order
    eligible_leader_replicas: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None
    SCHEMA: ClassVar = (
        F("PartitionId", INT32, default=-1), F("TopicId", UUID), F("Replicas", ArrayOf(INT32)),
        F("Isr", ArrayOf(INT32)), F("RemovingReplicas", ArrayOf(INT32)),
        F("AddingReplicas", ArrayOf(INT32)), F("Leader", INT32, default=-1),
        F("LeaderRecoveryState", INT8, tag=0, default=0), F("LeaderEpoch", INT32, default=-1),
        F("PartitionEpoch", INT32, default=-1), F("Directories", ArrayOf(UUID), since=1),
        F("EligibleLeaderReplicas", ArrayOf(INT32), since=2, tag=1, nullable=True, default=None),
        F("LastKnownElr", ArrayOf(INT32), since=2, tag=2, nullable=True, default=None))


@dataclass(frozen=True, slots=True)
class PartitionChangeRecord(MetadataRecord):
    """A change to one partition; every field left at its default means "unchanged".

    ``leader``: -2 unchanged, -1 no leader, else the new leader (any value but
    -2 bumps the leader epoch on replay).  ``isr``/``replicas``/... None:
    unchanged.  ``leader_recovery_state`` -1: unchanged.
    """

    API_KEY: ClassVar = 5
    VERSION: ClassVar = 2
    HIGHEST_SUPPORTED_VERSION: ClassVar = 2
    partition_id: int = -1
    topic_id: Uuid = Uuid.ZERO
    isr: tuple[int, ...] | None = None
    leader: int = NO_LEADER_CHANGE
    replicas: tuple[int, ...] | None = None
    removing_replicas: tuple[int, ...] | None = None
    adding_replicas: tuple[int, ...] | None = None
    leader_recovery_state: int = -1
    directories: tuple[Uuid, ...] | None = None
    eligible_leader_replicas: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None
    SCHEMA: ClassVar = (
        F("PartitionId", INT32, default=-1), F("TopicId", UUID),
        F("Isr", ArrayOf(INT32), tag=0, nullable=True, default=None),
        F("Leader", INT32, tag=1, default=NO_LEADER_CHANGE),
        F("Replicas", ArrayOf(INT32), tag=2, nullable=True, default=None),
        F("RemovingReplicas", ArrayOf(INT32), tag=3, nullable=True, default=None),
        F("AddingReplicas", ArrayOf(INT32), tag=4, nullable=True, default=None),
        F("LeaderRecoveryState", INT8, tag=5, default=-1),
        F("Directories", ArrayOf(UUID), since=1, tag=8, nullable=True, default=None),
        F("EligibleLeaderReplicas", ArrayOf(INT32), since=2, tag=6, nullable=True, default=None),
        F("LastKnownElr", ArrayOf(INT32), since=2, tag=7, nullable=True, default=None))


@dataclass(frozen=True, slots=True)
class RemoveTopicRecord(MetadataRecord):
    """A topic was deleted, with all its partitions (and its configs)."""

    API_KEY: ClassVar = 9
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    topic_id: Uuid = Uuid.ZERO
    SCHEMA: ClassVar = (F("TopicId", UUID),)


@dataclass(frozen=True, slots=True)
class ClearElrRecord(MetadataRecord):
    """Clear the eligible leader replicas of one topic, or of all topics when the name is empty."""

    API_KEY: ClassVar = 28
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    topic_name: str = ""
    SCHEMA: ClassVar = (F("TopicName", STRING),)


# ----------------------------------------------------------------------------- configs, features, ids
@dataclass(frozen=True, slots=True)
class ConfigRecord(MetadataRecord):
    """Set (or, with ``value=None``, delete) one dynamic config of a resource.

    ``resource_type`` is ``ConfigResource.Type``'s id: 2 TOPIC, 4 BROKER
    (``resource_name`` "" = cluster-wide default), 8 BROKER_LOGGER, 16
    CLIENT_METRICS, 32 GROUP.
    """

    API_KEY: ClassVar = 4
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    resource_type: int = 0
    resource_name: str = ""
    name: str = ""
    value: str | None = ""
    SCHEMA: ClassVar = (F("ResourceType", INT8), F("ResourceName", STRING), F("Name", STRING),
                        F("Value", STRING, nullable=True, default=""))


@dataclass(frozen=True, slots=True)
class FeatureLevelRecord(MetadataRecord):
    """The finalized level of a feature (``metadata.version``, ``kraft.version``...); 0 removes it."""

    API_KEY: ClassVar = 12
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    name: str = ""
    feature_level: int = 0
    SCHEMA: ClassVar = (F("Name", STRING), F("FeatureLevel", INT16))


@dataclass(frozen=True, slots=True)
class ProducerIdsRecord(MetadataRecord):
    """A block of producer ids was handed to a broker; ``next_producer_id`` is the next block's start."""

    API_KEY: ClassVar = 15
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    broker_id: int = 0
    broker_epoch: int = -1
    next_producer_id: int = 0
    SCHEMA: ClassVar = (F("BrokerId", INT32), F("BrokerEpoch", INT64, default=-1),
                        F("NextProducerId", INT64))


# ----------------------------------------------------------------------------- log housekeeping
@dataclass(frozen=True, slots=True)
class NoOpRecord(MetadataRecord):
    """Written every ``metadata.max.idle.interval.ms`` so the high watermark keeps moving."""

    API_KEY: ClassVar = 20
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    SCHEMA: ClassVar = ()


@dataclass(frozen=True, slots=True)
class BeginTransactionRecord(MetadataRecord):
    """Opens a metadata transaction (KIP-868), e.g. ``"Bootstrap records"`` on a new cluster."""

    API_KEY: ClassVar = 23
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    name: str | None = None
    SCHEMA: ClassVar = (F("Name", STRING, tag=0, nullable=True, default=None),)


@dataclass(frozen=True, slots=True)
class EndTransactionRecord(MetadataRecord):
    """Commits the open metadata transaction."""

    API_KEY: ClassVar = 24
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    SCHEMA: ClassVar = ()


@dataclass(frozen=True, slots=True)
class AbortTransactionRecord(MetadataRecord):
    """Discards the open metadata transaction."""

    API_KEY: ClassVar = 25
    VERSION: ClassVar = 0
    HIGHEST_SUPPORTED_VERSION: ClassVar = 0
    reason: str | None = None
    SCHEMA: ClassVar = (F("Reason", STRING, tag=0, nullable=True, default=None),)


RECORD_TYPES: dict[int, type[MetadataRecord]] = {
    cls.API_KEY: cls for cls in (
        RegisterBrokerRecord, UnregisterBrokerRecord, TopicRecord, PartitionRecord, ConfigRecord,
        PartitionChangeRecord, RemoveTopicRecord, FeatureLevelRecord, ProducerIdsRecord,
        BrokerRegistrationChangeRecord, NoOpRecord, BeginTransactionRecord, EndTransactionRecord,
        AbortTransactionRecord, RegisterControllerRecord, ClearElrRecord)
}
"""The record types the sandbox writes and replays, by API key."""
