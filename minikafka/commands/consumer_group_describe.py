"""``kafka-consumer-groups.sh --list``/``--describe``: gathering group facts over the Kafka protocol.

Theory of operation
-------------------
*Listing* asks every broker (ListGroups) and keeps the consumer groups:
protocol type ``consumer``, or empty for groups that only ever committed
offsets.  The ids come out in the order the brokers answered.

*Describing* a group takes three requests:

1. ConsumerGroupDescribe to the group's coordinator (found with
   FindCoordinator): the state, the assignor and each member's id, client
   id, host and assignment of a KIP-848 consumer group; a group it does not
   know (GROUP_ID_NOT_FOUND: a classic group, or none) is asked again with
   DescribeGroups, whose members carry their assignment as the consumer
   protocol's assignment bytes;
2. OffsetFetch: the group's committed offsets (and their leader epochs);
3. ListOffsets (latest) for every partition that is assigned or has a
   commit: the log end offsets, so that lag = log end offset - committed.

DescribeGroups and OffsetFetch are calls to the group's coordinator
(`minikafka.commands.coordinator_call`): a coordinator that is loading, moved
or not available is asked again until ``--timeout`` runs out, then the
command fails with ``TimeoutException: Timed out waiting for a node
assignment. Call: describeConsumerGroups(api=DESCRIBE_GROUPS)`` (for
OffsetFetch ``java.util.concurrent.ExecutionException: ...TimeoutException:
... Call: offsetFetch(api=OFFSET_FETCH)``: Kafka's ``getCommittedOffsets``
wraps its failure in a ``RuntimeException``).  Any other error
(``GroupIdNotFoundException: Group g not found.``) fails the whole command,
as ``describeConsumerGroups(...).all().get()`` does in Kafka.  The facts
become `minikafka.tools.consumer_group_command_output.ConsumerGroupDescription`\\ s,
which that module prints.

Mirrors ``ConsumerGroupCommand.ConsumerGroupService`` (``listConsumerGroups``,
``describeConsumerGroups``, ``getCommittedOffsets``; 4.3.1) and
``OffsetsUtils.getLogEndOffsets`` (in 4.1.1 a method of the service).
``DescribeConsumerGroupsHandler`` (ConsumerGroupDescribe first, DescribeGroups
for the groups it does not know).  A consumer-protocol group also carries its
group epoch and target assignment epoch (``--state --verbose``), and each
member its member epoch, target assignment and whether it speaks the consumer
protocol (``MemberType``: ``upgraded``), which ``--members --verbose`` prints;
a classic group (DescribeGroups) has none of these, printed as ``-``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minikafka.commands.admin_client import AdminConnection, ExecutionException, execution, from_client_error, java_string
from minikafka.commands.coordinator_call import CoordinatorCall, group_error
from minikafka.commands.option_parser import OptionSet
from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools import consumer_group_command_output as output
from minikafka.tools.tool_output import ToolOutput

CONSUMER_PROTOCOL_TYPES = ("consumer", "")


def _listed(connection: AdminConnection) -> list[dict]:
    # Admin.listGroups first looks for every broker: with none answering, that call is the one that times out.
    groups = execution(lambda: connection.admin("findAllBrokers").list_groups())
    return [g for g in groups if g.get("protocol_type", "consumer") in CONSUMER_PROTOCOL_TYPES]


def list_group_ids(connection: AdminConnection) -> list[str]:
    return list(dict.fromkeys(g["group_id"] for g in _listed(connection)))


def group_listings(connection: AdminConnection) -> list[output.GroupListing]:
    return [output.GroupListing(g["group_id"], g.get("group_state") or "Unknown",
                                (g.get("group_type") or "classic").capitalize())
            for g in _listed(connection)]


def _assignment(raw: bytes | None) -> tuple[TopicPartition, ...]:
    """The partitions of a member's assignment (ConsumerProtocol ``Assignment`` bytes)."""
    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment
    if not raw:
        return ()
    try:
        decoded = ConsumerProtocolAssignment.decode(raw)
    except Exception:                 # not the consumer protocol: no partitions to show
        return ()
    return tuple(TopicPartition(t.topic, p) for t in decoded.assigned_partitions for p in t.partitions)


@dataclass(frozen=True)
class _ModernMember:
    """A ConsumerGroupDescribe member in the shape `_describe_one` reads (assignments already decoded)."""

    member_id: str
    client_id: str
    client_host: str
    group_instance_id: str | None
    partitions: tuple[TopicPartition, ...]
    target_partitions: tuple[TopicPartition, ...]
    member_epoch: int
    upgraded: bool | None              # MemberType 1 (consumer protocol): True, 0 (classic): False, -1: unknown


@dataclass(frozen=True)
class _ModernGroup:
    group_id: str
    group_state: str
    protocol_data: str                 # the assignor, shown as ASSIGNMENT-STRATEGY
    members: tuple[_ModernMember, ...]
    group_epoch: int
    assignment_epoch: int


def _partitions(assignment) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(t.topic_name, p) for t in assignment.topic_partitions for p in t.partitions)


def _modern_group(g) -> _ModernGroup:
    members = tuple(_ModernMember(m.member_id, m.client_id, m.client_host, m.instance_id, _partitions(m.assignment),
                                  _partitions(m.target_assignment), m.member_epoch,
                                  None if m.member_type == -1 else m.member_type == 1)
                    for m in g.members)
    return _ModernGroup(g.group_id, g.group_state, g.assignor_name, members, g.group_epoch, g.assignment_epoch)


def describe_consumer_groups(connection: AdminConnection, group_ids) -> tuple[dict[str, Any], dict[str, int]]:
    """``Admin.describeConsumerGroups``: ConsumerGroupDescribe on each group's coordinator, then
    DescribeGroups for the groups it did not know; retried until --timeout.

    Each group's answer (or the `KafkaException` its future fails with), and the coordinators found.
    """
    from kafka.protocol.admin import DescribeGroupsRequest

    from minikafka.network.messages import ConsumerGroupDescribeRequest
    modern = CoordinatorCall(connection, "describeConsumerGroups", "CONSUMER_GROUP_DESCRIBE")

    def split_modern(response, groups):
        return {g.group_id: (Errors.for_code(g.error_code),
                             group_error(g.error_code, g.error_message) or _modern_group(g))
                for g in response.groups}
    answers = modern.run(list(group_ids), lambda groups: ConsumerGroupDescribeRequest(
        group_ids=groups, include_authorized_operations=False), split_modern)
    classic_ids = [g for g in dict.fromkeys(group_ids) if isinstance(answers.get(g), KafkaException)
                   and answers[g].error is Errors.GROUP_ID_NOT_FOUND]
    if not classic_ids:
        return answers, modern.coordinators
    call = CoordinatorCall(connection, "describeConsumerGroups", "DESCRIBE_GROUPS")

    def split(response, groups):
        return {g.group_id: (Errors.for_code(g.error_code),
                             group_error(g.error_code, getattr(g, "error_message", None)) or g)
                for g in response.groups}
    answers.update(call.run(classic_ids, lambda groups: DescribeGroupsRequest(
        groups=groups, include_authorized_operations=False), split))
    return answers, {**modern.coordinators, **call.coordinators}


def described_group(answers: dict[str, Any], group_id: str):
    """A group's description; its failure raised as ``KafkaFuture.get`` throws it."""
    answer = answers[group_id]
    if isinstance(answer, KafkaException):
        raise ExecutionException(answer)
    return answer


def committed_offsets(connection: AdminConnection, group_id: str) -> dict:
    """``Admin.listConsumerGroupOffsets`` of one group (OffsetFetch, retried until --timeout).

    kafka-python's ``{TopicPartition: OffsetAndMetadata}``.  A failure raises what Kafka's
    ``getCommittedOffsets`` throws: a ``RuntimeException`` around the ``ExecutionException``, whose message
    names both (``java.util.concurrent.ExecutionException: org.apache.kafka...``).
    """
    call = CoordinatorCall(connection, "offsetFetch", "OFFSET_FETCH")

    def build(groups):
        return connection.offset_fetch_request(groups[0])

    def split(response, groups):
        group = response.groups[0] if response.API_VERSION >= 8 else response
        failure = group_error(group.error_code)
        if failure is not None:
            return {groups[0]: (failure.error, failure)}
        try:
            return {groups[0]: (Errors.NONE, connection.parse_offset_fetch(group))}
        except Exception as exc:             # a partition's error fails the group, as kafka-python reads it
            return {groups[0]: (Errors.NONE, from_client_error(exc))}
    answer = call.run([group_id], build, split)[group_id]
    if isinstance(answer, KafkaException):
        raise KafkaException(f"java.util.concurrent.ExecutionException: {java_string(answer)}")
    return answer


def _log_end_offsets(admin, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
    """Latest offsets; a partition whose lookup fails stays unknown (printed as ``-``)."""
    from kafka import TopicPartition as KafkaTopicPartition
    from kafka.protocol.consumer import OffsetSpec
    ends: dict[TopicPartition, int] = {}
    wanted = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
    try:
        found = admin.list_partition_offsets({tp: OffsetSpec.LATEST for tp in wanted})
        return {TopicPartition(tp.topic, tp.partition): o.offset for tp, o in found.items()}
    except Exception:
        for tp in wanted:                     # one at a time, to keep the ones that work
            try:
                found = admin.list_partition_offsets({tp: OffsetSpec.LATEST})
                ends[TopicPartition(tp.topic, tp.partition)] = found[tp].offset
            except Exception:
                continue
    return ends


def _describe_one(connection: AdminConnection, group,
                  coordinator: tuple[int, str, int]) -> output.ConsumerGroupDescription:
    group_id = group.group_id
    committed = committed_offsets(connection, group_id)
    offsets = {TopicPartition(tp.topic, tp.partition): meta.offset for tp, meta in committed.items()}
    epochs = {TopicPartition(tp.topic, tp.partition): meta.leader_epoch for tp, meta in committed.items()
              if meta.leader_epoch is not None and meta.leader_epoch >= 0}
    members = tuple(output.MemberDescription(m.member_id, m.client_id, m.client_host, m.partitions,
                                             m.group_instance_id, m.target_partitions, m.member_epoch, m.upgraded)
                    if isinstance(m, _ModernMember) else
                    output.MemberDescription(m.member_id, m.client_id, m.client_host,
                                             _assignment(m.member_assignment), getattr(m, "group_instance_id", None))
                    for m in group.members)
    partitions = list(dict.fromkeys([tp for m in members for tp in m.assignment] + list(offsets)))
    ends = _log_end_offsets(connection.admin("listOffsets"), partitions) if partitions else {}
    modern = isinstance(group, _ModernGroup)
    return output.ConsumerGroupDescription(group_id, group.group_state, members, coordinator, group.protocol_data,
                                           offsets, ends, epochs,
                                           group_epoch=group.group_epoch if modern else None,
                                           target_assignment_epoch=group.assignment_epoch if modern else None)


def describe_groups(connection: AdminConnection, group_ids: list[str], o: OptionSet) -> ToolOutput:
    """``describeGroups``: offsets (default), ``--members`` or ``--state`` of each group."""
    answers, coordinators = describe_consumer_groups(connection, group_ids)
    descriptions = []
    for group_id in dict.fromkeys(group_ids):
        group = described_group(answers, group_id)
        node = coordinators[group_id]
        host, port = connection.broker_endpoint(node) or ("", -1)
        descriptions.append(_describe_one(connection, group, (node, host, port)))
    verbose = o.has("verbose")
    if o.has("members"):
        return output.describe_members(descriptions, verbose)
    if o.has("state"):
        return output.describe_state(descriptions, verbose)
    return output.describe_offsets(descriptions, verbose)


__all__ = ["list_group_ids", "group_listings", "describe_groups", "describe_consumer_groups", "described_group",
           "committed_offsets"]
