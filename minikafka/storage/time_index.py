"""TimeIndex: the ``.timeindex`` file mapping timestamps to offsets in a segment.

Theory of operation
-------------------
Each 12-byte entry is ``(int64 timestamp, int32 relative offset)``: "the
largest timestamp seen so far in this segment, and the last offset of the
batch that carried it".  An entry is appended next to every offset-index
entry, but only when the segment's largest timestamp grew, so timestamps in
the file strictly increase even when producers send them out of order.

`lookup(t)` returns the last entry with timestamp <= t (or ``(-1,
baseOffset)``); ``ListOffsets`` by timestamp then scans from that entry's
offset for the first record with timestamp >= t.

One slot is always kept free: `is_full` answers True one entry early, because
when a segment is rolled or closed Kafka appends the segment's final largest
timestamp, and retention by time reads that last entry to decide whether the
whole segment has expired.

Mirrors ``org.apache.kafka.storage.internals.log.TimeIndex``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from minikafka.record.record_batch import NO_TIMESTAMP
from minikafka.storage.abstract_index import AbstractIndex, CorruptIndexException, InvalidOffsetException


@dataclass(frozen=True, slots=True)
class TimestampOffset:
    timestamp: int
    offset: int


class TimeIndex(AbstractIndex):
    """``<base offset>.timeindex``: sparse timestamp -> offset entries."""

    ENTRY = struct.Struct(">qi")

    def is_full(self) -> bool:
        return self.entries >= self.max_entries - 1

    def last_entry(self) -> TimestampOffset:
        """The last entry, or ``(-1, baseOffset)`` when empty."""
        if self._keys is None and self.entries:
            timestamp, relative = self._raw_entry(self.entries - 1)
            return TimestampOffset(timestamp, self.base_offset + relative)
        self._load()
        if not self._keys:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return TimestampOffset(self._keys[-1], self.base_offset + self._values[-1])

    def sanity_check(self) -> None:
        entry = self.last_entry()
        abspath = os.path.abspath(self.path)
        if self.entries:
            first_timestamp = self._keys[0] if self._keys is not None else self._raw_entry(0)[0]
            if entry.timestamp < first_timestamp:
                raise CorruptIndexException(
                    f"Corrupt time index found, time index file ({abspath}) has non-zero size but the last "
                    f"timestamp is {entry.timestamp} which is less than the first timestamp {first_timestamp}")
            if entry.offset < self.base_offset:
                raise CorruptIndexException(
                    f"Corrupt time index found, time index file ({abspath}) has non-zero size but the last "
                    f"offset is {entry.offset} which is less than the first offset {self.base_offset}")
        if self.length % self.entry_size != 0:
            raise CorruptIndexException(
                f"Time index file {abspath} is corrupt, found {self.length} bytes which is neither positive "
                f"nor a multiple of {self.entry_size}")

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The last entry with timestamp <= target, or ``(-1, baseOffset)``."""
        self._load()
        slot = self._largest_lower_bound_slot(self._keys, target_timestamp)
        if slot < 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return TimestampOffset(self._keys[slot], self.base_offset + self._values[slot])

    def entry(self, n: int) -> TimestampOffset:
        self._load()
        if n >= self.entries:
            raise ValueError(f"Attempt to fetch the {n}th entry from time index {os.path.abspath(self.path)} "
                             f"which has size {self.entries}")
        return TimestampOffset(self._keys[n], self.base_offset + self._values[n])

    def all_entries(self) -> list[TimestampOffset]:
        self._load()
        return [TimestampOffset(t, self.base_offset + r) for t, r in zip(self._keys, self._values)]

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Append ``timestamp -> offset`` if the timestamp is larger than the last one."""
        if not skip_full_check and self.is_full():
            raise ValueError(f"Attempt to append to a full time index (size = {self.entries}).")
        last = self.last_entry()
        abspath = os.path.abspath(self.path)
        if self.entries and offset < last.offset:
            raise InvalidOffsetException(
                f"Attempt to append an offset ({offset}) to slot {self.entries} no larger than the last offset "
                f"appended ({last.offset}) to {abspath}")
        if self.entries and timestamp < last.timestamp:
            raise InvalidOffsetException(
                f"Attempt to append a timestamp ({timestamp}) to slot {self.entries} no larger than the last "
                f"timestamp appended ({last.timestamp}) to {abspath}")
        if timestamp > last.timestamp:
            self._append_entry(timestamp, self.relative_offset(offset))

    def truncate_to(self, offset: int) -> None:
        """Drop every entry pointing at offsets >= ``offset`` (searching by offset, not timestamp)."""
        self._load()
        relative = offset - self.base_offset
        slot = self._largest_lower_bound_slot(self._values, relative)
        if slot < 0:
            self._truncate_to_entries(0)
        elif self._values[slot] == relative:
            self._truncate_to_entries(slot)
        else:
            self._truncate_to_entries(slot + 1)
