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

Kafka's assignors visit members, topics and partitions in the order of the
Java hash maps and sets that hold them, and that order decides, for
instance, which member gets the extra partition.  `java_member_order`,
`java_topic_order` and `java_partition_order` compute those orders (with
`minikafka.common.java_hashing`), so the same group gets the same answer.

Mirrors ``api.assignor.ConsumerGroupPartitionAssignor``, ``GroupSpec``,
``MemberSubscription``, ``SubscriptionType``, ``SubscribedTopicDescriber``
and ``PartitionAssignorException``.  Simplified: assignors are looked up by
name from the two built in here (no custom class names in the config); keys
that share a hash bucket are taken in sorted order (Kafka: the order they were
inserted).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from minikafka.common.java_hashing import hashmap_order, to_int32
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
    # The ids in the order Kafka meets them (its hash set of topic *names*); it only decides
    # between topic ids that share a hash bucket.  Empty: sorted.
    topic_id_order: tuple[Uuid, ...] = ()


@dataclass(frozen=True)
class GroupSpec:
    members: dict[str, MemberSubscriptionAndAssignment]
    subscription_type: SubscriptionType

    def member_ids(self) -> list[str]:
        """Member ids in the order Kafka's ``HashMap`` of member specs visits them."""
        return java_member_order(self.members)

    def is_partition_assigned(self, topic_id: Uuid, partition: int) -> bool:
        return any(partition in m.assignment.get(topic_id, ()) for m in self.members.values())


def uuid_hash_code(topic_id: Uuid) -> int:
    """``Uuid.hashCode()``: the two halves of most ^ least, xored."""
    h = topic_id.most ^ topic_id.least
    return to_int32((h >> 32) ^ h)


def java_member_order(member_ids) -> list[str]:
    """A ``new HashMap<String, ...>()`` filled with the member ids."""
    return hashmap_order(sorted(member_ids))


def java_topic_order(topic_ids, copied: bool = False, inserted: tuple[Uuid, ...] = ()) -> list[Uuid]:
    """A ``HashMap``/``HashSet`` of topic ids (``copied``: built by ``new HashSet<>(collection)``),
    filled in the order ``inserted`` (then sorted for the rest)."""
    ids = [t for t in inserted if t in topic_ids] + sorted(set(topic_ids) - set(inserted))
    capacity = max(int(len(ids) / 0.75) + 1, 16) if copied else 16
    return hashmap_order(ids, key_hash=uuid_hash_code, initial_capacity=capacity)


def java_name_order(names) -> list[str]:
    """A ``new HashSet<>(list)`` of topic names, as a member's subscription holds them."""
    unique = sorted(set(names))
    return hashmap_order(unique, initial_capacity=max(int(len(unique) / 0.75) + 1, 16))


def java_partition_order(partitions) -> list[int]:
    """A ``new HashSet<>(list)`` of partition numbers, as a member's assignment holds them."""
    ps = sorted(partitions)
    return hashmap_order(ps, initial_capacity=max(int(len(ps) / 0.75) + 1, 16))


def java_uuid_compare_key(topic_id: Uuid) -> tuple[int, int]:
    """``Uuid.compareTo``: most, then least significant bits, as signed longs."""
    signed = lambda v: v - (1 << 64) if v >= 1 << 63 else v
    return signed(topic_id.most), signed(topic_id.least)


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
