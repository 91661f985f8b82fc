"""FindCoordinator, JoinGroup, SyncGroup, Heartbeat and LeaveGroup: the classic group membership APIs.

Theory of operation
-------------------
A consumer in a group first asks any broker which broker coordinates its
group (FindCoordinator: the leader of the group's ``__consumer_offsets``
partition), then talks to that broker: JoinGroup until a generation forms,
SyncGroup to hand out (leader) or receive (followers) the assignment,
Heartbeat to stay in the group, LeaveGroup on close.  Each handler here
turns the kafka-python request into the group coordinator's request
dataclass (``minikafka.coordinator.requests``), calls the broker's
`GroupCoordinator` (``broker.group_coordinator.handle_*``) and encodes the
answer at the request's version.  Coordinator answers can come much later
(a JoinGroup waits for the rebalance), so every handler returns a `Deferred`
that the coordinator's ``respond`` callback completes.

Version folding done here, as Kafka's request and response classes do it:

* JoinGroup v0 has no rebalance timeout: the session timeout stands in;
  the protocol name is ``""`` before v7 and null (not ``""``) from v7;
* LeaveGroup v0-2 name one member by ``member_id`` and answer with one
  error code (the top-level one, else the first member error);
* the client's id and address (``/127.0.0.1``) come from the request context.

FindCoordinator for a group asks ``broker.find_group_coordinator``,
which also requests the creation of ``__consumer_offsets`` the first time.
The sandbox has no transaction coordinator and no share coordinator: a
transaction or share key is answered COORDINATOR_NOT_AVAILABLE, which is
what a Kafka broker answers while ``__transaction_state`` (or
``__share_group_state``) has no leader; malformed share keys still get
INVALID_REQUEST first, as in Kafka.

Mirrors ``KafkaApis.handleFindCoordinatorRequest``/``getCoordinator``,
``handleJoinGroupRequest``, ``handleSyncGroupRequest``,
``handleHeartbeatRequest`` and ``handleLeaveGroupRequest`` (Kafka 4.3.1), with
``JoinGroupResponse``'s and ``LeaveGroupResponse``'s version rules.
Simplified: no authorization (every group is allowed), throttle time 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator import requests as group
from minikafka.coordinator.find_coordinator import (GROUP_KEY_TYPE, NO_NODE, SHARE_KEY_TYPE, Endpoint,
                                                    find_coordinator)
from minikafka.network.codec import response_class
from minikafka.server.apis.forwarding import complete_with
from minikafka.network.request_channel import Deferred
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import FIND_COORDINATOR, JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP

if TYPE_CHECKING:
    from minikafka.coordinator.group_coordinator import GroupCoordinator


class GroupsBroker(Protocol):
    """What the group APIs use of the broker: its group coordinator, and where a group's lives."""

    @property
    def group_coordinator(self) -> "GroupCoordinator": ...

    def find_group_coordinator(self, group_id: str) -> tuple[Errors, Endpoint]: ...


FindCoordinatorResponse = response_class(FIND_COORDINATOR)
JoinGroupResponse = response_class(JOIN_GROUP)
HeartbeatResponse = response_class(HEARTBEAT)
LeaveGroupResponse = response_class(LEAVE_GROUP)
SyncGroupResponse = response_class(SYNC_GROUP)

DomainRequest = TypeVar("DomainRequest")        # a coordinator API's request (`coordinator.requests`)
DomainResponse = TypeVar("DomainResponse")      # ... and the response it answers with


def call_coordinator(method: Callable[[DomainRequest, Callable[[DomainResponse], None]], None],
                     domain_request: DomainRequest, encode: Callable[[DomainResponse], Any],
                     description: str) -> Deferred:
    """Run ``method(domain_request, respond)`` (a `GroupCoordinator` API); ``encode`` builds the client's answer."""
    deferred = Deferred(description)

    def respond(domain_response: DomainResponse) -> None:
        complete_with(deferred, lambda: encode(domain_response))
    method(domain_request, respond)
    return deferred


# ---------------------------------------------------------------------------- FindCoordinator
def valid_share_key(key: str) -> bool:
    """``SharePartitionKey.validate``: ``groupId:topicId:partition``."""
    tokens = key.split(":")
    while tokens and tokens[-1] == "":          # Java's split drops trailing empty strings
        tokens.pop()
    if len(tokens) != 3 or not tokens[0].strip():
        return False
    try:
        Uuid.from_string(tokens[1])
        int(tokens[2])
    except ValueError:
        return False
    return True


def handle_find_coordinator(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    domain = group.FindCoordinatorRequest(
        key=(request.key or "") if version < 4 else "",
        key_type=request.key_type if version >= 1 else GROUP_KEY_TYPE,
        coordinator_keys=tuple(request.coordinator_keys or ()) if version >= 4 else (),
        api_version=version)

    def lookup(key_type: int, key: str) -> tuple[Errors, Endpoint]:
        if key_type == GROUP_KEY_TYPE:
            return broker.find_group_coordinator(key)
        if key_type == SHARE_KEY_TYPE and not valid_share_key(key):
            return Errors.INVALID_REQUEST, NO_NODE
        return Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE   # no transaction/share coordinator here
    return encode_find_coordinator(find_coordinator(domain, lookup), version)


def encode_find_coordinator(answer: group.FindCoordinatorResponse, version: int) -> Any:
    if version >= 4:
        # KafkaApis does not set a per-key message: the wire carries the field's default, "".
        return FindCoordinatorResponse(throttle_time_ms=0, coordinators=[
            FindCoordinatorResponse.Coordinator(key=c.key, node_id=c.node_id, host=c.host, port=c.port,
                                                error_code=c.error_code.code,
                                                error_message="" if c.error_message is None else c.error_message)
            for c in answer.coordinators])
    return FindCoordinatorResponse(throttle_time_ms=0, error_code=answer.error_code.code,
                                   error_message=answer.error_message, node_id=answer.node_id,
                                   host=answer.host, port=answer.port)


# ---------------------------------------------------------------------------- JoinGroup
def handle_join_group(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    domain = group.JoinGroupRequest(
        group_id=request.group_id,
        session_timeout_ms=request.session_timeout_ms,
        member_id=request.member_id,
        protocol_type=request.protocol_type,
        protocols=tuple(group.JoinGroupRequestProtocol(p.name, bytes(p.metadata))
                        for p in request.protocols),
        rebalance_timeout_ms=request.session_timeout_ms if version == 0 else request.rebalance_timeout_ms,
        group_instance_id=request.group_instance_id if version >= 5 else None,
        reason=request.reason if version >= 8 else None,
        api_version=version,
        client_id=ctx.client_id,
        client_host=group.client_host_of(ctx.client_address))
    return call_coordinator(broker.group_coordinator.handle_join_group, domain,
                            lambda answer: encode_join_group(answer, version),
                            f"JoinGroup {request.group_id}")


def encode_join_group(answer: group.JoinGroupResponse, version: int) -> Any:
    protocol_name = answer.protocol_name
    if version < 7 and protocol_name is None:
        protocol_name = ""                      # not nullable before v7
    elif version >= 7 and protocol_name == "":
        protocol_name = None                    # v7+ sends null for "no protocol"
    members = [JoinGroupResponse.JoinGroupResponseMember(member_id=m.member_id,
                                                         group_instance_id=m.group_instance_id,
                                                         metadata=m.metadata)
               for m in answer.members]
    return JoinGroupResponse(throttle_time_ms=0, error_code=answer.error_code.code,
                             generation_id=answer.generation_id, protocol_type=answer.protocol_type,
                             protocol_name=protocol_name, leader=answer.leader,
                             skip_assignment=answer.skip_assignment, member_id=answer.member_id,
                             members=members)


# ---------------------------------------------------------------------------- SyncGroup
def handle_sync_group(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    domain = group.SyncGroupRequest(
        group_id=request.group_id,
        generation_id=request.generation_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if version >= 3 else None,
        protocol_type=request.protocol_type if version >= 5 else None,
        protocol_name=request.protocol_name if version >= 5 else None,
        assignments=tuple(group.SyncGroupRequestAssignment(a.member_id, bytes(a.assignment))
                          for a in request.assignments),
        api_version=version)
    return call_coordinator(broker.group_coordinator.handle_sync_group, domain, encode_sync_group,
                            f"SyncGroup {request.group_id}")


def encode_sync_group(answer: group.SyncGroupResponse) -> Any:
    return SyncGroupResponse(throttle_time_ms=0, error_code=answer.error_code.code,
                             protocol_type=answer.protocol_type, protocol_name=answer.protocol_name,
                             assignment=answer.assignment)


# ---------------------------------------------------------------------------- Heartbeat
def handle_heartbeat(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    domain = group.HeartbeatRequest(
        group_id=request.group_id, generation_id=request.generation_id, member_id=request.member_id,
        group_instance_id=request.group_instance_id if ctx.api_version >= 3 else None)
    return call_coordinator(broker.group_coordinator.handle_heartbeat, domain,
                            lambda answer: HeartbeatResponse(throttle_time_ms=0,
                                                             error_code=answer.error_code.code),
                            f"Heartbeat {request.group_id}")


# ---------------------------------------------------------------------------- LeaveGroup
def handle_leave_group(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    if version <= 2:
        domain = group.LeaveGroupRequest.single(request.group_id, request.member_id)
    else:
        domain = group.LeaveGroupRequest(request.group_id, tuple(
            group.MemberIdentity(m.member_id, m.group_instance_id, m.reason if version >= 5 else None)
            for m in request.members))
    return call_coordinator(broker.group_coordinator.handle_leave_group, domain,
                            lambda answer: encode_leave_group(answer, version),
                            f"LeaveGroup {request.group_id}")


def encode_leave_group(answer: group.LeaveGroupResponse, version: int) -> Any:
    if version <= 2:
        return LeaveGroupResponse(throttle_time_ms=0, error_code=answer.legacy_error_code().code)
    return LeaveGroupResponse(throttle_time_ms=0, error_code=answer.error_code.code, members=[
        LeaveGroupResponse.MemberResponse(member_id=m.member_id, group_instance_id=m.group_instance_id,
                                          error_code=m.error_code.code)
        for m in answer.members])
