"""FileRecords: a segment's ``.log`` file, a plain sequence of record batches.

Theory of operation
-------------------
The ``.log`` file is nothing but record batches laid end to end, exactly as
they travelled in Produce and Fetch requests; it has no header of its own.
Appends write at the end; truncation cuts the file; reads copy byte ranges.

Walking the file (`batches_from`) reads it in large chunks and carves batches
out of them, and -- like Kafka's ``FileLogInputStream`` -- stops quietly at a
tail too short to hold the batch its length field announces: after a crash
that is simply data that was never completely written.  A length field too
small for any batch is corruption and raises ``CorruptRecordException``.

The active segment keeps its file descriptor open (appends are the hot
path); other segments open the file only for the duration of a read, so a
broker with hundreds of partitions holds about one descriptor per partition.
The active segment also keeps its latest appends in memory (at least the
last ``TAIL_BYTES``), which is the part that caught-up followers and
consumers read: for them a read is served from there, as Kafka's are from
the page cache, without a system call.  A thread of a live cluster pays for
every system call twice under a busy kernel, since it has to wait for the
interpreter again afterwards (``benchmarks/bench_calm.py``).  The bytes are
the ones written to the file; truncation drops them with the file's.
The file lives in a `LogDirectory` (on disk or in memory) received in the
constructor; `flush` asks it to make the written bytes durable (Kafka's
``FileChannel.force``), which only matters for a power loss.

Mirrors ``org.apache.kafka.common.record.FileRecords`` and
``FileLogInputStream``.
"""

from __future__ import annotations

import struct
from collections import deque
from dataclasses import dataclass
from typing import Iterator

from minikafka.common.errors import CorruptRecordException, KafkaException
from minikafka.record import record_batch as rb
from minikafka.record.memory_records import batch_records
from minikafka.record.record_batch import RecordBatch
from minikafka.storage.log_directory import FILE_SYSTEM, FileHandle, LogDirectory

_CHUNK = 1 << 20
TAIL_BYTES = 256 << 10      # the active segment's latest appends kept in memory for reads
_INT32 = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class LogOffsetPosition:
    """The batch that holds an offset: its last offset, file position and size."""

    offset: int
    position: int
    size: int


@dataclass(frozen=True, slots=True)
class TimestampAndOffset:
    """A ListOffsets answer: a timestamp, an offset and the leader epoch of its batch (None if unknown)."""

    timestamp: int
    offset: int
    leader_epoch: int | None = None


def maybe_leader_epoch(epoch: int) -> int | None:
    return None if epoch == rb.NO_PARTITION_LEADER_EPOCH else epoch


class FileRecords:
    """The bytes of one ``.log`` file."""

    def __init__(self, path: str, directory: LogDirectory = FILE_SYSTEM):
        self.path = path                          # current file name (changes on rename)
        self._directory = directory               # where the file lives (disk or memory)
        directory.create(path)
        self._size = directory.size(path)         # bytes of batches in the file
        self._fd: FileHandle | None = None        # open only while the segment takes appends
        self._modified_ms: int | None = None      # modification time not yet written to the file
        self._tail: deque[tuple[int, bytes]] = deque()  # latest appends: (position, bytes)
        self._tail_size = 0                       # bytes in _tail
        self._tail_start = self._size             # every byte from here on is in _tail

    # ------------------------------------------------------------------ file handle
    def _open_fd(self) -> FileHandle:
        if self._fd is None:
            self._fd = self._directory.open(self.path)
        return self._fd

    def close(self) -> None:
        if self._fd is not None:
            self._fd.close()
            self._fd = None
        self._write_modified()
        self._forget_tail(self._size)

    def _forget_tail(self, start: int) -> None:
        self._tail.clear()
        self._tail_size, self._tail_start = 0, start

    def _write_modified(self) -> None:
        if self._modified_ms is None:
            return
        ms = self._modified_ms
        try:
            self._directory.set_last_modified_ms(self.path, ms)
        except FileNotFoundError:       # its directory was just moved: written after the move
            return
        self._modified_ms = None

    @property
    def size_in_bytes(self) -> int:
        return self._size

    def append(self, data) -> int:
        """Write ``data`` at the end of the file; returns the number of bytes written."""
        fd = self._open_fd()
        data = bytes(data)
        written = fd.write_at(data, self._size)
        if written == len(data):
            self._tail.append((self._size, data))
            self._tail_size += written
            while self._tail_size - len(self._tail[0][1]) >= TAIL_BYTES:
                self._tail_size -= len(self._tail.popleft()[1])
            self._tail_start = self._tail[0][0]
        else:
            self._forget_tail(self._size + written)
        self._size += written
        return written

    def _read_tail(self, position: int, size: int) -> bytes:
        parts = []
        for start, data in self._tail:
            end = start + len(data)
            if end <= position:
                continue
            parts.append(data[max(0, position - start):position + size - start])
            if end >= position + size:
                break
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read(self, position: int, size: int) -> bytes:
        """Up to ``size`` bytes from ``position`` (fewer at the end of the file)."""
        size = max(0, min(size, self._size - position))
        if size == 0:
            return b""
        if position >= self._tail_start and self._tail:
            return self._read_tail(position, size)
        if self._fd is not None:
            return self._fd.read_at(size, position)
        return self._directory.read_range(self.path, position, size)

    def truncate_to(self, target_size: int) -> int:
        """Cut the file to ``target_size`` bytes; returns how many bytes were removed."""
        if target_size > self._size or target_size < 0:
            raise KafkaException(f"Attempt to truncate log segment {self.path} to {target_size} bytes failed, "
                                 f" size of this log segment is {self._size} bytes.")
        if target_size < self._directory.size(self.path):
            self._directory.truncate(self.path, target_size)
        removed = self._size - target_size
        self._size = target_size
        while self._tail and self._tail[-1][0] >= target_size:
            self._tail_size -= len(self._tail.pop()[1])
        if self._tail:
            start, data = self._tail[-1]
            if start + len(data) > target_size:
                self._tail[-1] = (start, data[:target_size - start])
                self._tail_size -= start + len(data) - target_size
        else:
            self._tail_start = target_size
        return removed

    def rename_to(self, new_path: str) -> None:
        self.close()
        if self._directory.exists(self.path):
            self._directory.replace(self.path, new_path)
        self.path = new_path

    def delete_if_exists(self) -> bool:
        self.close()
        return self._directory.remove(self.path)

    def flush(self) -> None:
        """Make every appended byte durable (Kafka's ``FileChannel.force``)."""
        self._directory.flush(self.path)

    def last_modified(self) -> int:
        """The file's modification time in ms (the sandbox sets it from the node's clock on appends)."""
        if self._modified_ms is not None:
            return self._modified_ms
        return self._directory.last_modified_ms(self.path)

    def set_last_modified(self, ms: int) -> None:
        """Set the modification time; while the file is open for appends it is written when the
        file is closed (on roll, shutdown or crash), not once per append: under a busy kernel each
        system call waits for the interpreter again (benchmarks/bench_calm.py)."""
        self._modified_ms = ms
        if self._fd is None:
            self._write_modified()

    # ------------------------------------------------------------------ walking batches
    def batches_from(self, start: int = 0, end: int | None = None) -> Iterator[tuple[RecordBatch, memoryview]]:
        """Every complete batch in ``[start, end)`` with its bytes; stops at an incomplete tail."""
        end = self._size if end is None else min(end, self._size)
        position = start
        chunk, chunk_start = b"", start
        while position < end - rb.HEADER_SIZE_UP_TO_MAGIC:
            if position + rb.HEADER_SIZE_UP_TO_MAGIC > chunk_start + len(chunk):
                chunk, chunk_start = self.read(position, _CHUNK), position
            size = _INT32.unpack_from(chunk, position - chunk_start + rb.LENGTH_OFFSET)[0]
            if size < rb.LEGACY_RECORD_OVERHEAD_V0:
                raise CorruptRecordException(f"Found record size {size} smaller than minimum record overhead "
                                             f"({rb.LEGACY_RECORD_OVERHEAD_V0}) in file {self.path}.")
            if position > end - rb.LOG_OVERHEAD - size:
                return
            total = size + rb.LOG_OVERHEAD
            if position + total > chunk_start + len(chunk):
                chunk, chunk_start = self.read(position, max(_CHUNK, total)), position
            local = position - chunk_start
            view = memoryview(chunk)[local:local + total]
            yield self._header(view, position, total), view
            position += total

    @staticmethod
    def _header(view: memoryview, position: int, total: int) -> RecordBatch:
        magic = view[rb.MAGIC_OFFSET]
        if magic > rb.CURRENT_MAGIC_VALUE:
            raise CorruptRecordException(f"Invalid magic found in record: {magic - 256 if magic > 127 else magic}")
        if magic < rb.MAGIC_VALUE_V2:
            return RecordBatch.legacy(view, 0, position)
        if total < rb.RECORD_BATCH_OVERHEAD:
            raise CorruptRecordException(f"Record batch is corrupt (the size {total} is smaller than the minimum "
                                         f"allowed overhead {rb.RECORD_BATCH_OVERHEAD})")
        return RecordBatch.parse(view, 0, position)

    def search_for_offset_with_size(self, target_offset: int, starting_position: int) -> LogOffsetPosition | None:
        """The first batch at or after ``starting_position`` whose last offset is >= target."""
        for batch, _ in self.batches_from(starting_position):
            if batch.last_offset >= target_offset:
                return LogOffsetPosition(batch.last_offset, batch.position, batch.size_in_bytes)
        return None

    def search_for_timestamp(self, target_timestamp: int, starting_position: int,
                             starting_offset: int) -> TimestampAndOffset | None:
        """The first record with timestamp >= target and offset >= starting_offset."""
        for batch, view in self.batches_from(starting_position):
            if batch.max_timestamp >= target_timestamp:
                for record in batch_records(view, batch, start=0):
                    if record.timestamp >= target_timestamp and record.offset >= starting_offset:
                        return TimestampAndOffset(record.timestamp, record.offset,
                                                  maybe_leader_epoch(batch.partition_leader_epoch))
        return None

    def largest_timestamp_after(self, starting_position: int) -> TimestampAndOffset:
        """The largest batch maxTimestamp from ``starting_position`` on, with that batch's last offset."""
        best = TimestampAndOffset(rb.NO_TIMESTAMP, -1, None)
        for batch, _ in self.batches_from(starting_position):
            if batch.max_timestamp > best.timestamp:
                best = TimestampAndOffset(batch.max_timestamp, batch.last_offset,
                                          maybe_leader_epoch(batch.partition_leader_epoch))
        return best
