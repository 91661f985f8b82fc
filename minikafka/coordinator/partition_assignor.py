"""``PartitionAssignor``: what a server-side assignor of a consumer group receives and returns.

Theory of operation
-------------------
In the consumer protocol the *coordinator* computes the assignment (in the
classic protocol a member, the leader, did).  An assignor is a pure
function: given the group's members -- each with its subscribed topic ids
and its current *target* assignment -- and a way to look up how many
partitions a topic has, it returns every member's new target assignment.
Passing the previous target in is what lets an assignor be sticky.

The group spec also says whether the subscriptions are **homogeneous** (every
member subscribes to the same topics) or **heterogeneous**; assignors use a
cheaper algorithm for the first.

Which assignor runs is chosen per group: a member may name one in its
heartbeat (``group.remote.assignor`` on the Java client, sent as
``ServerAssignor``); the most requested one wins; when no member names one,
the first of the broker's ``group.consumer.assignors`` is used (default
``uniform,range``).  A name the broker does not have is rejected with
UNSUPPORTED_ASSIGNOR before anything else happens.

Mirrors ``api.assignor.ConsumerGroupPartitionAssignor``, ``GroupSpec``,
``MemberSubscription``, ``SubscriptionType``, ``SubscribedTopicDescriber``
and ``PartitionAssignorException``.  Simplified: assignors are looked up by
name from the two built in here (no custom class names in the config).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_member import Assignment
from minikafka.coordinator.topic_metadata import TopicsImage

DEFAULT_CONSUMER_GROUP_ASSIGNORS = ("uniform", "range")   # group.consumer.assignors


class PartitionAssignorException(Exception):
    """The assignor could not compute an assignment (Kafka answers UNKNOWN_SERVER_ERROR)."""


class SubscriptionType(enum.Enum):
    HOMOGENEOUS = "HOMOGENEOUS"
    HETEROGENEOUS = "HETEROGENEOUS"


@dataclass(frozen=True)
class MemberSubscriptionAndAssignment:
    subscribed_topic_ids: frozenset[Uuid]
    assignment: Assignment = field(default_factory=dict)   # the member's current target
    instance_id: str | None = None
    rack_id: str | None = None


@dataclass(frozen=True)
class GroupSpec:
    members: dict[str, MemberSubscriptionAndAssignment]
    subscription_type: SubscriptionType

    def member_ids(self) -> list[str]:
        """Member ids in a fixed order (Kafka iterates a hash map; sorting keeps runs repeatable)."""
        return sorted(self.members)

    def is_partition_assigned(self, topic_id: Uuid, partition: int) -> bool:
        return any(partition in m.assignment.get(topic_id, ()) for m in self.members.values())


def subscription_type(members: dict[str, MemberSubscriptionAndAssignment]) -> SubscriptionType:
    subscriptions = {m.subscribed_topic_ids for m in members.values()}
    return SubscriptionType.HOMOGENEOUS if len(subscriptions) <= 1 else SubscriptionType.HETEROGENEOUS


class PartitionAssignor(Protocol):
    name: str

    def assign(self, group: GroupSpec, topics: TopicsImage) -> dict[str, Assignment]:
        """Every member's new target assignment (members with nothing get an empty dict)."""
        ...


def freeze(assignment: dict[Uuid, set[int]]) -> Assignment:
    return {t: frozenset(p) for t, p in assignment.items() if p}
