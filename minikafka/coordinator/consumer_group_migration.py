"""Online migration of a group between the classic and the consumer protocol.

Theory of operation
-------------------
A group id names one group, of one type.  When a member of the *other*
protocol arrives, 4.3.1 converts the group in place instead of refusing it,
if ``group.consumer.migration.policy`` (`ConsumerGroupMigrationPolicy`)
allows:

* **upgrade** (classic -> consumer): a ConsumerGroupHeartbeat joins (member
  epoch 0) a non-empty classic group.  `validate_online_upgrade` refuses with
  GROUP_ID_NOT_FOUND and 4.3.1's texts when the policy forbids it, when the
  group's embedded protocol type is not ``consumer``, or when it has more
  members than ``group.consumer.max.size``.  Otherwise
  the group is rewritten the group as a consumer
  group (``ConsumerGroup.fromClassicGroup``): every classic member becomes a
  member that *uses the classic protocol* (its JoinGroup protocols and session
  timeout kept as its classic member metadata), Stable at member epoch = the
  classic generation, owning the partitions of its last assignment, which is
  also its target; group epoch and target assignment epoch = the generation
  (`consumer_group_members_from_classic_group`; `ConsumerGroupHeartbeat`
  writes them).
  What is written: the classic group's GroupMetadata tombstone, then the
  consumer group's records in ``createConsumerGroupRecords``'s order (member
  subscriptions, group epoch, target assignment per member, target assignment
  epoch, current assignment per member), then the joining member's own
  heartbeat records.  A subscription or assignment that does not parse, or an
  assignment carrying a custom assignor's user data, refuses the upgrade.
* **downgrade** (consumer -> classic): members leave (or are fenced) and
  only members using the classic protocol remain -- typically the last
  consumer-protocol member left.
  `validate_online_downgrade_with_fenced_members` allows it when the policy
  does and the remaining members fit ``group.max.size``.  The consumer group's
  tombstones (``createGroupTombstoneRecords``) are written, then a
  GroupMetadata record of the classic group `classic_group_from_consumer_group`
  builds (``ClassicGroup.fromConsumerGroup``): Stable, generation = group
  epoch, every remaining member with its JoinGroup protocols and its *target*
  assignment serialized as a ``ConsumerProtocolAssignment`` (at the version of
  its subscription); the group then rebalances at once.
* an **empty** group of the other type is deleted (its tombstones written)
  and recreated, whatever the policy.

Mirrors the migration paths of Kafka's ``GroupMetadataManager``
(validateOnlineUpgrade, convertToConsumerGroup,
validateOnlineDowngradeWithFencedMembers, convertToClassicGroup),
``ConsumerGroup.fromClassicGroup``/``createConsumerGroupRecords`` and
``ClassicGroup.fromConsumerGroup``/``createClassicGroupRecords``.
Simplified: members are visited in their group's insertion order (Kafka: its
hash maps' order), and the downgrade triggered by a static classic member
replacing the last consumer-protocol member (validateOnlineDowngradeWithReplacedMember)
is not done.
"""

from __future__ import annotations

from minikafka.common.errors import Errors, exception_for
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState
from minikafka.coordinator.classic_group_member import ClassicGroupMember
from minikafka.coordinator.consumer_group import ConsumerGroup
from minikafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember, MemberState
from minikafka.coordinator.consumer_group_records import (
    ClassicMemberMetadata, ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupMemberMetadataKey,
    ConsumerGroupMetadataKey, ConsumerGroupPartitionMetadataKey, ConsumerGroupRecord,
    ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMetadataKey,
)
from minikafka.coordinator.consumer_protocol import (
    PROTOCOL_TYPE, ConsumerProtocolAssignment, deserialize_assignment, deserialize_subscription,
    deserialize_version, serialize_assignment,
)
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.requests import JoinGroupRequestProtocol
from minikafka.coordinator.topic_metadata import TopicsImage, group_metadata_hash

GroupIdNotFoundException = exception_for(Errors.GROUP_ID_NOT_FOUND)


# ---------------------------------------------------------------------------- upgrade
def validate_online_upgrade(group: ClassicGroup, config: GroupCoordinatorConfig) -> None:
    """Refuse, with 4.3.1's GROUP_ID_NOT_FOUND texts, an upgrade the config does not allow."""
    gid = group.group_id
    if not config.consumer_group_migration_policy.is_upgrade_enabled:
        raise GroupIdNotFoundException(
            f"Cannot upgrade classic group {gid} to consumer group because online upgrade is disabled.")
    if not group.uses_consumer_group_protocol():
        raise GroupIdNotFoundException(
            f"Cannot upgrade classic group {gid} to consumer group because the group does not use the "
            f"consumer embedded protocol.")
    if len(group.members) > config.consumer_group_max_size:
        raise GroupIdNotFoundException(
            f"Cannot upgrade classic group {gid} to consumer group because the group size exceeds the "
            f"consumer group maximum size.")


def classic_member_metadata_of(session_timeout_ms: int,
                               protocols: tuple[JoinGroupRequestProtocol, ...]) -> ClassicMemberMetadata:
    return ClassicMemberMetadata(session_timeout_ms, tuple((p.name, p.metadata) for p in protocols))


def _member_from_classic(group: ClassicGroup, m: ClassicGroupMember, image: TopicsImage) -> ConsumerGroupMember:
    assigned: dict = {}
    if m.assignment:
        assignment = deserialize_assignment(m.assignment)
        if assignment.user_data:
            raise NotImplementedError("userData from a custom assignor would be lost")
        for topic_name, partitions in assignment.assigned_partitions:
            topic = image.by_name(topic_name)
            if topic is not None:
                assigned.setdefault(topic.topic_id, {}).update(dict.fromkeys(partitions, group.generation_id))
    subscription = deserialize_subscription(m.metadata(group.protocol_name))
    return ConsumerGroupMember(
        m.member_id, member_epoch=group.generation_id, previous_member_epoch=group.generation_id,
        state=MemberState.STABLE, instance_id=m.group_instance_id, rack_id=subscription.rack_id,
        rebalance_timeout_ms=m.rebalance_timeout_ms, client_id=m.client_id, client_host=m.client_host,
        subscribed_topic_names=tuple(sorted(set(subscription.topics))), assigned_partitions=assigned,
        classic_member_metadata=classic_member_metadata_of(m.session_timeout_ms, m.supported_protocols))


def consumer_group_members_from_classic_group(group: ClassicGroup, image: TopicsImage) -> list[ConsumerGroupMember]:
    """``ConsumerGroup.fromClassicGroup``'s members (their target assignment is what they own)."""
    gid = group.group_id
    try:
        return [_member_from_classic(group, m, image) for m in group.all_members()]
    except ValueError:
        raise GroupIdNotFoundException(f"Cannot upgrade classic group {gid} to consumer group because the "
                                       f"embedded consumer protocol is malformed.") from None
    except NotImplementedError:
        raise GroupIdNotFoundException(
            f"Cannot upgrade classic group {gid} to consumer group because an unsupported custom assignor "
            f"is in use. Please refer to the documentation or switch to a default assignor before "
            f"re-attempting the upgrade.") from None


def _as_assignment(member: ConsumerGroupMember) -> Assignment:
    return {t: frozenset(ps) for t, ps in member.assigned_partitions.items()}


# ---------------------------------------------------------------------------- downgrade
def validate_online_downgrade_with_fenced_members(group: ConsumerGroup, fenced: set[str],
                                                  config: GroupCoordinatorConfig) -> bool:
    """May ``group`` become classic once the ``fenced`` members are gone?"""
    remaining = [m for m_id, m in group.members.items() if m_id not in fenced]
    if any(not m.uses_classic_protocol for m in remaining):
        return False
    if not remaining:
        return False                    # an empty group is left to become classic on its next JoinGroup
    if not config.consumer_group_migration_policy.is_downgrade_enabled:
        return False
    return len(remaining) <= config.max_size


def consumer_group_tombstones(group: ConsumerGroup) -> list[ConsumerGroupRecord]:
    """``ConsumerGroup.createGroupTombstoneRecords``: every member's records, then the group's."""
    gid, ids = group.group_id, list(group.members)
    records = [ConsumerGroupRecord(ConsumerGroupCurrentMemberAssignmentKey(gid, m), None) for m in ids]
    records += [ConsumerGroupRecord(ConsumerGroupTargetAssignmentMemberKey(gid, m), None) for m in ids]
    records.append(ConsumerGroupRecord(ConsumerGroupTargetAssignmentMetadataKey(gid), None))
    records += [ConsumerGroupRecord(ConsumerGroupMemberMetadataKey(gid, m), None) for m in ids]
    records.append(ConsumerGroupRecord(ConsumerGroupPartitionMetadataKey(gid), None))
    records.append(ConsumerGroupRecord(ConsumerGroupMetadataKey(gid), None))
    return records


def classic_group_from_consumer_group(group: ConsumerGroup, fenced: set[str], image: TopicsImage,
                                      now: int) -> ClassicGroup:
    """``ClassicGroup.fromConsumerGroup``: Stable, its members' target assignments as their assignments."""
    classic = ClassicGroup(group.group_id, now, ClassicGroupState.STABLE, group.group_epoch, PROTOCOL_TYPE,
                           None, None, now)
    for member_id, member in group.members.items():
        if member_id in fenced or member.classic_member_metadata is None:
            continue
        metadata = member.classic_member_metadata
        classic.add(ClassicGroupMember(
            member_id, member.instance_id, member.client_id, member.client_host, member.rebalance_timeout_ms,
            metadata.session_timeout_ms, PROTOCOL_TYPE,
            tuple(JoinGroupRequestProtocol(n, md) for n, md in metadata.supported_protocols)))
    classic.protocol_name = classic.select_protocol()
    classic.subscribed_topics = classic.compute_subscribed_topics()
    for m in classic.all_members():
        m.assignment = serialize_assignment(
            consumer_protocol_assignment(group.target_assignment_of(m.member_id), image),
            deserialize_version(m.metadata(classic.protocol_name)))
    return classic


def consumer_protocol_assignment(assignment: Assignment, image: TopicsImage) -> ConsumerProtocolAssignment:
    """Partitions by topic id as a ``ConsumerProtocolAssignment`` by name (unknown topics left out)."""
    out = []
    for topic_id, partitions in sorted(assignment.items(), key=lambda kv: str(kv[0])):
        topic = image.by_id(topic_id)
        if topic is not None and partitions:
            out.append((topic.name, tuple(sorted(partitions))))
    return ConsumerProtocolAssignment(tuple(out))
