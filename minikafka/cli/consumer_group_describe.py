"""``kafka-consumer-groups.sh --list``/``--describe``: gathering group facts over the Kafka protocol.

Theory of operation
-------------------
*Listing* asks every broker (ListGroups) and keeps the consumer groups:
protocol type ``consumer``, or empty for groups that only ever committed
offsets.  The ids come out in the order the brokers answered.

*Describing* a group takes three requests:

1. DescribeGroups to the group's coordinator (found with FindCoordinator):
   the state, the assignor, and each member's id, client id, host and
   assignment (decoded from the consumer protocol's assignment bytes);
2. OffsetFetch: the group's committed offsets (and their leader epochs);
3. ListOffsets (latest) for every partition that is assigned or has a
   commit: the log end offsets, so that lag = log end offset - committed.

A coordinator that answers with an error (``GroupIdNotFoundException:
Group g not found.``) fails the whole command, as ``describeConsumerGroups
(...).all().get()`` does in Kafka.  The facts become
`minikafka.tools.consumer_group_command_output.ConsumerGroupDescription`\\ s,
which that module prints.

Mirrors ``ConsumerGroupCommand.ConsumerGroupService`` (``listConsumerGroups``,
``describeConsumerGroups``, ``getCommittedOffsets``; 4.3.1) and
``OffsetsUtils.getLogEndOffsets`` (in 4.1.1 a method of the service).
Simplified: groups of the KIP-848 consumer protocol are described through
DescribeGroups too (no ConsumerGroupDescribe), so member epochs and target
assignments are unknown.
"""

from __future__ import annotations

from minikafka.cli.admin_client import AdminConnection, ExecutionException, error_for, execution
from minikafka.cli.option_parser import OptionSet
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools import consumer_group_command_output as output
from minikafka.tools.tool_output import ToolOutput

CONSUMER_PROTOCOL_TYPES = ("consumer", "")


def _listed(connection: AdminConnection) -> list[dict]:
    admin = connection.admin("listConsumerGroups")
    groups = execution(lambda: admin.list_groups())
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


def coordinator_ids(admin, group_ids) -> dict[str, int]:
    """FindCoordinator for each group (through kafka-python's admin client): group id -> node id."""
    return execution(lambda: admin._manager.run(admin._find_coordinator_ids, list(group_ids)))


def described_group(connection: AdminConnection, group_id: str, node: int):
    """DescribeGroups for one group on its coordinator; a group error fails the call."""
    from kafka.protocol.admin import DescribeGroupsRequest
    request = DescribeGroupsRequest(groups=[group_id], include_authorized_operations=False)
    response = execution(lambda: connection.send(request, "describeConsumerGroups", node_id=node))
    group = response.groups[0]
    if group.error_code:
        raise ExecutionException(error_for(group.error_code, getattr(group, "error_message", None)))
    return group


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


def _describe_one(admin, group, coordinator: tuple[int, str, int]) -> output.ConsumerGroupDescription:
    group_id = group.group_id
    committed = execution(lambda: admin.list_group_offsets({group_id: None}))[group_id]
    offsets = {TopicPartition(tp.topic, tp.partition): meta.offset for tp, meta in committed.items()}
    epochs = {TopicPartition(tp.topic, tp.partition): meta.leader_epoch for tp, meta in committed.items()
              if meta.leader_epoch is not None and meta.leader_epoch >= 0}
    members = tuple(output.MemberDescription(m.member_id, m.client_id, m.client_host, _assignment(m.member_assignment),
                                             getattr(m, "group_instance_id", None))
                    for m in group.members)
    partitions = list(dict.fromkeys([tp for m in members for tp in m.assignment] + list(offsets)))
    ends = _log_end_offsets(admin, partitions) if partitions else {}
    return output.ConsumerGroupDescription(group_id, group.group_state, members, coordinator, group.protocol_data,
                                           offsets, ends, epochs)


def describe_groups(connection: AdminConnection, group_ids: list[str], o: OptionSet) -> ToolOutput:
    """``describeGroups``: offsets (default), ``--members`` or ``--state`` of each group."""
    admin = connection.admin("describeConsumerGroups")
    coordinators = coordinator_ids(admin, group_ids)
    descriptions = []
    for group_id in dict.fromkeys(group_ids):
        node = coordinators[group_id]
        group = described_group(connection, group_id, node)
        host, port = connection.broker_endpoint(node) or ("", -1)
        descriptions.append(_describe_one(admin, group, (node, host, port)))
    verbose = o.has("verbose")
    if o.has("members"):
        return output.describe_members(descriptions, verbose)
    if o.has("state"):
        return output.describe_state(descriptions, verbose)
    return output.describe_offsets(descriptions, verbose)


__all__ = ["list_group_ids", "group_listings", "describe_groups"]
