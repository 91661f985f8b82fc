"""``GroupMetadataManager``: the classic groups of one ``__consumer_offsets`` partition.

Theory of operation
-------------------
This class answers the membership requests (JoinGroup, SyncGroup, Heartbeat,
LeaveGroup) and the read-only group queries (DescribeGroups, ListGroups) for
the groups that hash to its partition.  JoinGroup's many cases live in
`ClassicGroupJoin`; the timed machinery (rebalance start and completion,
session and sync deadlines) lives in `ClassicGroupRebalance`.  The groups
themselves, their timers and the GroupMetadata records written for them are
in a `ClassicGroupStore` that the shard builds and shares between these
collaborators and `OffsetMetadataManager`; none of them holds the manager.

How a consumer joins (JoinGroup v4+):

1. It sends ``member_id=""``; the coordinator invents ``<client.id>-<UUID>``,
   remembers it as *pending* and answers MEMBER_ID_REQUIRED with that id.
2. It rejoins with the id; it becomes a member and a rebalance starts (or, in
   a brand-new group, the initial rebalance delay starts).
3. When the join phase completes, every member gets the new generation; the
   leader also gets everyone's subscription, computes the assignment and sends
   it in its SyncGroup.  The coordinator writes the group (members and their
   assignments) to ``__consumer_offsets`` and, once committed, answers every
   parked SyncGroup with that member's assignment: the group is Stable.

A static member (``group.instance.id``) that restarts rejoins with an empty
member id: it gets a fresh id at once, replaces its old self without a
rebalance (the old id is fenced with FENCED_INSTANCE_ID), and keeps its
assignment.

State changes here are applied in memory first and written as GroupMetadata
records (Kafka does not replay these records on the write path); at load,
`replay` rebuilds every group from the records: groups with members come
back Stable, the others Empty.

Mirrors the classic-group paths of Kafka's ``GroupMetadataManager``
(classicGroupJoin*, classicGroupSync*, classicGroupHeartbeat*,
classicGroupLeave*, describeGroups, listGroups, replay, onLoaded, onUnloaded).
A group converted online (`consumer_group_migration`) changes hands here:
`hand_over_for_upgrade` lets a classic group go to the consumer groups,
`take_over_from_downgrade` takes in a classic group made from a consumer
group and rebalances it.
"""

from __future__ import annotations

from typing import Callable

from minikafka.common.errors import Errors, exception_for
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState
from minikafka.coordinator.classic_group_member import ClassicGroupMember
from minikafka.coordinator.classic_group_rebalance import ClassicGroupRebalance
from minikafka.coordinator.classic_group_store import ClassicGroupStore
from minikafka.coordinator.coordinator_context import CoordinatorContext
from minikafka.coordinator.records import GroupMetadataValue
from minikafka.coordinator.classic_group_join import ClassicGroupJoin
from minikafka.coordinator.requests import (
    UNKNOWN_MEMBER_ID, DescribedGroup, HeartbeatRequest, JoinGroupRequest, JoinGroupRequestProtocol,
    JoinGroupResponse, LeaveGroupRequest, LeaveGroupResponse, ListedGroup, MemberResponse,
    SyncGroupRequest, SyncGroupResponse,
)

S = ClassicGroupState
GroupIdNotFoundException = exception_for(Errors.GROUP_ID_NOT_FOUND)
UnknownMemberIdException = exception_for(Errors.UNKNOWN_MEMBER_ID)


class GroupMetadataManager:
    """Classic-group requests and replay, over the shard's `ClassicGroupStore` and `ClassicGroupRebalance`."""

    def __init__(self, ctx: CoordinatorContext, store: ClassicGroupStore, rebalance: ClassicGroupRebalance):
        self.ctx = ctx
        self.store = store
        self.groups = store.groups                # every group of this partition, by id (the store's)
        self.rebalance = rebalance
        self.joins = ClassicGroupJoin(ctx.config, ctx.node.rng, store, rebalance)

    # ------------------------------------------------------------------ lookups
    def group(self, group_id: str) -> ClassicGroup:
        return self.store.group(group_id)

    def remove_group(self, group_id: str) -> ClassicGroup | None:
        """Take an Empty group out at once (delete/expiry); its tombstone is being written."""
        return self.store.remove_group(group_id)

    def restore_group(self, group: ClassicGroup) -> None:
        """Undo `remove_group` after its tombstone failed to write, unless the id was reused."""
        self.store.restore_group(group)

    # ------------------------------------------------------------------ online migration
    def hand_over_for_upgrade(self, group: ClassicGroup) -> None:
        """The group became a consumer group: parked JoinGroup/SyncGroup requests are told to rejoin
        (REBALANCE_IN_PROGRESS), its timers stop, and it leaves this manager (convertToConsumerGroup)."""
        for member in group.all_members():
            group.complete_join(member, JoinGroupResponse(Errors.REBALANCE_IN_PROGRESS, member_id=member.member_id))
            group.complete_sync(member, SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS))
            self.store.cancel(("heartbeat", group.group_id, member.member_id))
        for member_id in list(group.pending_join_members):
            self.store.cancel(("heartbeat", group.group_id, member_id))
        self.groups.pop(group.group_id, None)

    def take_over_from_downgrade(self, group: ClassicGroup) -> None:
        """A consumer group became ``group``: every member's session clock starts and the group
        rebalances at once (convertToClassicGroup)."""
        self.groups[group.group_id] = group
        for member in group.all_members():
            self.rebalance.reschedule_heartbeat(group, member)
        self.rebalance.prepare_rebalance(
            group, "downgraded from a consumer group",
            f"Downgrade group {group.group_id} from consumer to classic for member leaving.")

    # ------------------------------------------------------------------ JoinGroup
    def join_group(self, request: JoinGroupRequest, respond: Callable[[JoinGroupResponse], None]) -> None:
        self.joins.join(request, respond)

    # ------------------------------------------------------------------ SyncGroup
    def sync_group(self, request: SyncGroupRequest, respond: Callable[[SyncGroupResponse], None]) -> None:
        group = self.groups.get(request.group_id)
        if group is None or group.is_empty():
            respond(SyncGroupResponse(Errors.UNKNOWN_MEMBER_ID))
            return
        error = self._validate_sync(group, request)
        if error is not Errors.NONE:
            respond(SyncGroupResponse(error))
        elif group.in_state(S.PREPARING_REBALANCE):
            respond(SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS))
        elif group.in_state(S.COMPLETING_REBALANCE):
            group.member(request.member_id).awaiting_sync = respond
            self.rebalance.remove_pending_sync_member(group, request.member_id)
            if group.is_leader(request.member_id):
                self._store_assignment(group, request)
        elif group.in_state(S.STABLE):
            self.rebalance.remove_pending_sync_member(group, request.member_id)
            member = group.member(request.member_id)
            respond(SyncGroupResponse(Errors.NONE, group.protocol_type, group.protocol_name,
                                      member.assignment))

    def _validate_sync(self, group: ClassicGroup, request: SyncGroupRequest) -> Errors:
        if group.in_state(S.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        error = group.validate_member(request.member_id, request.group_instance_id)
        if error is not Errors.NONE:
            return error
        if request.generation_id != group.generation_id:
            return Errors.ILLEGAL_GENERATION
        if (_inconsistent(request.protocol_type, group.protocol_type)
                or _inconsistent(request.protocol_name, group.protocol_name)):
            return Errors.INCONSISTENT_GROUP_PROTOCOL
        return Errors.NONE

    def _store_assignment(self, group: ClassicGroup, request: SyncGroupRequest) -> None:
        assignment = {a.member_id: a.assignment for a in request.assignments}
        for member in group.all_members():
            assignment.setdefault(member.member_id, b"")  # members the leader left out get nothing
        leader, generation = request.member_id, request.generation_id
        self.store.persist(group, assignment, lambda error: self.rebalance.on_assignment_write(
            group, generation, assignment, leader, error))

    # ------------------------------------------------------------------ Heartbeat
    def heartbeat(self, request: HeartbeatRequest) -> Errors:
        group = self.groups.get(request.group_id)
        if group is None:
            raise UnknownMemberIdException(f"Group {request.group_id} not found.")
        if group.in_state(S.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        error = group.validate_member(request.member_id, request.group_instance_id)
        if error is not Errors.NONE:
            return error
        if request.generation_id != group.generation_id:
            return Errors.ILLEGAL_GENERATION
        if group.is_empty():
            return Errors.UNKNOWN_MEMBER_ID
        self.rebalance.reschedule_heartbeat(group, group.member(request.member_id))
        if group.in_state(S.PREPARING_REBALANCE):
            return Errors.REBALANCE_IN_PROGRESS
        return Errors.NONE

    # ------------------------------------------------------------------ LeaveGroup
    def leave_group(self, request: LeaveGroupRequest) -> LeaveGroupResponse:
        group = self.groups.get(request.group_id)
        if group is None:
            return LeaveGroupResponse(members=tuple(
                MemberResponse(m.member_id, m.group_instance_id, Errors.UNKNOWN_MEMBER_ID)
                for m in request.members))
        if group.in_state(S.DEAD):
            return LeaveGroupResponse(Errors.COORDINATOR_NOT_AVAILABLE)
        responses = tuple(self._leave_one(group, m.member_id, m.group_instance_id, m.reason)
                          for m in request.members)
        left = [r.member_id for r in responses if r.error_code is Errors.NONE]
        if left:
            reason = f"member {left[0]} left" if len(left) == 1 else f"members [{', '.join(left)}] left"
            kafka_reason = f"explicit `LeaveGroup` request for ({', '.join(left)}) members."
            if group.in_state(S.STABLE, S.COMPLETING_REBALANCE):
                self.rebalance.maybe_prepare_rebalance_or_complete_join(group, reason, kafka_reason)
            elif group.in_state(S.PREPARING_REBALANCE):
                self.rebalance.maybe_complete_join_phase(group)
        return LeaveGroupResponse(Errors.NONE, responses)

    def _leave_one(self, group: ClassicGroup, member_id: str, instance_id: str | None,
                   reason: str | None) -> MemberResponse:
        why = f"left the group, client reason: {reason or 'not provided'}"
        if member_id == UNKNOWN_MEMBER_ID:
            # Administrative removal of a static member by its group.instance.id.
            if instance_id is None or instance_id not in group.static_members:
                return MemberResponse(member_id, instance_id, Errors.UNKNOWN_MEMBER_ID)
            self._remove_current_member(group, group.static_members[instance_id], why)
        elif group.is_pending_member(member_id):
            group.remove(member_id)
            self.store.cancel(("heartbeat", group.group_id, member_id))
        else:
            error = group.validate_member(member_id, instance_id)
            if error is not Errors.NONE:
                return MemberResponse(member_id, instance_id, error)
            self._remove_current_member(group, member_id, why)
        return MemberResponse(member_id, instance_id)

    def _remove_current_member(self, group: ClassicGroup, member_id: str, why: str) -> None:
        member = group.member(member_id)
        self.store.cancel(("heartbeat", group.group_id, member_id))
        group.complete_join(member, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=UNKNOWN_MEMBER_ID))
        group.remove(member_id)
        self.ctx.emit("group_member_removed", f"group {group.group_id}: member {member_id} removed "
                      f"({why})", group=group.group_id, member=member_id, reason=why)

    # ------------------------------------------------------------------ queries
    def describe_group(self, group_id: str, api_version: int) -> DescribedGroup:
        group = self.groups.get(group_id)
        if group is None:
            if api_version >= 6:
                return DescribedGroup(group_id, Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.",
                                      str(S.DEAD))
            return DescribedGroup(group_id, group_state=str(S.DEAD))
        stable = group.in_state(S.STABLE)
        protocol = group.protocol_name if stable else None
        return DescribedGroup(group_id, group_state=str(group.state),
                              protocol_type=group.protocol_type or "",
                              protocol_data=protocol or "",
                              members=tuple(m.describe(protocol) for m in group.all_members()))

    def list_groups(self, states: set[str], types: set[str]) -> list[ListedGroup]:
        listed = []
        for group in self.groups.values():
            if states and group.state.value.lower() not in states:
                continue
            if types and "classic" not in types:
                continue
            listed.append(ListedGroup(group.group_id, group.protocol_type or "", str(group.state)))
        return listed

    def validate_delete(self, group_id: str) -> None:
        group = self.group(group_id)
        if group.in_state(S.DEAD):
            raise GroupIdNotFoundException(f"Group {group_id} is in dead state.")
        if not group.in_state(S.EMPTY):
            raise exception_for(Errors.NON_EMPTY_GROUP)()

    # ------------------------------------------------------------------ load / unload
    def replay(self, group_id: str, value: GroupMetadataValue | None) -> None:
        if value is None:
            self.groups.pop(group_id, None)
            return
        group = ClassicGroup(group_id, self.ctx.now, S.STABLE if value.members else S.EMPTY,
                             value.generation, value.protocol_type or None, value.protocol,
                             value.leader, value.current_state_timestamp)
        for m in value.members:
            rebalance_timeout = m.session_timeout if m.rebalance_timeout == -1 else m.rebalance_timeout
            group.add(ClassicGroupMember(
                m.member_id, m.group_instance_id, m.client_id, m.client_host, rebalance_timeout,
                m.session_timeout, value.protocol_type,
                (JoinGroupRequestProtocol(value.protocol or "", m.subscription),), m.assignment))
        group.subscribed_topics = group.compute_subscribed_topics()
        self.groups[group_id] = group

    def on_loaded(self) -> None:
        """Start every loaded member's session clock; shrink groups over group.max.size."""
        for group in self.groups.values():
            for member in group.all_members():
                self.rebalance.reschedule_heartbeat(group, member)
            if len(group.members) > self.ctx.config.max_size:
                self.rebalance.prepare_rebalance(
                    group, f"{len(group.members)} members exceed group.max.size={self.ctx.config.max_size}",
                    f"Freshly-loaded group {group.group_id} (size {len(group.members)}) is over "
                    f"capacity {self.ctx.config.max_size}. Rebalancing in order to give a chance "
                    f"for consumers to commit offsets")

    def on_unloaded(self) -> None:
        """Mark every group Dead and tell parked requests to find the new coordinator."""
        for group in self.groups.values():
            previous = group.state
            group.transition_to(S.DEAD, self.ctx.now)
            for member in group.all_members():
                if previous is S.PREPARING_REBALANCE:
                    group.complete_join(member, JoinGroupResponse(Errors.NOT_COORDINATOR,
                                                                  member_id=member.member_id))
                elif previous in (S.COMPLETING_REBALANCE, S.STABLE):
                    group.complete_sync(member, SyncGroupResponse(Errors.NOT_COORDINATOR))


def _inconsistent(requested: str | None, actual: str | None) -> bool:
    return requested is not None and actual is not None and requested != actual

