"""ConsumerGroupHeartbeat and ConsumerGroupDescribe: the KIP-848 consumer group APIs on the wire.

Theory of operation
-------------------
A consumer started with ``group.protocol=consumer`` does not join with
JoinGroup/SyncGroup: after FindCoordinator it sends ConsumerGroupHeartbeat
(api key 68) to the coordinator every ``group.consumer.heartbeat.interval.ms``,
and the coordinator answers with the member's epoch and, when it changed,
the partitions the member may now consume (by topic id).  The handler here
only translates: the kafka-python body becomes the coordinator's
`ConsumerGroupHeartbeatRequest` (owned partitions as ``(topic id,
partitions)`` pairs; the regex field exists from v1), the broker's
`GroupCoordinator` answers through a callback once its records are
committed, and the answer is encoded at the request's version.  The
client's id and address (``/127.0.0.1``) come from the request context, as
in the classic JoinGroup.

ConsumerGroupDescribe (69) answers, per group id, the group's state, group
epoch, target assignment epoch, assignor and its members with their current
and target assignments (topic ids *and* names); a member's type (v1+) is 1,
"consumer protocol".  A group id that is not a consumer group gets
GROUP_ID_NOT_FOUND with Kafka's text; the authorized operations are not
computed (``Integer.MIN_VALUE``, "not requested") unless asked for, and then
every operation is allowed, as without an authorizer.

Mirrors ``KafkaApis.handleConsumerGroupHeartbeat`` and
``handleConsumerGroupDescribe`` with ``ConsumerGroupMember.asConsumerGroupDescribeMember``.
Simplified: no authorization, throttle time 0.
"""

from __future__ import annotations

from typing import Any

from minikafka.common.uuid import Uuid
from minikafka.coordinator import requests as group
from minikafka.coordinator.consumer_group_heartbeat import (
    ConsumerGroupHeartbeatRequest as DomainHeartbeat, ConsumerGroupHeartbeatResponse as DomainAnswer,
)
from minikafka.network.codec import from_wire_uuid, response_class, to_wire_uuid
from minikafka.server.apis.forwarding import complete_with
from minikafka.server.apis.group_admin import GROUP_OPERATIONS, operations_field
from minikafka.server.apis.groups import GroupsBroker
from minikafka.network.request_channel import Deferred
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE

CONSUMER_MEMBER_TYPE = 1                 # ConsumerGroupDescribe v1: 0 classic, 1 consumer protocol
NO_AUTHORIZED_OPERATIONS = -2147483648   # Integer.MIN_VALUE: not requested

ConsumerGroupHeartbeatResponse = response_class(CONSUMER_GROUP_HEARTBEAT)
ConsumerGroupDescribeResponse = response_class(CONSUMER_GROUP_DESCRIBE)




def handle_consumer_group_heartbeat(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    owned = request.topic_partitions
    domain = DomainHeartbeat(
        group_id=request.group_id, member_id=request.member_id, member_epoch=request.member_epoch,
        instance_id=request.instance_id, rack_id=request.rack_id,
        rebalance_timeout_ms=request.rebalance_timeout_ms,
        subscribed_topic_names=(None if request.subscribed_topic_names is None
                                else tuple(request.subscribed_topic_names)),
        subscribed_topic_regex=request.subscribed_topic_regex if version >= 1 else None,
        server_assignor=request.server_assignor,
        topic_partitions=(None if owned is None
                          else tuple((from_wire_uuid(t.topic_id), tuple(t.partitions)) for t in owned)))
    deferred = Deferred(f"ConsumerGroupHeartbeat {request.group_id}")

    def respond(answer: DomainAnswer) -> None:
        complete_with(deferred, lambda: encode_heartbeat(answer))
    broker.group_coordinator.handle_consumer_group_heartbeat(
        domain, respond, api_version=version, client_id=ctx.client_id,
        client_host=group.client_host_of(ctx.client_address))
    return deferred


def encode_heartbeat(answer: DomainAnswer) -> Any:
    R = ConsumerGroupHeartbeatResponse
    assignment = None
    if answer.assignment is not None:
        assignment = R.Assignment(topic_partitions=[
            R.Assignment.TopicPartitions(topic_id=to_wire_uuid(topic_id), partitions=list(partitions))
            for topic_id, partitions in answer.assignment])
    return R(throttle_time_ms=0, error_code=answer.error.code, error_message=answer.error_message,
             member_id=answer.member_id, member_epoch=answer.member_epoch,
             heartbeat_interval_ms=answer.heartbeat_interval_ms, assignment=assignment)


def handle_consumer_group_describe(ctx: RequestContext, request: Any, broker: GroupsBroker) -> Any:
    version = ctx.api_version
    include_operations = bool(request.include_authorized_operations)
    deferred = Deferred("ConsumerGroupDescribe")

    def respond(described: list[dict[str, Any]]) -> None:
        complete_with(deferred, lambda: encode_describe(described, version, include_operations))
    broker.group_coordinator.handle_consumer_group_describe(list(request.group_ids), respond)
    return deferred


def encode_describe(described: list[dict[str, Any]], version: int, include_operations: bool) -> Any:
    R = ConsumerGroupDescribeResponse
    G = R.DescribedGroup
    M = G.Member

    def assignment(parts: list[tuple[Uuid, str, list[int]]]) -> Any:
        return M.Assignment(topic_partitions=[
            M.Assignment.TopicPartitions(topic_id=to_wire_uuid(topic_id), topic_name=name, partitions=list(ps))
            for topic_id, name, ps in parts])
    groups = []
    for d in described:
        if d["error"].code != 0:
            groups.append(G(error_code=d["error"].code, error_message=d["error_message"],
                            group_id=d["group_id"], group_state="", group_epoch=0, assignment_epoch=0,
                            assignor_name="", members=[], authorized_operations=NO_AUTHORIZED_OPERATIONS))
            continue
        members = [M(member_id=m["member_id"], instance_id=m["instance_id"], rack_id=m["rack_id"],
                     member_epoch=m["member_epoch"], client_id=m["client_id"], client_host=m["client_host"],
                     subscribed_topic_names=m["subscribed_topic_names"],
                     subscribed_topic_regex=m["subscribed_topic_regex"],
                     assignment=assignment(m["assignment"]),
                     target_assignment=assignment(m["target_assignment"]),
                     member_type=m.get("member_type", CONSUMER_MEMBER_TYPE) if version >= 1 else -1)
                   for m in d["members"]]
        groups.append(G(error_code=0, error_message=None, group_id=d["group_id"],
                        group_state=d["group_state"], group_epoch=d["group_epoch"],
                        assignment_epoch=d["assignment_epoch"], assignor_name=d["assignor_name"],
                        members=members,
                        authorized_operations=(operations_field(GROUP_OPERATIONS) if include_operations
                                               else NO_AUTHORIZED_OPERATIONS)))
    return R(throttle_time_ms=0, groups=groups)
