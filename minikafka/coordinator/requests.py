"""Requests and responses of the group APIs, as the group coordinator sees them.

Theory of operation
-------------------
The network layer decodes a client's JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups,
DeleteGroups, OffsetDelete or FindCoordinator frame (any version) into one of these frozen
dataclasses, calls the matching ``GroupCoordinator.handle_*`` method and
encodes the response it gets back.  Field names are the JSON spec names in
snake_case (``GenerationIdOrMemberEpoch`` -> ``generation_id_or_member_epoch``);
error fields hold `Errors` members (``.code`` is the wire value).

Each request carries every field any version in use needs, with the spec's
default where an older version lacks it, plus ``api_version`` where the
coordinator's behaviour depends on it (JoinGroup v4+ asks new members to
rejoin with an id, MEMBER_ID_REQUIRED; OffsetCommit v9+ answers
GROUP_ID_NOT_FOUND; SyncGroup v5+ must name the protocol; DescribeGroups v6+
reports GROUP_ID_NOT_FOUND).  JoinGroup also carries what Kafka takes from the
request context: the header's ``client_id`` and the client's address as Kafka
prints it (``/127.0.0.1``, see `client_host_of`).  ``api_version`` defaults
to the newest version of Kafka 4.x's spec (OffsetCommit/OffsetFetch: 9).

Version folding the network layer does, as Kafka's request classes do:
LeaveGroup v0-2 has one ``member_id`` (use ``LeaveGroupRequest.single``) and
answers with `LeaveGroupResponse.legacy_error_code`; OffsetFetch v0-7 asks for
one group (``OffsetFetchRequest.single``) and answers with that group's entry.

Mirrors the ``*Request.json``/``*Response.json`` specs in clients/src/main/
resources/common/message.  Simplified: throttle times and authorized
operations are left to the network layer; OffsetCommit/OffsetFetch v10 topic
ids are not modelled (kafka-python and librdkafka send names).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid

UNKNOWN_MEMBER_ID = ""             # JoinGroupRequest.UNKNOWN_MEMBER_ID
UNKNOWN_GENERATION_ID = -1
AUTHORIZED_OPERATIONS_OMITTED = -2147483648


def client_host_of(address: str) -> str:
    """Kafka's ``InetAddress.toString()`` form of a client IP: ``/127.0.0.1``."""
    return address if address.startswith("/") else "/" + address


# ---------------------------------------------------------------------------- JoinGroup (11)
@dataclass(frozen=True, slots=True)
class JoinGroupRequestProtocol:
    name: str
    metadata: bytes


@dataclass(frozen=True, slots=True)
class JoinGroupRequest:
    group_id: str
    session_timeout_ms: int
    member_id: str = UNKNOWN_MEMBER_ID
    protocol_type: str = "consumer"
    protocols: tuple[JoinGroupRequestProtocol, ...] = ()
    rebalance_timeout_ms: int = -1      # v1+; v0 uses the session timeout
    group_instance_id: str | None = None  # v5+: static membership (KIP-345)
    reason: str | None = None           # v8+ (KIP-800)
    api_version: int = 9
    client_id: str = ""                 # from the request header
    client_host: str = ""               # client address as Kafka prints it, "/127.0.0.1"


@dataclass(frozen=True, slots=True)
class JoinGroupResponseMember:
    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True, slots=True)
class JoinGroupResponse:
    error_code: Errors = Errors.NONE
    generation_id: int = UNKNOWN_GENERATION_ID
    protocol_type: str | None = None    # v7+
    protocol_name: str | None = None    # null in v7+, "" before (the network layer folds)
    leader: str = ""
    skip_assignment: bool = False       # v9+
    member_id: str = ""
    members: tuple[JoinGroupResponseMember, ...] = ()  # only the leader gets them


# ---------------------------------------------------------------------------- SyncGroup (14)
@dataclass(frozen=True, slots=True)
class SyncGroupRequestAssignment:
    member_id: str
    assignment: bytes


@dataclass(frozen=True, slots=True)
class SyncGroupRequest:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None  # v3+
    protocol_type: str | None = None    # v5+ (mandatory there)
    protocol_name: str | None = None    # v5+ (mandatory there)
    assignments: tuple[SyncGroupRequestAssignment, ...] = ()  # only the leader sends them
    api_version: int = 5


@dataclass(frozen=True, slots=True)
class SyncGroupResponse:
    error_code: Errors = Errors.NONE
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


# ---------------------------------------------------------------------------- Heartbeat (12)
@dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None


@dataclass(frozen=True, slots=True)
class HeartbeatResponse:
    error_code: Errors = Errors.NONE


# ---------------------------------------------------------------------------- LeaveGroup (13)
@dataclass(frozen=True, slots=True)
class MemberIdentity:
    member_id: str
    group_instance_id: str | None = None
    reason: str | None = None           # v5+


@dataclass(frozen=True, slots=True)
class LeaveGroupRequest:
    group_id: str
    members: tuple[MemberIdentity, ...]

    @classmethod
    def single(cls, group_id: str, member_id: str) -> "LeaveGroupRequest":
        """The v0-2 form: one member, identified by id only."""
        return cls(group_id, (MemberIdentity(member_id),))


@dataclass(frozen=True, slots=True)
class MemberResponse:
    member_id: str
    group_instance_id: str | None
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class LeaveGroupResponse:
    error_code: Errors = Errors.NONE
    members: tuple[MemberResponse, ...] = ()

    def legacy_error_code(self) -> Errors:
        """The single error v0-2 carry: the top-level one, else the first member's."""
        if self.error_code is not Errors.NONE:
            return self.error_code
        return next((m.error_code for m in self.members if m.error_code is not Errors.NONE),
                    Errors.NONE)


# ---------------------------------------------------------------------------- OffsetCommit (8)
@dataclass(frozen=True, slots=True)
class OffsetCommitRequestPartition:
    partition_index: int
    committed_offset: int
    committed_leader_epoch: int = -1    # v6+
    committed_metadata: str | None = ""


@dataclass(frozen=True, slots=True)
class OffsetCommitRequestTopic:
    name: str
    partitions: tuple[OffsetCommitRequestPartition, ...]


@dataclass(frozen=True, slots=True)
class OffsetCommitRequest:
    group_id: str
    topics: tuple[OffsetCommitRequestTopic, ...]
    generation_id_or_member_epoch: int = UNKNOWN_GENERATION_ID
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None  # v7+
    retention_time_ms: int = -1         # v2-4 only; -1 = the broker's offsets.retention.minutes
    api_version: int = 9


@dataclass(frozen=True, slots=True)
class OffsetCommitResponsePartition:
    partition_index: int
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class OffsetCommitResponseTopic:
    name: str
    partitions: tuple[OffsetCommitResponsePartition, ...]


@dataclass(frozen=True, slots=True)
class OffsetCommitResponse:
    topics: tuple[OffsetCommitResponseTopic, ...] = ()

    @classmethod
    def all_failed(cls, request: OffsetCommitRequest, error: Errors) -> "OffsetCommitResponse":
        """Every requested partition answered with ``error`` (OffsetCommitRequest.getErrorResponse)."""
        return cls(tuple(OffsetCommitResponseTopic(t.name, tuple(
            OffsetCommitResponsePartition(p.partition_index, error) for p in t.partitions))
            for t in request.topics))


# ---------------------------------------------------------------------------- OffsetFetch (9)
@dataclass(frozen=True, slots=True)
class OffsetFetchRequestTopics:
    name: str
    partition_indexes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OffsetFetchRequestGroup:
    group_id: str
    topics: tuple[OffsetFetchRequestTopics, ...] | None  # None: every committed partition
    member_id: str | None = None        # v9+ (new consumer protocol only)
    member_epoch: int = -1


@dataclass(frozen=True, slots=True)
class OffsetFetchRequest:
    groups: tuple[OffsetFetchRequestGroup, ...]
    require_stable: bool = False        # v7+: wait for pending commits
    api_version: int = 9

    @classmethod
    def single(cls, group_id: str, topics: tuple[OffsetFetchRequestTopics, ...] | None,
               require_stable: bool = False, api_version: int = 7) -> "OffsetFetchRequest":
        """The v0-7 form: one group."""
        return cls((OffsetFetchRequestGroup(group_id, topics),), require_stable, api_version)


@dataclass(frozen=True, slots=True)
class OffsetFetchResponsePartitions:
    partition_index: int
    committed_offset: int = -1          # -1: nothing committed
    committed_leader_epoch: int = -1
    metadata: str | None = ""
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class OffsetFetchResponseTopics:
    name: str
    partitions: tuple[OffsetFetchResponsePartitions, ...]
    topic_id: Uuid | None = None        # v10+: filled in by the broker from its metadata


@dataclass(frozen=True, slots=True)
class OffsetFetchResponseGroup:
    group_id: str
    topics: tuple[OffsetFetchResponseTopics, ...] = ()
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class OffsetFetchResponse:
    groups: tuple[OffsetFetchResponseGroup, ...]


# ---------------------------------------------------------------------------- ListGroups (16)
@dataclass(frozen=True, slots=True)
class ListGroupsRequest:
    states_filter: tuple[str, ...] = ()  # v4+, case-insensitive ("stable", "Empty")
    types_filter: tuple[str, ...] = ()   # v5+ ("classic", "consumer")


@dataclass(frozen=True, slots=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    group_state: str
    group_type: str = "classic"          # the coordinator's Group.GroupType.CLASSIC.toString() (4.3.1)


@dataclass(frozen=True, slots=True)
class ListGroupsResponse:
    error_code: Errors = Errors.NONE
    groups: tuple[ListedGroup, ...] = ()


# ---------------------------------------------------------------------------- DescribeGroups (15)
@dataclass(frozen=True, slots=True)
class DescribeGroupsRequest:
    groups: tuple[str, ...]
    include_authorized_operations: bool = False
    api_version: int = 6


@dataclass(frozen=True, slots=True)
class DescribedGroupMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    member_metadata: bytes = b""        # only while Stable
    member_assignment: bytes = b""


@dataclass(frozen=True, slots=True)
class DescribedGroup:
    group_id: str
    error_code: Errors = Errors.NONE
    error_message: str | None = None    # v6+
    group_state: str = ""
    protocol_type: str = ""
    protocol_data: str = ""             # the selected protocol, only while Stable
    members: tuple[DescribedGroupMember, ...] = ()
    authorized_operations: int = AUTHORIZED_OPERATIONS_OMITTED


@dataclass(frozen=True, slots=True)
class DescribeGroupsResponse:
    groups: tuple[DescribedGroup, ...]


# ---------------------------------------------------------------------------- DeleteGroups (42)
@dataclass(frozen=True, slots=True)
class DeleteGroupsRequest:
    groups_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeletableGroupResult:
    group_id: str
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class DeleteGroupsResponse:
    results: tuple[DeletableGroupResult, ...]


# ---------------------------------------------------------------------------- OffsetDelete (47)
@dataclass(frozen=True, slots=True)
class OffsetDeleteRequestTopic:
    name: str
    partition_indexes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OffsetDeleteRequest:
    group_id: str
    topics: tuple[OffsetDeleteRequestTopic, ...] = ()


@dataclass(frozen=True, slots=True)
class OffsetDeleteResponsePartition:
    partition_index: int
    error_code: Errors = Errors.NONE


@dataclass(frozen=True, slots=True)
class OffsetDeleteResponseTopic:
    name: str
    partitions: tuple[OffsetDeleteResponsePartition, ...]


@dataclass(frozen=True, slots=True)
class OffsetDeleteResponse:
    error_code: Errors = Errors.NONE    # a group-level failure: no topics then
    topics: tuple[OffsetDeleteResponseTopic, ...] = ()


# ---------------------------------------------------------------------------- FindCoordinator (10)
@dataclass(frozen=True, slots=True)
class FindCoordinatorRequest:
    key: str = ""                       # v0-3
    key_type: int = 0                   # v1+: 0 group, 1 transaction, 2 share
    coordinator_keys: tuple[str, ...] = ()  # v4+
    api_version: int = 6


@dataclass(frozen=True, slots=True)
class Coordinator:
    key: str
    node_id: int
    host: str
    port: int
    error_code: Errors = Errors.NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class FindCoordinatorResponse:
    error_code: Errors = Errors.NONE    # v0-3
    error_message: str | None = None    # v1-3
    node_id: int = -1
    host: str = ""
    port: int = -1
    coordinators: tuple[Coordinator, ...] = ()  # v4+
