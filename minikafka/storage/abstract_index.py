"""AbstractIndex: the shared machinery of a segment's ``.index`` and ``.timeindex`` files.

Theory of operation
-------------------
An index is a file of fixed-size entries sorted by key, sparse enough to stay
small (one entry per ``index.interval.bytes`` of log) and dense enough that a
lookup (binary search for the largest entry <= a target) lands a short scan
away from the wanted batch.

Kafka *preallocates* an index: a new index file is immediately extended to
``segment.index.bytes`` rounded down to whole entries (10485760 bytes for
``.index``, 10485756 for ``.timeindex``) and memory-mapped; entries are written
into the mapping.  When the segment stops being active (roll, clean shutdown)
the file is trimmed to its real entries.  So ``ls -l`` shows 10 MB index files
for the active segment and small ones for older segments; after a crash the
active segment's index is still 10 MB of mostly zeros, which is one reason
Kafka recovers (re-indexes) the segments after the recovery point.

Kafka also trusts a pre-existing file completely: on open, every entry-sized
slot in the file counts as an entry.  That is why a crashed, preallocated
index must be rebuilt rather than loaded.

The sandbox keeps the same files and sizes (extension by ``truncate`` makes a
sparse file, so 10 MB costs nothing on disk), in the `LogDirectory` the
index receives (on disk, or in memory for a simulated cluster).  Entries are kept in two int
lists in memory, loaded lazily the first time they are needed (Kafka's
``LazyIndex``).  Appends go into a shared memory mapping of the whole file
(`LogDirectory.map`),
made at the first append and dropped when the index is trimmed, closed,
renamed or deleted, as Kafka's ``MappedByteBuffer``: the file's bytes are
what Kafka's would be, a crashed node's entries survive in the page cache as
they would for Kafka, and an append is a memory copy rather than a system
call (under a busy kernel every system call of the cluster's thread waits
for the interpreter again; ``benchmarks/bench_calm.py``).

Mirrors ``org.apache.kafka.storage.internals.log.AbstractIndex`` and
``LazyIndex``.  Simplified: no locks (the sandbox is single threaded per
node), and the "warm section" search optimisation is replaced by a plain
binary search, which returns the same answers.
"""

from __future__ import annotations

import bisect
import os
import struct

from minikafka.common.errors import KafkaException
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, MappedBuffer


class CorruptIndexException(KafkaException):
    """An index file failed its sanity check (Kafka's ``CorruptIndexException``)."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.storage.internals.log.CorruptIndexException"


class InvalidOffsetException(KafkaException):
    """An index append that would break the ordering of entries."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.common.errors.InvalidOffsetException"


class IndexOffsetOverflowException(KafkaException):
    """An offset too far from the segment's base offset to fit an int32 relative offset."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.storage.internals.log.IndexOffsetOverflowException"


def round_down_to_exact_multiple(number: int, factor: int) -> int:
    return factor * (number // factor)


class AbstractIndex:
    """A sorted file of ``(key, value)`` entries; subclasses define the layout."""

    ENTRY = struct.Struct(">ii")         # overridden by subclasses

    def __init__(self, path: str, base_offset: int, max_index_size: int,
                 directory: LogDirectory = FILE_SYSTEM):
        self.path = path                        # current file name (changes on rename)
        self.base_offset = base_offset          # the segment's base offset
        self.max_index_size = max_index_size    # segment.index.bytes when this index was opened
        self._keys: list[int] | None = None     # sorted keys, loaded lazily (None = not read yet)
        self._values: list[int] | None = None   # value of each entry, parallel to _keys
        self._closed = False                    # set by delete: no more writes
        self._directory = directory             # where the file lives (disk or memory)
        self._map: MappedBuffer | None = None   # the file mapped for appends (active segment only)
        if directory.exists(path):
            self.length = directory.size(path)    # Kafka trusts the file: every slot is an entry
            self.entries = self.length // self.entry_size
        else:
            if max_index_size < self.entry_size:
                raise ValueError(f"Invalid max index size: {max_index_size}")
            self.length = round_down_to_exact_multiple(max_index_size, self.entry_size)
            directory.write_bytes(path, b"")      # preallocate, sparse
            directory.truncate(path, self.length)
            self.entries = 0
            self._keys, self._values = [], []
        self.max_entries = self.length // self.entry_size

    # ------------------------------------------------------------------ layout hooks
    @property
    def entry_size(self) -> int:
        return self.ENTRY.size

    def _encode(self, key: int, value: int) -> bytes:
        return self.ENTRY.pack(key, value)

    def _decode(self, raw: bytes, n: int) -> tuple[int, int]:
        return self.ENTRY.unpack_from(raw, n * self.entry_size)

    # ------------------------------------------------------------------ state
    def is_full(self) -> bool:
        return self.entries >= self.max_entries

    def size_in_bytes(self) -> int:
        return self.entry_size * self.entries

    def _load(self) -> None:
        """Read the entries from the file the first time they are needed (LazyIndex)."""
        if self._keys is not None:
            return
        keys, values = [], []
        if self.entries:
            raw = self._directory.read_range(self.path, 0, self.entries * self.entry_size)
            for key, value in self.ENTRY.iter_unpack(raw[:len(raw) - len(raw) % self.entry_size]):
                keys.append(key)
                values.append(value)
        self._keys, self._values = keys, values
        self.entries = len(keys)

    def _raw_entry(self, n: int) -> tuple[int, int]:
        """Entry ``n`` straight from the file, without loading the rest (for sanity checks)."""
        raw = self._directory.read_range(self.path, n * self.entry_size, self.entry_size)
        if len(raw) < self.entry_size:
            return 0, 0
        return self.ENTRY.unpack(raw)

    def _append_entry(self, key: int, value: int) -> None:
        self._load()
        position = self.entries * self.entry_size
        if position + self.entry_size > self.length:
            self._append_past_end(position, self._encode(key, value))
        else:
            self._append_mapped(position, self._encode(key, value))
        self._keys.append(key)
        self._values.append(value)
        self.entries += 1

    def _append_mapped(self, position: int, entry: bytes) -> None:
        if self._map is None:
            self._map = self._directory.map(self.path, self.length)
        self._map.write_at(entry, position)

    def _append_past_end(self, position: int, entry: bytes) -> None:
        """The one entry a trimmed time index still takes on close: the file grows by it."""
        self.close_handler()
        handle = self._directory.open(self.path)
        try:
            handle.write_at(entry, position)
        finally:
            handle.close()
        self.length = position + len(entry)

    def _truncate_to_entries(self, entries: int) -> None:
        if entries == 0:                 # no need to read a (possibly huge, crashed) file to empty it
            self._keys, self._values = [], []
        self._load()
        del self._keys[entries:]
        del self._values[entries:]
        self.entries = entries

    # ------------------------------------------------------------------ search
    def _largest_lower_bound_slot(self, keys: list[int], target: int) -> int:
        """Index of the last entry whose key <= target, or -1."""
        return bisect.bisect_right(keys, target) - 1

    # ------------------------------------------------------------------ file size
    def resize(self, new_size: int) -> bool:
        """Set the file length (rounded down to whole entries); False if it already had that length."""
        rounded = round_down_to_exact_multiple(new_size, self.entry_size)
        if rounded == self.length:
            return False
        self.close_handler()        # never keep a mapping past the end of a shorter file
        self._directory.truncate(self.path, rounded)
        self.length = rounded
        self.max_entries = rounded // self.entry_size
        if self.entries > self.max_entries:
            self._truncate_to_entries(self.max_entries)
        return True

    def trim_to_valid_size(self) -> None:
        """Cut the file to its entries (on roll and on close)."""
        self.resize(self.entry_size * self.entries)

    def reset(self) -> None:
        """Forget every entry and give the file its full preallocated size again (recovery)."""
        self._truncate_to_entries(0)
        self.resize(self.max_index_size)

    def close(self) -> None:
        self.trim_to_valid_size()
        self.close_handler()

    def close_handler(self) -> None:
        """Drop the mapping (the file keeps every entry written into it)."""
        if self._map is not None:
            self._map.close()
            self._map = None

    def flush(self) -> None:
        """Make the written entries durable (Kafka's ``MappedByteBuffer.force``)."""
        self._directory.flush(self.path)

    def rename_to(self, new_path: str) -> None:
        self.close_handler()
        if self._directory.exists(self.path):
            self._directory.replace(self.path, new_path)
        self.path = new_path

    def delete_if_exists(self) -> bool:
        self._closed = True
        self.close_handler()
        return self._directory.remove(self.path)

    def update_parent_dir(self, parent_dir: str) -> None:
        self.close_handler()
        self.path = os.path.join(parent_dir, os.path.basename(self.path))

    # ------------------------------------------------------------------ offsets
    def to_relative(self, offset: int) -> int | None:
        relative = offset - self.base_offset
        if relative < 0 or relative > 2**31 - 1:
            return None
        return relative

    def relative_offset(self, offset: int) -> int:
        relative = self.to_relative(offset)
        if relative is None:
            raise IndexOffsetOverflowException(f"Integer overflow for offset: {offset} "
                                               f"({os.path.abspath(self.path)})")
        return relative

    def can_append_offset(self, offset: int) -> bool:
        return self.to_relative(offset) is not None
