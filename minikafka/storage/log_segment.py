"""LogSegment: one ``.log`` file and its two sparse indexes.

Theory of operation
-------------------
A partition's log is a chain of segments.  Each has a *base offset*: <= the
least offset it holds, and > every offset in earlier segments.  A segment
with base offset 42 is stored as ``00000000000000000042.log`` (the batches),
``.index`` (offset -> position) and ``.timeindex`` (timestamp -> offset).
Only the last segment, the *active* one, takes appends.

Appending writes the batches at the end of the ``.log`` and, once more than
``index.interval.bytes`` have been written since the last index entry, adds
one entry to each index pointing at the batch just written.

Reading finds the batch holding a start offset (index lookup, then a short
forward scan of batch headers) and returns whole batches from there, at most
``max_size`` bytes -- or the first batch alone even if larger, when the caller
must make progress (``min_one_message``) -- and never past ``max_position``
(the high watermark's position, for consumers).

A segment *rolls* (UnifiedLog starts a new one) when the next append would
push it past ``segment.bytes``, when ``segment.ms`` has passed -- measured
from the first batch's timestamp to the new batch's timestamp, or by the
clock since creation if the first batch has none -- or when an index is full.

*Recovery* re-reads the file after an unclean shutdown: it checks every
batch's CRC, rebuilds both indexes from scratch, re-registers leader epochs
and producer state, and cuts the file at the first batch that is torn or
corrupt.  Everything after that point is lost, which is safe because
replication will fetch it again.

Mirrors ``org.apache.kafka.storage.internals.log.LogSegment`` and
``RollParams``.  The three files live in the `LogDirectory` the segment
receives; `flush` makes them durable there (Kafka's ``LogSegment.flush``).
Simplified: no transaction index (``.txnindex``), no ``preallocate``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from minikafka.common.errors import CorruptRecordException, InvalidRecordException, KafkaException
from minikafka.record import record_batch as rb
from minikafka.record.record_batch import RecordBatch
from minikafka.storage import log_file_utils as names
from minikafka.storage.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from minikafka.storage.file_records import FileRecords, LogOffsetPosition, TimestampAndOffset
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory
from minikafka.storage.offset_index import OffsetIndex
from minikafka.storage.time_index import TimeIndex, TimestampOffset

_UNKNOWN = TimestampOffset(rb.NO_TIMESTAMP, -1)


class LogSegmentOffsetOverflowException(KafkaException):
    """An offset that cannot be stored relative to the segment's base offset."""

    def __init__(self, segment: "LogSegment", offset: int):
        super().__init__(f"Detected offset overflow at offset {offset} in segment {segment}")
        self.segment = segment
        self.offset = offset


@dataclass(frozen=True, slots=True)
class RollParams:
    max_segment_ms: int
    max_segment_bytes: int
    max_timestamp_in_messages: int
    max_offset_in_messages: int
    messages_size: int
    now: int


class LogSegment:
    """A segment: base offset <= every offset in it < the next segment's base offset."""

    def __init__(self, dir_path: str, base_offset: int, config: LogConfig, now: int,
                 roll_jitter_ms: int = 0, suffix: str = "", *, directory: LogDirectory = FILE_SYSTEM):
        self.dir_path = dir_path                          # the partition directory
        self.directory = directory                        # where its files live (disk or memory)
        self.base_offset = base_offset
        self.index_interval_bytes = config.index_interval_bytes
        self.max_index_size = config.segment_index_bytes
        self.roll_jitter_ms = roll_jitter_ms              # random head start on segment.ms (segment.jitter.ms)
        self.log = FileRecords(names.log_file(dir_path, base_offset, suffix), directory)
        self.offset_index_path = names.offset_index_file(dir_path, base_offset, suffix)
        self.time_index_path = names.time_index_file(dir_path, base_offset, suffix)
        self._offset_index: OffsetIndex | None = None     # opened on first use (Kafka's LazyIndex)
        self._time_index: TimeIndex | None = None
        self.created = now                                # clock when this object was made (segment.ms fallback)
        self.rolling_based_timestamp: int | None = None   # maxTimestamp of the first batch, once known
        self._max_timestamp_and_offset: TimestampOffset = _UNKNOWN  # largest timestamp so far, lazily read
        self.bytes_since_last_index_entry = 0

    @classmethod
    def open(cls, dir_path: str, base_offset: int, config: LogConfig, now: int,
             roll_jitter_ms: int = 0, *, directory: LogDirectory = FILE_SYSTEM) -> "LogSegment":
        """A brand-new, empty segment with its index files preallocated."""
        for path in (names.log_file(dir_path, base_offset), names.offset_index_file(dir_path, base_offset),
                     names.time_index_file(dir_path, base_offset)):
            directory.remove(path)    # a leftover from a crashed roll: start clean, as Kafka does
        segment = cls(dir_path, base_offset, config, now, roll_jitter_ms, directory=directory)
        segment.offset_index, segment.time_index   # materialize (preallocate) both index files
        return segment

    # ------------------------------------------------------------------ indexes
    @property
    def offset_index(self) -> OffsetIndex:
        if self._offset_index is None:
            self._offset_index = OffsetIndex(self.offset_index_path, self.base_offset, self.max_index_size,
                                            self.directory)
        return self._offset_index

    @property
    def time_index(self) -> TimeIndex:
        if self._time_index is None:
            self._time_index = TimeIndex(self.time_index_path, self.base_offset, self.max_index_size,
                                        self.directory)
        return self._time_index

    def resize_indexes(self, size: int) -> None:
        self.offset_index.resize(size)
        self.time_index.resize(size)

    def sanity_check(self, time_index_newly_created: bool, check_contents: bool = True) -> None:
        """Raise FileNotFoundError if the offset index is missing, CorruptIndexException if an index is bad.

        ``check_contents=False`` skips the content checks for segments that
        will be recovered anyway (after a crash, everything past the
        recovery point), as Kafka does.
        """
        if not self.directory.exists(self.offset_index_path):
            raise FileNotFoundError(f"Offset index file {os.path.abspath(self.offset_index_path)} does not exist")
        if time_index_newly_created:
            self.time_index.resize(0)
        if check_contents:
            self.offset_index.sanity_check()
            self.time_index.sanity_check()

    # ------------------------------------------------------------------ size and time
    @property
    def size(self) -> int:
        return self.log.size_in_bytes

    def read_max_timestamp_and_offset_so_far(self) -> TimestampOffset:
        if self._max_timestamp_and_offset == _UNKNOWN:
            self._max_timestamp_and_offset = self.time_index.last_entry()
        return self._max_timestamp_and_offset

    @property
    def max_timestamp_so_far(self) -> int:
        return self.read_max_timestamp_and_offset_so_far().timestamp

    def largest_record_timestamp(self) -> int | None:
        ts = self.max_timestamp_so_far
        return ts if ts >= 0 else None

    def largest_timestamp(self) -> int:
        """The largest record timestamp, or the file's modification time when no batch has one."""
        ts = self.max_timestamp_so_far
        return ts if ts >= 0 else self.last_modified()

    def last_modified(self) -> int:
        return self.log.last_modified()

    def _load_first_batch_timestamp(self) -> None:
        if self.rolling_based_timestamp is None:
            for batch, _ in self.log.batches_from(0):
                self.rolling_based_timestamp = batch.max_timestamp
                break

    def time_waited_for_roll(self, now: int, message_timestamp: int) -> int:
        """segment.ms is measured between batch timestamps when they exist, else by the clock."""
        self._load_first_batch_timestamp()
        ts = -1 if self.rolling_based_timestamp is None else self.rolling_based_timestamp
        if ts >= 0:
            return message_timestamp - ts
        return now - self.created

    def should_roll(self, params: RollParams) -> bool:
        reached_roll_ms = (self.time_waited_for_roll(params.now, params.max_timestamp_in_messages)
                           > params.max_segment_ms - self.roll_jitter_ms)
        size = self.size
        return (size > params.max_segment_bytes - params.messages_size
                or (size > 0 and reached_roll_ms)
                or self.offset_index.is_full() or self.time_index.is_full()
                or not self.offset_index.can_append_offset(params.max_offset_in_messages))

    # ------------------------------------------------------------------ append
    def _ensure_offset_in_range(self, offset: int) -> None:
        if not self.offset_index.can_append_offset(offset):
            raise LogSegmentOffsetOverflowException(self, offset)

    def append(self, largest_offset: int, records, batches: list[RecordBatch], now: int) -> None:
        """Write ``records`` (whose parsed headers are ``batches``) and index them as needed."""
        if not records:
            return
        physical_position = self.size
        if physical_position == 0:
            self.rolling_based_timestamp = batches[0].max_timestamp
        self._ensure_offset_in_range(largest_offset)
        self.log.append(records)
        self.log.set_last_modified(now)
        for batch in batches:
            if batch.max_timestamp > self.max_timestamp_so_far:
                self._max_timestamp_and_offset = TimestampOffset(batch.max_timestamp, batch.last_offset)
            if self.bytes_since_last_index_entry > self.index_interval_bytes:
                self.offset_index.append(batch.last_offset, physical_position)
                so_far = self.read_max_timestamp_and_offset_so_far()
                self.time_index.maybe_append(so_far.timestamp, so_far.offset)
                self.bytes_since_last_index_entry = 0
            physical_position += batch.size_in_bytes
            self.bytes_since_last_index_entry += batch.size_in_bytes

    # ------------------------------------------------------------------ read
    def translate_offset(self, offset: int, starting_position: int = 0) -> LogOffsetPosition | None:
        """The batch holding the first offset >= ``offset``, or None past the segment's end."""
        mapping = self.offset_index.lookup(offset)
        return self.log.search_for_offset_with_size(offset, max(mapping.position, starting_position))

    def read(self, start_offset: int, max_size: int, max_position: int | None = None,
             min_one_message: bool = False) -> FetchDataInfo | None:
        """Whole batches from the one holding ``start_offset``; None if the offset is past this segment."""
        if max_size < 0:
            raise ValueError(f"Invalid max size {max_size} for log read from segment {self.log.path}")
        found = self.translate_offset(start_offset)
        if found is None:
            return None
        metadata = LogOffsetMetadata(start_offset, self.base_offset, found.position)
        adjusted_max_size = max(max_size, found.size) if min_one_message else max_size
        if adjusted_max_size == 0 or max_position is None:
            return FetchDataInfo(metadata, b"")
        fetch_size = min(max_position - found.position, adjusted_max_size)
        data = self.log.read(found.position, fetch_size)
        whole = rb.valid_bytes(data)          # the sandbox returns whole batches only
        return FetchDataInfo(metadata, data[:whole], adjusted_max_size < found.size)

    def read_next_offset(self) -> int:
        """The offset after the last batch in this segment (its base offset when empty)."""
        position = self.offset_index.lookup(self.offset_index.last_offset).position
        next_offset = self.base_offset
        for batch, _ in self.log.batches_from(position):
            next_offset = batch.next_offset
        return next_offset

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int) -> TimestampAndOffset | None:
        """The first record at or after ``timestamp`` (and ``starting_offset``), searching from the time index."""
        entry = self.time_index.lookup(timestamp)
        position = self.offset_index.lookup(max(entry.offset, starting_offset)).position
        return self.log.search_for_timestamp(timestamp, position, starting_offset)

    # ------------------------------------------------------------------ recovery and truncation
    def recover(self, producer_state_manager=None, leader_epoch_cache=None) -> int:
        """Rebuild the indexes from the file and cut it at the first bad batch; returns bytes removed."""
        self.offset_index.reset()
        self.time_index.reset()
        valid_bytes, last_index_entry = 0, 0
        self._max_timestamp_and_offset = _UNKNOWN
        try:
            for batch, view in self.log.batches_from(0):
                if batch.magic < rb.MAGIC_VALUE_V2:
                    # Kafka 4.x writes only v2; an older entry here cannot be checked, so it ends the log.
                    raise CorruptRecordException(f"Unexpected magic v{batch.magic} batch at {batch.position}")
                rb.ensure_valid(view, batch, start=0)
                self._ensure_offset_in_range(batch.last_offset)
                if batch.max_timestamp > self.max_timestamp_so_far:
                    self._max_timestamp_and_offset = TimestampOffset(batch.max_timestamp, batch.last_offset)
                if valid_bytes - last_index_entry > self.index_interval_bytes:
                    self.offset_index.append(batch.last_offset, valid_bytes)
                    so_far = self.read_max_timestamp_and_offset_so_far()
                    self.time_index.maybe_append(so_far.timestamp, so_far.offset)
                    last_index_entry = valid_bytes
                valid_bytes += batch.size_in_bytes
                if batch.magic >= rb.MAGIC_VALUE_V2:
                    self._recover_epoch_and_producers(batch, view, producer_state_manager, leader_epoch_cache)
        except (CorruptRecordException, InvalidRecordException):
            pass                      # everything from this batch on is discarded below
        truncated = self.log.size_in_bytes - valid_bytes
        self.log.truncate_to(valid_bytes)
        self.offset_index.trim_to_valid_size()
        so_far = self.read_max_timestamp_and_offset_so_far()
        self.time_index.maybe_append(so_far.timestamp, so_far.offset, skip_full_check=True)
        self.time_index.trim_to_valid_size()
        return truncated

    @staticmethod
    def _recover_epoch_and_producers(batch, view, producer_state_manager, leader_epoch_cache) -> None:
        if leader_epoch_cache is not None and batch.partition_leader_epoch >= 0:
            latest = leader_epoch_cache.latest_epoch()
            if latest is None or batch.partition_leader_epoch > latest:
                leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)
        if producer_state_manager is not None:
            producer_state_manager.load_batch(batch, view)

    def truncate_to(self, offset: int, now: int) -> int:
        """Remove everything at offsets >= ``offset``; returns the number of log bytes removed."""
        mapping = self.translate_offset(offset)
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.offset_index.resize(self.offset_index.max_index_size)    # this segment may be active again
        self.time_index.resize(self.time_index.max_index_size)
        removed = 0 if mapping is None else self.log.truncate_to(mapping.position)
        if self.size == 0:
            self.created = now
            self.rolling_based_timestamp = None
        self.bytes_since_last_index_entry = 0
        if self.max_timestamp_so_far >= 0:
            self._max_timestamp_and_offset = self._read_largest_timestamp()
        return removed

    def _read_largest_timestamp(self) -> TimestampOffset:
        last_entry = self.time_index.last_entry()
        position = self.offset_index.lookup(last_entry.offset).position
        after = self.log.largest_timestamp_after(position)
        if after.timestamp > last_entry.timestamp:
            return TimestampOffset(after.timestamp, after.offset)
        return last_entry

    # ------------------------------------------------------------------ lifecycle
    def on_become_inactive_segment(self) -> None:
        """On roll: record the final largest timestamp and trim both indexes to their entries."""
        so_far = self.read_max_timestamp_and_offset_so_far()
        self.time_index.maybe_append(so_far.timestamp, so_far.offset, skip_full_check=True)
        for index in (self.offset_index, self.time_index):
            index.trim_to_valid_size()
            index.close_handler()
        self.log.close()

    def close(self) -> None:
        """Clean shutdown: as on roll, leave the files exactly as Kafka's close would."""
        if self._max_timestamp_and_offset != _UNKNOWN:
            so_far = self._max_timestamp_and_offset
            self.time_index.maybe_append(so_far.timestamp, so_far.offset, skip_full_check=True)
        if self._offset_index is not None:
            self._offset_index.close()
        if self._time_index is not None:
            self._time_index.close()
        self.log.close()

    def flush(self) -> None:
        """Make the batches and both indexes durable (Kafka's ``LogSegment.flush``)."""
        self.log.flush()
        for index in (self._offset_index, self._time_index):
            if index is not None:
                index.flush()

    def close_handlers(self) -> None:
        """Drop the file descriptors without touching the files (the node crashed)."""
        for index in (self._offset_index, self._time_index):
            if index is not None:
                index.close_handler()
        self.log.close()

    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        for current, setter in ((self.log.path, self.log.rename_to),
                                (self.offset_index_path, self._rename_offset_index),
                                (self.time_index_path, self._rename_time_index)):
            setter(current[:len(current) - len(old_suffix)] + new_suffix if old_suffix else current + new_suffix)

    def _rename_offset_index(self, path: str) -> None:
        if self._offset_index is not None:
            self._offset_index.rename_to(path)
        elif self.directory.exists(self.offset_index_path):
            self.directory.replace(self.offset_index_path, path)
        self.offset_index_path = path

    def _rename_time_index(self, path: str) -> None:
        if self._time_index is not None:
            self._time_index.rename_to(path)
        elif self.directory.exists(self.time_index_path):
            self.directory.replace(self.time_index_path, path)
        self.time_index_path = path

    def has_suffix(self, suffix: str) -> bool:
        return all(p.endswith(suffix) for p in (self.log.path, self.offset_index_path, self.time_index_path))

    def delete_if_exists(self) -> None:
        self.log.delete_if_exists()
        for path in (self.offset_index_path, self.time_index_path):
            self.directory.remove(path)

    def update_parent_dir(self, dir_path: str) -> None:
        self.dir_path = dir_path
        self.log.close()
        self.log.path = os.path.join(dir_path, os.path.basename(self.log.path))
        self.offset_index_path = os.path.join(dir_path, os.path.basename(self.offset_index_path))
        self.time_index_path = os.path.join(dir_path, os.path.basename(self.time_index_path))
        for index in (self._offset_index, self._time_index):
            if index is not None:
                index.update_parent_dir(dir_path)

    def __str__(self) -> str:
        return (f"LogSegment(baseOffset={self.base_offset}, size={self.size}, "
                f"lastModifiedTime={self.last_modified()}, "
                f"largestRecordTimestamp={self._max_timestamp_and_offset.timestamp})")
