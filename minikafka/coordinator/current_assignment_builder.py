"""``CurrentAssignmentBuilder``: one member's next step towards the group's target assignment.

Theory of operation
-------------------
A member moves towards its target in steps, and each step keeps the one
promise of the protocol: **no partition is owned by two members at once**.
Given the member, the target (epoch and partitions) and, for every
partition, whether some member still owns it, the next step is:

* partitions the member has but the target does not give it must be
  **revoked first**: the member stays in its epoch, keeps the rest, and goes
  to UNREVOKED_PARTITIONS with those partitions pending revocation.  It
  leaves that state only when a heartbeat's owned partitions no longer
  include any of them (the client finished ``onPartitionsRevoked`` and
  committed);
* otherwise the member **moves to the target epoch** and gets every target
  partition nobody owns; target partitions still owned by another member
  (which has not revoked them yet) are withheld: UNRELEASED_PARTITIONS.  On
  a later heartbeat, once they are free, it gets them and is STABLE;
* a STABLE member already at the target epoch does not move (unless its
  subscription changed: partitions of topics it dropped are revoked at once).

A partition the member itself was revoking and that its new target gives it
back counts as free (4.3.1).

Only target partitions of topics the member subscribes to *now* count: a
target computed before it changed its subscription (or inherited from the
previous incarnation of a static member) may name others, which it neither
gets nor keeps.

The transition table (`TRANSITIONS`) says, for each state, what a heartbeat
does:

=====================  ====================================================
STABLE                 next step if the target epoch is newer; else drop
                       unsubscribed topics if the subscription changed
UNREVOKED_PARTITIONS   wait while it still owns a revoked partition (drop
                       unsubscribed topics if the subscription changed);
                       else next step
UNRELEASED_PARTITIONS  next step (picks up partitions released meanwhile)
UNKNOWN                fence, unless the member owns nothing; then next step
=====================  ====================================================

Epochs: a member going to UNREVOKED_PARTITIONS keeps its epoch; every other
step sets it to the target epoch; either way the old epoch becomes the
*previous* member epoch.  Newly assigned partitions are recorded with the
target epoch (their *assignment epoch*, KIP-1251); kept ones keep theirs.

``owned`` is the heartbeat's ``TopicPartitions``: None when the client did
not send it (then the member is assumed to still own everything).

Mirrors ``modern.consumer.CurrentAssignmentBuilder``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable

from minikafka.common.errors import Errors, exception_for
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_member import (
    Assignment, ConsumerGroupMember, MemberState, PartitionEpochs,
)

FencedMemberEpochException = exception_for(Errors.FENCED_MEMBER_EPOCH)
OwnedPartitions = Iterable[tuple[Uuid, Iterable[int]]] | None


class CurrentAssignmentBuilder:
    def __init__(self, member: ConsumerGroupMember):
        self.member = member
        self.target_epoch = 0
        self.target: Assignment = {}
        self.partition_epoch: Callable[[Uuid, int], int] = lambda t, p: -1
        self.owned: list[tuple[Uuid, list[int]]] | None = None
        self.has_subscription_changed = False
        self.subscribed_topic_ids: frozenset[Uuid] | None = None   # None: not given, every topic counts

    def with_target_assignment(self, epoch: int, target: Assignment) -> "CurrentAssignmentBuilder":
        self.target_epoch, self.target = epoch, target
        return self

    def with_current_partition_epoch(self, fn: Callable[[Uuid, int], int]) -> "CurrentAssignmentBuilder":
        self.partition_epoch = fn
        return self

    def with_owned_topic_partitions(self, owned: OwnedPartitions) -> "CurrentAssignmentBuilder":
        self.owned = None if owned is None else [(t, list(ps)) for t, ps in owned]
        return self

    def with_subscribed_topic_ids(self, topic_ids: frozenset[Uuid]) -> "CurrentAssignmentBuilder":
        """The topics the member subscribes to now: target partitions of other topics are ignored."""
        self.subscribed_topic_ids = topic_ids
        return self

    def with_has_subscription_changed(self, changed: bool) -> "CurrentAssignmentBuilder":
        self.has_subscription_changed = changed
        return self

    def _subscribes_to(self, topic_id: Uuid) -> bool:
        return self.subscribed_topic_ids is None or topic_id in self.subscribed_topic_ids

    # ------------------------------------------------------------------ transitions
    def build(self) -> ConsumerGroupMember:
        return TRANSITIONS[self.member.state](self)

    def _from_stable(self) -> ConsumerGroupMember:
        m = self.member
        if m.member_epoch != self.target_epoch:
            return self._next_assignment(m.member_epoch)
        if self.has_subscription_changed:
            return self._drop_unsubscribed(m.member_epoch)
        return m

    def _from_unrevoked(self) -> ConsumerGroupMember:
        m = self.member
        if self._owns_any(m.partitions_pending_revocation):
            return self._drop_unsubscribed(m.member_epoch) if self.has_subscription_changed else m
        return self._next_assignment(m.member_epoch)

    def _from_unreleased(self) -> ConsumerGroupMember:
        return self._next_assignment(self.member.member_epoch)

    def _from_unknown(self) -> ConsumerGroupMember:
        if self.owned is None or any(ps for _, ps in self.owned):
            raise FencedMemberEpochException("The consumer group member is in a unknown state. "
                                             "The member must abandon all its partitions and rejoin.")
        return self._next_assignment(self.target_epoch)

    # ------------------------------------------------------------------ helpers
    def _owns_any(self, partitions: PartitionEpochs) -> bool:
        """Does the heartbeat still report one of ``partitions``?  (No report: assume it does.)"""
        if self.owned is None:
            return True
        return any(p in partitions.get(t, {}) for t, ps in self.owned for p in ps)

    def _drop_unsubscribed(self, epoch: int) -> ConsumerGroupMember:
        m = self.member
        kept = {t: ps for t, ps in m.assigned_partitions.items() if self._subscribes_to(t)}
        dropped = {t: ps for t, ps in m.assigned_partitions.items() if not self._subscribes_to(t)}
        if not dropped:
            return m
        pending = {t: dict(ps) for t, ps in m.partitions_pending_revocation.items()}
        for t, ps in dropped.items():
            pending.setdefault(t, {}).update(ps)
        if self._owns_any(pending):
            return replace(m.with_epoch(epoch), state=MemberState.UNREVOKED_PARTITIONS,
                           assigned_partitions=kept, partitions_pending_revocation=pending)
        return replace(m.with_epoch(epoch), assigned_partitions=kept)

    def _next_assignment(self, epoch: int) -> ConsumerGroupMember:
        m = self.member
        kept: PartitionEpochs = {}
        revoking: PartitionEpochs = {}
        to_assign: dict[Uuid, set[int]] = {}
        unreleased = False
        for topic_id in set(self.target) | set(m.assigned_partitions):
            # target partitions of a topic the member no longer subscribes to are not for it
            target = self.target.get(topic_id, frozenset()) if self._subscribes_to(topic_id) else frozenset()
            current = m.assigned_partitions.get(topic_id, {})
            keep = {p: e for p, e in current.items() if p in target}
            revoke = {p: e for p, e in current.items() if p not in target}
            pending = {p for p in target if p not in keep}
            own_revoking = m.partitions_pending_revocation.get(topic_id, {})
            free = {p for p in pending                  # nobody owns it, or only this member (revoking)
                    if self.partition_epoch(topic_id, p) == -1 or p in own_revoking}
            unreleased = unreleased or free != pending
            if keep:
                kept[topic_id] = keep
            if revoke:
                revoking[topic_id] = revoke
            if free:
                to_assign[topic_id] = free

        if revoking and self._owns_any(revoking):
            return replace(m.with_epoch(epoch), state=MemberState.UNREVOKED_PARTITIONS,
                           assigned_partitions=kept, partitions_pending_revocation=revoking)
        for topic_id, partitions in to_assign.items():
            kept.setdefault(topic_id, {}).update({p: self.target_epoch for p in partitions})
        state = MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE
        return replace(m.with_epoch(self.target_epoch), state=state,
                       assigned_partitions=kept, partitions_pending_revocation={})


# What a heartbeat does to a member, by the member's state.
TRANSITIONS: dict[MemberState, Callable[[CurrentAssignmentBuilder], ConsumerGroupMember]] = {
    MemberState.STABLE: CurrentAssignmentBuilder._from_stable,
    MemberState.UNREVOKED_PARTITIONS: CurrentAssignmentBuilder._from_unrevoked,
    MemberState.UNRELEASED_PARTITIONS: CurrentAssignmentBuilder._from_unreleased,
    MemberState.UNKNOWN: CurrentAssignmentBuilder._from_unknown,
}
