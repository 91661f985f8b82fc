"""OffsetIndex: the ``.index`` file mapping offsets to byte positions in a segment.

Theory of operation
-------------------
Each 8-byte entry is ``(int32 relative offset, int32 position)``: the last
offset of some batch, minus the segment's base offset, and the byte position
of that batch in the ``.log`` file.  Offsets are stored relative so that an
entry fits in 8 bytes; a segment therefore cannot span more than 2^31 offsets.

The index is sparse: `LogSegment` adds an entry only after more than
``index.interval.bytes`` (4096) of log has been written since the last one.
To find an offset, `lookup` returns the last entry at or below it, and the
segment scans batch headers forward from that position -- at most a few KB.
An empty index, or a target below the first entry, answers ``(baseOffset, 0)``:
"start scanning at the beginning of the file".

Mirrors ``org.apache.kafka.storage.internals.log.OffsetIndex``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from minikafka.storage.abstract_index import AbstractIndex, CorruptIndexException, InvalidOffsetException


@dataclass(frozen=True, slots=True)
class OffsetPosition:
    offset: int
    position: int


class OffsetIndex(AbstractIndex):
    """``<base offset>.index``: sparse offset -> file position entries."""

    ENTRY = struct.Struct(">ii")

    @property
    def last_offset(self) -> int:
        """The largest offset in the index, or the base offset when empty."""
        self._load()
        return self.base_offset + self._keys[-1] if self._keys else self.base_offset

    def sanity_check(self) -> None:
        """Kafka's checks: the last entry is not below the base offset, the size is whole entries."""
        if self.entries:
            last_relative = self._keys[-1] if self._keys is not None else self._raw_entry(self.entries - 1)[0]
            last = self.base_offset + last_relative
            if last < self.base_offset:
                raise CorruptIndexException(
                    f"Corrupt index found, index file {os.path.abspath(self.path)} has non-zero size but the "
                    f"last offset is {last} which is less than the base offset {self.base_offset}")
        if self.length % self.entry_size != 0:
            raise CorruptIndexException(
                f"Index file {os.path.abspath(self.path)} is corrupt, found {self.length} bytes which is "
                f"neither positive nor a multiple of {self.entry_size}")

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The last entry with offset <= target, or (base_offset, 0)."""
        self._load()
        slot = self._largest_lower_bound_slot(self._keys, target_offset - self.base_offset)
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + self._keys[slot], self._values[slot])

    def entry(self, n: int) -> OffsetPosition:
        self._load()
        if n >= self.entries:
            raise ValueError(f"Attempt to fetch the {n}th entry from index {os.path.abspath(self.path)}, "
                             f"which has size {self.entries}")
        return OffsetPosition(self.base_offset + self._keys[n], self._values[n])

    def all_entries(self) -> list[OffsetPosition]:
        """Every entry, for lessons that print an index."""
        self._load()
        return [OffsetPosition(self.base_offset + k, v) for k, v in zip(self._keys, self._values)]

    def append(self, offset: int, position: int) -> None:
        """Add ``offset -> position``; offsets must strictly increase."""
        if self.is_full():
            raise ValueError(f"Attempt to append to a full index (size = {self.entries}).")
        last = self.last_offset
        if self.entries == 0 or offset > last:
            self._append_entry(self.relative_offset(offset), position)
        else:
            raise InvalidOffsetException(
                f"Attempt to append an offset {offset} to position {self.entries} no larger than the last "
                f"offset appended ({last}) to {os.path.abspath(self.path)}")

    def truncate_to(self, offset: int) -> None:
        """Drop every entry for offsets >= ``offset``."""
        self._load()
        relative = offset - self.base_offset
        slot = self._largest_lower_bound_slot(self._keys, relative)
        if slot < 0:
            self._truncate_to_entries(0)
        elif self._keys[slot] == relative:
            self._truncate_to_entries(slot)
        else:
            self._truncate_to_entries(slot + 1)
