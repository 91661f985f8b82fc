"""Every Kafka API key of one release, with the facts a broker needs before it parses a body.

Theory of operation
-------------------
A request starts with ``api_key`` and ``api_version`` (two int16).  Before a
broker looks at anything else it must know, for that key:

* its name (``Produce``), printed in error messages and logs;
* the versions the release can parse at all (``validVersions`` of the JSON
  message spec; KIP-896 raised several minimums in 4.0);
* from which version the API is *flexible* (KIP-482), because that decides
  whether the request header is v1 or v2 (v2 adds tagged fields) and whether
  the response header is v0 or v1;
* which listeners serve it: ``broker`` (client-facing) and/or ``controller``;
* whether its newest version is still unstable (hidden from ApiVersions and
  rejected unless ``unstable.api.versions.enable``).

This module is that table for Apache Kafka 4.3.1, taken from the
``clients/src/main/resources/common/message/*Request.json`` specs of the 4.3.1
release (its ``kafka-clients`` jar carries them), and the lookup helpers ``RequestHeader.parse`` and ``ApiKeys`` provide.

Mirrors ``org.apache.kafka.common.protocol.ApiKeys`` and the generated
``ApiMessageType``.  Simplified: no per-API record-format requirements
(``minRequiredInterBrokerMagic`` is irrelevant since 4.0), no forwarding flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KAFKA_RELEASE = "4.3.1"
"""The Apache Kafka release whose protocol facts this package reproduces."""

UNSTABLE = True


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One API of the release (``ApiKeys.PRODUCE`` and friends)."""

    id: int                              # the permanent api key number
    name: str                            # message type name, e.g. "Produce"
    oldest: int | None                   # lowest version the release parses; None: no valid version
    latest: int | None                   # highest version, including an unstable one
    flexible_since: int | None           # first flexible version (KIP-482), None if never flexible
    listeners: frozenset[str]            # subset of {"broker", "controller"}
    latest_unstable: bool = False        # newest version hidden unless unstable versions are enabled

    @property
    def enum_name(self) -> str:
        """The Java enum constant, e.g. ``OFFSET_FOR_LEADER_EPOCH`` (used in some broker messages)."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).upper()

    def has_valid_version(self) -> bool:
        return self.oldest is not None and self.latest is not None and self.oldest <= self.latest

    def latest_stable(self) -> int | None:
        """The highest version a broker enables by default (``latestVersion(false)``)."""
        if self.latest is None:
            return None
        return self.latest - 1 if self.latest_unstable else self.latest

    def is_version_supported(self, version: int) -> bool:
        """True if the release can parse ``version`` at all (``ApiKeys.isVersionSupported``)."""
        return self.oldest is not None and self.latest is not None and self.oldest <= version <= self.latest

    def is_flexible(self, version: int) -> bool:
        """Whether ``version`` uses compact encodings and tagged fields.

        Follows the generated ``ApiMessageType`` code: when every valid version is
        flexible the answer is "yes" for any version, otherwise it is a
        ``version >= flexible_since`` test.
        """
        if self.flexible_since is None:
            return False
        if self.oldest is not None and self.flexible_since <= self.oldest:
            return True
        return version >= self.flexible_since

    def request_header_version(self, version: int) -> int:
        """Request header v2 (with tagged fields) for flexible versions, else v1."""
        return 2 if self.is_flexible(version) else 1

    def response_header_version(self, version: int) -> int:
        """Response header v1 for flexible versions, else v0; ApiVersions always uses v0 (KIP-511)."""
        if self.id == API_VERSIONS:
            return 0
        return 1 if self.is_flexible(version) else 0


B, C, BC, NONE = frozenset({"broker"}), frozenset({"controller"}), \
    frozenset({"broker", "controller"}), frozenset[str]()

# (id, name, oldest, latest, first flexible version, listeners[, latest version unstable])
_Row = (tuple[int, str, int | None, int | None, int | None, frozenset[str]]
        | tuple[int, str, int | None, int | None, int | None, frozenset[str], bool])
_TABLE: list[_Row] = [
    (0, "Produce", 3, 13, 9, B),
    (1, "Fetch", 4, 18, 12, BC),
    (2, "ListOffsets", 1, 11, 6, B),
    (3, "Metadata", 0, 13, 9, B),
    (4, "LeaderAndIsr", None, None, None, NONE),
    (5, "StopReplica", None, None, None, NONE),
    (6, "UpdateMetadata", None, None, None, NONE),
    (7, "ControlledShutdown", None, None, None, NONE),
    (8, "OffsetCommit", 2, 10, 8, B),
    (9, "OffsetFetch", 1, 10, 6, B),
    (10, "FindCoordinator", 0, 6, 3, B),
    (11, "JoinGroup", 0, 9, 6, B),
    (12, "Heartbeat", 0, 4, 4, B),
    (13, "LeaveGroup", 0, 5, 4, B),
    (14, "SyncGroup", 0, 5, 4, B),
    (15, "DescribeGroups", 0, 6, 5, B),
    (16, "ListGroups", 0, 5, 3, B),
    (17, "SaslHandshake", 0, 1, None, BC),
    (18, "ApiVersions", 0, 4, 3, BC),
    (19, "CreateTopics", 2, 7, 5, BC),
    (20, "DeleteTopics", 1, 6, 4, BC),
    (21, "DeleteRecords", 0, 2, 2, B),
    (22, "InitProducerId", 0, 6, 2, B, UNSTABLE),
    (23, "OffsetForLeaderEpoch", 2, 4, 4, B),
    (24, "AddPartitionsToTxn", 0, 5, 3, B),
    (25, "AddOffsetsToTxn", 0, 4, 3, B),
    (26, "EndTxn", 0, 5, 3, B),
    (27, "WriteTxnMarkers", 1, 2, 1, B),
    (28, "TxnOffsetCommit", 0, 5, 3, B),
    (29, "DescribeAcls", 1, 3, 2, BC),
    (30, "CreateAcls", 1, 3, 2, BC),
    (31, "DeleteAcls", 1, 3, 2, BC),
    (32, "DescribeConfigs", 1, 4, 4, BC),
    (33, "AlterConfigs", 0, 2, 2, BC),
    (34, "AlterReplicaLogDirs", 1, 2, 2, B),
    (35, "DescribeLogDirs", 1, 5, 2, B),
    (36, "SaslAuthenticate", 0, 2, 2, BC),
    (37, "CreatePartitions", 0, 3, 2, BC),
    (38, "CreateDelegationToken", 1, 3, 2, BC),
    (39, "RenewDelegationToken", 1, 2, 2, BC),
    (40, "ExpireDelegationToken", 1, 2, 2, BC),
    (41, "DescribeDelegationToken", 1, 3, 2, BC),
    (42, "DeleteGroups", 0, 2, 2, B),
    (43, "ElectLeaders", 0, 2, 2, BC),
    (44, "IncrementalAlterConfigs", 0, 1, 1, BC),
    (45, "AlterPartitionReassignments", 0, 1, 0, BC),
    (46, "ListPartitionReassignments", 0, 0, 0, BC),
    (47, "OffsetDelete", 0, 0, None, B),
    (48, "DescribeClientQuotas", 0, 1, 1, B),
    (49, "AlterClientQuotas", 0, 1, 1, BC),
    (50, "DescribeUserScramCredentials", 0, 0, 0, BC),
    (51, "AlterUserScramCredentials", 0, 0, 0, BC),
    (52, "Vote", 0, 2, 0, C),
    (53, "BeginQuorumEpoch", 0, 1, 1, C),
    (54, "EndQuorumEpoch", 0, 1, 1, C),
    (55, "DescribeQuorum", 0, 2, 0, BC),
    (56, "AlterPartition", 2, 3, 0, C),
    (57, "UpdateFeatures", 0, 2, 0, BC),
    (58, "Envelope", 0, 0, 0, C),
    (59, "FetchSnapshot", 0, 1, 0, C),
    (60, "DescribeCluster", 0, 2, 0, BC),
    (61, "DescribeProducers", 0, 0, 0, B),
    (62, "BrokerRegistration", 0, 4, 0, C),
    (63, "BrokerHeartbeat", 0, 2, 0, C),
    (64, "UnregisterBroker", 0, 0, 0, BC),
    (65, "DescribeTransactions", 0, 0, 0, B),
    (66, "ListTransactions", 0, 2, 0, B),
    (67, "AllocateProducerIds", 0, 0, 0, C),
    (68, "ConsumerGroupHeartbeat", 0, 1, 0, B),
    (69, "ConsumerGroupDescribe", 0, 1, 0, B),
    (70, "ControllerRegistration", 0, 0, 0, C),
    (71, "GetTelemetrySubscriptions", 0, 0, 0, B),
    (72, "PushTelemetry", 0, 0, 0, B),
    (73, "AssignReplicasToDirs", 0, 0, 0, C),
    (74, "ListConfigResources", 0, 1, 0, B),
    (75, "DescribeTopicPartitions", 0, 0, 0, B),
    (76, "ShareGroupHeartbeat", 1, 1, 0, B),
    (77, "ShareGroupDescribe", 1, 1, 0, B),
    (78, "ShareFetch", 1, 2, 0, B),
    (79, "ShareAcknowledge", 1, 2, 0, B),
    (80, "AddRaftVoter", 0, 1, 0, BC),
    (81, "RemoveRaftVoter", 0, 0, 0, BC),
    (82, "UpdateRaftVoter", 0, 0, 0, C),
    (83, "InitializeShareGroupState", 0, 0, 0, B),
    (84, "ReadShareGroupState", 0, 0, 0, B),
    (85, "WriteShareGroupState", 0, 1, 0, B),
    (86, "DeleteShareGroupState", 0, 0, 0, B),
    (87, "ReadShareGroupStateSummary", 0, 1, 0, B),
    (88, "StreamsGroupHeartbeat", 0, 0, 0, B),
    (89, "StreamsGroupDescribe", 0, 0, 0, B),
    (90, "DescribeShareGroupOffsets", 0, 1, 0, B),
    (91, "AlterShareGroupOffsets", 0, 0, 0, B),
    (92, "DeleteShareGroupOffsets", 0, 0, 0, B),
]

API_KEYS: dict[int, ApiKey] = {row[0]: ApiKey(*row) for row in _TABLE}
"""Every api key 4.3.1 knows, by id.  A key missing here makes Kafka's header parser fail."""

# The ids of the APIs a broker of the sandbox serves (``ApiKeys.PRODUCE.id`` ...), by their Java enum names.
PRODUCE = 0
FETCH = 1
LIST_OFFSETS = 2
METADATA = 3
OFFSET_COMMIT = 8
OFFSET_FETCH = 9
FIND_COORDINATOR = 10
JOIN_GROUP = 11
HEARTBEAT = 12
LEAVE_GROUP = 13
SYNC_GROUP = 14
DESCRIBE_GROUPS = 15
LIST_GROUPS = 16
API_VERSIONS = 18
CREATE_TOPICS = 19
DELETE_TOPICS = 20
DELETE_RECORDS = 21
INIT_PRODUCER_ID = 22
OFFSET_FOR_LEADER_EPOCH = 23
DESCRIBE_ACLS = 29
CREATE_ACLS = 30
DELETE_ACLS = 31
DESCRIBE_CONFIGS = 32
ALTER_CONFIGS = 33
ALTER_REPLICA_LOG_DIRS = 34
DESCRIBE_LOG_DIRS = 35
CREATE_PARTITIONS = 37
DELETE_GROUPS = 42
ELECT_LEADERS = 43
INCREMENTAL_ALTER_CONFIGS = 44
ALTER_PARTITION_REASSIGNMENTS = 45
LIST_PARTITION_REASSIGNMENTS = 46
OFFSET_DELETE = 47
DESCRIBE_QUORUM = 55
DESCRIBE_CLUSTER = 60
CONSUMER_GROUP_HEARTBEAT = 68
CONSUMER_GROUP_DESCRIBE = 69
LIST_CONFIG_RESOURCES = 74
DESCRIBE_TOPIC_PARTITIONS = 75

PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION = 0
"""Kafka 4.x still *advertises* Produce from v0 on the broker listener, although it
rejects v0-v2 (KAFKA-18659: librdkafka refuses to produce compressed data when the
advertised minimum is above 2).  ``ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION``."""


def api_key(key_id: int) -> ApiKey | None:
    """The `ApiKey` for ``key_id``, or None if the release has no such key."""
    return API_KEYS.get(key_id)


def broker_api_versions() -> dict[int, tuple[int, int]]:
    """What a default 4.3.1 broker lists in ApiVersions: ``{key: (min, max)}``.

    Broker-listener APIs with a stable version; Produce advertised from v0; the
    KIP-714 telemetry APIs left out, as they are unless a metrics reporter that
    accepts client telemetry is configured (``ApiVersionsResponse.filterApis``).
    """
    table: dict[int, tuple[int, int]] = {}
    for key in API_KEYS.values():
        if "broker" not in key.listeners or key.id in (71, 72):
            continue
        oldest = PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION if key.id == PRODUCE else key.oldest
        latest = key.latest_stable()
        if oldest is not None and latest is not None and latest >= oldest:
            table[key.id] = (oldest, latest)
    return table
