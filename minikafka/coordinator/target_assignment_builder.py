"""``TargetAssignmentBuilder``: a consumer group's new target assignment, and the records it writes.

Theory of operation
-------------------
When the group epoch moves past the target assignment epoch, the coordinator
computes where every partition *should* be for the new epoch:

1. take the group's members, with the heartbeat's changes applied (a member
   added or updated, a member removed, a static member replaced by its new
   incarnation, which inherits the old one's target so it can be sticky);
2. turn each member's subscription into topic ids (topics that do not exist
   are left out; a regex is resolved against the topic names);
3. run the chosen assignor with each member's *current target* as the
   starting point;
4. write a ``ConsumerGroupTargetAssignmentMember`` record for each member
   whose target changed, then one ``ConsumerGroupTargetAssignmentMetadata``
   record with the new epoch (last, so a coordinator that replays half of
   them still sees the old epoch).

The target is only where the group is going.  Members get there one by one
through `CurrentAssignmentBuilder`, which never hands out a partition before
its previous owner has released it.

Mirrors ``modern.TargetAssignmentBuilder`` (and the consumer-group use of it
in ``GroupMetadataManager.updateTargetAssignment``).  Simplified: the
assignment is computed synchronously in the heartbeat (4.3.1 can defer it by
``group.consumer.assignment.interval.ms``); no rack information is passed to
the assignor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from minikafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember
from minikafka.coordinator.consumer_group_records import (
    ConsumerGroupRecord, ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey, ConsumerGroupTargetAssignmentMetadataValue,
)
from minikafka.coordinator.partition_assignor import (
    GroupSpec, MemberSubscriptionAndAssignment, PartitionAssignor, java_member_order, java_name_order,
    subscription_type,
)
from minikafka.coordinator.topic_metadata import TopicsImage


@dataclass(frozen=True)
class TargetAssignmentResult:
    records: list[ConsumerGroupRecord]
    target_assignment: dict[str, Assignment]


def target_assignment_member_record(group_id: str, member_id: str,
                                    assignment: Assignment) -> ConsumerGroupRecord:
    topics = tuple((t, tuple(sorted(p))) for t, p in sorted(assignment.items()) if p)
    return ConsumerGroupRecord(ConsumerGroupTargetAssignmentMemberKey(group_id, member_id),
                               ConsumerGroupTargetAssignmentMemberValue(topics))


def target_assignment_metadata_record(group_id: str, epoch: int, timestamp_ms: int) -> ConsumerGroupRecord:
    return ConsumerGroupRecord(ConsumerGroupTargetAssignmentMetadataKey(group_id),
                               ConsumerGroupTargetAssignmentMetadataValue(epoch, timestamp_ms))


class TargetAssignmentBuilder:
    def __init__(self, group_id: str, group_epoch: int, assignor: PartitionAssignor,
                 topics: TopicsImage, resolve_regex: Callable[[str], list[str]]):
        self.group_id = group_id
        self.group_epoch = group_epoch
        self.assignor = assignor
        self.topics = topics
        self.resolve_regex = resolve_regex
        self.members: dict[str, ConsumerGroupMember] = {}
        self.static_members: dict[str, str] = {}
        self.target_assignment: dict[str, Assignment] = {}
        self._updated: dict[str, ConsumerGroupMember | None] = {}   # None: removed

    def with_members(self, members: dict[str, ConsumerGroupMember]) -> "TargetAssignmentBuilder":
        self.members = dict(members)
        return self

    def with_static_members(self, static_members: dict[str, str]) -> "TargetAssignmentBuilder":
        self.static_members = dict(static_members)
        return self

    def with_target_assignment(self, target: dict[str, Assignment]) -> "TargetAssignmentBuilder":
        self.target_assignment = dict(target)
        return self

    def add_or_update_member(self, member: ConsumerGroupMember) -> "TargetAssignmentBuilder":
        self._updated[member.member_id] = member
        return self

    def remove_member(self, member_id: str) -> "TargetAssignmentBuilder":
        self._updated[member_id] = None
        return self

    def _topic_ids(self, member: ConsumerGroupMember) -> tuple:
        """The subscribed topic ids, in the order Kafka walks the member's set of names."""
        names = java_name_order(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            names += [n for n in sorted(self.resolve_regex(member.subscribed_topic_regex)) if n not in names]
        return tuple(dict.fromkeys(t.topic_id for t in (self.topics.by_name(n) for n in names) if t is not None))

    def _spec(self, member: ConsumerGroupMember, assignment: Assignment) -> MemberSubscriptionAndAssignment:
        ids = self._topic_ids(member)
        return MemberSubscriptionAndAssignment(frozenset(ids), assignment, member.instance_id, member.rack_id,
                                               topic_id_order=ids)

    def build(self, now_ms: int) -> TargetAssignmentResult:
        specs = {m_id: self._spec(m, self.target_assignment.get(m_id, {})) for m_id, m in self.members.items()}
        for member_id, member in self._updated.items():
            if member is None:
                specs.pop(member_id, None)
                continue
            assignment = self.target_assignment.get(member_id, {})
            previous_id = self.static_members.get(member.instance_id) if member.instance_id else None
            if previous_id is not None and previous_id != member_id:
                assignment = self.target_assignment.get(previous_id, {})   # inherit the old incarnation's
            specs[member_id] = self._spec(member, assignment)
        new_target = self.assignor.assign(GroupSpec(specs, subscription_type(specs)), self.topics)

        records = []
        for member_id in java_member_order(specs):      # Kafka's HashMap order of member ids
            new = new_target.get(member_id, {})
            if member_id not in self.target_assignment or new != self.target_assignment[member_id]:
                records.append(target_assignment_member_record(self.group_id, member_id, new))
        records.append(target_assignment_metadata_record(self.group_id, self.group_epoch, now_ms))
        return TargetAssignmentResult(records, {m: new_target.get(m, {}) for m in specs})
