"""UnifiedLog: one partition replica's log -- offsets, reads, truncation, epochs.

Theory of operation
-------------------
Three offsets describe a log.  The *log start offset* is the first offset a
client may read (retention and DeleteRecords move it up).  The *log end
offset* (LEO) is the offset the next record will get.  The *high watermark*
(HW) is the first offset not yet known to be on every in-sync replica;
consumers read only below it.  ``log start <= HW <= LEO`` always holds.  The HW
lives here but is moved by replication: the leader raises it as followers
catch up (`maybe_increment_high_watermark`, never backwards), a follower
copies the leader's (`maybe_update_high_watermark`), and truncation below it
pulls it down.

`UnifiedLog` sits over a `LocalLog` (local_log.py: the segments on disk,
the log end offset, the recovery point, rolling and deleting files), as in
Kafka, and adds what replication and clients need on top of it:

* **appends** (`append_as_leader`, `append_as_follower`): the pipeline runs
  here; the checks that only look at the batches are functions in
  log_append.py, given the facts they read;
* **retention** (`delete_old_segments`): the `LogRetention` collaborator
  (log_retention.py) picks the segments rule by rule; the log deletes them,
  moves the log start offset and emits the event;
* **reads** of whole batches from a start offset, bounded by the LEO
  (followers), the HW (consumers) -- ``OffsetOutOfRangeException`` outside
  ``[log start, LEO]``;
* **truncation**: `truncate_to` removes a divergent tail (a follower that
  found, via the leader epoch cache, where it parted from the new leader);
  `truncate_fully_and_start_at` empties the log;
* **leader epochs**: ``end_offset_for_epoch`` answers OffsetForLeaderEpoch;
* **ListOffsets**: `fetch_offset_by_timestamp` with Kafka's special
  timestamps (-2 earliest, -1 latest, -3 max timestamp);
* **rolling** a new active segment, taking a producer-state snapshot named
  after its base offset;
* **loading** (`load`) through `LogLoader`, with recovery after a crash.

Events (``emit(kind, text, **data)``): ``segment_rolled``,
``segments_deleted``, ``log_truncated``, ``recovery``.

Mirrors ``org.apache.kafka.storage.internals.log.UnifiedLog`` (Kafka 4.3.1).
Simplified: no tiered storage, no transaction index or last stable offset
(``txn_committed`` reads stop at the HW).  ``flush`` (on roll, after
``flush.messages`` appends, when the `LogManager`'s flusher finds
``flush.ms`` passed since `last_flush_time` -- `flush_if_due` -- and on
clean shutdown) flushes the segments in the `LogDirectory` and advances the
recovery point; on a live cluster's disk the flush is not an fsync (see
`log_directory`), in a simulated cluster's memory it decides what survives
`InMemoryLogDirectory.lose_power`.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import Callable

from minikafka.common.errors import (InconsistentTopicIdException, OffsetOutOfRangeException,
                                     RecordBatchTooLargeException)
from minikafka.common.uuid import Uuid
from minikafka.record import record_batch as rb
from minikafka.record.memory_records import batch_records
from minikafka.storage import log_file_utils as names
from minikafka.storage.checkpoint_file import LeaderEpochCheckpointFile
from minikafka.storage.fetch_data_info import FetchDataInfo, FetchIsolation, LogOffsetMetadata
from minikafka.storage.file_records import TimestampAndOffset, maybe_leader_epoch
from minikafka.storage.leader_epoch_file_cache import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, LeaderEpochFileCache
from minikafka.storage.local_log import LocalLog
from minikafka.storage.log_append import (OffsetsOutOfOrderException, UnexpectedAppendOffsetException,
                                          analyze_and_validate_records, analyze_producer_state, unexpected_offset,
                                          validate_and_assign)
from minikafka.storage.log_append_info import UNKNOWN_OFFSET, LogAppendInfo
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory
from minikafka.storage.log_loader import LogLoader, rebuild_producer_state
from minikafka.storage.log_retention import LogRetention, Predicate, RetentionRule
from minikafka.storage.log_segment import LogSegment, RollParams
from minikafka.storage.partition_metadata_file import PartitionMetadataFile
from minikafka.storage.producer_append_info import AppendOrigin
from minikafka.storage.producer_state_manager import PRODUCER_ID_EXPIRATION_MS_DEFAULT, ProducerStateManager

Emit = Callable[..., None]

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5
EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6

__all__ = ["UnifiedLog", "UnexpectedAppendOffsetException", "OffsetsOutOfOrderException", "EARLIEST_TIMESTAMP",
           "LATEST_TIMESTAMP", "MAX_TIMESTAMP", "EARLIEST_LOCAL_TIMESTAMP", "LATEST_TIERED_TIMESTAMP",
           "EARLIEST_PENDING_UPLOAD_TIMESTAMP"]


def _no_emit(kind: str, text: str, **data) -> None:
    pass


class UnifiedLog:
    """The log of one partition replica, in ``<log dir>/<topic>-<partition>``."""

    def __init__(self, local_log: LocalLog, log_start_offset: int, leader_epoch_cache: LeaderEpochFileCache,
                 producer_state_manager: ProducerStateManager, topic_id: Uuid | None, rng: random.Random,
                 emit: Emit):
        self.local_log = local_log
        self.retention = LogRetention(local_log.topic_partition)
        self.topic_partition = local_log.topic_partition
        self.leader_epoch_cache = leader_epoch_cache
        self.producer_state_manager = producer_state_manager
        self.rng = rng                                   # draws for segment.jitter.ms
        self.emit = emit
        self.log_start_offset = log_start_offset         # first offset clients may read
        self.high_watermark_metadata = LogOffsetMetadata(log_start_offset)   # HW, segment info filled lazily
        self.partition_metadata_file = PartitionMetadataFile(local_log.dir_path, local_log.directory)
        self.topic_id: Uuid | None = None                # from partition.metadata or the caller
        self._update_log_start_offset(log_start_offset)
        self._initialize_topic_id(topic_id)

    @classmethod
    def load(cls, dir_path: str, config: LogConfig, now: int, *, log_start_offset: int = 0,
             recovery_point: int = 0, had_clean_shutdown: bool = True, topic_id: Uuid | None = None,
             rng: random.Random | None = None, emit: Emit | None = None,
             producer_id_expiration_ms: int = PRODUCER_ID_EXPIRATION_MS_DEFAULT,
             directory: LogDirectory = FILE_SYSTEM) -> "UnifiedLog":
        """Open ``dir_path`` (created if missing) in ``directory``, recovering it when ``had_clean_shutdown``
        is False."""
        directory.make_dirs(dir_path)
        tp = names.parse_topic_partition_name(dir_path)
        emit = emit or _no_emit
        cache = LeaderEpochFileCache(tp, LeaderEpochCheckpointFile.in_dir(dir_path, directory))
        psm = ProducerStateManager(tp, dir_path, producer_id_expiration_ms, directory=directory)
        loader = LogLoader(dir_path, tp, config, now, had_clean_shutdown, log_start_offset, recovery_point,
                           cache, psm, emit, directory=directory)
        offsets = loader.load()
        local = LocalLog(dir_path, config, loader.segments, offsets.recovery_point, offsets.next_offset_metadata, tp,
                         directory=directory, last_flush_time=now)
        return cls(local, offsets.log_start_offset, cache, psm, topic_id, rng or random.Random(0), emit)

    # ------------------------------------------------------------------ basic facts
    @property
    def config(self) -> LogConfig:
        return self.local_log.config

    @property
    def dir_path(self) -> str:
        return self.local_log.dir_path

    @property
    def log_end_offset(self) -> int:
        return self.local_log.log_end_offset

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        return self.local_log.next_offset_metadata

    @property
    def recovery_point(self) -> int:
        return self.local_log.recovery_point

    @property
    def high_watermark(self) -> int:
        return self.high_watermark_metadata.message_offset

    @property
    def last_stable_offset(self) -> int:
        """No transaction index in the sandbox: the last stable offset is the high watermark."""
        return self.high_watermark

    @property
    def size_in_bytes(self) -> int:
        return self.local_log.segments.size_in_bytes()

    @property
    def number_of_segments(self) -> int:
        return self.local_log.segments.number_of_segments

    @property
    def active_segment(self) -> LogSegment:
        return self.local_log.segments.active_segment

    def log_segments(self) -> list[LogSegment]:
        return self.local_log.segments.values()

    def is_empty(self) -> bool:
        return self.log_start_offset == self.log_end_offset

    def update_config(self, config: LogConfig) -> LogConfig:
        old = self.local_log.config
        self.local_log.update_config(config)
        return old

    def _initialize_topic_id(self, topic_id: Uuid | None) -> None:
        if self.partition_metadata_file.exists():
            file_topic_id = self.partition_metadata_file.read()
            if topic_id is not None and topic_id != file_topic_id:
                raise InconsistentTopicIdException(
                    f"Tried to assign topic ID {topic_id} to log for topic partition {self.topic_partition},"
                    f"but log already contained topic ID {file_topic_id}")
            self.topic_id = file_topic_id
        elif topic_id is not None:
            self.assign_topic_id(topic_id)

    def assign_topic_id(self, topic_id: Uuid) -> None:
        """Record the topic id; ``partition.metadata`` is written before the next append (or now, on flush)."""
        if self.topic_id is not None and self.topic_id != topic_id:
            raise InconsistentTopicIdException(
                f"Tried to assign topic ID {topic_id} to log for topic partition {self.topic_partition},"
                f"but log already contained topic ID {self.topic_id}")
        self.topic_id = topic_id
        self.partition_metadata_file.record(topic_id)
        self.partition_metadata_file.maybe_flush()

    # ------------------------------------------------------------------ high watermark
    def update_high_watermark(self, hw: int | LogOffsetMetadata) -> int:
        """Set the HW, clamped to [log start offset, LEO]; returns the value set."""
        metadata = hw if isinstance(hw, LogOffsetMetadata) else LogOffsetMetadata(hw)
        end = self.local_log.next_offset_metadata
        if metadata.message_offset < self.log_start_offset:
            metadata = LogOffsetMetadata(self.log_start_offset)
        elif metadata.message_offset >= end.message_offset:
            metadata = end
        self._set_high_watermark_metadata(metadata)
        return metadata.message_offset

    def maybe_increment_high_watermark(self, new_hw: int | LogOffsetMetadata) -> int | None:
        """Leader: raise the HW (never lower it); returns the old HW if it moved."""
        new = new_hw if isinstance(new_hw, LogOffsetMetadata) else LogOffsetMetadata(new_hw)
        if new.message_offset > self.log_end_offset:
            raise ValueError(f"High watermark {new} update exceeds current log end offset "
                             f"{self.local_log.next_offset_metadata}")
        old = self.fetch_high_watermark_metadata()
        moved_segment = (old.message_offset == new.message_offset and not new.message_offset_only()
                         and not old.message_offset_only() and old.on_older_segment(new))
        if old.message_offset < new.message_offset or moved_segment:
            self._set_high_watermark_metadata(new)
            return old.message_offset
        return None

    def maybe_update_high_watermark(self, hw: int) -> int | None:
        """Follower: take the leader's HW (clamped); returns the new HW if it changed."""
        old = self.high_watermark
        new = self.update_high_watermark(hw)
        return None if new == old else new

    def fetch_high_watermark_metadata(self) -> LogOffsetMetadata:
        if self.high_watermark_metadata.message_offset_only():
            self._set_high_watermark_metadata(self._maybe_convert_to_offset_metadata(self.high_watermark))
        return self.high_watermark_metadata

    def _set_high_watermark_metadata(self, metadata: LogOffsetMetadata) -> None:
        if metadata.message_offset < 0:
            raise ValueError("High watermark offset should be non-negative")
        self.high_watermark_metadata = metadata

    def _update_high_watermark_with_log_end_offset(self) -> None:
        if self.high_watermark >= self.log_end_offset:
            self._set_high_watermark_metadata(self.local_log.next_offset_metadata)

    def _maybe_convert_to_offset_metadata(self, offset: int) -> LogOffsetMetadata:
        try:
            return self.local_log.convert_to_offset_metadata_or_throw(offset)
        except OffsetOutOfRangeException:
            return LogOffsetMetadata(offset)

    # ------------------------------------------------------------------ log start offset
    def _update_log_start_offset(self, offset: int) -> None:
        self.log_start_offset = offset
        if self.high_watermark < offset:
            self.update_high_watermark(offset)
        if self.local_log.recovery_point < offset:
            self.local_log.update_recovery_point(offset)

    def maybe_increment_log_start_offset(self, new_log_start_offset: int, reason: str = "ClientRecordDeletion") -> bool:
        """Move the log start offset up (DeleteRecords, retention); never past the high watermark."""
        if new_log_start_offset > self.high_watermark:
            raise OffsetOutOfRangeException(
                f"Cannot increment the log start offset to {new_log_start_offset} of partition "
                f"{self.topic_partition} since it is larger than the high watermark {self.high_watermark}")
        if new_log_start_offset <= self.log_start_offset:
            return False
        self._update_log_start_offset(new_log_start_offset)
        self.leader_epoch_cache.truncate_from_start(self.log_start_offset)
        self.producer_state_manager.on_log_start_offset_incremented(new_log_start_offset)
        return True

    # ------------------------------------------------------------------ appends
    def append_as_leader(self, records, leader_epoch: int, now: int,
                         origin: AppendOrigin = AppendOrigin.CLIENT) -> LogAppendInfo:
        """Validate ``records`` (one batch from a producer), assign offsets and the epoch, and write them."""
        return self._append(records, origin, origin is not AppendOrigin.RAFT_LEADER, leader_epoch, now, False)

    def append_as_follower(self, records, now: int, leader_epoch: int | None = None) -> LogAppendInfo:
        """Write batches fetched from the leader as they are (offsets and epochs already set)."""
        epoch = leader_epoch if leader_epoch is not None else 2**31 - 1
        return self._append(records, AppendOrigin.REPLICATION, False, epoch, now, True)

    def _append(self, records, origin: AppendOrigin, assign_offsets: bool, leader_epoch: int, now: int,
                ignore_record_size: bool) -> LogAppendInfo:
        self.partition_metadata_file.maybe_flush()      # the topic id reaches disk before any data
        tp, config = self.topic_partition, self.config
        buf = bytearray(records)
        batches = list(rb.iter_batches(buf))
        info, batches = analyze_and_validate_records(tp, config, self.log_start_offset, buf, batches, origin,
                                                     ignore_record_size, not assign_offsets, leader_epoch)
        if info.valid_bytes <= 0:
            return info
        del buf[info.valid_bytes:]                      # a torn or skipped tail is not written
        if assign_offsets:
            buf, batches, info = validate_and_assign(tp, config, self.log_end_offset, buf, batches, info, origin,
                                                     leader_epoch, now, ignore_record_size)
        elif info.first_or_last_offset_of_first_batch < self.log_end_offset:
            raise unexpected_offset(tp, self.log_start_offset, self.log_end_offset, buf, batches, info)
        for batch in batches:
            if batch.magic >= rb.MAGIC_VALUE_V2 and batch.partition_leader_epoch >= 0:
                self.leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)
        if len(buf) > config.segment_bytes:
            raise RecordBatchTooLargeException(
                f"Message batch size is {len(buf)} bytes in append to partition {tp}, which "
                f"exceeds the maximum configured segment size of {config.segment_bytes}.")
        self._maybe_roll(len(buf), info, now)
        updated, completed, duplicate = analyze_producer_state(self.producer_state_manager, buf, batches, origin)
        if duplicate is not None:
            return replace(info, first_offset=duplicate.first_offset, last_offset=duplicate.last_offset,
                           log_append_time=duplicate.timestamp, log_start_offset=self.log_start_offset,
                           duplicate=True)
        self.local_log.append(info.last_offset, buf, batches, now)
        self._update_high_watermark_with_log_end_offset()
        for append_info in updated.values():
            self.producer_state_manager.update(append_info)
        for txn in completed:
            self.producer_state_manager.complete_txn(txn)
        self.producer_state_manager.update_map_end_offset(info.last_offset + 1)
        if self.local_log.unflushed_messages() >= self.config.flush_messages:
            self.flush(now=now)
        return info

    def _maybe_roll(self, messages_size: int, info: LogAppendInfo, now: int) -> None:
        segment = self.local_log.segments.active_segment
        params = RollParams(self.config.segment_ms, self.config.segment_bytes, info.max_timestamp,
                            info.last_offset, messages_size, now)
        if segment.should_roll(params):
            roll_offset = info.first_offset if info.first_offset != UNKNOWN_OFFSET else info.last_offset - (2**31 - 1)
            self.roll(now, roll_offset)

    # ------------------------------------------------------------------ reads
    def read(self, start_offset: int, max_bytes: int, isolation: FetchIsolation | str = FetchIsolation.LOG_END,
             min_one_message: bool = True) -> FetchDataInfo:
        """Whole batches from ``start_offset``, at most ``max_bytes`` (or one batch if ``min_one_message``)."""
        if start_offset < self.log_start_offset:
            raise OffsetOutOfRangeException(f"Received request for offset {start_offset} for partition "
                                            f"{self.topic_partition}, but we only have log segments starting from "
                                            f"offset: {self.log_start_offset}.")
        isolation = FetchIsolation(isolation)
        bound = (self.local_log.next_offset_metadata if isolation is FetchIsolation.LOG_END
                 else self.fetch_high_watermark_metadata())
        return self.local_log.read(start_offset, max_bytes, min_one_message, bound)

    def fetch_offset_by_timestamp(self, target_timestamp: int) -> TimestampAndOffset | None:
        """ListOffsets: the first offset with timestamp >= target, or Kafka's special timestamps."""
        if target_timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            earliest = self.leader_epoch_cache.earliest_entry()
            epoch = earliest.epoch if earliest is not None and earliest.start_offset <= self.log_start_offset else None
            return TimestampAndOffset(rb.NO_TIMESTAMP, self.log_start_offset, epoch)
        if target_timestamp == LATEST_TIMESTAMP:
            return TimestampAndOffset(rb.NO_TIMESTAMP, self.log_end_offset, self.leader_epoch_cache.latest_epoch())
        if target_timestamp in (LATEST_TIERED_TIMESTAMP, EARLIEST_PENDING_UPLOAD_TIMESTAMP):
            return TimestampAndOffset(rb.NO_TIMESTAMP, -1, -1)     # no tiered storage: nothing uploaded
        if target_timestamp == MAX_TIMESTAMP:
            return self._max_timestamp_offset()
        for segment in self.log_segments():
            if segment.largest_timestamp() >= target_timestamp:
                return segment.find_offset_by_timestamp(target_timestamp, self.log_start_offset)
        return None

    def _max_timestamp_offset(self) -> TimestampAndOffset | None:
        segments = self.log_segments()
        best = segments[0]
        for segment in segments[1:]:
            if segment.max_timestamp_so_far > best.max_timestamp_so_far:
                best = segment
        so_far = best.read_max_timestamp_and_offset_so_far()
        position = best.offset_index.lookup(so_far.offset).position
        for batch, view in best.log.batches_from(position):
            if batch.max_timestamp == so_far.timestamp:
                for record in batch_records(view, batch, start=0):
                    if record.timestamp == batch.max_timestamp:
                        return TimestampAndOffset(batch.max_timestamp, record.offset,
                                                  maybe_leader_epoch(batch.partition_leader_epoch))
                return None
        return None

    # ------------------------------------------------------------------ leader epochs
    def latest_epoch(self) -> int | None:
        return self.leader_epoch_cache.latest_epoch()

    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        """A new leader records where its epoch starts (before it appends anything)."""
        self.leader_epoch_cache.assign(leader_epoch, start_offset)

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """OffsetForLeaderEpoch's answer: (epoch, end offset), or (-1, -1) when undefined."""
        epoch, offset = self.leader_epoch_cache.end_offset_for(leader_epoch, self.log_end_offset)
        if offset == UNDEFINED_EPOCH_OFFSET:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        return epoch, offset

    # ------------------------------------------------------------------ roll and flush
    def roll(self, now: int, expected_next_offset: int | None = None) -> LogSegment:
        """Start a new active segment at the LEO (or ``expected_next_offset`` if larger)."""
        jitter = self.config.segment_jitter_ms
        roll_jitter = 0 if jitter == 0 else self.rng.getrandbits(31) % min(jitter, self.config.segment_ms)
        new_segment = self.local_log.roll(expected_next_offset, now, roll_jitter)
        self.producer_state_manager.update_map_end_offset(new_segment.base_offset)
        self.producer_state_manager.take_snapshot()
        self._update_high_watermark_with_log_end_offset()
        self.flush(new_segment.base_offset, now)
        self.emit("segment_rolled", f"{self.topic_partition}: rolled new log segment at offset "
                                    f"{new_segment.base_offset}", partition=str(self.topic_partition),
                  base_offset=new_segment.base_offset)
        return new_segment

    def flush(self, offset: int | None = None, now: int | None = None) -> None:
        """Make the log durable up to ``offset`` (the LEO by default) and move the recovery point there;
        ``now``, when given, is recorded as the last flush time (`flush_if_due` counts ``flush.ms`` from it)."""
        self.local_log.flush(self.log_end_offset if offset is None else offset, now)

    @property
    def last_flush_time(self) -> int:
        """When a flush last made something durable (ms; the load time if none since)."""
        return self.local_log.last_flush_time

    def flush_if_due(self, now: int) -> None:
        """``flush.ms``: flush if that long has passed since the last flush (the LogManager's flusher asks)."""
        if now - self.last_flush_time >= self.config.flush_ms:
            self.flush(now=now)

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, target_offset: int, now: int) -> bool:
        """Cut the log so it ends before ``target_offset``; True if anything was removed."""
        if target_offset < 0:
            raise ValueError(f"Cannot truncate partition {self.topic_partition} to a negative offset "
                             f"({target_offset}).")
        if target_offset >= self.log_end_offset:
            # A conflicting epoch entry may still exist at the end (a leader that never appended).
            self.leader_epoch_cache.truncate_from_end(self.log_end_offset)
            return False
        first = self.local_log.segments.first_segment()
        old_end = self.log_end_offset
        if first.base_offset > target_offset:
            self.truncate_fully_and_start_at(target_offset, now)
        else:
            deleted = self.local_log.truncate_to(target_offset, now)
            self._delete_producer_snapshots(deleted, now)
            self.leader_epoch_cache.truncate_from_end(target_offset)
            self.log_start_offset = min(target_offset, self.log_start_offset)
            rebuild_producer_state(self.producer_state_manager, self.local_log.segments, self.log_start_offset,
                                   target_offset, now, False)
            if self.high_watermark >= self.log_end_offset:
                self.update_high_watermark(self.local_log.next_offset_metadata)
        self.emit("log_truncated", f"{self.topic_partition}: truncated log from log end offset {old_end} to "
                                   f"offset {target_offset}", partition=str(self.topic_partition),
                  old_log_end_offset=old_end, truncation_offset=target_offset)
        return True

    def truncate_fully_and_start_at(self, new_offset: int, now: int, log_start_offset: int | None = None) -> None:
        """Delete all data and restart the log at ``new_offset`` (a follower far behind the leader's start)."""
        deleted = self.local_log.truncate_fully_and_start_at(new_offset, now)
        self._delete_producer_snapshots(deleted, now)
        self.leader_epoch_cache.clear_and_flush()
        self.producer_state_manager.truncate_fully_and_start_at(new_offset)
        self.log_start_offset = new_offset if log_start_offset is None else log_start_offset
        rebuild_producer_state(self.producer_state_manager, self.local_log.segments, self.log_start_offset,
                               new_offset, now, False)
        self.update_high_watermark(self.local_log.next_offset_metadata)

    # ------------------------------------------------------------------ retention
    def delete_old_segments(self, now: int) -> int:
        """Apply retention; returns the number of segments deleted.

        Each rule looks at the log as the rule before it left it (size, log start offset)."""
        deleted = self._delete_old_segments(self.retention.log_start_offset_breach(self.log_start_offset), now)
        if "delete" in self.config.cleanup_policy:
            deleted += self._delete_old_segments(
                self.retention.retention_size_breach(self.config.retention_bytes, self.size_in_bytes), now)
            deleted += self._delete_old_segments(
                self.retention.retention_ms_breach(self.config.retention_ms, now), now)
        return deleted

    def deletable_segments(self, predicate: Predicate) -> list[LogSegment]:
        """Oldest-first segments satisfying ``predicate``, stopping at the first that does not."""
        return self.retention.deletable_segments(self.local_log.segments.values(), self.high_watermark,
                                                 self.log_end_offset, predicate)

    def _delete_old_segments(self, rule: RetentionRule | None, now: int) -> int:
        if rule is None:
            return 0
        deletable = self.deletable_segments(rule.predicate)
        if not deletable:
            return 0
        count = len(deletable)
        text = rule.reason(deletable)
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

    def _delete_producer_snapshots(self, segments: list[LogSegment], now: int) -> None:
        for segment in segments:
            renamed = self.producer_state_manager.remove_and_mark_snapshot_for_deletion(segment.base_offset)
            if renamed is not None:
                self.local_log.schedule_file_deletion(renamed, now)

    # ------------------------------------------------------------------ lifecycle
    def maintenance(self, now: int) -> None:
        """Timer work Kafka runs on its scheduler: delayed file deletions and producer expiration."""
        self.local_log.delete_expired_files(now)
        self.producer_state_manager.remove_expired_producers(now)

    def close(self) -> None:
        """Clean shutdown: snapshot producer state at the LEO and trim the active segment's indexes."""
        self.partition_metadata_file.maybe_flush()
        self.producer_state_manager.take_snapshot()
        self.local_log.close()

    def close_handlers(self) -> None:
        """The node died: release file descriptors, write nothing."""
        self.local_log.close_handlers()

    def delete(self) -> None:
        """Remove every file and the directory itself, now."""
        self.leader_epoch_cache.clear()
        self.local_log.delete_all_segments()
        for offset in list(self.producer_state_manager.snapshots):
            self.producer_state_manager.remove_and_delete_snapshot(offset)
        self.local_log.directory.remove_dir(self.dir_path)

    def rename_dir(self, new_name: str) -> None:
        self.local_log.rename_dir(new_name)
        self.producer_state_manager.update_parent_dir(self.dir_path)
        self.leader_epoch_cache.checkpoint = LeaderEpochCheckpointFile.in_dir(self.dir_path, self.local_log.directory)
        self.partition_metadata_file.path = os.path.join(self.dir_path, os.path.basename(
            self.partition_metadata_file.path))

    # ------------------------------------------------------------------ inspection (lessons)
    def describe_segments(self) -> list[dict]:
        """One dict per segment: base offset, next offset, size and file names, oldest first."""
        return [{"base_offset": s.base_offset, "size": s.size, "next_offset": s.read_next_offset(),
                 "largest_timestamp": s.max_timestamp_so_far, "files": [os.path.basename(s.log.path),
                 os.path.basename(s.offset_index_path), os.path.basename(s.time_index_path)]}
                for s in self.log_segments()]

    def __str__(self) -> str:
        topic_id = f", topicId={self.topic_id}" if self.topic_id is not None else ""
        return (f"Log(dir={self.dir_path}{topic_id}, topic={self.topic_partition.topic}, "
                f"partition={self.topic_partition.partition}, highWatermark={self.high_watermark}, "
                f"lastStableOffset={self.high_watermark}, logStartOffset={self.log_start_offset}, "
                f"logEndOffset={self.log_end_offset})")
