"""LogManager: all partition logs in one log directory, and their housekeeping.

Theory of operation
-------------------
A broker's log dir holds one directory per partition replica plus a few
files at its root::

    .lock                                 held while the broker runs
    .kafka_cleanshutdown                  present only after a clean shutdown
    meta.properties                       (see `MetaProperties`)
    recovery-point-offset-checkpoint      where each log's recovery must start
    log-start-offset-checkpoint           log start offsets moved past segment starts
    replication-offset-checkpoint         high watermarks
    orders-0/  orders-1/  ...

At start-up the manager takes the lock, notes (and removes) the clean
shutdown marker, reads the checkpoints and loads every partition directory --
with recovery when the marker was missing.  ``__cluster_metadata-0`` is not
its business (the KRaft layer owns it), and a ``<topic>-<p>.<id>-delete``
directory is a deletion that a crash interrupted: it is finished later.

While running, nothing happens by itself: the broker calls `maintenance(now)`
from a timer (`next_deadline` says when), and the manager runs whatever is
due -- retention every ``log.retention.check.interval.ms``, the flusher
every ``log.flush.scheduler.interval.ms`` (it flushes each log whose
``flush.ms`` has passed since its last flush; both default to
``Long.MAX_VALUE``, so by default it runs once, 30 s after start-up, and
flushes nothing), the recovery
point checkpoint every ``log.flush.offset.checkpoint.interval.ms``, the log
start offset checkpoint every ``log.flush.start.offset.checkpoint.interval.ms``,
the high watermark checkpoint every
``replica.high.watermark.checkpoint.interval.ms``, and file deletions whose
``file.delete.delay.ms`` has passed.

A clean `shutdown` flushes and closes every log, writes the checkpoints and
then the marker.  A crash (`crash`) writes nothing at all.

Mirrors ``kafka.log.LogManager`` (and the high watermark checkpointing of
``ReplicaManager``).  Simplified: one log dir per broker, no log cleaner, no
``-future`` logs; the lock is an advisory ``flock`` on ``.lock`` (or a flag
in memory).  Every file goes through the `LogDirectory` the manager receives
and hands to each log: real files for a live cluster, memory for a
simulated one.
"""

from __future__ import annotations

import os
import random
from typing import Callable

from minikafka.common.errors import KafkaException, KafkaStorageException
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.storage import log_file_utils as names
from minikafka.storage.checkpoint_file import (HIGH_WATERMARK_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE,
                                               RECOVERY_POINT_CHECKPOINT_FILE, OffsetCheckpointFile)
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FILE_SYSTEM, DirectoryLock, LogDirectory
from minikafka.storage.unified_log import UnifiedLog
from minikafka.common.timing import TimingProfile, profile

LOCK_FILE_NAME = ".lock"
METADATA_TOPIC = "__cluster_metadata"
FLUSH_CHECK_MS_DEFAULT = 2**63 - 1      # log.flush.scheduler.interval.ms: Long.MAX_VALUE, the flusher runs once
LOG_INITIAL_TASK_DELAY_MS = 30000      # log.initial.task.delay.ms (internal): first run of the periodic tasks

Emit = Callable[..., None]


class LogManager:
    """Owns every partition log in ``log_dir`` (one ``log.dirs`` entry per node in the sandbox)."""

    def __init__(self, log_dir: str, default_config: LogConfig, *, timing: TimingProfile | str | None = None,
                 rng: random.Random | None = None, emit: Emit | None = None,
                 topic_configs: dict[str, LogConfig] | None = None, directory: LogDirectory = FILE_SYSTEM,
                 flush_check_ms: int = FLUSH_CHECK_MS_DEFAULT):
        self.log_dir = log_dir
        self.directory = directory                              # where every file lives (disk or memory)
        self.flush_check_ms = flush_check_ms                    # log.flush.scheduler.interval.ms
        self.default_config = default_config
        self.topic_configs = dict(topic_configs or {})          # topic -> effective LogConfig (overrides)
        self.timing = profile(timing)
        self.rng = rng or random.Random(0)                      # unique ids of "-delete" directories
        self.emit = emit or (lambda kind, text, **data: None)
        self.logs: dict[TopicPartition, UnifiedLog] = {}        # the live logs
        self.logs_to_be_deleted: list[tuple[UnifiedLog, int]] = []   # (renamed log, time it was scheduled)
        self.had_clean_shutdown = False                         # what the marker said at start-up
        self._lock_handle: DirectoryLock | None = None          # the .lock file's lock while we hold it
        self._next_run: dict[str, int] = {}                     # periodic task -> next due time
        directory.make_dirs(log_dir)
        self.recovery_point_checkpoint = OffsetCheckpointFile(os.path.join(log_dir, RECOVERY_POINT_CHECKPOINT_FILE),
                                                              directory)
        self.log_start_offset_checkpoint = OffsetCheckpointFile(os.path.join(log_dir, LOG_START_OFFSET_CHECKPOINT_FILE),
                                                                directory)
        self.high_watermark_checkpoint = OffsetCheckpointFile(os.path.join(log_dir, HIGH_WATERMARK_CHECKPOINT_FILE),
                                                              directory)

    def config_for(self, topic: str) -> LogConfig:
        return self.topic_configs.get(topic, self.default_config)

    # ------------------------------------------------------------------ start-up
    def startup(self, now: int) -> None:
        """Lock the dir and load every partition log (recovering after an unclean shutdown)."""
        self._lock()
        marker = CleanShutdownFileHandler(self.log_dir, self.directory)
        self.had_clean_shutdown = marker.exists()
        marker.delete()          # a crash while loading must count as unclean next time
        recovery_points = self._read_checkpoint(self.recovery_point_checkpoint, "recovery checkpoint to 0")
        log_starts = self._read_checkpoint(self.log_start_offset_checkpoint,
                                           "to the base offset of the first segment")
        high_watermarks = self._read_checkpoint(self.high_watermark_checkpoint, "high watermarks to 0")
        dirs = self._partition_dirs()
        if dirs and not self.had_clean_shutdown:
            self.emit("recovery", f"Recovering {len(dirs)} logs from {os.path.abspath(self.log_dir)} since no clean "
                                  f"shutdown file was found", log_dir=self.log_dir, logs=len(dirs))
        for dir_path in dirs:
            self._load_log(dir_path, now, recovery_points, log_starts, high_watermarks)
        for task in ("retention", "flush", "recovery_point", "log_start_offset", "high_watermark"):
            self._next_run[task] = now + LOG_INITIAL_TASK_DELAY_MS

    def _lock(self) -> None:
        self._lock_handle = self.directory.try_lock(os.path.join(self.log_dir, LOCK_FILE_NAME))
        if self._lock_handle is not None:
            return
        raise KafkaException(f"Failed to acquire lock on file .lock in {os.path.abspath(self.log_dir)}. A Kafka "
                             f"instance in another process or thread is using this directory.")

    def _unlock(self) -> None:
        if self._lock_handle is not None:
            self._lock_handle.release()
            self._lock_handle = None

    def _read_checkpoint(self, checkpoint: OffsetCheckpointFile, reset_to: str) -> dict[TopicPartition, int]:
        try:
            return checkpoint.read()
        except KafkaStorageException as exc:
            self.emit("recovery", f"Error occurred while reading {os.path.basename(checkpoint.path)} file of "
                                  f"directory {os.path.abspath(self.log_dir)}, resetting the {reset_to}: "
                                  f"{getattr(exc, 'cause_message', exc.message)}", log_dir=self.log_dir)
            return {}

    def _partition_dirs(self) -> list[str]:
        result = []
        for name in sorted(self.directory.list_dir(self.log_dir)):
            path = os.path.join(self.log_dir, name)
            if self.directory.is_dir(path) and names.parse_topic_partition_name(path).topic != METADATA_TOPIC:
                result.append(path)
        return result

    def _load_log(self, dir_path: str, now: int, recovery_points, log_starts, high_watermarks) -> None:
        tp = names.parse_topic_partition_name(dir_path)
        log = UnifiedLog.load(dir_path, self.config_for(tp.topic), now,
                              log_start_offset=log_starts.get(tp, 0), recovery_point=recovery_points.get(tp, 0),
                              had_clean_shutdown=self.had_clean_shutdown, rng=self.rng, emit=self.emit,
                              directory=self.directory)
        if names.is_deleted_dir(dir_path):
            self.logs_to_be_deleted.append((log, now))     # finish a deletion a crash interrupted
            return
        if tp in self.logs:
            raise KafkaException(f"Duplicate log directories found: {dir_path}, {self.logs[tp].dir_path}")
        log.update_high_watermark(high_watermarks.get(tp, 0))
        self.logs[tp] = log

    # ------------------------------------------------------------------ logs
    def get_log(self, topic_partition: TopicPartition) -> UnifiedLog | None:
        return self.logs.get(topic_partition)

    def all_logs(self) -> list[UnifiedLog]:
        return [self.logs[tp] for tp in sorted(self.logs)]

    def get_or_create_log(self, topic_partition: TopicPartition, now: int, topic_id: Uuid | None = None,
                          config: LogConfig | None = None) -> UnifiedLog:
        """The partition's log, creating ``<topic>-<partition>/`` if this broker has none yet.

        ``config`` (the topic's effective LogConfig) is remembered for the topic.
        """
        if config is not None:
            self.topic_configs[topic_partition.topic] = config
        log = self.logs.get(topic_partition)
        if log is None:
            dir_path = os.path.join(self.log_dir, names.log_dir_name(topic_partition))
            log = UnifiedLog.load(dir_path, self.config_for(topic_partition.topic), now, topic_id=topic_id,
                                  rng=self.rng, emit=self.emit, directory=self.directory)
            self.logs[topic_partition] = log
        elif topic_id is not None:
            log.assign_topic_id(topic_id)
        return log

    def update_topic_config(self, topic: str, config: LogConfig) -> None:
        self.topic_configs[topic] = config
        for tp, log in self.logs.items():
            if tp.topic == topic:
                log.update_config(config)

    def async_delete(self, topic_partition: TopicPartition, now: int) -> UnifiedLog | None:
        """Rename the partition dir to ``<topic>-<p>.<uniqueId>-delete``; files go after ``file.delete.delay.ms``."""
        log = self.logs.pop(topic_partition, None)
        if log is None:
            return None
        log.rename_dir(names.log_delete_dir_name(topic_partition, self.rng))
        self.logs_to_be_deleted.append((log, now))
        self.checkpoint_recovery_points()
        self.checkpoint_log_start_offsets()
        return log

    # ------------------------------------------------------------------ periodic work
    def next_deadline(self) -> int | None:
        """When `maintenance` next has something to do."""
        times = list(self._next_run.values())
        times += [scheduled + self.default_config.file_delete_delay_ms for _, scheduled in self.logs_to_be_deleted]
        for log in self.logs.values():
            times += [due for due, _ in log.local_log.pending_deletes]
            times += [due for due, _ in log.local_log.pending_file_deletes]
        return min(times) if times else None

    def maintenance(self, now: int) -> None:
        """Run every periodic task that is due at ``now`` (the broker calls this from its timer)."""
        intervals = {"retention": self.timing.ms("log.retention.check.interval.ms"),
                     "flush": self.flush_check_ms,
                     "recovery_point": self.timing.ms("log.flush.offset.checkpoint.interval.ms"),
                     "log_start_offset": self.timing.ms("log.flush.start.offset.checkpoint.interval.ms"),
                     "high_watermark": self.timing.ms("replica.high.watermark.checkpoint.interval.ms")}
        actions = {"retention": lambda: self.cleanup_logs(now),
                   "flush": lambda: self.flush_dirty_logs(now),
                   "recovery_point": self.checkpoint_recovery_points,
                   "log_start_offset": self.checkpoint_log_start_offsets,
                   "high_watermark": self.checkpoint_high_watermarks}
        for task, due in sorted(self._next_run.items(), key=lambda item: item[1]):
            if due <= now:
                actions[task]()
                self._next_run[task] = now + intervals[task]
        for log in self.logs.values():
            log.maintenance(now)
        self._delete_logs(now)

    def cleanup_logs(self, now: int) -> int:
        """Retention for every non-compacted log; returns the number of segments deleted."""
        return sum(log.delete_old_segments(now) for log in self.all_logs()
                   if "compact" not in log.config.cleanup_policy)

    def flush_dirty_logs(self, now: int) -> None:
        """The flusher: flush each log whose ``flush.ms`` has passed since its last flush."""
        for log in self.all_logs():
            log.flush_if_due(now)

    def _delete_logs(self, now: int) -> None:
        delay = self.default_config.file_delete_delay_ms
        due = [(log, at) for log, at in self.logs_to_be_deleted if at + delay <= now]
        self.logs_to_be_deleted = [(log, at) for log, at in self.logs_to_be_deleted if at + delay > now]
        for log, _ in due:
            log.delete()

    def checkpoint_recovery_points(self) -> None:
        self.recovery_point_checkpoint.write({tp: log.recovery_point for tp, log in self.logs.items()})

    def checkpoint_log_start_offsets(self) -> None:
        self.log_start_offset_checkpoint.write({
            tp: log.log_start_offset for tp, log in self.logs.items()
            if log.log_start_offset > log.log_segments()[0].base_offset})

    def checkpoint_high_watermarks(self) -> None:
        self.high_watermark_checkpoint.write({tp: log.high_watermark for tp, log in self.logs.items()})

    # ------------------------------------------------------------------ shutdown
    def shutdown(self, broker_epoch: int = -1) -> None:
        """Clean shutdown: flush and close every log, write checkpoints, then the clean-shutdown marker."""
        for log in self.all_logs():
            log.flush()
            log.close()
        self.checkpoint_recovery_points()
        self.checkpoint_log_start_offsets()
        self.checkpoint_high_watermarks()
        CleanShutdownFileHandler(self.log_dir, self.directory).write(broker_epoch)
        self._unlock()

    def crash(self) -> None:
        """The process died: release descriptors and the lock, write nothing."""
        for log in self.logs.values():
            log.close_handlers()
        for log, _ in self.logs_to_be_deleted:
            log.close_handlers()
        self._unlock()
