"""``RangeAssignor``: the group coordinator's ``range`` assignor (co-partitioning).

Theory of operation
-------------------
For each topic, the members subscribed to it are put in a fixed order and
each gets one contiguous range of partitions: with *P* partitions and *M*
members, everybody gets ``P // M`` and the first ``P % M`` members one more.
Because the order of members is the same for every topic, member *i* gets the
same partition numbers of every topic with the same partition count: the
topics are **co-partitioned** (partition 3 of ``orders`` and partition 3 of
``payments`` go to the same member), which a join of two topics keyed alike
needs.

The order: static members first, by ``group.instance.id``; then the others
by member id.  Putting static members first keeps their ranges when dynamic
members come and go.

This assignor is not sticky: when a member joins, ranges shift and more
partitions move than with ``uniform``.

Mirrors ``org.apache.kafka.coordinator.group.assignor.RangeAssignor`` (the
server-side one of KIP-848, not the client's ``RangeAssignor``).
"""

from __future__ import annotations

from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_member import Assignment
from minikafka.coordinator.partition_assignor import GroupSpec, PartitionAssignorException
from minikafka.coordinator.topic_metadata import TopicsImage

RANGE_ASSIGNOR_NAME = "range"


class RangeAssignor:
    name = RANGE_ASSIGNOR_NAME

    def assign(self, group: GroupSpec, topics: TopicsImage) -> dict[str, Assignment]:
        members = sort_member_ids(group)
        subscribers: dict[Uuid, list[str]] = {}
        for member_id in members:       # in member order, so each topic's list is ordered too
            for topic_id in group.members[member_id].subscribed_topic_ids:
                subscribers.setdefault(topic_id, []).append(member_id)
        result: dict[str, dict[Uuid, frozenset[int]]] = {m: {} for m in members}
        for topic_id, topic_members in subscribers.items():
            num_partitions = topics.num_partitions(topic_id)
            if num_partitions == -1:
                raise PartitionAssignorException("Member is subscribed to a non-existent topic")
            for member_id, (start, end) in zip(topic_members, ranges(num_partitions, len(topic_members))):
                if start < end:
                    result[member_id][topic_id] = frozenset(range(start, end))
        return result


def ranges(num_partitions: int, num_members: int) -> list[tuple[int, int]]:
    """The [start, end) range of each member, in member order."""
    quota, extra = divmod(num_partitions, num_members)
    out, start = [], 0
    for i in range(num_members):
        end = min(start + quota + (1 if i < extra else 0), num_partitions)
        out.append((start, end))
        start = end
    return out


def sort_member_ids(group: GroupSpec) -> list[str]:
    """Static members first by instance id, then dynamic members by member id."""
    def key(member_id: str) -> tuple[int, str]:
        instance_id = group.members[member_id].instance_id
        return (0, instance_id) if instance_id is not None else (1, member_id)
    return sorted(group.members, key=key)
