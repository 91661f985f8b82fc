"""The timed half of the classic protocol: rebalances, session expiry, sync expiry.

Theory of operation
-------------------
A rebalance starts (``prepare_rebalance``) when membership changes: a member
joins, rejoins with new metadata, leaves, or stops heartbeating; a leader
rejoining also starts one.  The group enters PreparingRebalance and parks
every JoinGroup until

* all known members have rejoined -- the join phase completes at once; or
* the *rebalance timeout* (the largest ``rebalance.timeout.ms`` among the
  members, ``max.poll.interval.ms`` for a consumer) passes -- dynamic members
  that did not rejoin are dropped and the rest go ahead (``DelayedJoin``);
* for a new, empty group: ``group.initial.rebalance.delay.ms`` passes with
  no further member arriving, so a burst of consumers starting together forms
  one generation instead of one per consumer (``InitialDelayedJoin``; each
  new arrival extends the wait by the delay again, up to the rebalance
  timeout).

Completing the join phase starts the next generation: every parked JoinGroup
is answered (the leader gets all members' subscriptions) and the coordinator
waits for SyncGroup.  If a member's SyncGroup does not come within the
rebalance timeout, it is dropped and a new rebalance starts (``DelayedSync``).

Every member has a session deadline, pushed forward by each heartbeat (and by
commits, and by answering its parked requests); when it passes, the member is
removed (``DelayedHeartbeat``).  New members get a fixed 5-minute deadline
while their first JoinGroup is parked.

Mirrors the private classic-group methods of Kafka's ``GroupMetadataManager``
(prepareRebalance, completeClassicGroupJoin, expireClassicGroupMemberHeartbeat,
expirePendingSync, propagateAssignment, ...).  Simplified: timer keys are
tuples; log lines become cluster events.
"""

from __future__ import annotations

from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState
from minikafka.coordinator.classic_group_member import ClassicGroupMember
from minikafka.coordinator.classic_group_store import ClassicGroupStore
from minikafka.coordinator.coordinator_context import CoordinatorContext, coordinator_error
from minikafka.coordinator.requests import UNKNOWN_MEMBER_ID, JoinGroupResponse, SyncGroupResponse

S = ClassicGroupState


class ClassicGroupRebalance:
    def __init__(self, ctx: CoordinatorContext, store: ClassicGroupStore):
        self.ctx = ctx                            # the clock, the events and the group coordinator config
        self.store = store                        # the shard's groups, their timers, their records out

    # ------------------------------------------------------------------ starting a rebalance
    def maybe_prepare_rebalance_or_complete_join(self, group: ClassicGroup, reason: str,
                                                 kafka_reason: str) -> None:
        if group.can_rebalance():
            self.prepare_rebalance(group, reason, kafka_reason)
        else:
            self.maybe_complete_join_phase(group)

    def prepare_rebalance(self, group: ClassicGroup, reason: str, kafka_reason: str) -> None:
        """Enter PreparingRebalance; ``reason`` is the event text, ``kafka_reason`` Kafka's log reason."""
        if group.in_state(S.COMPLETING_REBALANCE):
            # Members waiting on SyncGroup must rejoin instead.
            group.reset_assignments()
            self.propagate_assignment(group, Errors.REBALANCE_IN_PROGRESS)
        self.remove_sync_expiration(group)
        initial = group.is_empty()
        if initial:
            delay = self.ctx.config.initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            self.store.schedule(("join", group.group_id), delay,
                              lambda: self._initial_join_due(group.group_id, delay, remaining))
        group.transition_to(S.PREPARING_REBALANCE, self.ctx.now)
        self.ctx.emit("group_rebalance",
                      f"group {group.group_id}: {reason}, rebalancing (generation "
                      f"{group.generation_id} -> {group.generation_id + 1})",
                      group=group.group_id, generation=group.generation_id, reason=kafka_reason)
        if not initial:
            self._maybe_complete_join_else_schedule(group)

    def _maybe_complete_join_else_schedule(self, group: ClassicGroup) -> None:
        if group.has_all_members_joined():
            self.complete_join(group)
        else:
            self.store.schedule(("join", group.group_id), group.rebalance_timeout_ms(),
                              lambda: self._join_due(group.group_id))

    def _initial_join_due(self, group_id: str, delay: int, remaining: int) -> None:
        group = self.store.get(group_id)
        if group is None:
            return
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            new_delay = min(self.ctx.config.initial_rebalance_delay_ms, remaining)
            new_remaining = max(remaining - delay, 0)
            self.store.schedule(("join", group_id), new_delay,
                              lambda: self._initial_join_due(group_id, new_delay, new_remaining))
        else:
            self.complete_join(group)

    def _join_due(self, group_id: str) -> None:
        group = self.store.get(group_id)
        if group is not None:
            self.complete_join(group)

    def maybe_complete_join_phase(self, group: ClassicGroup) -> None:
        # The initial rebalance of a new group always waits for its delay.
        if (group.in_state(S.PREPARING_REBALANCE) and group.previous_state is not S.EMPTY
                and group.has_all_members_joined()):
            self.complete_join(group)

    # ------------------------------------------------------------------ completing the join phase
    def complete_join(self, group: ClassicGroup) -> None:
        self.store.cancel(("join", group.group_id))
        for failed in [m for m in group.not_yet_rejoined_members() if not m.is_static]:
            group.remove(failed.member_id)
            self.store.cancel(("heartbeat", group.group_id, failed.member_id))
            self._member_removed(group, failed.member_id, "it did not rejoin within the rebalance timeout")
        if group.in_state(S.DEAD):
            return
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Nobody rejoined: wait another rebalance timeout for sessions to expire.
            self.store.schedule(("join", group.group_id), group.rebalance_timeout_ms(),
                              lambda: self._join_due(group.group_id))
            return
        group.init_next_generation(self.ctx.now)
        if group.is_empty():
            self.ctx.emit("group_empty", f"group {group.group_id} generation {group.generation_id} "
                          f"is Empty: no members left", group=group.group_id,
                          generation=group.generation_id)
            # A failure only loses the Empty marker; the previous generation would just time out.
            self.store.persist(group, {}, lambda error: None)
            return
        self._answer_joins(group)

    def _answer_joins(self, group: ClassicGroup) -> None:
        self.ctx.emit("group_join_completed",
                      f"group {group.group_id} generation {group.generation_id}: "
                      f"{len(group.members)} members joined, protocol {group.protocol_name}, "
                      f"leader {group.leader_id}; waiting for the leader's SyncGroup",
                      group=group.group_id, generation=group.generation_id,
                      members=[m.member_id for m in group.all_members()],
                      leader=group.leader_id, protocol=group.protocol_name)
        for member in group.all_members():
            leader = group.is_leader(member.member_id)
            group.complete_join(member, JoinGroupResponse(
                Errors.NONE, group.generation_id, group.protocol_type, group.protocol_name,
                group.leader_id or "", False, member.member_id,
                group.join_response_members() if leader else ()))
            self.reschedule_heartbeat(group, member)
            member.is_new = False
            group.pending_sync_members[member.member_id] = None
        generation = group.generation_id
        self.store.schedule(("sync", group.group_id), group.rebalance_timeout_ms(),
                          lambda: self._sync_due(group.group_id, generation))

    # ------------------------------------------------------------------ SyncGroup deadline
    def _sync_due(self, group_id: str, generation_id: int) -> None:
        group = self.store.get(group_id)
        if group is None or group.generation_id != generation_id:
            return
        if not group.in_state(S.COMPLETING_REBALANCE, S.STABLE) or not group.pending_sync_members:
            return
        late = list(group.pending_sync_members)
        for member_id in late:
            group.remove(member_id)
            self.store.cancel(("heartbeat", group_id, member_id))
            self._member_removed(group, member_id, "its SyncGroup did not come within the rebalance timeout")
        ids = f"[{', '.join(late)}]"                     # printed as Java prints a collection
        self.prepare_rebalance(group, f"members {ids} did not send SyncGroup in time",
                               f"Removing {ids} on pending sync request expiration")

    def remove_sync_expiration(self, group: ClassicGroup) -> None:
        group.pending_sync_members.clear()
        self.store.cancel(("sync", group.group_id))

    def remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync_members.pop(member_id, None)
        if not group.in_state(S.COMPLETING_REBALANCE, S.STABLE) or not group.pending_sync_members:
            self.store.cancel(("sync", group.group_id))

    # ------------------------------------------------------------------ assignments
    def set_and_propagate_assignment(self, group: ClassicGroup, assignment: dict[str, bytes]) -> None:
        for member in group.members.values():
            member.assignment = assignment.get(member.member_id, b"")
        self.propagate_assignment(group, Errors.NONE)

    def propagate_assignment(self, group: ClassicGroup, error: Errors) -> None:
        ok = error is Errors.NONE
        for member in group.all_members():
            response = SyncGroupResponse(error, group.protocol_type if ok else None,
                                         group.protocol_name if ok else None, member.assignment)
            if group.complete_sync(member, response):
                # Answering a parked request restarts the member's session.
                self.reschedule_heartbeat(group, member)

    # ------------------------------------------------------------------ sessions
    def reschedule_heartbeat(self, group: ClassicGroup, member: ClassicGroupMember,
                             timeout_ms: int | None = None) -> None:
        timeout = member.session_timeout_ms if timeout_ms is None else timeout_ms
        group_id, member_id = group.group_id, member.member_id
        self.store.schedule(("heartbeat", group_id, member_id), timeout,
                          lambda: self.expire_heartbeat(group_id, member_id))

    def expire_heartbeat(self, group_id: str, member_id: str) -> None:
        group = self.store.get(group_id)
        if group is None or group.in_state(S.DEAD):
            return
        if group.is_pending_member(member_id):
            group.remove(member_id)
            self.maybe_finish_join_after_removal(group)
        elif group.has_member(member_id):
            member = group.member(member_id)
            if not member.has_satisfied_heartbeat():
                timeout = member.session_timeout_ms
                self.remove_member_and_update_group(
                    group, member, f"member {member_id} session expired",
                    f"removing member {member_id} on heartbeat expiration.",
                    f"no heartbeat within session.timeout.ms={timeout}")

    def remove_member_and_update_group(self, group: ClassicGroup, member: ClassicGroupMember,
                                       reason: str, kafka_reason: str, why: str) -> None:
        # A parked JoinGroup is answered first so a still-running client rejoins.
        group.complete_join(member, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID,
                                                      member_id=UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        self._member_removed(group, member.member_id, why)
        if group.in_state(S.STABLE, S.COMPLETING_REBALANCE):
            self.maybe_prepare_rebalance_or_complete_join(group, reason, kafka_reason)
        else:
            self.maybe_finish_join_after_removal(group)

    def maybe_finish_join_after_removal(self, group: ClassicGroup) -> None:
        if group.in_state(S.PREPARING_REBALANCE) and group.has_all_members_joined():
            self.complete_join(group)

    def _member_removed(self, group: ClassicGroup, member_id: str, why: str) -> None:
        self.ctx.emit("group_member_removed", f"group {group.group_id}: member {member_id} "
                      f"removed ({why})", group=group.group_id, member=member_id, reason=why)

    # ------------------------------------------------------------------ persistence failures
    def on_assignment_write(self, group: ClassicGroup, generation_id: int,
                            assignment: dict[str, bytes], leader_id: str, error: Errors) -> None:
        """The leader's assignment was (or was not) committed to ``__consumer_offsets``."""
        if not group.in_state(S.COMPLETING_REBALANCE) or group.generation_id != generation_id:
            return                                # a newer rebalance already took over
        if error is not Errors.NONE:
            mapped = coordinator_error(error)
            group.reset_assignments()
            self.propagate_assignment(group, mapped)
            self.maybe_prepare_rebalance_or_complete_join(
                group, f"storing the assignment failed with {mapped.name}",
                f"Error {mapped.name} when storing group assignment during SyncGroup (member: {leader_id}).")
            return
        self.set_and_propagate_assignment(group, assignment)
        group.transition_to(S.STABLE, self.ctx.now)
        self.ctx.emit("group_stable", f"group {group.group_id} generation {group.generation_id} is "
                      f"Stable: leader {leader_id} assigned {len(group.members)} members",
                      group=group.group_id, generation=group.generation_id, leader=leader_id)
