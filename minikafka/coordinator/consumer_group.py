"""``ConsumerGroup``: the state of one KIP-848 consumer group, as its records rebuild it.

Theory of operation
-------------------
A consumer group has three numbers that drive everything:

* the **group epoch** -- bumped whenever what the group needs changes (a
  member joins, leaves, changes its subscription, or the subscribed topics'
  metadata changes);
* the **target assignment epoch** -- the group epoch for which the
  coordinator last computed a target assignment (who should own what);
* each member's **member epoch** -- how far that member has reconciled.

Its state is not stored, it is *computed* from those (rows tried in order,
first match wins; `STATE_RULES`):

===========  ==================================================================
EMPTY        no members
ASSIGNING    group epoch > target assignment epoch: a new target is due
RECONCILING  some member has not reached the target (epoch or state differs)
STABLE       every member is STABLE at the target assignment epoch
===========  ==================================================================

DEAD is the state of a group that was deleted (its records tombstoned).

Some members may use the *classic* protocol (they joined with JoinGroup, or
the group was converted online from a classic group: `consumer_group_migration`);
they are members like the others, assigned by the coordinator, and only
differ in how they hear about it (`ConsumerGroupHeartbeat.classic_group_*`).

The group also keeps, for every partition some member owns (assigned or
still revoking), the epoch of its owner: `current_partition_epoch`.  A
partition is handed to a new owner only when it has no entry here, which is
what makes the protocol safe: no partition is owned by two members at once.
`_add_partition_epochs` refuses to break that rule, as Kafka does.

The group only changes through the ``replay_*`` methods, one per record type
(called by `ConsumerGroupHeartbeat.replay`), so the state a coordinator
rebuilds from ``__consumer_offsets`` after a failover is, by construction,
the state it had.

Mirrors ``modern.consumer.ConsumerGroup`` and ``modern.ModernGroup``.
Simplified: no timeline snapshots (the heartbeat computes from this state and
then replays its own records); subscription
counts are recomputed on demand instead of being maintained incrementally.
"""

from __future__ import annotations

import enum
from typing import Callable

from minikafka.common.errors import Errors, KafkaException, exception_for
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember, PartitionEpochs

UnknownMemberIdException = exception_for(Errors.UNKNOWN_MEMBER_ID)


class IllegalStateException(KafkaException):
    @property
    def java_class(self) -> str:
        return "java.lang.IllegalStateException"


# The order in which Kafka's hash tables of assignor names visit the built-in ones (ties).
ASSIGNOR_VISIT_ORDER = ("uniform", "range")


class ConsumerGroupState(enum.Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


def _is_empty(g: "ConsumerGroup") -> bool:
    return not g.members


def _is_assigning(g: "ConsumerGroup") -> bool:
    return g.group_epoch > g.target_assignment_epoch


def _is_reconciling(g: "ConsumerGroup") -> bool:
    return any(not m.is_reconciled_to(g.target_assignment_epoch) for m in g.members.values())


# Consulted in order by `ConsumerGroup.state`; the first row whose test holds wins.
STATE_RULES: tuple[tuple[ConsumerGroupState, Callable[["ConsumerGroup"], bool]], ...] = (
    (ConsumerGroupState.EMPTY, _is_empty),
    (ConsumerGroupState.ASSIGNING, _is_assigning),
    (ConsumerGroupState.RECONCILING, _is_reconciling),
    (ConsumerGroupState.STABLE, lambda g: True),
)


class ConsumerGroup:
    def __init__(self, group_id: str):
        self.group_id = group_id
        self.group_epoch = 1                             # 4.3 starts groups at 1 (0 means "joining")
        self.metadata_hash = 0                           # of the subscribed topics (KIP-1101)
        self.has_subscription_metadata_record = False    # a legacy type-4 record to tombstone
        self.members: dict[str, ConsumerGroupMember] = {}
        self.static_members: dict[str, str] = {}         # instance id -> member id
        self.target_assignment_epoch = 0
        self.target_assignment_timestamp = 0
        self.target_assignment: dict[str, Assignment] = {}
        self.current_partition_epoch: dict[Uuid, dict[int, int]] = {}
        self.deleted = False

    # ------------------------------------------------------------------ reading
    @property
    def state(self) -> ConsumerGroupState:
        if self.deleted:
            return ConsumerGroupState.DEAD
        return next(state for state, holds in STATE_RULES if holds(self))

    def has_member(self, member_id: str) -> bool:
        return member_id in self.members

    def member(self, member_id: str) -> ConsumerGroupMember:
        """The member, or UNKNOWN_MEMBER_ID in Kafka's words."""
        member = self.members.get(member_id)
        if member is None:
            raise UnknownMemberIdException(f"Member {member_id} is not a member of group {self.group_id}.")
        return member

    def static_member(self, instance_id: str | None) -> ConsumerGroupMember | None:
        member_id = self.static_members.get(instance_id) if instance_id is not None else None
        return self.members.get(member_id) if member_id is not None else None

    def target_assignment_of(self, member_id: str) -> Assignment:
        return self.target_assignment.get(member_id, {})

    def partition_epoch(self, topic_id: Uuid, partition: int) -> int:
        """The epoch of the member owning the partition, or -1 when nobody owns it."""
        return self.current_partition_epoch.get(topic_id, {}).get(partition, -1)

    def subscribed_topic_names(self, resolve_regex: Callable[[str], list[str]],
                               members: dict[str, ConsumerGroupMember] | None = None) -> set[str]:
        """Every topic some member subscribes to, by name or through its regex."""
        names: set[str] = set()
        for m in (self.members if members is None else members).values():
            names.update(m.subscribed_topic_names)
            if m.subscribed_topic_regex:
                names.update(resolve_regex(m.subscribed_topic_regex))
        return names

    def preferred_server_assignor(self, old: ConsumerGroupMember | None,
                                  new: ConsumerGroupMember | None) -> str | None:
        """The assignor most members ask for once ``old`` becomes ``new``; None if none asks.

        A tie goes to the name Kafka visits first.  Kafka copies its per-name counts into a
        hash map (the built-in names share a bucket, ``uniform`` first: `ASSIGNOR_VISIT_ORDER`),
        takes the heartbeating member's old name out (dropped at 0) and puts its new one in --
        a name put back in goes to the front of its bucket -- and keeps the first maximum.
        """
        counts: dict[str, int] = {}
        for m in self.members.values():
            if m.server_assignor_name is not None:
                counts[m.server_assignor_name] = counts.get(m.server_assignor_name, 0) + 1
        order = sorted(counts, key=lambda n: (ASSIGNOR_VISIT_ORDER.index(n) if n in ASSIGNOR_VISIT_ORDER
                                              else len(ASSIGNOR_VISIT_ORDER), n))
        if old is not None and old.server_assignor_name in counts:
            name = old.server_assignor_name
            counts[name] -= 1
            if counts[name] == 0:
                del counts[name]
                order.remove(name)
        if new is not None and new.server_assignor_name is not None:
            name = new.server_assignor_name
            if name not in counts:
                order.insert(0, name)
            counts[name] = counts.get(name, 0) + 1
        if not order:
            return None
        return max(order, key=lambda n: counts[n])          # max keeps the first of equals

    # ------------------------------------------------------------------ replay
    def update_member(self, new: ConsumerGroupMember) -> None:
        old = self.members.get(new.member_id)
        if old is not None:
            self._remove_partition_epochs(old)
            if old.instance_id is not None and old.instance_id != new.instance_id:
                self.static_members.pop(old.instance_id, None)
        self.members[new.member_id] = new
        if new.instance_id is not None:
            self.static_members[new.instance_id] = new.member_id
        self._add_partition_epochs(new)

    def remove_member(self, member_id: str) -> None:
        old = self.members.pop(member_id, None)
        if old is None:
            return
        self._remove_partition_epochs(old)
        if old.instance_id is not None and self.static_members.get(old.instance_id) == member_id:
            del self.static_members[old.instance_id]

    def update_target_assignment(self, member_id: str, assignment: Assignment) -> None:
        self.target_assignment[member_id] = {t: frozenset(p) for t, p in assignment.items() if p}

    def remove_target_assignment(self, member_id: str) -> None:
        self.target_assignment.pop(member_id, None)

    def _partitions_of(self, member: ConsumerGroupMember) -> PartitionEpochs:
        owned: PartitionEpochs = {}
        for source in (member.assigned_partitions, member.partitions_pending_revocation):
            for topic_id, partitions in source.items():
                owned.setdefault(topic_id, {}).update(partitions)
        return owned

    def _add_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for topic_id, partitions in self._partitions_of(member).items():
            epochs = self.current_partition_epoch.setdefault(topic_id, {})
            for partition in partitions:
                if partition in epochs:
                    raise IllegalStateException(
                        f"Cannot set the epoch of {topic_id}-{partition} to {member.member_epoch} because "
                        f"the partition is still owned at epoch {epochs[partition]}")
                epochs[partition] = member.member_epoch

    def _remove_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for topic_id, partitions in self._partitions_of(member).items():
            epochs = self.current_partition_epoch.get(topic_id, {})
            for partition in partitions:
                epochs.pop(partition, None)
            if not epochs:
                self.current_partition_epoch.pop(topic_id, None)
