"""``ConsumerGroupHeartbeat``: the KIP-848 consumer groups of one ``__consumer_offsets`` partition.

Theory of operation
-------------------
A consumer-protocol member has one request, ``ConsumerGroupHeartbeat``,
sent every ``group.consumer.heartbeat.interval.ms``.  Its member epoch says
what it is doing:

* **0** -- join (or rejoin after being fenced) with a full description:
  subscription, rebalance timeout, owned partitions (none);
* **> 0** -- heartbeat: "I am at this epoch and own these partitions";
* **-1** -- leave for good; **-2** -- a static member leaving for a while
  (it keeps its partitions until its session times out or it comes back with
  the same ``group.instance.id``).

Handling one heartbeat (`consumer_group_heartbeat`) is three steps, each of
which may write records:

1. **update the member** (new member, changed subscription, new client
   fields: a ``ConsumerGroupMemberMetadata`` record); if the subscriptions
   or the subscribed topics' metadata changed, **bump the group epoch**
   (``ConsumerGroupMetadata``);
2. if the group epoch is past the target assignment epoch, **compute the
   new target** (`TargetAssignmentBuilder`: ``ConsumerGroupTargetAssignment*``
   records) -- at most once per ``group.consumer.assignment.interval.ms``
   (1 s): a member heartbeating sooner reconciles towards the last target,
   and the first heartbeat after the interval computes the new one;
3. **reconcile the member** one step towards its target
   (`CurrentAssignmentBuilder`: ``ConsumerGroupCurrentMemberAssignment``).

The answer carries the member's epoch and, when it changed (or the request
was a full one), its assigned partitions.

Nothing here changes a group directly: the handler computes from the
current state and returns the records, and the records are then *replayed*
(`replay`) to change the state -- the same code a coordinator runs when it
loads the partition after a failover.  So replaying the records a sequence
of heartbeats wrote into an empty coordinator gives the same groups.  An
error answers with its code and Kafka's text and writes nothing.

Time is explicit: every call takes ``now_ms``, and the result lists the
timers the caller must (re)arm or cancel (`TimerChange`): a **session
timeout** per member (``group.consumer.session.timeout.ms`` after its last
heartbeat; when it fires, call `on_session_timeout`: the member is fenced),
and a **rebalance timeout** while a member owes a revocation (its
``rebalance.timeout.ms``; when it fires, call `on_rebalance_timeout`: the
member is fenced if it is still in the same epoch).

**Classic members.**  A consumer group also serves members that speak the
classic protocol (kafka-python, or any consumer with
``group.protocol=classic``), as 4.3.1 does:

* *JoinGroup* (`classic_group_join`) is handled as a joining heartbeat whose
  subscription comes from the member's ``ConsumerProtocolSubscription`` (its
  owned partitions, if any, count as owned); the member keeps its protocols
  and session timeout as its classic member metadata.  The answer has the
  member epoch as generation, protocol type ``consumer``, the member's first
  protocol name and *no leader* -- nobody computes an assignment.  Refused
  with INCONSISTENT_GROUP_PROTOCOL when the migration policy is ``disabled``
  or the protocols do not match the other classic members';
* *SyncGroup* (`classic_group_sync`) answers the member's current partitions
  as a ``ConsumerProtocolAssignment``, or REBALANCE_IN_PROGRESS when a newer
  target awaits it and it is not revoking;
* *Heartbeat* (`classic_group_heartbeat`) answers REBALANCE_IN_PROGRESS when
  the member must rejoin to move on (behind the target epoch, owing a
  revocation, or waiting for partitions that are free now): a classic member
  reconciles by rejoining;
* *LeaveGroup* (`classic_group_leave`) fences the members named.

Their timers: the session timeout of their JoinGroup (not
``group.consumer.session.timeout.ms``), a *sync* timer (the rebalance timeout
to send SyncGroup after a JoinGroup) and a *join* timer (the rebalance
timeout to rejoin after being told REBALANCE_IN_PROGRESS); each fences the
member when it fires.

**Conversion.**  A joining heartbeat given a non-empty classic group
(``classic_group``) converts it first (`consumer_group_migration`: refused
with GROUP_ID_NOT_FOUND and 4.3.1's texts when not allowed); fencing the
last consumer-protocol member of a group whose other members all use the
classic protocol turns it into a classic group instead of bumping the epoch
(``CoordinatorResult.downgraded_to``; the shard hands it to the classic side).

Mirrors the consumer-group paths of Kafka's ``GroupMetadataManager``
(consumerGroupHeartbeat, consumerGroupLeave, consumerGroupFenceMembers,
the session and rebalance timers, replay of the consumer-group records,
classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup and
the join/sync timeouts of classic members) and
the request validation of ``GroupCoordinatorService``
(throwIfConsumerGroupHeartbeatRequestIsInvalid).  Driven side by side with
4.3.1's own ``GroupMetadataManager`` through 120 seeded random histories (40
to 120 requests each: joins with and without a requested assignor, heartbeats,
leaves, static leaves and returns, time passing), 119 wrote the same records
and gave the same answers throughout, up to three things: the metadata hash
value, the order of partitions inside assignment records (sorted here; Kafka
writes its hash maps' order) and the order of the target-assignment records of
two member ids that share a hash bucket (Kafka: the order they entered its
hash table).  Simplified: regular
expressions are resolved synchronously against the topics image (Kafka
resolves them in the background and records them as
``ConsumerGroupRegularExpression``) with Python's ``re`` in full-match mode
(Kafka uses RE2/J); as in Kafka, a regex no member used before bumps the
group epoch only if what it matches changes the metadata hash (a regex that
matches nothing joins at the group's epoch), but here in the same heartbeat,
where Kafka bumps once its background resolution is done; the metadata hash
is recomputed on every heartbeat (Kafka: when a subscription changes or a metadata update touches a subscribed
topic -- the same outcome); no per-group configs; a classic static member
rejoining with a new member id does not replace the old one (Kafka: it does,
and may downgrade the group then); the classic paths' error texts are not
sent (the classic APIs carry no message), so only their codes are 4.3.1's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from minikafka.common.errors import Errors, KafkaException, exception_for
from minikafka.common.uuid import Uuid
from minikafka.coordinator.classic_group import ClassicGroup
from minikafka.coordinator.consumer_group import ConsumerGroup, IllegalStateException
from minikafka.coordinator.consumer_group_migration import (
    classic_group_from_consumer_group, classic_member_metadata_of, consumer_group_members_from_classic_group,
    consumer_group_tombstones, consumer_protocol_assignment, validate_online_downgrade_with_fenced_members,
    validate_online_upgrade,
)
from minikafka.coordinator.consumer_group_migration_policy import ConsumerGroupMigrationPolicy
from minikafka.coordinator.consumer_protocol import (
    PROTOCOL_TYPE, deserialize_subscription, deserialize_version, serialize_assignment,
)
from minikafka.coordinator.consumer_group_member import (
    JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, Assignment,
    ConsumerGroupMember, MemberState, PartitionEpochs,
)
from minikafka.coordinator.consumer_group_records import (
    ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue, ConsumerGroupPartitionMetadataKey, ConsumerGroupRecord,
    ClassicMemberMetadata, ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMetadataKey,
    TopicPartitionEpochs, decode_classic_member_metadata, encode_classic_member_metadata,
)
from minikafka.coordinator.current_assignment_builder import CurrentAssignmentBuilder
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.partition_assignor import PartitionAssignor, PartitionAssignorException
from minikafka.coordinator.range_assignor import RangeAssignor
from minikafka.coordinator.requests import (
    UNKNOWN_MEMBER_ID, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, MemberResponse, SyncGroupRequest, SyncGroupResponse,
)
from minikafka.coordinator.target_assignment_builder import (
    TargetAssignmentBuilder, target_assignment_member_record, target_assignment_metadata_record,
)
from minikafka.coordinator.topic_metadata import TopicsImage, group_metadata_hash
from minikafka.coordinator.uniform_assignor import UniformAssignor

InvalidRequestException = exception_for(Errors.INVALID_REQUEST)
UnsupportedAssignorException = exception_for(Errors.UNSUPPORTED_ASSIGNOR)
InvalidRegularExpression = exception_for(Errors.INVALID_REGULAR_EXPRESSION)
FencedMemberEpochException = exception_for(Errors.FENCED_MEMBER_EPOCH)
UnknownMemberIdException = exception_for(Errors.UNKNOWN_MEMBER_ID)
UnreleasedInstanceIdException = exception_for(Errors.UNRELEASED_INSTANCE_ID)
FencedInstanceIdException = exception_for(Errors.FENCED_INSTANCE_ID)
GroupIdNotFoundException = exception_for(Errors.GROUP_ID_NOT_FOUND)
GroupMaxSizeReachedException = exception_for(Errors.GROUP_MAX_SIZE_REACHED)
UnknownServerException = exception_for(Errors.UNKNOWN_SERVER_ERROR)
InconsistentGroupProtocolException = exception_for(Errors.INCONSISTENT_GROUP_PROTOCOL)
IllegalGenerationException = exception_for(Errors.ILLEGAL_GENERATION)

CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION = 1   # from v1 the client makes up its member id

ASSIGNORS: dict[str, Callable[[], PartitionAssignor]] = {
    "uniform": UniformAssignor,
    "range": RangeAssignor,
}

# RE2/J's descriptions (what Kafka prints) for the errors Python's re reports differently.
_RE2_DESCRIPTIONS = (
    ("missing ), unterminated subpattern", "missing closing )"),
    ("unterminated character set", "missing closing ]"),
    ("nothing to repeat", "missing argument to repetition operator"),
    ("unbalanced parenthesis", "unexpected )"),
    ("multiple repeat", "invalid nested repetition operator"),
    ("bad escape (end of pattern)", "trailing backslash at end of expression"),
    ("bad escape", "invalid escape sequence"),
    ("bad character range", "invalid character class range"),
)


# ---------------------------------------------------------------------------- request / response
@dataclass(frozen=True)
class ConsumerGroupHeartbeatRequest:
    group_id: str
    member_id: str = ""
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: tuple[str, ...] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: tuple[tuple[Uuid, tuple[int, ...]], ...] | None = None   # owned partitions


@dataclass(frozen=True)
class ConsumerGroupHeartbeatResponse:
    error: Errors = Errors.NONE
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: tuple[tuple[Uuid, tuple[int, ...]], ...] | None = None   # None: unchanged


@dataclass(frozen=True)
class TimerChange:
    """Arm (``deadline_ms`` set) or cancel (None) one member's timer; a new arm replaces the old."""

    kind: str                      # "session", "rebalance", or for classic members "join" / "sync"
    group_id: str
    member_id: str
    deadline_ms: int | None
    member_epoch: int = 0          # rebalance: the epoch the member must have left by the deadline
    if_absent: bool = False        # arm only if not armed already (the classic members' join timer)


@dataclass
class CoordinatorResult:
    records: list[ConsumerGroupRecord] = field(default_factory=list)
    response: Any = None           # a ConsumerGroupHeartbeatResponse, or a classic API's response
    timers: list[TimerChange] = field(default_factory=list)
    upgraded_from: ClassicGroup | None = None     # converted to a consumer group: its tombstone goes first
    downgraded_to: ClassicGroup | None = None     # the consumer group became this classic group


# ---------------------------------------------------------------------------- records
def member_metadata_record(group_id: str, m: ConsumerGroupMember) -> ConsumerGroupRecord:
    return ConsumerGroupRecord(
        ConsumerGroupMemberMetadataKey(group_id, m.member_id),
        ConsumerGroupMemberMetadataValue(m.instance_id, m.rack_id, m.client_id, m.client_host,
                                         tuple(m.subscribed_topic_names), m.subscribed_topic_regex,
                                         m.rebalance_timeout_ms, m.server_assignor_name,
                                         encode_classic_member_metadata(m.classic_member_metadata)))


def _topic_partition_epochs(partitions: PartitionEpochs) -> TopicPartitionEpochs:
    out = []
    for topic_id, by_partition in sorted(partitions.items()):
        ps = tuple(sorted(by_partition))
        out.append((topic_id, ps, tuple(by_partition[p] for p in ps)))
    return tuple(out)


def current_assignment_record(group_id: str, m: ConsumerGroupMember) -> ConsumerGroupRecord:
    return ConsumerGroupRecord(
        ConsumerGroupCurrentMemberAssignmentKey(group_id, m.member_id),
        ConsumerGroupCurrentMemberAssignmentValue(
            m.member_epoch, m.previous_member_epoch, m.state.value,
            _topic_partition_epochs(m.assigned_partitions),
            _topic_partition_epochs(m.partitions_pending_revocation)))


def epoch_record(group_id: str, epoch: int, metadata_hash: int) -> ConsumerGroupRecord:
    return ConsumerGroupRecord(ConsumerGroupMetadataKey(group_id),
                               ConsumerGroupMetadataValue(epoch, metadata_hash))


def remove_member_records(group_id: str, member_id: str) -> list[ConsumerGroupRecord]:
    """The member's tombstones, in the order Kafka writes them (current, target, subscription)."""
    return [ConsumerGroupRecord(ConsumerGroupCurrentMemberAssignmentKey(group_id, member_id), None),
            ConsumerGroupRecord(ConsumerGroupTargetAssignmentMemberKey(group_id, member_id), None),
            ConsumerGroupRecord(ConsumerGroupMemberMetadataKey(group_id, member_id), None)]


def validate_request(request: ConsumerGroupHeartbeatRequest, api_version: int,
                     assignors: tuple[str, ...]) -> None:
    """GroupCoordinatorService's checks, with Kafka 4.3.1's texts (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR)."""
    r = request
    if (api_version >= CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION or r.member_epoch > 0
            or r.member_epoch == LEAVE_GROUP_MEMBER_EPOCH):
        _throw_if_empty(r.member_id, "MemberId can't be empty.")
    _throw_if_empty(r.group_id, "GroupId can't be empty.")
    _throw_if_empty(r.instance_id, "InstanceId can't be empty.")
    _throw_if_empty(r.rack_id, "RackId can't be empty.")
    if r.member_epoch == JOIN_GROUP_MEMBER_EPOCH:
        if r.rebalance_timeout_ms == -1:
            raise InvalidRequestException("RebalanceTimeoutMs must be provided in first request.")
        if r.topic_partitions is None or r.topic_partitions:      # null is refused too: an empty list it must be
            raise InvalidRequestException("TopicPartitions must be empty when (re-)joining.")
        if r.subscribed_topic_names is None and r.subscribed_topic_regex is None:
            raise InvalidRequestException(
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
    elif r.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if r.instance_id is None:
            raise InvalidRequestException("InstanceId can't be null.")
    elif r.member_epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        raise InvalidRequestException("MemberEpoch is invalid.")
    if r.server_assignor is not None and r.server_assignor not in assignors:
        raise UnsupportedAssignorException(
            f"ServerAssignor {r.server_assignor} is not supported. Supported assignors: {', '.join(assignors)}.")


def _throw_if_empty(value: str | None, message: str) -> None:
    if value is not None and not value.strip():
        raise InvalidRequestException(message)


def compile_regex(regex: str) -> re.Pattern:
    """Compile a subscription regex, or INVALID_REGULAR_EXPRESSION in Kafka's words."""
    try:
        return re.compile(regex)
    except re.error as exc:
        description = next((re2 for py, re2 in _RE2_DESCRIPTIONS if exc.msg.startswith(py)), exc.msg)
        raise InvalidRegularExpression(
            f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {description}.") from None


def _session_timeout(member: ConsumerGroupMember, config: GroupCoordinatorConfig) -> int:
    """A classic-protocol member keeps the session timeout of its JoinGroup; the others the broker's."""
    if member.classic_member_metadata is not None:
        return member.classic_member_metadata.session_timeout_ms
    return config.consumer_group_session_timeout_ms


def _supports_classic_protocols(group: ConsumerGroup, request: JoinGroupRequest) -> bool:
    """ConsumerGroup.supportsClassicProtocols: the ``consumer`` type, and a protocol every classic
    member supports (any protocol when there is no classic member yet)."""
    if request.protocol_type != PROTOCOL_TYPE or not request.protocols:
        return False
    classic = [m.classic_member_metadata for m in group.members.values() if m.classic_member_metadata is not None]
    return any(all(any(name == p.name for name, _ in c.supported_protocols) for c in classic)
               for p in request.protocols)


def _waiting_on_unreleased_partition(group: ConsumerGroup, member: ConsumerGroupMember) -> bool:
    """Does a partition of the member's target still belong to another member?"""
    for topic_id, partitions in group.target_assignment_of(member.member_id).items():
        assigned = member.assigned_partitions.get(topic_id, {})
        if any(p not in assigned and group.partition_epoch(topic_id, p) != -1 for p in partitions):
            return True
    return False


def can_compute_next_target_assignment(last_assignment_ms: int, interval_ms: int, now_ms: int) -> bool:
    """A new target may be computed if none was yet, the interval is 0, or the interval has passed."""
    return last_assignment_ms == 0 or interval_ms == 0 or now_ms >= last_assignment_ms + interval_ms


def _is_subset(owned: tuple[tuple[Uuid, tuple[int, ...]], ...] | None, assigned: PartitionEpochs) -> bool:
    if owned is None:
        return False
    return all(p in assigned.get(t, {}) for t, ps in owned for p in ps)


# ---------------------------------------------------------------------------- the manager
class ConsumerGroupHeartbeat:
    def __init__(self, config: GroupCoordinatorConfig, topics: Callable[[], TopicsImage],
                 new_member_id: Callable[[], str]):
        self.config = config
        self.topics = topics                       # the current metadata image, read on each call
        self.new_member_id = new_member_id         # for v0 clients that let the coordinator pick
        self.groups: dict[str, ConsumerGroup] = {}
        self.assignors = {name: ASSIGNORS[name]() for name in config.consumer_group_assignors}
        self.default_assignor = config.consumer_group_assignors[0]

    # ------------------------------------------------------------------ entry points
    def consumer_group_heartbeat(self, request: ConsumerGroupHeartbeatRequest, now_ms: int, *,
                                 client_id: str = "", client_host: str = "",
                                 api_version: int = 1, classic_group: ClassicGroup | None = None) -> CoordinatorResult:
        """Answer one heartbeat; on success the records are already replayed into the group.

        ``classic_group``: the non-empty classic group of that id, if there is one: a joining
        member converts it (`consumer_group_migration`), any other heartbeat is refused."""
        try:
            validate_request(request, api_version, tuple(self.assignors))
            if classic_group is not None:
                if request.member_epoch != JOIN_GROUP_MEMBER_EPOCH:
                    raise GroupIdNotFoundException(f"Group {request.group_id} is not a consumer group.")
                result = self._upgrade(classic_group, request, now_ms, client_id, client_host)
            elif request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                result = self._leave(request, now_ms)
            else:
                result = self._heartbeat(request, now_ms, client_id, client_host)
        except KafkaException as exc:
            return CoordinatorResult(response=ConsumerGroupHeartbeatResponse(exc.error, exc.message))
        self._replay_all(result.records)
        return result

    def _upgrade(self, classic: ClassicGroup, r: ConsumerGroupHeartbeatRequest, now_ms: int,
                 client_id: str, client_host: str) -> CoordinatorResult:
        """Convert ``classic`` to a consumer group, then let the joining member in."""
        validate_online_upgrade(classic, self.config)
        image, gid, epoch = self.topics(), classic.group_id, classic.generation_id
        members = consumer_group_members_from_classic_group(classic, image)
        names = {n for m in members for n in m.subscribed_topic_names}
        records = [member_metadata_record(gid, m) for m in members]
        records.append(epoch_record(gid, epoch, group_metadata_hash(image, names)))
        records.extend(target_assignment_member_record(gid, m.member_id, {t: frozenset(ps) for t, ps in
                                                                         m.assigned_partitions.items()})
                       for m in members)
        records.append(target_assignment_metadata_record(gid, epoch, 0))
        records.extend(current_assignment_record(gid, m) for m in members)
        converted = ConsumerGroup(gid)             # what the records make, for the heartbeat to start from
        for record in records:
            self._apply(converted, record)
        result = self._heartbeat(r, now_ms, client_id, client_host, group=converted, records=records)
        result.upgraded_from = classic
        result.timers = [TimerChange("session", gid, m.member_id, now_ms + _session_timeout(m, self.config))
                         for m in members] + result.timers
        return result

    # ------------------------------------------------------------------ classic members (JoinGroup & co)
    def classic_group_join(self, request: JoinGroupRequest, now_ms: int) -> CoordinatorResult:
        """A classic member's JoinGroup to this non-empty consumer group: it joins (or rejoins) as a
        member using the classic protocol; the answer carries its member epoch as generation and no
        leader (the coordinator assigns).  Records are replayed once computed."""
        group = self.groups[request.group_id]
        try:
            result = self._classic_join(group, request, now_ms)
        except KafkaException as exc:
            return CoordinatorResult(response=JoinGroupResponse(exc.error, member_id=request.member_id))
        self._replay_all(result.records)
        return result

    def _classic_join(self, group: ConsumerGroup, request: JoinGroupRequest, now_ms: int) -> CoordinatorResult:
        gid = group.group_id
        if self.config.consumer_group_migration_policy is ConsumerGroupMigrationPolicy.DISABLED:
            raise InconsistentGroupProtocolException(
                f"Cannot join the consumer group {gid} with the classic protocol because the group "
                f"migration is disabled.")
        unknown = request.member_id == UNKNOWN_MEMBER_ID
        member_id = self.new_member_id() if unknown else request.member_id
        if len(group.members) >= self.config.consumer_group_max_size and not group.has_member(member_id):
            raise GroupMaxSizeReachedException(
                f"The consumer group has reached its maximum capacity of "
                f"{self.config.consumer_group_max_size} members.")
        if not _supports_classic_protocols(group, request):
            raise InconsistentGroupProtocolException(
                f"Member {member_id} can't join the group because its protocols are not supported by the "
                f"other members of group {gid}.")
        if unknown and request.group_instance_id is None and request.api_version >= 4:
            return CoordinatorResult(response=JoinGroupResponse(Errors.MEMBER_ID_REQUIRED, member_id=member_id))
        try:
            subscription = deserialize_subscription(request.protocols[0].metadata)
        except ValueError:
            raise InconsistentGroupProtocolException(
                f"Member {member_id} sent a malformed consumer protocol subscription.") from None
        image = self.topics()
        owned = []
        for topic_name, partitions in subscription.owned_partitions or ():
            topic = image.by_name(topic_name)
            if topic is not None:
                owned.append((topic.topic_id, tuple(partitions)))
        heartbeat = ConsumerGroupHeartbeatRequest(
            gid, member_id, JOIN_GROUP_MEMBER_EPOCH, request.group_instance_id, subscription.rack_id,
            request.rebalance_timeout_ms, tuple(subscription.topics), "", None, tuple(owned))
        classic = classic_member_metadata_of(request.session_timeout_ms, request.protocols)
        result = self._heartbeat(heartbeat, now_ms, request.client_id, request.client_host, classic=classic)
        epoch = result.response.member_epoch
        result.response = JoinGroupResponse(Errors.NONE, epoch, PROTOCOL_TYPE, request.protocols[0].name,
                                            "", False, member_id)
        result.timers += [TimerChange("join", gid, member_id, None),
                          TimerChange("sync", gid, member_id, now_ms + max(0, request.rebalance_timeout_ms))]
        return result

    def _classic_member(self, group: ConsumerGroup, member_id: str, instance_id: str | None) -> ConsumerGroupMember:
        """validateConsumerGroupMember, then the member must use the classic protocol."""
        if instance_id is None:
            member = group.member(member_id)
        else:
            member = group.static_member(instance_id)
            if member is None:
                raise UnknownMemberIdException(
                    f"Member with instance id {instance_id} is not a member of group {group.group_id}.")
            if member.member_id != member_id:
                raise FencedInstanceIdException(
                    f"Static member {member_id} with instance id {instance_id} is fenced by existing member "
                    f"{member.member_id}.")
        if not member.uses_classic_protocol:
            raise UnknownMemberIdException(f"Member {member.member_id} does not use the classic protocol.")
        return member

    @staticmethod
    def _check_generation(member: ConsumerGroupMember, generation_id: int) -> None:
        if generation_id != member.member_epoch:
            raise IllegalGenerationException(
                f"The request generation id {generation_id} is not equal to the member epoch "
                f"{member.member_epoch} of member {member.member_id}.")

    def classic_group_sync(self, request: SyncGroupRequest, now_ms: int) -> CoordinatorResult:
        """SyncGroup: the member's current partitions as a ConsumerProtocolAssignment, or
        REBALANCE_IN_PROGRESS when a newer target awaits it (it must rejoin)."""
        group = self.groups[request.group_id]
        try:
            member = self._classic_member(group, request.member_id, request.group_instance_id)
            self._check_generation(member, request.generation_id)
            protocols = member.classic_member_metadata.supported_protocols  # type: ignore[union-attr]
            if request.protocol_type is not None and request.protocol_type != PROTOCOL_TYPE:
                raise InconsistentGroupProtocolException(
                    f"The protocol type {request.protocol_type} from member {member.member_id} request is not "
                    f"equal to the group protocol type {PROTOCOL_TYPE}.")
            if request.protocol_name is not None and request.protocol_name != protocols[0][0]:
                raise InconsistentGroupProtocolException(
                    f"The protocol name {request.protocol_name} from member {member.member_id} request is not "
                    f"equal to the protocol name {protocols[0][0]} returned in the join response.")
        except KafkaException as exc:
            return CoordinatorResult(response=SyncGroupResponse(exc.error))
        if (group.target_assignment_epoch > member.member_epoch
                and member.state is not MemberState.UNREVOKED_PARTITIONS):
            # "A new rebalance is triggered in group ... and member ... should rejoin to catch up."
            return CoordinatorResult(response=SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS),
                                     timers=[self._join_timer(group, member, now_ms)])
        assignment = serialize_assignment(
            consumer_protocol_assignment({t: frozenset(ps) for t, ps in member.assigned_partitions.items()},
                                         self.topics()),
            deserialize_version(protocols[0][1]))
        timers = [TimerChange("sync", group.group_id, member.member_id, None),
                   TimerChange("session", group.group_id, member.member_id,
                               now_ms + _session_timeout(member, self.config))]
        return CoordinatorResult(response=SyncGroupResponse(Errors.NONE, PROTOCOL_TYPE, protocols[0][0],
                                                            assignment), timers=timers)

    @staticmethod
    def _join_timer(group: ConsumerGroup, member: ConsumerGroupMember, now_ms: int) -> TimerChange:
        """The member must rejoin within its rebalance timeout, or it is fenced."""
        return TimerChange("join", group.group_id, member.member_id, now_ms + max(0, member.rebalance_timeout_ms),
                           if_absent=True)

    def classic_group_heartbeat(self, request: HeartbeatRequest, now_ms: int) -> CoordinatorResult:
        """Heartbeat: NONE, or REBALANCE_IN_PROGRESS when the member must rejoin to reconcile."""
        group = self.groups[request.group_id]
        try:
            member = self._classic_member(group, request.member_id, request.group_instance_id)
            self._check_generation(member, request.generation_id)
        except KafkaException as exc:
            return CoordinatorResult(response=exc.error)
        timers = [TimerChange("session", group.group_id, member.member_id,
                              now_ms + _session_timeout(member, self.config))]
        error = Errors.NONE
        if (member.member_epoch < group.target_assignment_epoch
                or member.state is MemberState.UNREVOKED_PARTITIONS
                or (member.state is MemberState.UNRELEASED_PARTITIONS
                    and not _waiting_on_unreleased_partition(group, member))):
            error = Errors.REBALANCE_IN_PROGRESS
            timers.append(self._join_timer(group, member, now_ms))
        return CoordinatorResult(response=error, timers=timers)

    def classic_group_leave(self, request: LeaveGroupRequest, now_ms: int) -> CoordinatorResult:
        """LeaveGroup: the classic members named leave; the group epoch is bumped once (or the group
        turns classic if only classic members are left after a consumer-protocol member left)."""
        group = self.groups[request.group_id]
        responses, leaving = [], []
        for identity in request.members:
            member_id, instance_id = identity.member_id, identity.group_instance_id
            try:
                if instance_id is None:
                    member = group.member(member_id)
                else:
                    member = group.static_member(instance_id)  # type: ignore[assignment]
                    if member is None:
                        raise UnknownMemberIdException(f"Instance id {instance_id} is unknown.")
                    if member_id != UNKNOWN_MEMBER_ID and member.member_id != member_id:
                        raise FencedInstanceIdException(
                            f"Static member {member_id} with instance id {instance_id} is fenced by existing "
                            f"member {member.member_id}.")
                if not member.uses_classic_protocol:
                    raise UnknownMemberIdException(f"Member {member.member_id} does not use the classic protocol.")
            except KafkaException as exc:
                responses.append(MemberResponse(member_id, instance_id, exc.error))
                continue
            leaving.append(member.member_id)
            responses.append(MemberResponse(member.member_id, instance_id))
        response = LeaveGroupResponse(Errors.NONE, tuple(responses))
        if not leaving:
            return CoordinatorResult(response=response)
        result = self._fence_members(group, list(dict.fromkeys(leaving)), response, now_ms)
        self._replay_all(result.records)
        return result

    def on_join_or_sync_timeout(self, group_id: str, member_id: str, now_ms: int) -> CoordinatorResult:
        """A classic member did not rejoin (join) or sync (sync) within its rebalance timeout: fenced."""
        return self.on_session_timeout(group_id, member_id, now_ms)

    def on_session_timeout(self, group_id: str, member_id: str, now_ms: int) -> CoordinatorResult:
        group = self.groups.get(group_id)
        if group is None or not group.has_member(member_id):
            return CoordinatorResult()
        result = self._fence(group, group.members[member_id], None, now_ms)
        self._replay_all(result.records)
        return result

    def on_rebalance_timeout(self, group_id: str, member_id: str, member_epoch: int,
                             now_ms: int) -> CoordinatorResult:
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if member is None or member.member_epoch != member_epoch:
            return CoordinatorResult()             # it moved on (or left) in time
        result = self._fence(group, member, None, now_ms)
        self._replay_all(result.records)
        return result

    def on_loaded(self, now_ms: int) -> list[TimerChange]:
        """After replaying a partition: every member's session timer, and the rebalance timer of
        members owing a revocation, start afresh (Kafka's onLoaded)."""
        timers = []
        for group in self.groups.values():
            if group.deleted:
                continue
            for member in group.members.values():
                timers.append(TimerChange("session", group.group_id, member.member_id,
                                          now_ms + _session_timeout(member, self.config)))
                if member.state is MemberState.UNREVOKED_PARTITIONS:
                    timers.append(TimerChange("rebalance", group.group_id, member.member_id,
                                              now_ms + max(0, member.rebalance_timeout_ms), member.member_epoch))
        return timers

    # ------------------------------------------------------------------ heartbeat
    def _resolve_regex(self, regex: str) -> list[str]:
        pattern = compile_regex(regex)
        return [name for name in self.topics().names() if pattern.fullmatch(name)]

    def _heartbeat(self, r: ConsumerGroupHeartbeatRequest, now_ms: int, client_id: str, client_host: str,
                   group: ConsumerGroup | None = None, records: list[ConsumerGroupRecord] | None = None,
                   classic: ClassicMemberMetadata | None = None) -> CoordinatorResult:
        """One heartbeat (or, with ``classic``, a classic member's JoinGroup) against ``group``
        (default: the live group of that id), after the ``records`` already decided."""
        records = [] if records is None else records
        timers: list[TimerChange] = []
        joining = r.member_epoch == JOIN_GROUP_MEMBER_EPOCH
        group = self.groups.get(r.group_id) if group is None else group
        if group is None or group.deleted:
            if not joining:
                raise GroupIdNotFoundException(f"Consumer group {r.group_id} not found.")
            group = ConsumerGroup(r.group_id)
        if len(group.members) >= self.config.consumer_group_max_size and (
                not r.member_id or not group.has_member(r.member_id)):
            raise GroupMaxSizeReachedException(
                f"The consumer group has reached its maximum capacity of "
                f"{self.config.consumer_group_max_size} members.")
        member_id = r.member_id or self.new_member_id()
        if r.instance_id is None:
            member = self._dynamic_member(group, member_id, r, joining)
            replaced = None
        else:
            member, replaced = self._static_member(group, member_id, r, joining, records, classic is not None)

        updated = replace(
            member,
            instance_id=r.instance_id if r.instance_id is not None else member.instance_id,
            rack_id=r.rack_id if r.rack_id is not None else member.rack_id,
            rebalance_timeout_ms=(r.rebalance_timeout_ms if r.rebalance_timeout_ms != -1
                                  else member.rebalance_timeout_ms),
            server_assignor_name=r.server_assignor if r.server_assignor is not None else member.server_assignor_name,
            subscribed_topic_names=(tuple(sorted(set(r.subscribed_topic_names)))   # a set; written sorted
                                    if r.subscribed_topic_names is not None else member.subscribed_topic_names),
            subscribed_topic_regex=(r.subscribed_topic_regex if r.subscribed_topic_regex is not None
                                    else member.subscribed_topic_regex),
            client_id=client_id, client_host=client_host,
            classic_member_metadata=classic if classic is not None else member.classic_member_metadata)
        subscription_changed = bump = False
        if updated != member:
            records.append(member_metadata_record(group.group_id, updated))
            names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
            regex_changed = updated.subscribed_topic_regex != member.subscribed_topic_regex
            subscription_changed = names_changed or regex_changed
            # A new regex nobody in the group uses yet does not bump the epoch by itself: Kafka resolves it in
            # the background and bumps only if what it matches changes the metadata hash (checked below).
            bump = names_changed or (regex_changed and self._regex_already_resolved(group, member, updated))
        if updated.subscribed_topic_regex:
            compile_regex(updated.subscribed_topic_regex)

        # 1. the group epoch
        members_after = dict(group.members)
        if replaced is not None:
            members_after.pop(replaced, None)
        members_after[updated.member_id] = updated
        group_epoch = self._maybe_bump_epoch(group, members_after, bump, records)

        # 2. the target assignment (at most once per group.consumer.assignment.interval.ms)
        if group_epoch > group.target_assignment_epoch and can_compute_next_target_assignment(
                group.target_assignment_timestamp, self.config.consumer_group_assignment_interval_ms, now_ms):
            target = self._update_target_assignment(group, group_epoch, member, updated, replaced, now_ms, records)
            target_epoch = group_epoch
        else:
            target_epoch = group.target_assignment_epoch
            target = group.target_assignment.get(updated.member_id)
            if target is None and replaced is not None:
                target = group.target_assignment_of(replaced)
            target = target or {}

        # 3. reconcile
        reconciled = self._maybe_reconcile(group, updated, target_epoch, target, r.topic_partitions,
                                           subscription_changed, now_ms, records, timers)
        timers.append(TimerChange("session", group.group_id, updated.member_id,
                                  now_ms + _session_timeout(reconciled, self.config)))
        full = joining or (r.rebalance_timeout_ms != -1 and r.topic_partitions is not None and (
            r.subscribed_topic_names is not None or r.subscribed_topic_regex is not None))
        assignment = None
        if full or reconciled.assigned_partitions != member.assigned_partitions:
            assignment = tuple((t, tuple(sorted(ps))) for t, ps in sorted(reconciled.assigned_partitions.items()))
        response = ConsumerGroupHeartbeatResponse(
            member_id=reconciled.member_id, member_epoch=reconciled.member_epoch,
            heartbeat_interval_ms=self.config.consumer_group_heartbeat_interval_ms, assignment=assignment)
        return CoordinatorResult(records, response, timers)

    def _dynamic_member(self, group: ConsumerGroup, member_id: str, r: ConsumerGroupHeartbeatRequest,
                        joining: bool) -> ConsumerGroupMember:
        member = group.members.get(member_id)
        if member is None:
            if not joining:
                raise UnknownMemberIdException(f"Member {member_id} is not a member of group {group.group_id}.")
            return ConsumerGroupMember(member_id)
        self._check_member_epoch(member, r)
        return member

    def _static_member(self, group: ConsumerGroup, member_id: str, r: ConsumerGroupHeartbeatRequest,
                       joining: bool, records: list[ConsumerGroupRecord], classic: bool = False
                       ) -> tuple[ConsumerGroupMember, str | None]:
        """The static member, and the id of the old incarnation it replaces (or None)."""
        existing = group.static_member(r.instance_id)
        if classic and existing is not None and existing.member_id == member_id:
            return existing, None                  # a classic static member rejoining with its id
        if joining:
            if existing is None:
                member = group.members.get(member_id)
                return (member if member is not None else ConsumerGroupMember(member_id)), None
            if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                raise UnreleasedInstanceIdException(
                    f"Static member {member_id} with instance id {r.instance_id} cannot join the group "
                    f"because the instance id is owned by {existing.member_id} member.")
            new = replace(existing, member_id=member_id, member_epoch=0, previous_member_epoch=0)
            records.extend(remove_member_records(group.group_id, existing.member_id))
            records.append(member_metadata_record(group.group_id, new))
            records.append(target_assignment_member_record(group.group_id, member_id,
                                                           group.target_assignment_of(existing.member_id)))
            records.append(current_assignment_record(group.group_id, new))
            return new, existing.member_id
        if existing is None:
            raise UnknownMemberIdException(f"Instance id {r.instance_id} is unknown.")
        if existing.member_id != member_id:
            raise FencedInstanceIdException(
                f"Static member {member_id} with instance id {r.instance_id} was fenced by member "
                f"{existing.member_id}.")
        self._check_member_epoch(existing, r)
        return existing, None

    @staticmethod
    def _check_member_epoch(member: ConsumerGroupMember, r: ConsumerGroupHeartbeatRequest) -> None:
        received = r.member_epoch
        if received == JOIN_GROUP_MEMBER_EPOCH:
            return                                  # a rejoin is always accepted (4.3.1)
        if received > member.member_epoch:
            raise FencedMemberEpochException(
                f"The consumer group member has a greater member epoch ({received}) than the one known by "
                f"the group coordinator ({member.member_epoch}). The member must abandon all its "
                f"partitions and rejoin.")
        if received < member.member_epoch and (received != member.previous_member_epoch
                                               or not _is_subset(r.topic_partitions, member.assigned_partitions)):
            raise FencedMemberEpochException(
                f"The consumer group member has a smaller member epoch ({received}) than the one known by "
                f"the group coordinator ({member.member_epoch}). The member must abandon all its "
                f"partitions and rejoin.")

    @staticmethod
    def _regex_already_resolved(group: ConsumerGroup, member: ConsumerGroupMember,
                                updated: ConsumerGroupMember) -> bool:
        """``maybeUpdateRegularExpressions`` says REGEX_UPDATED_AND_RESOLVED: the member dropped its regex, or
        took one that another member already uses (so its topics are known)."""
        if not updated.subscribed_topic_regex:
            return bool(member.subscribed_topic_regex)
        return any(m.subscribed_topic_regex == updated.subscribed_topic_regex
                   for m in group.members.values() if m.member_id != member.member_id)

    def _maybe_bump_epoch(self, group: ConsumerGroup, members_after: dict[str, ConsumerGroupMember],
                          bump: bool, records: list[ConsumerGroupRecord]) -> int:
        names = group.subscribed_topic_names(self._resolve_regex, members_after)
        metadata_hash = group_metadata_hash(self.topics(), names)
        epoch = group.group_epoch
        if bump or metadata_hash != group.metadata_hash:
            epoch += 1
            records.append(epoch_record(group.group_id, epoch, metadata_hash))
        if group.has_subscription_metadata_record:      # a pre-KIP-1101 record: delete it
            records.append(ConsumerGroupRecord(ConsumerGroupPartitionMetadataKey(group.group_id), None))
        return epoch

    def _update_target_assignment(self, group: ConsumerGroup, group_epoch: int, member: ConsumerGroupMember,
                                  updated: ConsumerGroupMember, replaced: str | None, now_ms: int,
                                  records: list[ConsumerGroupRecord]) -> Assignment:
        name = group.preferred_server_assignor(member, updated) or self.default_assignor
        builder = (TargetAssignmentBuilder(group.group_id, group_epoch, self.assignors[name], self.topics(),
                                           self._resolve_regex)
                   .with_members(group.members).with_static_members(group.static_members)
                   .with_target_assignment(group.target_assignment)
                   .add_or_update_member(updated))
        if replaced is not None:
            builder.remove_member(replaced)
        try:
            result = builder.build(now_ms)
        except PartitionAssignorException as exc:
            raise UnknownServerException(
                f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}") from exc
        records.extend(result.records)
        return result.target_assignment.get(updated.member_id, {})

    def _maybe_reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember, target_epoch: int,
                         target: Assignment, owned, subscription_changed: bool, now_ms: int,
                         records: list[ConsumerGroupRecord], timers: list[TimerChange]) -> ConsumerGroupMember:
        if member.is_reconciled_to(target_epoch) and not subscription_changed:
            return member
        image = self.topics()
        subscribed = frozenset(t.topic_id for t in (image.by_name(n) for n in
                                                    group.subscribed_topic_names(self._resolve_regex,
                                                                                 {member.member_id: member}))
                               if t is not None)
        new = (CurrentAssignmentBuilder(member)
               .with_target_assignment(target_epoch, target)
               .with_current_partition_epoch(group.partition_epoch)
               .with_owned_topic_partitions(owned)
               .with_subscribed_topic_ids(subscribed)
               .with_has_subscription_changed(subscription_changed)
               .build())
        if new != member:
            records.append(current_assignment_record(group.group_id, new))
            if new.state is MemberState.UNREVOKED_PARTITIONS:
                timers.append(TimerChange("rebalance", group.group_id, new.member_id,
                                          now_ms + max(0, new.rebalance_timeout_ms), new.member_epoch))
            else:
                timers.append(TimerChange("rebalance", group.group_id, new.member_id, None))
        return new

    # ------------------------------------------------------------------ leaving and fencing
    def _leave(self, r: ConsumerGroupHeartbeatRequest, now_ms: int) -> CoordinatorResult:
        group = self.groups.get(r.group_id)
        if group is None or group.deleted:
            raise GroupIdNotFoundException(f"Group {r.group_id} not found.")
        response = ConsumerGroupHeartbeatResponse(member_id=r.member_id, member_epoch=r.member_epoch)
        if r.instance_id is None:
            return self._fence(group, group.member(r.member_id), response, now_ms)
        member = group.static_member(r.instance_id)
        if member is None:
            raise UnknownMemberIdException(f"Instance id {r.instance_id} is unknown.")
        if member.member_id != r.member_id:
            raise FencedInstanceIdException(
                f"Static member {r.member_id} with instance id {r.instance_id} was fenced by member "
                f"{member.member_id}.")
        if r.member_epoch == LEAVE_GROUP_MEMBER_EPOCH:
            return self._fence(group, member, response, now_ms)
        # it keeps its partitions (epochs reset to 0) until it comes back or its session expires
        leaving = replace(member, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, partitions_pending_revocation={},
                          assigned_partitions={t: dict.fromkeys(ps, 0) for t, ps in member.assigned_partitions.items()})
        return CoordinatorResult([current_assignment_record(group.group_id, leaving)],
                                 ConsumerGroupHeartbeatResponse(member_id=member.member_id,
                                                                member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH))

    def _fence(self, group: ConsumerGroup, member: ConsumerGroupMember, response: Any,
               now_ms: int) -> CoordinatorResult:
        return self._fence_members(group, [member.member_id], response, now_ms)

    def _fence_members(self, group: ConsumerGroup, member_ids: list[str], response: Any,
                       now_ms: int) -> CoordinatorResult:
        """Remove the members and bump the group epoch so the others get their partitions -- or, when
        only classic-protocol members remain and the policy allows, turn the group classic."""
        timers = [TimerChange(kind, group.group_id, m, None) for m in member_ids
                  for kind in ("session", "rebalance", "join", "sync")]
        fenced = set(member_ids)
        if validate_online_downgrade_with_fenced_members(group, fenced, self.config):
            classic = classic_group_from_consumer_group(group, fenced, self.topics(), now_ms)
            timers += [TimerChange(kind, group.group_id, m, None) for m in group.members if m not in fenced
                       for kind in ("session", "rebalance", "join", "sync")]
            return CoordinatorResult(consumer_group_tombstones(group), response, timers, downgraded_to=classic)
        records = [r for m in member_ids for r in remove_member_records(group.group_id, m)]
        remaining = {m_id: m for m_id, m in group.members.items() if m_id not in fenced}
        metadata_hash = group_metadata_hash(self.topics(), group.subscribed_topic_names(self._resolve_regex,
                                                                                         remaining))
        records.append(epoch_record(group.group_id, group.group_epoch + 1, metadata_hash))
        return CoordinatorResult(records, response, timers)

    # ------------------------------------------------------------------ replay
    def _replay_all(self, records: list[ConsumerGroupRecord]) -> None:
        for record in records:
            self.replay(record)

    def _group(self, group_id: str, create: bool) -> ConsumerGroup | None:
        group = self.groups.get(group_id)
        if (group is None or group.deleted) and create:
            group = self.groups[group_id] = ConsumerGroup(group_id)
        return group

    def replay(self, record: ConsumerGroupRecord) -> None:
        """Apply one record to the groups (the write path and the loader both come here)."""
        group = self._group(record.key.group_id, create=record.value is not None)
        if group is not None:
            self._apply(group, record)

    def _apply(self, group: ConsumerGroup, record: ConsumerGroupRecord) -> None:
        key, value = record.key, record.value
        if isinstance(key, ConsumerGroupMetadataKey):
            if value is None:
                if group.members:
                    raise IllegalStateException(
                        f"Received a tombstone record to delete group {group.group_id} but the group still "
                        f"has {len(group.members)} members.")
                group.deleted = True
            else:
                group.group_epoch, group.metadata_hash = value.epoch, value.metadata_hash
        elif isinstance(key, ConsumerGroupPartitionMetadataKey):
            group.has_subscription_metadata_record = value is not None
        elif isinstance(key, ConsumerGroupMemberMetadataKey):
            self._replay_member_metadata(group, key.member_id, value)
        elif isinstance(key, ConsumerGroupTargetAssignmentMetadataKey):
            if value is None:
                group.target_assignment_epoch = -1
            else:
                group.target_assignment_epoch = value.assignment_epoch
                group.target_assignment_timestamp = value.assignment_timestamp
        elif isinstance(key, ConsumerGroupTargetAssignmentMemberKey):
            if value is None:
                group.remove_target_assignment(key.member_id)
            else:
                group.update_target_assignment(key.member_id,
                                               {t: frozenset(ps) for t, ps in value.topic_partitions})
        else:
            self._replay_current_assignment(group, key.member_id, value)

    @staticmethod
    def _replay_member_metadata(group: ConsumerGroup, member_id: str,
                                value: ConsumerGroupMemberMetadataValue | None) -> None:
        if value is None:
            member = group.members.get(member_id)
            if member is not None and member.member_epoch != LEAVE_GROUP_MEMBER_EPOCH:
                raise IllegalStateException(f"Received a tombstone record to delete member {member_id} "
                                            f"with invalid leave group epoch.")
            group.remove_member(member_id)
            return
        member = group.members.get(member_id) or ConsumerGroupMember(member_id)
        group.update_member(replace(
            member, instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
            client_host=value.client_host, subscribed_topic_names=tuple(value.subscribed_topic_names),
            subscribed_topic_regex=value.subscribed_topic_regex or "",
            rebalance_timeout_ms=value.rebalance_timeout_ms, server_assignor_name=value.server_assignor,
            classic_member_metadata=decode_classic_member_metadata(value.classic_member_metadata)))

    @staticmethod
    def _replay_current_assignment(group: ConsumerGroup, member_id: str,
                                   value: ConsumerGroupCurrentMemberAssignmentValue | None) -> None:
        member = group.members.get(member_id)
        if value is None:
            if member is not None:
                group.update_member(replace(member, member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                                            previous_member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                                            assigned_partitions={}, partitions_pending_revocation={}))
            return

        def epochs(topics: TopicPartitionEpochs) -> PartitionEpochs:
            out: PartitionEpochs = {}
            for topic_id, partitions, assignment_epochs in topics:
                if assignment_epochs is None or len(assignment_epochs) != len(partitions):
                    assignment_epochs = (value.member_epoch,) * len(partitions)   # Kafka's fallback
                out[topic_id] = dict(zip(partitions, assignment_epochs))
            return out
        group.update_member(replace(
            member or ConsumerGroupMember(member_id), member_epoch=value.member_epoch,
            previous_member_epoch=value.previous_member_epoch, state=MemberState.from_value(value.state),
            assigned_partitions=epochs(value.assigned_partitions),
            partitions_pending_revocation=epochs(value.partitions_pending_revocation)))
