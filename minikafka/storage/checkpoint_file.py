"""Checkpoint files: small text files a broker rewrites atomically.

Theory of operation
-------------------
Kafka remembers a handful of numbers across restarts in plain text files of
one shape::

    0                 <- format version
    2                 <- number of entries
    orders 0 1234     <- one entry per line
    orders 1 99

Two formats share that shape:

* the *offset checkpoint* (``topic partition offset``), used at the root of a
  log dir for ``recovery-point-offset-checkpoint`` (where recovery starts),
  ``replication-offset-checkpoint`` (high watermarks) and
  ``log-start-offset-checkpoint`` (log start offsets moved by retention or
  DeleteRecords);
* the *leader epoch checkpoint* (``epoch startOffset``), the
  ``leader-epoch-checkpoint`` file in every partition directory.

A write goes to ``<name>.tmp`` and is then renamed over the real file, so a
crash leaves either the old or the new content, never half of each.  Kafka
creates the file (empty) as soon as it opens a checkpoint, and an empty file
reads as "no entries".  Anything else malformed is an error in Kafka's words.

Mirrors ``org.apache.kafka.server.common.CheckpointFile``,
``CheckpointFileWithFailureHandler``, ``OffsetCheckpointFile`` and
``LeaderEpochCheckpointFile``.  The file lives in the `LogDirectory` it
receives; a write is flushed before the rename, as Kafka's is.  Simplified: offset checkpoints list
partitions sorted by topic and partition (Kafka writes a HashMap's order).
"""

from __future__ import annotations

import os
import re
from typing import Callable, Generic, Iterable, TypeVar

from minikafka.common.errors import KafkaStorageException
from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, read_text

T = TypeVar("T")
_JAVA_INT = re.compile(r"^[+-]?[0-9]+$")

RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"
HIGH_WATERMARK_CHECKPOINT_FILE = "replication-offset-checkpoint"
LEADER_EPOCH_CHECKPOINT_FILE = "leader-epoch-checkpoint"


class _MalformedCheckpoint(Exception):
    """Kafka's IOException texts; wrapped into KafkaStorageException by `CheckpointFile.read`."""


class CheckpointFile(Generic[T]):
    """A versioned list of entries, one text line each, written atomically."""

    def __init__(self, path: str, version: int, to_line: Callable[[T], str],
                 from_line: Callable[[str], T | None], directory: LogDirectory = FILE_SYSTEM):
        self.path = path                  # absolute or relative path of the checkpoint
        self._directory = directory       # where the file lives (disk or memory)
        self.version = version
        self._to_line = to_line
        self._from_line = from_line
        directory.create(path)            # Kafka creates the file on open

    def write(self, entries: Iterable[T]) -> None:
        lines = [self._to_line(entry) for entry in entries]
        text = f"{self.version}\n{len(lines)}\n" + "".join(line + "\n" for line in lines)
        try:
            self._directory.write_atomically(self.path, text.encode("utf-8"))
        except OSError as exc:
            raise KafkaStorageException(f"Error while writing to checkpoint file {os.path.abspath(self.path)}") \
                from exc

    def write_if_dir_exists(self, entries: Iterable[T]) -> None:
        """Write unless the partition directory has gone (a deleted topic); Kafka only warns then."""
        if self._directory.is_dir(os.path.dirname(os.path.abspath(self.path))):
            self.write(entries)

    def read(self) -> list[T]:
        try:
            return self._parse(read_text(self._directory, self.path).splitlines())
        except (_MalformedCheckpoint, OSError) as exc:
            error = KafkaStorageException(f"Error while reading checkpoint file {os.path.abspath(self.path)}")
            error.cause_message = str(exc)        # Kafka logs the IOException's own text with it
            raise error from exc

    def _parse(self, lines: list[str]) -> list[T]:
        location = os.path.abspath(self.path)
        if not lines:
            return []
        read_version = self._to_int(lines[0], location)
        if read_version != self.version:
            raise _MalformedCheckpoint(f"Unrecognised version:{read_version}, expected version: {self.version} "
                                       f"in checkpoint file at: {location}")
        if len(lines) < 2:
            return []
        expected = self._to_int(lines[1], location)
        entries = []
        for line in lines[2:]:
            entry = self._from_line(line)
            if entry is None:
                raise _MalformedCheckpoint(f"Malformed line in checkpoint file [{location}]: {line}")
            entries.append(entry)
        if len(entries) != expected:
            raise _MalformedCheckpoint(f"Expected [{expected}] entries in checkpoint file [{location}], but found "
                                       f"only [{len(entries)}]")
        return entries

    @staticmethod
    def _to_int(line: str, location: str) -> int:
        if not _JAVA_INT.match(line):            # what Integer.parseInt accepts, no more
            raise _MalformedCheckpoint(f"Malformed line in checkpoint file [{location}]: {line}")
        return int(line)


# ---------------------------------------------------------------------- offset checkpoints
def _offset_line(entry: tuple[TopicPartition, int]) -> str:
    topic_partition, offset = entry
    return f"{topic_partition.topic} {topic_partition.partition} {offset}"


def _parse_offset_line(line: str) -> tuple[TopicPartition, int] | None:
    parts = line.split()
    if len(parts) != 3:
        return None
    try:
        return TopicPartition(parts[0], int(parts[1])), int(parts[2])
    except ValueError:
        return None


class OffsetCheckpointFile:
    """``topic partition offset`` lines; used for recovery points, high watermarks and log start offsets."""

    CURRENT_VERSION = 0

    def __init__(self, path: str, directory: LogDirectory = FILE_SYSTEM):
        self._file = CheckpointFile(path, self.CURRENT_VERSION, _offset_line, _parse_offset_line, directory)

    @property
    def path(self) -> str:
        return self._file.path

    def write(self, offsets: dict[TopicPartition, int]) -> None:
        self._file.write(sorted(offsets.items()))

    def read(self) -> dict[TopicPartition, int]:
        return dict(self._file.read())


# ---------------------------------------------------------------------- leader epoch checkpoint
def _epoch_line(entry: tuple[int, int]) -> str:
    return f"{entry[0]} {entry[1]}"


def _parse_epoch_line(line: str) -> tuple[int, int] | None:
    parts = line.split()
    if len(parts) != 2:
        return None
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        return None


class LeaderEpochCheckpointFile:
    """``epoch startOffset`` lines in a partition's ``leader-epoch-checkpoint``."""

    CURRENT_VERSION = 0

    def __init__(self, path: str, directory: LogDirectory = FILE_SYSTEM):
        self._file = CheckpointFile(path, self.CURRENT_VERSION, _epoch_line, _parse_epoch_line, directory)

    @classmethod
    def in_dir(cls, dir_path: str, directory: LogDirectory = FILE_SYSTEM) -> "LeaderEpochCheckpointFile":
        return cls(os.path.join(dir_path, LEADER_EPOCH_CHECKPOINT_FILE), directory)

    @property
    def path(self) -> str:
        return self._file.path

    def write(self, entries: Iterable[tuple[int, int]]) -> None:
        self._file.write(entries)

    def write_if_dir_exists(self, entries: Iterable[tuple[int, int]]) -> None:
        self._file.write_if_dir_exists(entries)

    def read(self) -> list[tuple[int, int]]:
        return self._file.read()
