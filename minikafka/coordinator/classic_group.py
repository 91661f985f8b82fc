"""``ClassicGroup``: a consumer group under the classic (JoinGroup/SyncGroup) protocol.

Theory of operation
-------------------
A group moves through five states (the table `VALID_PREVIOUS_STATES` is the
whole state machine):

* **Empty** -- no members; offsets may still be committed (a "simple" group of
  standalone consumers lives here forever).
* **PreparingRebalance** -- members are (re)joining; JoinGroup requests are
  parked until everyone expected has joined or the rebalance timeout passes.
* **CompletingRebalance** -- the join phase is over: the generation went up,
  the leader got every member's subscription and computes the assignment;
  SyncGroup requests are parked until the leader sends it.
* **Stable** -- everyone has an assignment and heartbeats.
* **Dead** -- the group is gone from this coordinator (deleted, or the
  ``__consumer_offsets`` partition moved away).

Each completed join phase starts a new *generation*: the id goes up by one,
the protocol all members support with the most first-choice votes is
selected, and the first member to join (or the first still-joining member,
if the leader did not come back) leads.  Iteration order over members is
Java's HashMap order (`java_hash`), which decides the new leader when the
leader leaves and the order of members the leader receives.

Mirrors ``org.apache.kafka.coordinator.group.classic.ClassicGroup`` and
``ClassicGroupState``.

The topics a ``consumer`` group's members subscribe to are read from their
subscriptions each time a generation starts (and when the group is loaded):
OffsetDelete refuses to delete offsets of a topic the group subscribes to.
A group that is not a consumer group has no such set; a consumer group whose
subscriptions cannot be parsed (or that has not completed a join yet) counts
as subscribed to every topic, as Kafka's ``isSubscribedToTopic`` does.
Simplified: the set is not used for offset expiration of Stable groups.
"""

from __future__ import annotations

import enum
from collections import Counter
from typing import Iterable

from minikafka.common.errors import Errors, KafkaException, exception_for
import minikafka.coordinator.java_hash as java_hash
from minikafka.coordinator.byte_buffer_accessor import Reader
from minikafka.coordinator.classic_group_member import (
    EMPTY_ASSIGNMENT,
    ClassicGroupMember,
    JoinCallback,
)
from minikafka.coordinator.requests import (
    JoinGroupRequestProtocol,
    JoinGroupResponse,
    JoinGroupResponseMember,
    SyncGroupResponse,
)

NO_LEADER = ""
CONSUMER_PROTOCOL_TYPE = "consumer"         # ConsumerProtocol.PROTOCOL_TYPE


def subscribed_topics_of(metadata: bytes) -> list[str]:
    """The topics of a consumer's subscription, read as version 0 (the prefix every version keeps).

    Raises ValueError when the bytes are not a subscription (Kafka's SchemaException).
    """
    reader = Reader(metadata, "subscription")
    reader.int16()                                  # the subscription's own version: ignored
    topics = [reader.string() for _ in range(reader.array_length())]
    reader.nullable_bytes_field()                   # user data: must be there all the same
    return topics


class IllegalStateException(KafkaException):
    """An impossible state transition: a bug in the coordinator, never a client error."""

    @property
    def java_class(self) -> str:
        return "java.lang.IllegalStateException"


class ClassicGroupState(enum.Enum):
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


S = ClassicGroupState
VALID_PREVIOUS_STATES: dict[ClassicGroupState, tuple[ClassicGroupState, ...]] = {
    S.EMPTY: (S.PREPARING_REBALANCE,),
    S.PREPARING_REBALANCE: (S.STABLE, S.COMPLETING_REBALANCE, S.EMPTY),
    S.COMPLETING_REBALANCE: (S.PREPARING_REBALANCE,),
    S.STABLE: (S.COMPLETING_REBALANCE,),
    S.DEAD: (S.STABLE, S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE, S.EMPTY, S.DEAD),
}


class ClassicGroup:
    def __init__(self, group_id: str, now: int, state: ClassicGroupState = S.EMPTY,
                 generation_id: int = 0, protocol_type: str | None = None,
                 protocol_name: str | None = None, leader_id: str | None = None,
                 current_state_timestamp: int | None = None):
        self.group_id = group_id
        self.state = state
        self.previous_state = S.DEAD
        self.current_state_timestamp = now if current_state_timestamp is None else current_state_timestamp
        self.protocol_type = protocol_type          # None until the first member joins
        self.protocol_name = protocol_name          # selected protocol of this generation
        self.generation_id = generation_id          # goes up by one per completed join phase
        self.leader_id = leader_id                  # member id of the leader, or None
        self.members: dict[str, ClassicGroupMember] = {}  # by member id, insertion order
        self.static_members: dict[str, str] = {}    # group.instance.id -> member id
        self.pending_join_members: dict[str, None] = {}  # ids handed out with MEMBER_ID_REQUIRED
        self.pending_sync_members: dict[str, None] = {}  # members whose SyncGroup is still due
        self.num_members_awaiting_join = 0          # members with a parked JoinGroup
        self.supported_protocols: Counter[str] = Counter()  # protocol name -> members supporting it
        self.new_member_added = False               # extends the initial rebalance delay
        self._members_capacity = java_hash.DEFAULT_CAPACITY  # Java HashMap table size (never shrinks)
        self.subscribed_topics: frozenset[str] | None = None  # None: unknown (see module docstring)

    # ------------------------------------------------------------------ queries
    def in_state(self, *states: ClassicGroupState) -> bool:
        return self.state in states

    def is_empty(self) -> bool:
        return self.state is S.EMPTY

    def has_member(self, member_id: str) -> bool:
        return member_id in self.members

    def member(self, member_id: str) -> ClassicGroupMember:
        return self.members[member_id]

    def all_members(self) -> list[ClassicGroupMember]:
        """Members in Java HashMap iteration order, as Kafka walks them."""
        order = java_hash.hash_map_order(self.members, self._members_capacity)
        return [self.members[m] for m in order]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_join_members

    def has_all_members_joined(self) -> bool:
        return (len(self.members) == self.num_members_awaiting_join
                and not self.pending_join_members)

    def not_yet_rejoined_members(self) -> list[ClassicGroupMember]:
        return [m for m in self.all_members() if not m.is_awaiting_join]

    def validate_member(self, member_id: str, group_instance_id: str | None) -> Errors:
        """UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID when the caller is not the current member."""
        if group_instance_id is not None:
            current = self.static_members.get(group_instance_id)
            if current is None:
                return Errors.UNKNOWN_MEMBER_ID
            if current != member_id:
                return Errors.FENCED_INSTANCE_ID   # an older instance of a restarted static member
        return Errors.NONE if member_id in self.members else Errors.UNKNOWN_MEMBER_ID

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def can_rebalance(self) -> bool:
        return self.state in VALID_PREVIOUS_STATES[S.PREPARING_REBALANCE]

    # ------------------------------------------------------------------ membership
    def add(self, member: ClassicGroupMember, respond: JoinCallback | None = None) -> None:
        if member.group_instance_id is not None:
            if member.group_instance_id in self.static_members:
                raise IllegalStateException(
                    f"Static member with groupInstanceId={member.group_instance_id} cannot be "
                    f"added to group {self.group_id} since it is already a member.")
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.protocol_type != member.protocol_type:
            raise IllegalStateException("The group and member's protocol type must be the same.")
        if not self.supports_protocols(member.protocol_type, member.protocol_names()):
            raise IllegalStateException("None of the member's protocols can be supported.")
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self._members_capacity = java_hash.capacity_after(len(self.members), self._members_capacity)
        self.supported_protocols.update(member.protocol_names())
        member.awaiting_join = respond
        if respond is not None:
            self.num_members_awaiting_join += 1
        self.pending_join_members.pop(member.member_id, None)

    def remove(self, member_id: str) -> None:
        removed = self.members.pop(member_id, None)
        if removed is not None:
            self.supported_protocols.subtract(removed.protocol_names())
            if removed.is_awaiting_join:
                self.num_members_awaiting_join -= 1
            if removed.group_instance_id is not None:
                self.static_members.pop(removed.group_instance_id, None)
        if self.is_leader(member_id):
            remaining = self.all_members()
            self.leader_id = remaining[0].member_id if remaining else None
        self.pending_join_members.pop(member_id, None)
        self.pending_sync_members.pop(member_id, None)

    def add_pending_member(self, member_id: str) -> None:
        if member_id in self.members:
            raise IllegalStateException(f"Attempt to add pending member {member_id} which is "
                                        f"already a stable member of the group.")
        self.pending_join_members[member_id] = None

    def update_member(self, member: ClassicGroupMember, protocols: Iterable[JoinGroupRequestProtocol],
                      rebalance_timeout_ms: int, session_timeout_ms: int,
                      respond: JoinCallback | None) -> None:
        self.supported_protocols.subtract(member.protocol_names())
        member.supported_protocols = tuple(protocols)
        self.supported_protocols.update(member.protocol_names())
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if respond is not None and not member.is_awaiting_join:
            self.num_members_awaiting_join += 1
        elif respond is None and member.is_awaiting_join:
            self.num_members_awaiting_join -= 1
        member.awaiting_join = respond

    def replace_static_member(self, group_instance_id: str, old_member_id: str,
                              new_member_id: str) -> ClassicGroupMember:
        """Give a rejoining static member a new id; fence whatever waits on the old one."""
        old = self.members.pop(old_member_id, None)
        if old is None:
            raise ValueError(f"Cannot replace non-existing member id {old_member_id}")
        self.complete_join(old, JoinGroupResponse(Errors.FENCED_INSTANCE_ID, member_id=old_member_id,
                                                  leader=NO_LEADER))
        self.complete_sync(old, SyncGroupResponse(Errors.FENCED_INSTANCE_ID))
        new = ClassicGroupMember(new_member_id, old.group_instance_id, old.client_id,
                                 old.client_host, old.rebalance_timeout_ms, old.session_timeout_ms,
                                 old.protocol_type, old.supported_protocols, old.assignment)
        self.members[new_member_id] = new
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        return new

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep a leader that rejoined, else promote a member that did; False if none did."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].is_awaiting_join:
            return True
        for member in self.all_members():
            if member.is_awaiting_join:
                self.leader_id = member.member_id
                return True
        return False

    # ------------------------------------------------------------------ protocols
    def supports_protocols(self, protocol_type: str, protocols: set[str]) -> bool:
        if self.is_empty():
            return bool(protocol_type) and bool(protocols)
        return (self.protocol_type == protocol_type
                and any(self.supported_protocols[p] == len(self.members) for p in protocols))

    def select_protocol(self) -> str:
        """The protocol every member supports with the most first-choice votes."""
        if not self.members:
            raise IllegalStateException("Cannot select protocol for empty group")
        candidates = {p for p, n in self.supported_protocols.items() if n == len(self.members)}
        votes: dict[str, int] = {}
        for member in self.all_members():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        # Kafka keeps the first maximum in HashMap order when votes tie.
        order = java_hash.hash_map_order(votes)
        best = max(votes.values())
        return next(name for name in order if votes[name] == best)

    # ------------------------------------------------------------------ transitions
    def transition_to(self, target: ClassicGroupState, now: int) -> None:
        if self.state not in VALID_PREVIOUS_STATES[target]:
            allowed = ", ".join(str(s) for s in VALID_PREVIOUS_STATES[target])
            raise IllegalStateException(
                f"Group {self.group_id} should be in one of [{allowed}] states before moving to "
                f"{target} state. Instead it is in {self.state} state.")
        self.previous_state, self.state = self.state, target
        self.current_state_timestamp = now

    def init_next_generation(self, now: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(S.COMPLETING_REBALANCE, now)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(S.EMPTY, now)
        self.pending_sync_members.clear()

    # ------------------------------------------------------------------ subscriptions and OffsetDelete
    def uses_consumer_group_protocol(self) -> bool:
        return self.protocol_type == CONSUMER_PROTOCOL_TYPE

    def compute_subscribed_topics(self) -> frozenset[str] | None:
        """Every topic a member subscribes to; None when unknown (not a consumer group, no
        protocol selected, or a subscription that does not parse)."""
        if not self.uses_consumer_group_protocol():
            return None
        if not self.members:
            return frozenset()
        if self.protocol_name is None:
            return None
        try:
            return frozenset(topic for member in self.members.values()
                             for topic in subscribed_topics_of(member.metadata(self.protocol_name)))
        except ValueError:
            return None

    def is_subscribed_to_topic(self, topic: str) -> bool:
        if self.subscribed_topics is None:
            return self.uses_consumer_group_protocol()
        return topic in self.subscribed_topics

    def validate_offset_delete(self) -> None:
        """A Dead group does not exist; a live group may lose offsets only if it is a consumer group."""
        if self.in_state(S.DEAD):
            raise exception_for(Errors.GROUP_ID_NOT_FOUND)(f"Group {self.group_id} is in dead state.")
        if not self.in_state(S.EMPTY) and not self.uses_consumer_group_protocol():
            raise exception_for(Errors.NON_EMPTY_GROUP)()

    # ------------------------------------------------------------------ parked requests
    def complete_join(self, member: ClassicGroupMember, response: JoinGroupResponse) -> bool:
        if member.awaiting_join is None:
            return False
        respond, member.awaiting_join = member.awaiting_join, None
        self.num_members_awaiting_join -= 1
        respond(response)
        return True

    def complete_sync(self, member: ClassicGroupMember, response: SyncGroupResponse) -> bool:
        if member.awaiting_sync is None:
            return False
        respond, member.awaiting_sync = member.awaiting_sync, None
        respond(response)
        return True

    def join_response_members(self) -> tuple[JoinGroupResponseMember, ...]:
        """What the leader receives: every member's metadata for the selected protocol."""
        if self.in_state(S.DEAD, S.PREPARING_REBALANCE):
            raise IllegalStateException(f"Cannot obtain classic member metadata for group "
                                        f"{self.group_id} in state {self.state}")
        return tuple(JoinGroupResponseMember(m.member_id, m.group_instance_id,
                                             m.metadata(self.protocol_name))
                     for m in self.all_members())

    def reset_assignments(self) -> None:
        for member in self.members.values():
            member.assignment = EMPTY_ASSIGNMENT

    def __repr__(self) -> str:
        return (f"ClassicGroupMetadata(groupId={self.group_id}, generation={self.generation_id}, "
                f"protocolType={self.protocol_type}, currentState={self.state}, "
                f"members={list(self.members.values())})")
