"""``GroupCoordinatorShard``: everything one ``__consumer_offsets`` partition coordinates.

Theory of operation
-------------------
A shard bundles the two state machines of a partition -- groups
(`GroupMetadataManager`) and committed offsets (`OffsetMetadataManager`) --
with the context that connects them to the broker.  It owns the operations
that touch both:

* **replay**: loading a partition decodes each record and hands it to the
  right manager (records of other group types are skipped, as Kafka's loader
  skips unknown record types);
* **DeleteGroups**: an Empty group is deleted by writing a tombstone for each
  of its offsets and one for the group, and replaying them once committed;
* **OffsetDelete**: the offsets manager decides which partitions' offsets
  go; their tombstones are written and replayed once committed;
* **deleted topics**: when the metadata says topics were deleted, the shard
  writes a tombstone for every committed offset of theirs;
* **retention**: every ``offsets.retention.check.interval.ms`` the shard
  writes tombstones for offsets past ``offsets.retention.minutes`` and for
  Empty groups left without offsets.

Mirrors Kafka's ``GroupCoordinatorShard`` (replay, deleteGroups, deleteOffsets, onTopicsDeleted,
cleanupGroupMetadata, onLoaded, onUnloaded).
"""

from __future__ import annotations

from typing import Callable, Iterable

from minikafka.common.errors import Errors, KafkaException
from minikafka.coordinator.coordinator_context import CoordinatorContext, Record, coordinator_error
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
from minikafka.coordinator.requests import DeletableGroupResult, OffsetDeleteRequest, OffsetDeleteResponse


class GroupCoordinatorShard:
    def __init__(self, ctx: CoordinatorContext):
        self.ctx = ctx
        self.groups = GroupMetadataManager(ctx)
        self.offsets = OffsetMetadataManager(ctx, self.groups)
        self.skipped_records = 0                  # records of other group types seen while loading

    # ------------------------------------------------------------------ replay
    def replay(self, key: bytes, value: bytes | None) -> None:
        """Apply one record; raises CoordinatorRecordException for unreadable bytes."""
        try:
            record = decode_record(key, value)
        except UnknownRecordTypeException:
            self.skipped_records += 1
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
        self._schedule_cleanup()

    def on_unloaded(self) -> None:
        self.groups.on_unloaded()

    # ------------------------------------------------------------------ DeleteGroups
    def delete_groups(self, group_ids: list[str],
                      respond: Callable[[list[DeletableGroupResult]], None]) -> None:
        results: list[DeletableGroupResult] = []
        offset_records: list[Record] = []
        removed: dict[str, int] = {}
        for group_id in group_ids:
            try:
                self.groups.validate_delete(group_id)
            except KafkaException as exc:
                results.append(DeletableGroupResult(group_id, exc.error))
                continue
            tombstones = self.offsets.delete_all_offsets(group_id)
            offset_records.extend(tombstones)
            removed[group_id] = len(tombstones)
            results.append(DeletableGroupResult(group_id))
        if not removed:
            respond(results)
            return
        # Like Kafka, the groups disappear as the tombstones are written, not when committed.
        dropped = [g for g in (self.groups.remove_group(gid) for gid in removed) if g is not None]
        records = offset_records + [group_metadata_record(gid, None) for gid in removed]

        def written(error: Errors) -> None:
            if error is not Errors.NONE:
                for group in dropped:
                    self.groups.restore_group(group)
                mapped = coordinator_error(error)
                respond([DeletableGroupResult(g, mapped) for g in group_ids])
                return
            self.replay_all(offset_records)
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
