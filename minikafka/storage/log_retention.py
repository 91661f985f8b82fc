"""Retention for `UnifiedLog`: deleting old segments, whole segments at a time.

Theory of operation
-------------------
Kafka never deletes individual records; it deletes whole segments, oldest
first, and stops at the first segment that must stay.  With
``cleanup.policy=delete`` three rules apply, in this order:

1. **log start offset** -- a segment whose successor starts at or below the
   log start offset holds nothing readable (DeleteRecords moved past it);
2. **retention.bytes** -- while the log exceeds the limit, drop a segment if
   the log would still be at least as large as the limit without it;
3. **retention.ms** -- drop a segment whose largest record timestamp is more
   than ``retention.ms`` before now (the file's modification time stands in
   for segments without timestamps).

(``compact`` logs apply only rule 1; the sandbox has no log cleaner.)

Two guards hold for every rule: a segment is deleted only if all its offsets
are below the high watermark, and the last segment is never deleted while it
is empty.  If every segment qualifies, Kafka first rolls a new empty active
segment so the log is never without one.  Deleting segments moves the log
start offset to the first remaining segment; the files are renamed
``.deleted`` and removed ``file.delete.delay.ms`` later.

Mirrors ``UnifiedLog.deleteOldSegments``, ``deletableSegments`` and
``deleteSegments``.
"""

from __future__ import annotations

from typing import Callable

from minikafka.storage.log_segment import LogSegment

Predicate = Callable[[LogSegment, "LogSegment | None"], bool]


class LogRetention:
    """Mixin of `UnifiedLog`: ``delete_old_segments`` and its three rules."""

    def delete_old_segments(self, now: int) -> int:
        """Apply retention; returns the number of segments deleted."""
        if "delete" in self.config.cleanup_policy:
            return (self._delete_log_start_offset_breached(now) + self._delete_retention_size_breached(now)
                    + self._delete_retention_ms_breached(now))
        return self._delete_log_start_offset_breached(now)

    def deletable_segments(self, predicate: Predicate) -> list[LogSegment]:
        """Oldest-first segments satisfying ``predicate``, stopping at the first that does not."""
        segments = self.local_log.segments.values()
        deletable = []
        for i, segment in enumerate(segments):
            next_segment = segments[i + 1] if i + 1 < len(segments) else None
            last_and_empty = next_segment is None and segment.size == 0
            upper_bound = next_segment.base_offset if next_segment is not None else self.log_end_offset
            if self.high_watermark >= upper_bound and predicate(segment, next_segment) and not last_and_empty:
                deletable.append(segment)
            else:
                break
        return deletable

    def _delete_old_segments(self, predicate: Predicate, now: int, reason: Callable[[list[LogSegment]], str]) -> int:
        deletable = self.deletable_segments(predicate)
        if not deletable:
            return 0
        return self._delete_segments(deletable, now, reason)

    def _delete_segments(self, deletable: list[LogSegment], now: int,
                         reason: Callable[[list[LogSegment]], str]) -> int:
        count = len(deletable)
        text = reason(deletable)
        if self.local_log.segments.number_of_segments == count:
            new_segment = self.roll(now)          # the log must always keep an active segment
            if deletable[-1].base_offset == new_segment.base_offset:
                deletable = deletable[:-1]
        if deletable:
            next_segment = self.local_log.segments.higher_segment(deletable[-1].base_offset)
            self.maybe_increment_log_start_offset(next_segment.base_offset, "SegmentDeletion")
            self.local_log.remove_and_delete_segments(deletable, True, now)
            self._delete_producer_snapshots(deletable, now)
        self.emit("segments_deleted", text, partition=str(self.topic_partition),
                  base_offsets=[s.base_offset for s in deletable], log_start_offset=self.log_start_offset)
        return count

    def _delete_retention_ms_breached(self, now: int) -> int:
        retention_ms = self.config.retention_ms
        if retention_ms < 0:
            return 0

        def breached(segment: LogSegment, _next: LogSegment | None) -> bool:
            return now - segment.largest_timestamp() > retention_ms

        def reason(segments: list[LogSegment]) -> str:
            based_on = ("the largest record timestamp in the segment"
                        if all(s.largest_record_timestamp() is not None for s in segments)
                        else "the last modified time of the segment")
            return (f"{self.topic_partition}: deleting segment(s) {self._base_offsets(segments)} due to log "
                    f"retention time {retention_ms}ms breach based on {based_on}")
        return self._delete_old_segments(breached, now, reason)

    def _delete_retention_size_breached(self, now: int) -> int:
        retention_bytes = self.config.retention_bytes
        size = self.size_in_bytes
        if retention_bytes < 0 or size < retention_bytes:
            return 0
        excess = [size - retention_bytes]

        def breached(segment: LogSegment, _next: LogSegment | None) -> bool:
            if excess[0] - segment.size >= 0:
                excess[0] -= segment.size
                return True
            return False

        def reason(segments: list[LogSegment]) -> str:
            after = size - sum(s.size for s in segments)
            return (f"{self.topic_partition}: deleting segment(s) {self._base_offsets(segments)} due to log "
                    f"retention size {retention_bytes} breach. Log size after deletion will be {after}.")
        return self._delete_old_segments(breached, now, reason)

    def _delete_log_start_offset_breached(self, now: int) -> int:
        def breached(_segment: LogSegment, next_segment: LogSegment | None) -> bool:
            return next_segment is not None and next_segment.base_offset <= self.log_start_offset

        def reason(segments: list[LogSegment]) -> str:
            return (f"{self.topic_partition}: deleting segment(s) {self._base_offsets(segments)} due to log start "
                    f"offset {self.log_start_offset} breach")
        return self._delete_old_segments(breached, now, reason)

    def _delete_producer_snapshots(self, segments: list[LogSegment], now: int) -> None:
        for segment in segments:
            renamed = self.producer_state_manager.remove_and_mark_snapshot_for_deletion(segment.base_offset)
            if renamed is not None:
                self.local_log.schedule_file_deletion(renamed, now)

    @staticmethod
    def _base_offsets(segments: list[LogSegment]) -> str:
        return ", ".join(str(s.base_offset) for s in segments)
