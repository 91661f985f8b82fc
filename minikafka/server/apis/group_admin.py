"""ListGroups, DescribeGroups and DeleteGroups: the group APIs of admin tools.

Theory of operation
-------------------
A group lives on exactly one broker (its coordinator), so admin tools ask
every broker for its groups (ListGroups; ``kafka-consumer-groups.sh --list``
merges the answers), and ask a group's coordinator to describe or delete it.
Each handler converts the kafka-python request into the coordinator's
request, calls the broker's `GroupCoordinator` and encodes the answer at the
request's version:

* ListGroups: ``states_filter`` from v4, ``types_filter`` from v5; each
  listed group carries its state from v4 and its type from v5;
* DescribeGroups: ``error_message`` from v6; from v3 a client may ask for the
  *authorized operations*: a broker without an authorizer grants every
  operation a group supports (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS,
  ALTER_CONFIGS), reported as a bit field, and only for groups described
  without error; otherwise the field holds Kafka's "omitted" value;
* DeleteGroups: a group named twice is deleted (and answered) once.

Mirrors ``KafkaApis.handleListGroupsRequest``, ``handleDescribeGroupsRequest``
and ``handleDeleteGroupsRequest`` (Kafka 4.3.1) with ``AuthHelper.authorizedOperations``
and ``AclEntry.supportedOperations``.  Simplified: no authorization.
"""

from __future__ import annotations

from typing import Any

from minikafka.coordinator import requests as group
from minikafka.network.codec import response_class
from minikafka.server.apis.groups import GroupsBroker, call_coordinator
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import DESCRIBE_GROUPS, LIST_GROUPS, DELETE_GROUPS


ListGroupsResponse = response_class(LIST_GROUPS)
DescribeGroupsResponse = response_class(DESCRIBE_GROUPS)
DeleteGroupsResponse = response_class(DELETE_GROUPS)

# AclOperation codes a GROUP supports: READ 3, DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11.
GROUP_OPERATIONS = frozenset({3, 6, 8, 10, 11})


def bit_positions(field: int) -> set[int] | None:
    """kafka-python's form of a 32-bit operations field: the set bits; None for "omitted"."""
    if field == group.AUTHORIZED_OPERATIONS_OMITTED:
        return None
    return {bit for bit in range(32) if field & (1 << bit)}


def operations_field(operations: frozenset[int]) -> int:
    """``Utils.to32BitField``: one bit per operation code."""
    return sum(1 << code for code in operations)


# ---------------------------------------------------------------------------- ListGroups
def handle_list_groups(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    domain = group.ListGroupsRequest(
        states_filter=tuple(request.states_filter or ()) if version >= 4 else (),
        types_filter=tuple(request.types_filter or ()) if version >= 5 else ())
    return call_coordinator(broker.group_coordinator.handle_list_groups, domain, encode_list_groups, "ListGroups")


def encode_list_groups(answer: group.ListGroupsResponse) -> Any:
    return ListGroupsResponse(throttle_time_ms=0, error_code=answer.error_code.code, groups=[
        ListGroupsResponse.ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type,
                                       group_state=g.group_state, group_type=g.group_type)
        for g in answer.groups])


# ---------------------------------------------------------------------------- DescribeGroups
def handle_describe_groups(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    include_operations = version >= 3 and bool(request.include_authorized_operations)
    domain = group.DescribeGroupsRequest(tuple(request.groups), include_operations, version)
    return call_coordinator(broker.group_coordinator.handle_describe_groups, domain,
                            lambda answer: encode_describe_groups(answer, include_operations),
                            "DescribeGroups " + ",".join(request.groups))


def encode_describe_groups(answer: group.DescribeGroupsResponse, include_operations: bool) -> Any:
    Described = DescribeGroupsResponse.DescribedGroup
    described = []
    for g in answer.groups:
        operations = g.authorized_operations
        if include_operations and g.error_code.code == 0:
            operations = operations_field(GROUP_OPERATIONS)
        described.append(Described(
            error_code=g.error_code.code, error_message=g.error_message, group_id=g.group_id,
            group_state=g.group_state, protocol_type=g.protocol_type, protocol_data=g.protocol_data,
            authorized_operations=bit_positions(operations), members=[
                Described.DescribedGroupMember(
                    member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
                    client_host=m.client_host, member_metadata=m.member_metadata,
                    member_assignment=m.member_assignment)
                for m in g.members]))
    return DescribeGroupsResponse(throttle_time_ms=0, groups=described)


# ---------------------------------------------------------------------------- DeleteGroups
def handle_delete_groups(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    names = tuple(dict.fromkeys(request.groups_names))      # KafkaApis: groupsNames.distinct
    return call_coordinator(broker.group_coordinator.handle_delete_groups, group.DeleteGroupsRequest(names),
                            encode_delete_groups, "DeleteGroups " + ",".join(names))


def encode_delete_groups(answer: group.DeleteGroupsResponse) -> Any:
    return DeleteGroupsResponse(throttle_time_ms=0, results=[
        DeleteGroupsResponse.DeletableGroupResult(group_id=r.group_id, error_code=r.error_code.code)
        for r in answer.results])
