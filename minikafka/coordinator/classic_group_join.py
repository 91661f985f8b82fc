"""How the coordinator answers a JoinGroup, path by path.

Theory of operation
-------------------
A JoinGroup falls into one of these cases:

* **unknown group**: created, if the member id is empty; otherwise the member
  is told UNKNOWN_MEMBER_ID (it should reset and join afresh);
* **group full** (``group.max.size``): GROUP_MAX_SIZE_REACHED;
* **new dynamic member** (empty id, no ``group.instance.id``): with v4+ it is
  given an id and asked to come back with it (MEMBER_ID_REQUIRED) -- a client
  that times out while parked then cannot leave ghost members behind; older
  versions join at once;
* **new static member**: joins at once; if its ``group.instance.id`` is
  already known it *replaces* the old member id (no rebalance when the group
  is Stable and the chosen protocol would not change);
* **known member**: during PreparingRebalance its request is parked; in
  CompletingRebalance/Stable an unchanged follower simply gets the current
  generation back, while the leader or a member with new metadata triggers a
  rebalance.

Protocols must be compatible: a first member needs a protocol type and at
least one protocol; later members must share the group's protocol type and
support at least one protocol every member supports, else
INCONSISTENT_GROUP_PROTOCOL.  A brand-new group is written to
``__consumer_offsets`` as an empty GroupMetadata record so that it survives
a coordinator move; if that write fails, the group is forgotten again.

Mirrors ``GroupMetadataManager.classicGroupJoinToClassicGroup`` and the
helpers it calls (classicGroupJoinNewMember, ...NewStaticMember,
...NewDynamicMember, ...ExistingMember, updateStaticMemberThenRebalanceOrCompleteJoin,
acceptJoiningMember).
"""

from __future__ import annotations

import random
from typing import Callable

from minikafka.common.errors import Errors, KafkaException
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState, IllegalStateException
from minikafka.coordinator.classic_group_member import ClassicGroupMember, generate_member_id
from minikafka.coordinator.classic_group_rebalance import ClassicGroupRebalance
from minikafka.coordinator.classic_group_store import ClassicGroupStore
from minikafka.coordinator.coordinator_context import coordinator_error
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.records import GroupMetadataValue, group_metadata_record
from minikafka.coordinator.requests import UNKNOWN_MEMBER_ID, JoinGroupRequest, JoinGroupResponse

S = ClassicGroupState
Respond = Callable[[JoinGroupResponse], None]


def _once(respond: Respond) -> Respond:
    """A response callback that answers at most once (a completed Java future ignores later values)."""
    answered = False

    def answer(response: JoinGroupResponse) -> None:
        nonlocal answered
        if not answered:
            answered = True
            respond(response)
    return answer


def join_reason(request: JoinGroupRequest) -> str:
    return request.reason or "not provided"


class ClassicGroupJoin:
    def __init__(self, config: GroupCoordinatorConfig, rng: random.Random, store: ClassicGroupStore,
                 rebalance: ClassicGroupRebalance):
        self.config = config                      # group.max.size
        self.rng = rng                            # the node's: new member ids
        self.store = store                        # the shard's groups, their timers, their records out
        self.rebalance = rebalance

    def join(self, request: JoinGroupRequest, respond: Respond) -> None:
        respond = _once(respond)
        is_unknown = request.member_id == UNKNOWN_MEMBER_ID
        is_new_group = request.group_id not in self.store.groups
        try:
            group = self.store.get_or_create(request.group_id, create=is_unknown)
        except KafkaException:
            respond(JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=request.member_id))
            return
        wrote = False
        if not self._accept_joining_member(group, request.member_id):
            group.remove(request.member_id)
            respond(JoinGroupResponse(Errors.GROUP_MAX_SIZE_REACHED, member_id=UNKNOWN_MEMBER_ID))
        elif is_unknown:
            wrote = self._join_new_member(request, group, respond)
        else:
            wrote = self._join_existing_member(request, group, respond)
        if is_new_group and not wrote:
            self._write_new_group(group, respond)

    def _write_new_group(self, group: ClassicGroup, respond: Respond) -> None:
        value = GroupMetadataValue("", 0, None, None, group.current_state_timestamp)

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                mapped = coordinator_error(error)
                self.store.drop_group(group, mapped)
                respond(JoinGroupResponse(mapped))
        self.store.write([group_metadata_record(group.group_id, value)], written)

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        limit = self.config.max_size
        if group.in_state(S.EMPTY, S.DEAD):
            return True
        if group.in_state(S.PREPARING_REBALANCE):
            # Counting parked members (not all members) lets the last rejoiners be turned away
            # when group.max.size was lowered.
            known = group.has_member(member_id) and group.member(member_id).is_awaiting_join
            return known or group.num_members_awaiting_join < limit
        return group.has_member(member_id) or len(group.members) < limit

    # ------------------------------------------------------------------ new members
    def _join_new_member(self, request: JoinGroupRequest, group: ClassicGroup, respond: Respond) -> bool:
        if group.in_state(S.DEAD):
            respond(JoinGroupResponse(Errors.COORDINATOR_NOT_AVAILABLE, member_id=UNKNOWN_MEMBER_ID))
            return False
        if not group.supports_protocols(request.protocol_type, {p.name for p in request.protocols}):
            respond(JoinGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id=UNKNOWN_MEMBER_ID))
            return False
        new_id = generate_member_id(request.client_id, request.group_instance_id, self.rng)
        instance_id = request.group_instance_id
        if instance_id is not None and instance_id in group.static_members:
            return self._replace_static_member(request, group, group.static_members[instance_id],
                                               new_id, respond)
        if instance_id is None and request.api_version >= 4:
            # Hand out the id and let the client come back with it.
            group.add_pending_member(new_id)
            self.store.schedule(("heartbeat", group.group_id, new_id), request.session_timeout_ms,
                              lambda: self.rebalance.expire_heartbeat(group.group_id, new_id))
            respond(JoinGroupResponse(Errors.MEMBER_ID_REQUIRED, member_id=new_id))
            return False
        self._add_member_then_rebalance(request, group, new_id, respond)
        return False

    def _add_member_then_rebalance(self, request: JoinGroupRequest, group: ClassicGroup,
                                   member_id: str, respond: Respond) -> None:
        member = ClassicGroupMember(member_id, request.group_instance_id, request.client_id,
                                    request.client_host, _rebalance_timeout(request),
                                    request.session_timeout_ms, request.protocol_type,
                                    request.protocols)
        member.is_new = True
        if group.in_state(S.PREPARING_REBALANCE) and group.previous_state is S.EMPTY:
            group.new_member_added = True         # extends the initial rebalance delay
        group.add(member, respond)
        # A parked new member cannot heartbeat; give up on it after the fixed join timeout.
        self.rebalance.reschedule_heartbeat(group, member, self.config.new_member_join_timeout_ms)
        instance = request.group_instance_id if request.group_instance_id is not None else "null"
        self.rebalance.maybe_prepare_rebalance_or_complete_join(
            group, f"member {member_id} joined",
            f"Adding new member {member_id} with group instance id {instance}; "
            f"client reason: {join_reason(request)}")

    # ------------------------------------------------------------------ known members
    def _join_existing_member(self, request: JoinGroupRequest, group: ClassicGroup,
                              respond: Respond) -> bool:
        member_id = request.member_id
        if group.in_state(S.DEAD):
            respond(JoinGroupResponse(Errors.COORDINATOR_NOT_AVAILABLE, member_id=member_id))
        elif not group.supports_protocols(request.protocol_type, {p.name for p in request.protocols}):
            respond(JoinGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id=member_id))
        elif group.is_pending_member(member_id):
            if request.group_instance_id is not None:
                raise IllegalStateException(
                    f"Received unexpected JoinGroup with groupInstanceId={request.group_instance_id} "
                    f"for pending member with memberId={member_id}")
            self._add_member_then_rebalance(request, group, member_id, respond)
        else:
            error = group.validate_member(member_id, request.group_instance_id)
            if error is not Errors.NONE:
                respond(JoinGroupResponse(error, member_id=member_id))
            else:
                self._rejoin(request, group, group.member(member_id), respond)
        return False

    def _rejoin(self, request: JoinGroupRequest, group: ClassicGroup, member: ClassicGroupMember,
                respond: Respond) -> None:
        member_id, why = member.member_id, join_reason(request)
        if group.in_state(S.PREPARING_REBALANCE):
            self._update_member_then_rebalance(
                request, group, member, f"member {member_id} rejoined",
                f"Member {member_id} is joining group during {group.state}; client reason: {why}", respond)
        elif group.in_state(S.COMPLETING_REBALANCE, S.STABLE):
            leader = group.is_leader(member_id)
            if group.in_state(S.STABLE) and leader:
                # The leader rejoins to make the group reassign (e.g. after topic metadata changed).
                self._update_member_then_rebalance(
                    request, group, member, f"leader {member_id} rejoined",
                    f"Leader {member_id} re-joining group during {group.state}; client reason: {why}",
                    respond)
            elif not member.matches(request.protocols):
                self._update_member_then_rebalance(
                    request, group, member, f"member {member_id} changed its subscription",
                    f"Updating metadata for member {member_id} during {group.state}; "
                    f"client reason: {why}", respond)
            else:
                # Same metadata (a lost JoinGroup response, say): repeat the current generation.
                respond(self._current_generation(group, member_id, with_members=leader
                                                 and group.in_state(S.COMPLETING_REBALANCE)))
        else:
            respond(JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=member_id))

    def _current_generation(self, group: ClassicGroup, member_id: str, with_members: bool,
                            skip_assignment: bool = False, leader: str | None = None) -> JoinGroupResponse:
        return JoinGroupResponse(Errors.NONE, group.generation_id, group.protocol_type,
                                 group.protocol_name,
                                 (group.leader_id if leader is None else leader) or "",
                                 skip_assignment, member_id,
                                 group.join_response_members() if with_members else ())

    def _update_member_then_rebalance(self, request: JoinGroupRequest, group: ClassicGroup,
                                      member: ClassicGroupMember, reason: str, kafka_reason: str,
                                      respond: Respond) -> None:
        group.update_member(member, request.protocols, _rebalance_timeout(request),
                            request.session_timeout_ms, respond)
        self.rebalance.maybe_prepare_rebalance_or_complete_join(group, reason, kafka_reason)

    # ------------------------------------------------------------------ static members
    def _replace_static_member(self, request: JoinGroupRequest, group: ClassicGroup, old_id: str,
                               new_id: str, respond: Respond) -> bool:
        instance_id = request.group_instance_id
        assert instance_id is not None
        previous_leader = group.leader_id
        member = group.replace_static_member(instance_id, old_id, new_id)
        self.rebalance.reschedule_heartbeat(group, member)
        old_settings = (member.supported_protocols, member.rebalance_timeout_ms, member.session_timeout_ms)
        group.update_member(member, request.protocols, _rebalance_timeout(request),
                            request.session_timeout_ms, respond)
        why = join_reason(request)
        if group.in_state(S.STABLE):
            if group.protocol_name == group.select_protocol():
                self._persist_static_replacement(request, group, member, old_id, old_settings,
                                                 previous_leader, respond)
                return True
            self.rebalance.maybe_prepare_rebalance_or_complete_join(
                group, f"static member {instance_id} rejoined with a different protocol",
                f"Group's selectedProtocol will change because static member {new_id} with instance id "
                f"{instance_id} joined with change of protocol; client reason: {why}")
        elif group.in_state(S.COMPLETING_REBALANCE):
            # The leader may already be assigning to the old id; start over.
            self.rebalance.prepare_rebalance(
                group, f"static member {instance_id} rejoined during the rebalance",
                f"Updating metadata for static member {new_id} with instance id {instance_id}; "
                f"client reason: {why}")
        elif group.in_state(S.EMPTY, S.DEAD):
            raise IllegalStateException(
                f"Group {group.group_id} was not supposed to be in the state {group.state} when the "
                f"unknown static member {instance_id} rejoins.")
        else:
            self.rebalance.maybe_complete_join_phase(group)
        return False

    def _persist_static_replacement(self, request: JoinGroupRequest, group: ClassicGroup,
                                    member: ClassicGroupMember, old_id: str, old_settings: tuple,
                                    previous_leader: str | None, respond: Respond) -> None:
        """Stable group, same protocol: store the new member id; no rebalance."""
        instance_id, new_id = request.group_instance_id, member.member_id
        assignment = {m.member_id: m.assignment for m in group.all_members()}

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                # Put the old member back; the new id never existed.
                group.update_member(member, *old_settings, None)
                restored = group.replace_static_member(instance_id, new_id, old_id)
                self.rebalance.reschedule_heartbeat(group, restored)
                respond(JoinGroupResponse(coordinator_error(error), group.generation_id,
                                          group.protocol_type, group.protocol_name,
                                          previous_leader or "", False, UNKNOWN_MEMBER_ID))
            elif request.api_version >= 9:
                # v9+: a static leader learns it leads but need not run the assignor again.
                leader = group.is_leader(new_id)
                group.complete_join(member, self._current_generation(group, new_id, leader, leader))
            else:
                group.complete_join(member, self._current_generation(group, new_id, False,
                                                                     leader=previous_leader))
        self.store.persist(group, assignment, written)


def _rebalance_timeout(request: JoinGroupRequest) -> int:
    # JoinGroup v0 has no rebalance timeout; Kafka uses the session timeout instead.
    if request.api_version == 0 or request.rebalance_timeout_ms < 0:
        return request.session_timeout_ms
    return request.rebalance_timeout_ms
