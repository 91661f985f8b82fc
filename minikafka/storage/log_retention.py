"""LogRetention: which old segments `UnifiedLog` deletes, whole segments at a time.

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

`LogRetention` is the policy half: given the log's facts (its segments,
offsets, size and config), it says which segments a rule picks and in what
words.  `UnifiedLog` owns the mechanics -- rolling, moving the log start
offset, deleting the files and producer snapshots, the ``segments_deleted``
event -- and asks its `LogRetention` for one rule at a time, because each rule
sees the log as the previous one left it.

Mirrors ``UnifiedLog.deleteOldSegments``, ``deletableSegments`` and the
``deleteRetention*BreachedSegments`` methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.log_segment import LogSegment

Predicate = Callable[[LogSegment, "LogSegment | None"], bool]


@dataclass(frozen=True)
class RetentionRule:
    """One retention rule: which segments it takes (oldest first) and why, for the log's event."""

    predicate: Predicate                                 # (segment, next segment or None) -> delete it?
    reason: Callable[[list[LogSegment]], str]


class LogRetention:
    """The three retention rules of one partition's log (the topic partition names it in the reasons)."""

    def __init__(self, topic_partition: TopicPartition):
        self.topic_partition = topic_partition

    @staticmethod
    def deletable_segments(segments: Sequence[LogSegment], high_watermark: int, log_end_offset: int,
                           predicate: Predicate) -> list[LogSegment]:
        """Oldest-first segments satisfying ``predicate``, stopping at the first that does not."""
        deletable = []
        for i, segment in enumerate(segments):
            next_segment = segments[i + 1] if i + 1 < len(segments) else None
            last_and_empty = next_segment is None and segment.size == 0
            upper_bound = next_segment.base_offset if next_segment is not None else log_end_offset
            if high_watermark >= upper_bound and predicate(segment, next_segment) and not last_and_empty:
                deletable.append(segment)
            else:
                break
        return deletable

    def log_start_offset_breach(self, log_start_offset: int) -> RetentionRule:
        """Rule 1: segments wholly below the log start offset."""
        def breached(_segment: LogSegment, next_segment: LogSegment | None) -> bool:
            return next_segment is not None and next_segment.base_offset <= log_start_offset

        def reason(segments: list[LogSegment]) -> str:
            return (f"{self.topic_partition}: deleting segment(s) {_base_offsets(segments)} due to log start "
                    f"offset {log_start_offset} breach")
        return RetentionRule(breached, reason)

    def retention_size_breach(self, retention_bytes: int, size: int) -> RetentionRule | None:
        """Rule 2 (``retention.bytes``), for a log of ``size`` bytes; None when it does not apply."""
        if retention_bytes < 0 or size < retention_bytes:
            return None
        excess = [size - retention_bytes]

        def breached(segment: LogSegment, _next: LogSegment | None) -> bool:
            if excess[0] - segment.size >= 0:
                excess[0] -= segment.size
                return True
            return False

        def reason(segments: list[LogSegment]) -> str:
            after = size - sum(s.size for s in segments)
            return (f"{self.topic_partition}: deleting segment(s) {_base_offsets(segments)} due to log "
                    f"retention size {retention_bytes} breach. Log size after deletion will be {after}.")
        return RetentionRule(breached, reason)

    def retention_ms_breach(self, retention_ms: int, now: int) -> RetentionRule | None:
        """Rule 3 (``retention.ms``); None when retention by time is off."""
        if retention_ms < 0:
            return None

        def breached(segment: LogSegment, _next: LogSegment | None) -> bool:
            return now - segment.largest_timestamp() > retention_ms

        def reason(segments: list[LogSegment]) -> str:
            based_on = ("the largest record timestamp in the segment"
                        if all(s.largest_record_timestamp() is not None for s in segments)
                        else "the last modified time of the segment")
            return (f"{self.topic_partition}: deleting segment(s) {_base_offsets(segments)} due to log "
                    f"retention time {retention_ms}ms breach based on {based_on}")
        return RetentionRule(breached, reason)


def _base_offsets(segments: list[LogSegment]) -> str:
    return ", ".join(str(s.base_offset) for s in segments)
