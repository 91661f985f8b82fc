"""LocalLog: a partition's segments on this broker's disk, and their end offset.

Theory of operation
-------------------
`LocalLog` owns the chain of segments and the *log end offset* (LEO): the
offset the next record will get.  It appends to the active segment, reads
across segments, rolls a new active segment, and cuts the log back
(truncation) -- the mechanics under `UnifiedLog`'s policy.

Reads start at the segment holding the start offset and move to later
segments only if that one holds nothing at or after it.  Reading past the
log end offset is ``OffsetOutOfRangeException``; reading exactly at the upper
bound (the LEO, or the high watermark for consumers) returns no records.

Removing segments never deletes files on the spot: their names get a
``.deleted`` suffix at once (so they are no longer part of the log even after
a crash) and the files disappear ``file.delete.delay.ms`` later, when
`delete_expired_files` runs from the broker's maintenance timer -- Kafka does
this so that a read already holding a segment can finish.

*Flushing* up to an offset makes the segments below it durable in the
`LogDirectory` the log receives (its files are on disk for a live cluster,
in memory for a simulated one) and moves the *recovery point* there: after a
crash, recovery re-reads only what lies beyond it.

Mirrors ``kafka.log.LocalLog`` / ``org.apache.kafka.storage.internals.log.LocalLog``.
Simplified: no ``-future`` logs and no segment splitting (offset overflow
only arises from pre-0.11 data).
"""

from __future__ import annotations

import os

from minikafka.common.errors import KafkaException, OffsetOutOfRangeException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.record_batch import RecordBatch
from minikafka.storage import log_file_utils as names
from minikafka.storage.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory
from minikafka.storage.log_segment import LogSegment
from minikafka.storage.log_segments import LogSegments


class LocalLog:
    def __init__(self, dir_path: str, config: LogConfig, segments: LogSegments, recovery_point: int,
                 next_offset_metadata: LogOffsetMetadata, topic_partition: TopicPartition, *,
                 directory: LogDirectory = FILE_SYSTEM, last_flush_time: int = 0):
        self.dir_path = dir_path                         # <log dir>/<topic>-<partition>
        self.directory = directory                       # where the segment files live (disk or memory)
        self.config = config
        self.segments = segments
        self.recovery_point = recovery_point             # offsets below this are known to be on disk intact
        self.next_offset_metadata = next_offset_metadata  # the log end offset and where it is
        self.topic_partition = topic_partition
        self.pending_deletes: list[tuple[int, list[LogSegment]]] = []   # (due time ms, segments renamed .deleted)
        self.pending_file_deletes: list[tuple[int, str]] = []           # (due time ms, other .deleted file)
        self.closed = False
        self.last_flush_time = last_flush_time           # when a flush last moved the recovery point (ms)

    @property
    def parent_dir(self) -> str:
        return os.path.dirname(os.path.abspath(self.dir_path))

    @property
    def log_end_offset(self) -> int:
        return self.next_offset_metadata.message_offset

    def update_config(self, config: LogConfig) -> None:
        self.config = config

    def update_recovery_point(self, offset: int) -> None:
        self.recovery_point = offset

    def flush(self, offset: int, now: int | None = None) -> None:
        """Make the segments holding ``[recovery point, offset)`` durable, then move the recovery point;
        ``now`` (when known) becomes the last flush time if anything was flushed."""
        if offset > self.recovery_point:
            for segment in self.segments.values_between(self.recovery_point, offset):
                segment.flush()
            if now is not None:
                self.last_flush_time = now
        self.mark_flushed(offset)

    def mark_flushed(self, offset: int) -> None:
        if offset > self.recovery_point:
            self.update_recovery_point(offset)

    def unflushed_messages(self) -> int:
        return self.log_end_offset - self.recovery_point

    def update_log_end_offset(self, end_offset: int) -> None:
        active = self.segments.active_segment
        self.next_offset_metadata = LogOffsetMetadata(end_offset, active.base_offset, active.size)
        if self.recovery_point > end_offset:
            self.update_recovery_point(end_offset)

    # ------------------------------------------------------------------ append and read
    def append(self, last_offset: int, records, batches: list[RecordBatch], now: int) -> None:
        self.segments.active_segment.append(last_offset, records, batches, now)
        self.update_log_end_offset(last_offset + 1)

    def read(self, start_offset: int, max_length: int, min_one_message: bool,
             max_offset_metadata: LogOffsetMetadata) -> FetchDataInfo:
        end_offset = self.log_end_offset
        segment = self.segments.floor_segment(start_offset)
        if start_offset > end_offset or segment is None:
            raise OffsetOutOfRangeException(f"Received request for offset {start_offset} for partition "
                                            f"{self.topic_partition}, but we only have log segments upto "
                                            f"{end_offset}.")
        if start_offset == max_offset_metadata.message_offset:
            return FetchDataInfo(max_offset_metadata, b"")
        if start_offset > max_offset_metadata.message_offset:
            return FetchDataInfo(self.convert_to_offset_metadata_or_throw(start_offset), b"")
        while segment is not None:
            if segment.base_offset < max_offset_metadata.segment_base_offset:
                max_position = segment.size
            elif (segment.base_offset == max_offset_metadata.segment_base_offset
                  and not max_offset_metadata.message_offset_only()):
                max_position = max_offset_metadata.relative_position_in_segment
            else:
                max_position = None
            info = segment.read(start_offset, max_length, max_position, min_one_message)
            if info is not None:
                return info
            segment = self.segments.higher_segment(segment.base_offset)
        # Every offset at or after start_offset was removed (e.g. by DeleteRecords): nothing to return.
        return FetchDataInfo(self.next_offset_metadata, b"")

    def convert_to_offset_metadata_or_throw(self, offset: int) -> LogOffsetMetadata:
        return self.read(offset, 1, False, self.next_offset_metadata).fetch_offset_metadata

    # ------------------------------------------------------------------ roll
    def roll(self, expected_next_offset: int | None, now: int, roll_jitter_ms: int = 0) -> LogSegment:
        new_offset = max(expected_next_offset or 0, self.log_end_offset)
        active = self.segments.active_segment
        if self.segments.contains(new_offset):
            if active.base_offset == new_offset and active.size == 0:
                # An empty active segment whose index reported "full": replace it (KAFKA-6388).
                new_segment = self.create_and_delete_segment(new_offset, active, now, roll_jitter_ms)
                self.update_log_end_offset(self.log_end_offset)
                return new_segment
            raise KafkaException(f"Trying to roll a new log segment for topic partition {self.topic_partition} "
                                 f"with start offset {new_offset} =max(provided offset = {expected_next_offset}, "
                                 f"LEO = {self.log_end_offset}) while it already exists. Existing segment is "
                                 f"{self.segments.get(new_offset)}.")
        if new_offset < active.base_offset:
            raise KafkaException(f"Trying to roll a new log segment for topic partition {self.topic_partition} "
                                 f"with start offset {new_offset} =max(provided offset = {expected_next_offset}, "
                                 f"LEO = {self.log_end_offset}) lower than start offset of the active segment "
                                 f"{active}")
        active.on_become_inactive_segment()
        new_segment = self.segments.add(LogSegment.open(self.dir_path, new_offset, self.config, now,
                                                        roll_jitter_ms, directory=self.directory))
        self.update_log_end_offset(self.log_end_offset)
        return new_segment

    # ------------------------------------------------------------------ removing segments
    def remove_and_delete_segments(self, to_delete: list[LogSegment], async_delete: bool, now: int) -> None:
        for segment in list(to_delete):
            self.segments.remove(segment.base_offset)
        self.delete_segment_files(to_delete, async_delete, now)

    def delete_segment_files(self, to_delete: list[LogSegment], async_delete: bool, now: int) -> None:
        for segment in to_delete:
            segment.close_handlers()
            if not segment.has_suffix(names.DELETED_FILE_SUFFIX):
                segment.change_file_suffixes("", names.DELETED_FILE_SUFFIX)
        if async_delete:
            self.pending_deletes.append((now + self.config.file_delete_delay_ms, list(to_delete)))
        else:
            for segment in to_delete:
                segment.delete_if_exists()

    def schedule_file_deletion(self, path: str, now: int) -> None:
        """Remove an already renamed ``.deleted`` file (e.g. a producer snapshot) after the delay."""
        self.pending_file_deletes.append((now + self.config.file_delete_delay_ms, path))

    def delete_expired_files(self, now: int) -> int:
        """Remove the ``.deleted`` files whose delay has passed; returns how many segments went."""
        due = [entry for entry in self.pending_deletes if entry[0] <= now]
        self.pending_deletes = [entry for entry in self.pending_deletes if entry[0] > now]
        for _, segments in due:
            for segment in segments:
                segment.delete_if_exists()
        for _, path in [entry for entry in self.pending_file_deletes if entry[0] <= now]:
            self.directory.remove(path)
        self.pending_file_deletes = [entry for entry in self.pending_file_deletes if entry[0] > now]
        return sum(len(s) for _, s in due)

    def create_and_delete_segment(self, new_offset: int, to_delete: LogSegment, now: int,
                                  roll_jitter_ms: int = 0) -> LogSegment:
        if new_offset == to_delete.base_offset:
            to_delete.close_handlers()
            to_delete.change_file_suffixes("", names.DELETED_FILE_SUFFIX)
        new_segment = self.segments.add(LogSegment.open(self.dir_path, new_offset, self.config, now,
                                                        roll_jitter_ms, directory=self.directory))
        if new_offset != to_delete.base_offset:
            self.segments.remove(to_delete.base_offset)
        self.delete_segment_files([to_delete], True, now)
        return new_segment

    def truncate_fully_and_start_at(self, new_offset: int, now: int) -> list[LogSegment]:
        to_delete = self.segments.values()
        if to_delete:
            self.remove_and_delete_segments(to_delete[:-1], True, now)
            self.create_and_delete_segment(new_offset, to_delete[-1], now)
        self.update_log_end_offset(new_offset)
        return to_delete

    def truncate_to(self, target_offset: int, now: int) -> list[LogSegment]:
        deletable = [s for s in self.segments if s.base_offset > target_offset]
        self.remove_and_delete_segments(deletable, True, now)
        self.segments.active_segment.truncate_to(target_offset, now)
        self.update_log_end_offset(target_offset)
        return deletable

    def delete_all_segments(self) -> list[LogSegment]:
        segments = self.segments.values()
        self.remove_and_delete_segments(segments, False, 0)
        self.closed = True
        return segments

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self.segments.close()
        self.closed = True

    def close_handlers(self) -> None:
        for segment in self.segments:
            segment.close_handlers()
        self.closed = True

    def rename_dir(self, new_name: str) -> None:
        new_dir = os.path.join(self.parent_dir, new_name)
        for segment in self.segments:
            segment.close_handlers()
        self.directory.replace(self.dir_path, new_dir)
        self.dir_path = new_dir
        for segment in self.segments:
            segment.update_parent_dir(new_dir)
        for _, segments in self.pending_deletes:
            for segment in segments:
                segment.update_parent_dir(new_dir)
        self.pending_file_deletes = [(due, os.path.join(new_dir, os.path.basename(path)))
                                     for due, path in self.pending_file_deletes]
