"""``GroupCoordinatorShard``: everything one ``__consumer_offsets`` partition coordinates.

Theory of operation
-------------------
A shard bundles the two state machines of a partition -- groups
(`GroupMetadataManager`) and committed offsets (`OffsetMetadataManager`) --
with the context that connects them to the broker.  It builds the
`ClassicGroupStore` (the classic groups, their timers, their records out) and
the `ClassicGroupRebalance` that both managers share.  It owns the operations
that touch both:

* **replay**: loading a partition decodes each record and hands it to the
  right manager: offsets and classic groups to the two managers, the
  KIP-848 consumer group records (types 3-8) to `ConsumerGroupHeartbeat`
  (records of other group types, share and streams, are skipped, as Kafka's
  loader skips unknown record types); once loaded, every consumer-group
  member's session timer starts afresh;
* **ConsumerGroupHeartbeat**: the sans-IO `ConsumerGroupHeartbeat` answers
  from the current state and returns its records and timer changes; the
  shard writes the records through the context (answering once they are
  committed) and turns each `TimerChange` into a context timer whose expiry
  calls back into it (session timeout: the member is fenced; rebalance
  timeout: fenced if it still owes the revocation);
* **JoinGroup, SyncGroup, Heartbeat, LeaveGroup** come here first: to a
  live consumer group they go to `ConsumerGroupHeartbeat`'s classic-member
  paths; otherwise to the classic groups.  A JoinGroup to an *empty* consumer
  group deletes it (its tombstones) and the id starts over as a classic group;
  a joining ConsumerGroupHeartbeat to an *empty* classic group deletes that one
  (its GroupMetadata tombstone); a non-empty classic group is passed along
  to be upgraded.  A conversion either way hands the group over between
  `GroupMetadataManager` and `ConsumerGroupHeartbeat` and writes its records
  in 4.3.1's order (upgrade: the classic tombstone, then the consumer group's
  records; downgrade: the consumer group's tombstones, then the classic
  group's GroupMetadata record), and emits a ``group_converted`` event;
* **ConsumerGroupDescribe**: each group's epochs, assignor and members, with
  topic names looked up in the current metadata;
* **DeleteGroups**: an Empty group is deleted by writing a tombstone for each
  of its offsets and then for the group (a classic group: its metadata
  record; a consumer group: its target-assignment metadata, subscription
  metadata and epoch records, as 4.3.1 does), and replaying them once
  committed; a consumer group with members is refused with NON_EMPTY_GROUP;
* **OffsetDelete**: the offsets manager decides which partitions' offsets
  go; their tombstones are written and replayed once committed;
* **deleted topics**: when the metadata says topics were deleted, the shard
  writes a tombstone for every committed offset of theirs;
* **retention**: every ``offsets.retention.check.interval.ms`` the shard
  writes tombstones for offsets past ``offsets.retention.minutes`` and for
  Empty groups left without offsets.

Mirrors Kafka's ``GroupCoordinatorShard`` (replay, deleteGroups, deleteOffsets, onTopicsDeleted,
cleanupGroupMetadata, onLoaded, onUnloaded, consumerGroupHeartbeat,
consumerGroupDescribe, classicGroupJoin/Sync/Heartbeat/Leave) and the group-type
dispatch of ``GroupMetadataManager`` (classicGroupJoin, getOrMaybeCreateConsumerGroup,
maybeDeleteEmptyClassicGroup, maybeDeleteEmptyConsumerGroup).  Simplified: the consumer-group records of a heartbeat
are applied to the in-memory groups when the answer is computed, not undone if
the write then fails (Kafka reverts its timeline snapshot); a failed write
usually means the partition is moving away, which drops the state anyway.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.uuid import Uuid
import minikafka.coordinator.consumer_group_records as consumer_group_records
from minikafka.coordinator.consumer_group_heartbeat import (
    ConsumerGroupHeartbeat, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, CoordinatorResult,
    TimerChange,
)
from minikafka.coordinator.coordinator_context import CoordinatorContext, Record, coordinator_error
from minikafka.coordinator.classic_group_rebalance import ClassicGroupRebalance
from minikafka.coordinator.classic_group_store import ClassicGroupStore, group_metadata_value
from minikafka.coordinator.consumer_group_migration import consumer_group_tombstones
from minikafka.coordinator.group_metadata_manager import GroupMetadataManager
from minikafka.coordinator.offset_metadata_manager import OffsetMetadataManager
from minikafka.coordinator.records import (
    GroupMetadataKey,
    OffsetCommitKey,
    UnknownRecordTypeException,
    decode_record,
    group_metadata_record,
    offset_commit_record,
)
from minikafka.coordinator.requests import (
    DeletableGroupResult, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, ListedGroup, OffsetDeleteRequest, OffsetDeleteResponse, SyncGroupRequest,
    SyncGroupResponse,
)
from minikafka.coordinator.topic_metadata import TopicsImage


def _consumer_group_tombstones(group_id: str) -> list[consumer_group_records.ConsumerGroupRecord]:
    """The tombstones 4.3.1's ``ConsumerGroup.createGroupTombstoneRecords`` writes for an Empty group
    (no member records are left): its target-assignment metadata, its subscription metadata, its epoch."""
    return [consumer_group_records.ConsumerGroupRecord(key(group_id), None) for key in (
        consumer_group_records.ConsumerGroupTargetAssignmentMetadataKey,
        consumer_group_records.ConsumerGroupPartitionMetadataKey,
        consumer_group_records.ConsumerGroupMetadataKey)]


def _error_like(response: Any, error: Errors) -> Any:
    """The same kind of answer as ``response``, carrying ``error`` (a failed write)."""
    if isinstance(response, Errors):
        return error
    if isinstance(response, (JoinGroupResponse, LeaveGroupResponse, SyncGroupResponse,
                             ConsumerGroupHeartbeatResponse)):
        return type(response)(error)
    return response


def _no_topics() -> TopicsImage:
    return TopicsImage()


class GroupCoordinatorShard:
    def __init__(self, ctx: CoordinatorContext, topics: Callable[[], TopicsImage] = _no_topics):
        self.ctx = ctx
        self.topics = topics
        store = ClassicGroupStore(ctx)            # shared by the classic-group and offset logic
        rebalance = ClassicGroupRebalance(ctx, store)
        self.groups = GroupMetadataManager(ctx, store, rebalance)
        self.consumer = ConsumerGroupHeartbeat(ctx.config, topics, self._new_member_id)
        self.offsets = OffsetMetadataManager(ctx, store, rebalance, self.consumer.groups, self._topic_id)
        self.skipped_records = 0                  # records of other group types seen while loading

    def _topic_id(self, name: str) -> Uuid | None:
        topic = self.topics().by_name(name)
        return None if topic is None else topic.topic_id

    def _new_member_id(self) -> str:
        """A member id for a v0 client that lets the coordinator pick: a random UUID from the
        node's seeded generator (Kafka: ``Uuid.randomUuid().toString()``)."""
        return str(Uuid.random(self.ctx.node.rng))

    # ------------------------------------------------------------------ replay
    def replay(self, key: bytes, value: bytes | None) -> None:
        """Apply one record; raises CoordinatorRecordException for unreadable bytes."""
        try:
            record = decode_record(key, value)
        except UnknownRecordTypeException:
            try:
                consumer_record = consumer_group_records.decode_record(key, value)
            except UnknownRecordTypeException:
                self.skipped_records += 1
                return
            self.consumer.replay(consumer_record)
            return
        if isinstance(record.key, OffsetCommitKey):
            k = record.key
            self.offsets.replay(k.group, k.topic, k.partition, record.value)  # type: ignore[arg-type]
        elif isinstance(record.key, GroupMetadataKey):
            self.groups.replay(record.key.group, record.value)  # type: ignore[arg-type]

    def replay_all(self, records: Iterable[Record]) -> None:
        for key, value in records:
            self.replay(key, value)

    def on_loaded(self) -> None:
        self.groups.on_loaded()
        self._apply_timers(self.consumer.on_loaded(self.ctx.now))
        self._schedule_cleanup()

    # ------------------------------------------------------------------ ConsumerGroupHeartbeat
    def consumer_group_heartbeat(self, request: ConsumerGroupHeartbeatRequest, api_version: int,
                                 client_id: str, client_host: str,
                                 respond: Callable[[ConsumerGroupHeartbeatResponse], None]) -> None:
        classic = self.groups.groups.get(request.group_id)
        prefix: list[Record] = []
        if classic is not None and classic.is_empty() and request.member_epoch == 0:
            # An empty classic group is deleted and the id starts over as a consumer group.
            self.groups.hand_over_for_upgrade(classic)
            prefix = [group_metadata_record(request.group_id, None)]
            self._emit_conversion(request.group_id, "classic", "consumer", "the empty classic group is deleted")
            classic = None
        result = self.consumer.consumer_group_heartbeat(request, self.ctx.now, client_id=client_id,
                                                        client_host=client_host, api_version=api_version,
                                                        classic_group=classic)
        self._apply(result, respond, prefix)

    # ------------------------------------------------------------------ classic requests (either group type)
    def _live_consumer_group(self, group_id: str):
        group = self.consumer.groups.get(group_id)
        return group if group is not None and not group.deleted else None

    def join_group(self, request: JoinGroupRequest, respond: Callable[[JoinGroupResponse], None]) -> None:
        """JoinGroup: to the classic group, or as a classic member of a non-empty consumer group; an
        empty consumer group is deleted first and the id starts over as a classic group (any policy)."""
        group = self._live_consumer_group(request.group_id)
        if group is not None and group.members:
            self._apply(self.consumer.classic_group_join(request, self.ctx.now), respond)
            return
        if group is not None:
            tombstones = consumer_group_tombstones(group)
            for record in tombstones:
                self.consumer.replay(record)
            self._emit_conversion(request.group_id, "consumer", "classic", "the empty consumer group is deleted")
            self.ctx.write([consumer_group_records.encode_record(r) for r in tombstones], lambda error: None)
        self.groups.join_group(request, respond)

    def sync_group(self, request: SyncGroupRequest, respond: Callable[[SyncGroupResponse], None]) -> None:
        if self._live_consumer_group(request.group_id) is not None:
            self._apply(self.consumer.classic_group_sync(request, self.ctx.now), respond)
        else:
            self.groups.sync_group(request, respond)

    def heartbeat(self, request: HeartbeatRequest) -> Errors:
        if self._live_consumer_group(request.group_id) is not None:
            result = self.consumer.classic_group_heartbeat(request, self.ctx.now)
            self._apply_timers(result.timers)
            return result.response
        return self.groups.heartbeat(request)

    def leave_group(self, request: LeaveGroupRequest, respond: Callable[[LeaveGroupResponse], None]) -> None:
        if self._live_consumer_group(request.group_id) is not None:
            self._apply(self.consumer.classic_group_leave(request, self.ctx.now), respond)
        else:
            respond(self.groups.leave_group(request))

    def _emit_conversion(self, group_id: str, source: str, target: str, how: str, **data) -> None:
        self.ctx.emit("group_converted", f"group {group_id} converted from a {source} group to a {target} "
                      f"group ({how})", group=group_id, source=source, target=target, **data)

    # ------------------------------------------------------------------ listing and describing
    def list_consumer_groups(self, states: set[str], types: set[str]) -> list[ListedGroup]:
        """The live consumer groups as ListGroups shows them: protocol type and group type ``consumer``."""
        listed = []
        for group in self.consumer.groups.values():
            if group.deleted or (states and group.state.value.lower() not in states):
                continue
            if types and "consumer" not in types:
                continue
            listed.append(ListedGroup(group.group_id, "consumer", group.state.value, "consumer"))
        return listed

    def describe_consumer_group(self, group_id: str) -> dict:
        """One ConsumerGroupDescribe entry: GROUP_ID_NOT_FOUND (Kafka's text) when no such consumer
        group lives here; topic names come from the current metadata (unknown ids are left out)."""
        group = self.consumer.groups.get(group_id)
        if group is None or group.deleted:
            return {"group_id": group_id, "error": Errors.GROUP_ID_NOT_FOUND,
                    "error_message": f"Group {group_id} not found."}
        image = self.topics()

        def partitions(assignment) -> list[tuple[Uuid, str, list[int]]]:
            out = []
            for topic_id, parts in sorted(assignment.items(), key=lambda kv: str(kv[0])):
                topic = image.by_id(topic_id)
                if topic is not None and parts:
                    out.append((topic_id, topic.name, sorted(parts)))
            return out
        members = []
        for member in group.members.values():
            members.append({
                "member_id": member.member_id, "instance_id": member.instance_id,
                "rack_id": member.rack_id, "member_epoch": member.member_epoch,
                "client_id": member.client_id, "client_host": member.client_host,
                "subscribed_topic_names": list(member.subscribed_topic_names),
                "subscribed_topic_regex": member.subscribed_topic_regex or None,
                "assignment": partitions(member.assigned_partitions),
                "target_assignment": partitions(group.target_assignment_of(member.member_id)),
                "member_type": 0 if member.uses_classic_protocol else 1,   # v1: 0 classic, 1 consumer
            })
        return {"group_id": group_id, "error": Errors.NONE, "error_message": None,
                "group_state": group.state.value, "group_epoch": group.group_epoch,
                "assignment_epoch": group.target_assignment_epoch,
                "assignor_name": (group.preferred_server_assignor(None, None)
                                  or self.consumer.default_assignor),
                "members": members}

    def _apply(self, result: CoordinatorResult, respond: Callable[[Any], None] | None = None,
               prefix: list[Record] | None = None) -> None:
        """Arm the result's timers, hand over a converted group, tell the event log what was
        decided, write the records, then answer (once committed)."""
        records = list(prefix or [])
        if result.upgraded_from is not None:
            classic = result.upgraded_from
            self.groups.hand_over_for_upgrade(classic)
            records.append(group_metadata_record(classic.group_id, None))
            self._emit_conversion(classic.group_id, "classic", "consumer",
                                  f"online upgrade: {len(classic.members)} classic member(s) kept their "
                                  f"partitions", members=sorted(classic.members))
        records += [consumer_group_records.encode_record(r) for r in result.records]
        if result.downgraded_to is not None:
            classic = result.downgraded_to
            records.append(group_metadata_record(classic.group_id, group_metadata_value(
                classic, {m.member_id: m.assignment for m in classic.all_members()})))
            self._emit_conversion(classic.group_id, "consumer", "classic",
                                  f"online downgrade: the last consumer-protocol member left; "
                                  f"{len(classic.members)} classic member(s) rejoin", members=sorted(classic.members))
        self._apply_timers(result.timers)
        self._emit_assignment_events(result.records)
        if result.downgraded_to is not None:
            self.groups.take_over_from_downgrade(result.downgraded_to)
        if not records:
            if respond is not None and result.response is not None:
                respond(result.response)
            return

        def written(error: Errors) -> None:
            if respond is None or result.response is None:
                return
            if error is not Errors.NONE:
                respond(_error_like(result.response, coordinator_error(error)))
            else:
                respond(result.response)
        self.ctx.write(records, written)

    def _emit_assignment_events(self, records: list[consumer_group_records.ConsumerGroupRecord]) -> None:
        """The coordinator's decisions in a consumer group, as events: a new target assignment
        (computed here, on the broker, by the group's assignor) and each member's new assignment."""
        image = self.topics()

        def named(assignment) -> str:
            parts = []
            for entry in sorted(assignment, key=lambda e: str(e[0])):
                topic = image.by_id(entry[0])
                parts += [f"{topic.name if topic else entry[0]}-{p}" for p in sorted(entry[1])]
            return ", ".join(parts) or "nothing"

        targets = [r for r in records if isinstance(r.key, consumer_group_records.ConsumerGroupTargetAssignmentMemberKey)
                   and r.value is not None]
        for record in records:
            key, value = record.key, record.value
            if isinstance(value, consumer_group_records.ConsumerGroupTargetAssignmentMetadataValue):
                group = self.consumer.groups.get(key.group_id)
                assignor = ((group.preferred_server_assignor(None, None) if group else None)
                            or self.consumer.default_assignor)
                self.ctx.emit("consumer_group_target_assignment",
                              f"consumer group {key.group_id}: the coordinator computed target assignment "
                              f"epoch {value.assignment_epoch} with the {assignor} assignor "
                              f"({len(targets)} member(s) changed)",
                              group=key.group_id, epoch=value.assignment_epoch, assignor=assignor,
                              members={r.key.member_id: named(r.value.topic_partitions) for r in targets})
            elif isinstance(value, consumer_group_records.ConsumerGroupCurrentMemberAssignmentValue):
                pending = value.partitions_pending_revocation
                self.ctx.emit("consumer_member_assignment",
                              f"consumer group {key.group_id}: member {key.member_id} at epoch "
                              f"{value.member_epoch} owns {named(value.assigned_partitions)}"
                              + (f"; revoking {named(pending)}" if pending else ""),
                              group=key.group_id, member=key.member_id, epoch=value.member_epoch,
                              owned=named(value.assigned_partitions), revoking=named(pending) if pending else "")

    def _apply_timers(self, changes: list[TimerChange]) -> None:
        for change in changes:
            key = ("consumer", change.kind, change.group_id, change.member_id)
            if change.deadline_ms is None:
                self.ctx.cancel(key)
            elif change.if_absent and self.ctx.deadline(key) is not None:
                continue
            elif change.kind in ("join", "sync"):
                self.ctx.schedule(key, change.deadline_ms - self.ctx.now,
                                  lambda c=change: self._classic_member_expired(c))
            elif change.kind == "session":
                self.ctx.schedule(key, change.deadline_ms - self.ctx.now,
                                  lambda c=change: self._session_expired(c))
            else:
                self.ctx.schedule(key, change.deadline_ms - self.ctx.now,
                                  lambda c=change: self._rebalance_expired(c))

    def _session_expired(self, change: TimerChange) -> None:
        self.ctx.emit("consumer_member_session_expired", f"member {change.member_id} of consumer group "
                      f"{change.group_id} missed its session timeout: fenced",
                      group=change.group_id, member=change.member_id)
        self._apply(self.consumer.on_session_timeout(change.group_id, change.member_id, self.ctx.now))

    def _classic_member_expired(self, change: TimerChange) -> None:
        self.ctx.emit("consumer_member_session_expired", f"classic member {change.member_id} of consumer group "
                      f"{change.group_id} did not {'rejoin' if change.kind == 'join' else 'sync'} within its "
                      f"rebalance timeout: fenced", group=change.group_id, member=change.member_id)
        self._apply(self.consumer.on_join_or_sync_timeout(change.group_id, change.member_id, self.ctx.now))

    def _rebalance_expired(self, change: TimerChange) -> None:
        self._apply(self.consumer.on_rebalance_timeout(change.group_id, change.member_id,
                                                       change.member_epoch, self.ctx.now))

    def on_unloaded(self) -> None:
        self.groups.on_unloaded()

    # ------------------------------------------------------------------ DeleteGroups
    def delete_groups(self, group_ids: list[str],
                      respond: Callable[[list[DeletableGroupResult]], None]) -> None:
        results: list[DeletableGroupResult] = []
        offset_records: list[Record] = []
        removed: dict[str, int] = {}
        consumer_tombstones: list[consumer_group_records.ConsumerGroupRecord] = []
        group_records: list[Record] = []
        for group_id in group_ids:
            consumer_group = self.consumer.groups.get(group_id)
            if consumer_group is not None and not consumer_group.deleted:
                if consumer_group.members:      # 4.3.1's ConsumerGroup.validateDeleteGroup
                    results.append(DeletableGroupResult(group_id, Errors.NON_EMPTY_GROUP))
                    continue
                tombstones = self.offsets.delete_all_offsets(group_id)
                ends = _consumer_group_tombstones(group_id)
                consumer_tombstones.extend(ends)
                group_records.extend(tombstones + [consumer_group_records.encode_record(r) for r in ends])
            else:
                try:
                    self.groups.validate_delete(group_id)
                except KafkaException as exc:
                    results.append(DeletableGroupResult(group_id, exc.error))
                    continue
                tombstones = self.offsets.delete_all_offsets(group_id)
                group_records.extend(tombstones + [group_metadata_record(group_id, None)])
            offset_records.extend(tombstones)
            removed[group_id] = len(tombstones)
            results.append(DeletableGroupResult(group_id))
        if not removed:
            respond(results)
            return
        # Like Kafka, the classic groups disappear as the tombstones are written, not when committed.
        dropped = [g for g in (self.groups.remove_group(gid) for gid in removed) if g is not None]
        records = group_records

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                for group in dropped:
                    self.groups.restore_group(group)
                mapped = coordinator_error(error)
                respond([DeletableGroupResult(g, mapped) for g in group_ids])
                return
            self.replay_all(offset_records)
            for record in consumer_tombstones:
                self.consumer.replay(record)
            for group_id, n in removed.items():
                self.ctx.emit("group_deleted", f"group {group_id} deleted with its {n} committed "
                              f"offsets", group=group_id, offsets=n)
            respond(results)
        self.ctx.write(records, written)

    # ------------------------------------------------------------------ OffsetDelete
    def delete_offsets(self, request: OffsetDeleteRequest,
                       respond: Callable[[OffsetDeleteResponse], None]) -> None:
        """Write the tombstones `OffsetMetadataManager.delete_offsets` decides on, replay them once
        committed, then answer; a failed write answers the mapped error for the whole group."""
        try:
            response, tombstones = self.offsets.delete_offsets(request)
        except KafkaException as exc:
            respond(OffsetDeleteResponse(exc.error))
            return
        if not tombstones:
            respond(response)
            return

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                respond(OffsetDeleteResponse(coordinator_error(error)))
                return
            self.replay_all(tombstones)
            self.ctx.emit("group_offsets_deleted", f"{self.ctx.topic_partition}: OffsetDelete removed "
                          f"{len(tombstones)} committed offsets of group {request.group_id}",
                          offsets=len(tombstones), group=request.group_id)
            respond(response)
        self.ctx.write(tombstones, written)

    # ------------------------------------------------------------------ deleted topics
    def on_topics_deleted(self, topics: set[str]) -> None:
        """Tombstone the committed offsets of deleted topics; a failed write is only logged, as in Kafka."""
        records = self.offsets.offsets_of_deleted_topics(topics)
        if not records:
            return

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                self.ctx.emit("offsets_delete_failed", f"{self.ctx.topic_partition}: could not delete "
                              f"offsets for deleted topics {sorted(topics)} due to: {error.name}",
                              topics=sorted(topics), error=error.name)
                return
            self.replay_all(records)
            self.ctx.emit("offsets_deleted", f"{self.ctx.topic_partition}: removed {len(records)} committed "
                          f"offsets of deleted topics {sorted(topics)}", offsets=len(records),
                          topics=sorted(topics))
        self.ctx.write(records, written)

    # ------------------------------------------------------------------ retention
    def _schedule_cleanup(self) -> None:
        self.ctx.schedule(("cleanup",), self.ctx.config.offsets_retention_check_interval_ms,
                          self.cleanup_group_metadata)

    def cleanup_group_metadata(self) -> None:
        """Tombstone offsets past retention and Empty groups left without offsets."""
        now, offset_records, empty_groups = self.ctx.now, [], []
        for group in list(self.groups.groups.values()):
            expired, none_left = self.offsets.expired_offsets(group, now)
            offset_records.extend(offset_commit_record(group.group_id, t, p, None) for t, p in expired)
            if none_left and group.is_empty():
                empty_groups.append(group.group_id)
        self._schedule_cleanup()
        if not offset_records and not empty_groups:
            return
        dropped = [g for g in (self.groups.remove_group(gid) for gid in empty_groups) if g is not None]
        records = offset_records + [group_metadata_record(gid, None) for gid in empty_groups]

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                for group in dropped:
                    self.groups.restore_group(group)
                return
            self.replay_all(offset_records)
            self.ctx.emit("offsets_expired", f"{self.ctx.topic_partition}: removed "
                          f"{len(offset_records)} expired offsets and {len(empty_groups)} empty groups",
                          offsets=len(offset_records), groups=empty_groups)
        self.ctx.write(records, written)
