"""``OffsetMetadataManager``: committed offsets of one ``__consumer_offsets`` partition.

Theory of operation
-------------------
A consumer commits "I have processed partition *p* up to offset *o*"; the
coordinator checks that the committer may commit, writes one OffsetCommit
record per partition to ``__consumer_offsets`` and, once the write is
committed (acks=all), makes the offsets visible to OffsetFetch and answers.
A failed write changes nothing, so a commit is never half-visible.

Who may commit:

* a *standalone* consumer (``assign()`` without group management) sends
  generation -1 and an empty member id; accepted while the group is Empty,
  and a missing group is created as an Empty "simple" group on the fly;
* a group member must be the current member (UNKNOWN_MEMBER_ID,
  FENCED_INSTANCE_ID) of the current generation (ILLEGAL_GENERATION), and not
  in the middle of a rebalance it has already joined (REBALANCE_IN_PROGRESS
  in CompletingRebalance);
* a commit with a generation to a group that does not exist gets
  ILLEGAL_GENERATION (GROUP_ID_NOT_FOUND from OffsetCommit v9);
* a member of a KIP-848 consumer group sends its member epoch as the
  generation: it must be a member (UNKNOWN_MEMBER_ID), use OffsetCommit v9+
  (UNSUPPORTED_VERSION) and send an epoch no newer than its current one
  (STALE_MEMBER_EPOCH).  An older epoch is accepted as 4.3.1 does it
  (KIP-1251), partition by partition: each committed partition must still be
  assigned to the member or pending its revocation, at an assignment epoch no
  newer than the one sent; one partition that fails refuses the whole
  request (STALE_MEMBER_EPOCH).  So a consumer that commits what it processed
  just before its epoch moved on is not refused.  A commit with epoch -1 and
  no member id (admin client, standalone consumer) is accepted only while the
  group has no members.  OffsetFetch v9+ with a member id checks the member
  and its *current* epoch.  A member of a consumer group that uses the
  classic protocol (joined with JoinGroup, or converted online) commits with
  its member epoch as generation, at any OffsetCommit version, and is refused
  with ILLEGAL_GENERATION instead of STALE_MEMBER_EPOCH.

Metadata longer than ``offset.metadata.max.bytes`` is refused per partition
(OFFSET_METADATA_TOO_LARGE).  A commit also counts as a heartbeat while the
group is Stable or PreparingRebalance.

OffsetFetch returns the committed offset, leader epoch and metadata, or -1
for partitions (and whole groups) with nothing committed.  Offsets expire
``offsets.retention.minutes`` after the group became Empty (or, for a simple
group, after the commit); an Empty group with no offsets left is deleted.

OffsetDelete removes chosen partitions' offsets of a group: refused for a
group that does not exist (GROUP_ID_NOT_FOUND) or is Dead, and for a live
group that is not a consumer group (NON_EMPTY_GROUP); a topic the group's
members subscribe to is answered GROUP_SUBSCRIBED_TO_TOPIC partition by
partition; every other partition gets NONE and, if it has a committed offset,
a tombstone.

When a topic is deleted, every group's committed offsets for it are deleted
too (tombstones), so ``kafka-consumer-groups.sh --describe`` stops listing it;
the group itself stays until retention removes it once Empty and offset-less.

Mirrors Kafka's ``OffsetMetadataManager`` (commitOffset, fetchOffsets,
fetchAllOffsets, deleteOffsets, deleteAllOffsets, onTopicsDeleted, cleanupExpiredOffsets, replay) and
``ClassicGroup.validateOffsetCommit``/``validateOffsetDelete`` and
``ConsumerGroup.validateOffsetCommit``/``validateOffsetFetch``.  Simplified: no transactional offsets
(TxnOffsetCommit); Stable consumer groups keep their offsets forever (Kafka
expires offsets of topics the group no longer subscribes to); offsets carry no
topic id, so a deleted topic's offsets are found by name (Kafka matches the id
when the commit carried one); a consumer-group commit must carry the member's
current epoch exactly (4.3.1 also accepts an older epoch for a partition the
member was assigned at or before it, KIP-1251).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections import Counter
from typing import Callable

from minikafka.common.errors import Errors, KafkaException, exception_for
from minikafka.common.uuid import Uuid
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState
from minikafka.coordinator.classic_group_rebalance import ClassicGroupRebalance
from minikafka.coordinator.classic_group_store import ClassicGroupStore
from minikafka.coordinator.consumer_group import ConsumerGroup
from minikafka.coordinator.consumer_group_member import ConsumerGroupMember
from minikafka.coordinator.coordinator_context import CoordinatorContext, Record, coordinator_error
from minikafka.coordinator.records import OffsetCommitValue, offset_commit_record
from minikafka.coordinator.requests import (
    UNKNOWN_MEMBER_ID, OffsetCommitRequest, OffsetCommitResponse, OffsetCommitResponsePartition,
    OffsetCommitResponseTopic, OffsetDeleteRequest, OffsetDeleteResponse, OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic, OffsetFetchRequestGroup, OffsetFetchResponseGroup,
    OffsetFetchResponsePartitions, OffsetFetchResponseTopics,
)

S = ClassicGroupState


@dataclass(frozen=True, slots=True)
class OffsetAndMetadata:
    committed_offset: int
    leader_epoch: int                 # -1 when the consumer did not say
    metadata: str
    commit_timestamp_ms: int
    expire_timestamp_ms: int = -1     # only with OffsetCommit v2-4 retention_time_ms


class OffsetMetadataManager:
    def __init__(self, ctx: CoordinatorContext, store: ClassicGroupStore, rebalance: ClassicGroupRebalance,
                 consumer_groups: dict[str, ConsumerGroup] | None = None,
                 topic_id: Callable[[str], Uuid | None] = lambda name: None):
        self.ctx = ctx
        self.store = store                        # the shard's classic groups (shared with the group manager)
        self.rebalance = rebalance                # a member's commit pushes its session deadline
        self.consumer_groups = {} if consumer_groups is None else consumer_groups   # KIP-848 groups by id
        self.topic_id = topic_id                  # a topic's id in the current metadata (None: unknown)
        # group -> topic -> partition -> committed offset (only what the log has committed)
        self.offsets: dict[str, dict[str, dict[int, OffsetAndMetadata]]] = {}
        # group -> (topic, partition) -> commits written but not yet committed
        self.in_flight: dict[str, Counter[tuple[str, int]]] = {}
        self.deletions: Counter[str] = Counter()  # group -> deletions so far (they void commits in flight)

    # ------------------------------------------------------------------ OffsetCommit
    def _consumer_group(self, group_id: str) -> ConsumerGroup | None:
        group = self.consumer_groups.get(group_id)
        return None if group is None or group.deleted else group

    def validate_commit(self, request: OffsetCommitRequest) -> ClassicGroup | None:
        """The group to commit to (None: a simple or consumer group); raises on refusal."""
        group = self.store.get(request.group_id)
        generation = request.generation_id_or_member_epoch
        consumer_group = self._consumer_group(request.group_id) if group is None else None
        if consumer_group is not None:
            if generation < 0 and not consumer_group.members:
                return None                    # admin client or standalone consumer, group empty
            member = consumer_group.member(request.member_id)     # UNKNOWN_MEMBER_ID
            if request.api_version < 9 and not member.uses_classic_protocol:
                raise Errors.UNSUPPORTED_VERSION.exception()
            self._validate_commit_epoch(request, member, generation)
            return None
        if group is None:
            if generation < 0:
                return None
            if request.api_version >= 9:
                raise exception_for(Errors.GROUP_ID_NOT_FOUND)(f"Group {request.group_id} not found.")
            raise Errors.ILLEGAL_GENERATION.exception()
        if group.in_state(S.DEAD):
            raise Errors.COORDINATOR_NOT_AVAILABLE.exception()
        if generation < 0 and group.is_empty():
            return group                       # standalone consumer or admin client
        if generation >= 0 or request.member_id != UNKNOWN_MEMBER_ID or request.group_instance_id is not None:
            error = group.validate_member(request.member_id, request.group_instance_id)
            if error is not Errors.NONE:
                raise error.exception()
            if generation != group.generation_id:
                raise Errors.ILLEGAL_GENERATION.exception()
        elif not group.is_empty():
            raise Errors.UNKNOWN_MEMBER_ID.exception()
        if group.in_state(S.COMPLETING_REBALANCE):
            raise Errors.REBALANCE_IN_PROGRESS.exception()
        return group

    def _validate_commit_epoch(self, request: OffsetCommitRequest, member: ConsumerGroupMember,
                               received: int) -> None:
        """4.3.1's ``ConsumerGroup.validateOffsetCommit`` and its assignment-epoch validator."""
        current = member.member_epoch
        if received == current:
            return
        # A member using the classic protocol sends a generation: its refusals are ILLEGAL_GENERATION.
        stale = exception_for(Errors.ILLEGAL_GENERATION if member.uses_classic_protocol else Errors.STALE_MEMBER_EPOCH)
        if received > current:
            raise stale(f"Received {'generation id' if member.uses_classic_protocol else 'member epoch'} "
                        f"{received} is newer than current member epoch {current}.")
        limit = self.ctx.config.offset_metadata_max_bytes
        for topic in request.topics:
            topic_id = self.topic_id(topic.name)
            for p in topic.partitions:
                if p.committed_metadata is not None and len(p.committed_metadata) > limit:
                    continue                   # refused on its own, before any epoch check
                index = p.partition_index
                assigned = member.assigned_partitions.get(topic_id, {}) if topic_id else {}
                revoking = member.partitions_pending_revocation.get(topic_id, {}) if topic_id else {}
                epoch = assigned.get(index, revoking.get(index))
                if epoch is None:
                    raise stale(
                        f"Partition {topic.name}-{index} is not assigned or pending revocation for member.")
                if received < epoch:
                    raise stale(
                        f"Received member epoch {received} is older than assignment epoch {epoch} "
                        f"for partition {topic.name}-{index}.")

    def commit(self, request: OffsetCommitRequest, respond: Callable[[OffsetCommitResponse], None]) -> None:
        try:
            group = self.validate_commit(request)
        except KafkaException as exc:
            respond(OffsetCommitResponse.all_failed(request, exc.error))
            return
        if group is not None and group.in_state(S.STABLE, S.PREPARING_REBALANCE):
            self.rebalance.reschedule_heartbeat(group, group.member(request.member_id))
        response, accepted = self._accept(request)
        if accepted:
            self._write(request, response, accepted, respond)
        else:
            respond(response)

    def _accept(self, request: OffsetCommitRequest) -> tuple[OffsetCommitResponse, list[tuple]]:
        """The per-partition answers and the (topic, partition, value) triples to write."""
        now, limit = self.ctx.now, self.ctx.config.offset_metadata_max_bytes
        expire = -1 if request.retention_time_ms == -1 else now + request.retention_time_ms
        topics, accepted = [], []
        for topic in request.topics:
            answers = []
            for p in topic.partitions:
                if p.committed_metadata is not None and len(p.committed_metadata) > limit:
                    answers.append(OffsetCommitResponsePartition(p.partition_index,
                                                                 Errors.OFFSET_METADATA_TOO_LARGE))
                    continue
                value = OffsetCommitValue(p.committed_offset, p.committed_leader_epoch,
                                          p.committed_metadata or "", now, expire)
                accepted.append((topic.name, p.partition_index, value))
                answers.append(OffsetCommitResponsePartition(p.partition_index))
            topics.append(OffsetCommitResponseTopic(topic.name, tuple(answers)))
        return OffsetCommitResponse(tuple(topics)), accepted

    def _write(self, request: OffsetCommitRequest, response: OffsetCommitResponse,
               accepted: list[tuple], respond: Callable[[OffsetCommitResponse], None]) -> None:
        group_id = request.group_id
        keys = [(t, p) for t, p, _ in accepted]
        pending = self.in_flight.setdefault(group_id, Counter())
        pending.update(keys)
        deletions = self.deletions[group_id]

        def written(error: Errors) -> None:
            pending.subtract(keys)
            if self.in_flight.get(group_id) is pending and not +pending:
                del self.in_flight[group_id]
            if error is not Errors.NONE:
                respond(OffsetCommitResponse.all_failed(request, coordinator_error(error)))
            elif self.deletions[group_id] != deletions:
                respond(response)          # the group was deleted since: its tombstones follow in the log
            else:
                for topic, partition, value in accepted:
                    self.replay(group_id, topic, partition, value)
                respond(response)
        self.ctx.write([offset_commit_record(group_id, t, p, v) for t, p, v in accepted], written)

    # ------------------------------------------------------------------ OffsetFetch
    def fetch(self, request: OffsetFetchRequestGroup) -> OffsetFetchResponseGroup:
        group = self.store.get(request.group_id)
        known = group is not None and not group.in_state(S.DEAD)
        consumer_group = self._consumer_group(request.group_id) if group is None else None
        if consumer_group is not None:
            known = True
            if not (request.member_epoch < 0 and request.member_id is None):
                try:
                    member = consumer_group.member(request.member_id or "")
                    _validate_member_epoch(request.member_epoch, member.member_epoch, member.uses_classic_protocol)
                except KafkaException as exc:
                    return OffsetFetchResponseGroup(request.group_id, error_code=exc.error)
        committed = self.offsets.get(request.group_id, {}) if known else {}
        if request.topics is None:
            return OffsetFetchResponseGroup(request.group_id, tuple(
                OffsetFetchResponseTopics(topic, tuple(_answer(p, o) for p, o in partitions.items()))
                for topic, partitions in committed.items()))
        return OffsetFetchResponseGroup(request.group_id, tuple(
            OffsetFetchResponseTopics(t.name, tuple(
                _answer(p, committed.get(t.name, {}).get(p)) for p in t.partition_indexes))
            for t in request.topics))

    # ------------------------------------------------------------------ deletion and expiry
    def delete_all_offsets(self, group_id: str) -> list[tuple[bytes, bytes | None]]:
        """Tombstones for every offset of ``group_id``, including commits still being written."""
        self.deletions[group_id] += 1
        keys = {(topic, partition) for topic, partitions in self.offsets.get(group_id, {}).items()
                for partition in partitions}
        keys.update(k for k, n in self.in_flight.get(group_id, Counter()).items() if n > 0)
        return [offset_commit_record(group_id, topic, partition, None) for topic, partition in sorted(keys)]

    def delete_offsets(self, request: OffsetDeleteRequest) -> tuple[OffsetDeleteResponse, list[Record]]:
        """OffsetDelete: the answer and the tombstones to write; raises for a group-level refusal.

        Every requested partition is answered: GROUP_SUBSCRIBED_TO_TOPIC for a topic the
        group subscribes to, else NONE, with a tombstone only where an offset is committed
        (or being committed); a partition with nothing committed just gets NONE.
        """
        group = self.store.group(request.group_id)       # GROUP_ID_NOT_FOUND
        group.validate_offset_delete()                              # Dead, NON_EMPTY_GROUP
        committed = self.offsets.get(request.group_id, {})
        pending = self.in_flight.get(request.group_id, Counter())
        topics, tombstones = [], []
        for topic in request.topics:
            if group.is_subscribed_to_topic(topic.name):
                answers = tuple(OffsetDeleteResponsePartition(p, Errors.GROUP_SUBSCRIBED_TO_TOPIC)
                                for p in topic.partition_indexes)
            else:
                answers = tuple(OffsetDeleteResponsePartition(p) for p in topic.partition_indexes)
                tombstones.extend(offset_commit_record(request.group_id, topic.name, p, None)
                                  for p in topic.partition_indexes
                                  if p in committed.get(topic.name, {}) or pending[(topic.name, p)] > 0)
            topics.append(OffsetDeleteResponseTopic(topic.name, answers))
        return OffsetDeleteResponse(topics=tuple(topics)), tombstones

    def offsets_of_deleted_topics(self, topics: set[str]) -> list[tuple[bytes, bytes | None]]:
        """Tombstones for every committed offset, of any group, in one of the deleted ``topics``."""
        return [offset_commit_record(group_id, topic, partition, None)
                for group_id, committed in sorted(self.offsets.items())
                for topic, partitions in sorted(committed.items()) if topic in topics
                for partition in sorted(partitions)]

    def expired_offsets(self, group: ClassicGroup, now: int) -> tuple[list[tuple[str, int]], bool]:
        """Offsets of ``group`` past retention, and whether that leaves the group with none."""
        committed = self.offsets.get(group.group_id, {})
        if +self.in_flight.get(group.group_id, Counter()):
            return [], False                   # a commit is being written right now
        if group.protocol_type is not None and not group.is_empty():
            return [], not committed           # members are still using them
        retention = self.ctx.config.offsets_retention_ms
        expired, kept = [], False
        for topic, partitions in committed.items():
            for partition, offset in partitions.items():
                if offset.expire_timestamp_ms != -1:
                    due = offset.expire_timestamp_ms
                elif group.protocol_type is not None and group.current_state_timestamp != -1:
                    due = group.current_state_timestamp + retention   # retention counts from Empty
                else:
                    due = offset.commit_timestamp_ms + retention
                if now >= due:
                    expired.append((topic, partition))
                else:
                    kept = True
        return expired, not kept

    # ------------------------------------------------------------------ replay
    def replay(self, group_id: str, topic: str, partition: int, value: OffsetCommitValue | None) -> None:
        if value is None:
            partitions = self.offsets.get(group_id, {}).get(topic)
            if partitions is not None:
                partitions.pop(partition, None)
                if not partitions:
                    del self.offsets[group_id][topic]
                if not self.offsets[group_id]:
                    del self.offsets[group_id]
            return
        # Committing without membership creates an Empty "simple" group (unless it is a consumer group).
        if self._consumer_group(group_id) is None:
            self.store.get_or_create(group_id, create=True)
        self.offsets.setdefault(group_id, {}).setdefault(topic, {})[partition] = OffsetAndMetadata(
            value.offset, value.leader_epoch, value.metadata, value.commit_timestamp,
            value.expire_timestamp)

    def count(self) -> int:
        return sum(len(p) for topics in self.offsets.values() for p in topics.values())


def _answer(partition: int, offset: OffsetAndMetadata | None) -> OffsetFetchResponsePartitions:
    if offset is None:
        return OffsetFetchResponsePartitions(partition)
    return OffsetFetchResponsePartitions(partition, offset.committed_offset, offset.leader_epoch,
                                         offset.metadata)


def _validate_member_epoch(received: int, expected: int, classic: bool = False) -> None:
    """A member must send its current epoch (``ConsumerGroup.validateMemberEpoch``); a member
    using the classic protocol sends it as its generation (ILLEGAL_GENERATION)."""
    if received != expected:
        if classic:
            raise exception_for(Errors.ILLEGAL_GENERATION)(
                f"The received generation id {received} does not match the expected member epoch {expected}.")
        raise exception_for(Errors.STALE_MEMBER_EPOCH)(
            f"The received member epoch {received} does not match the expected member epoch {expected}.")
