"""LogSegments: a log's segments, ordered by base offset.

Theory of operation
-------------------
A log is a sorted map base offset -> `LogSegment`.  The segment holding an
offset is the *floor* entry (largest base offset <= the offset); the last
entry is the active segment.  Range queries return the segments that may hold
offsets in ``[from, to)``.

Mirrors ``org.apache.kafka.storage.internals.log.LogSegments``.
"""

from __future__ import annotations

import bisect
from typing import Iterator

from minikafka.storage.log_segment import LogSegment


class LogSegments:
    def __init__(self) -> None:
        self._by_base: dict[int, LogSegment] = {}   # base offset -> segment
        self._bases: list[int] = []                 # the same base offsets, sorted

    def add(self, segment: LogSegment) -> LogSegment:
        if segment.base_offset not in self._by_base:
            bisect.insort(self._bases, segment.base_offset)
        self._by_base[segment.base_offset] = segment
        return segment

    def remove(self, base_offset: int) -> None:
        if self._by_base.pop(base_offset, None) is not None:
            self._bases.remove(base_offset)

    def clear(self) -> None:
        self._by_base.clear()
        self._bases.clear()

    def contains(self, base_offset: int) -> bool:
        return base_offset in self._by_base

    def get(self, base_offset: int) -> LogSegment | None:
        return self._by_base.get(base_offset)

    def is_empty(self) -> bool:
        return not self._bases

    @property
    def number_of_segments(self) -> int:
        return len(self._bases)

    def base_offsets(self) -> list[int]:
        return list(self._bases)

    def __iter__(self) -> Iterator[LogSegment]:
        return iter([self._by_base[b] for b in self._bases])

    def values(self) -> list[LogSegment]:
        return [self._by_base[b] for b in self._bases]

    def first_segment(self) -> LogSegment | None:
        return self._by_base[self._bases[0]] if self._bases else None

    def last_segment(self) -> LogSegment | None:
        return self._by_base[self._bases[-1]] if self._bases else None

    @property
    def active_segment(self) -> LogSegment:
        return self._by_base[self._bases[-1]]

    def floor_segment(self, offset: int) -> LogSegment | None:
        i = bisect.bisect_right(self._bases, offset) - 1
        return self._by_base[self._bases[i]] if i >= 0 else None

    def higher_segment(self, offset: int) -> LogSegment | None:
        i = bisect.bisect_right(self._bases, offset)
        return self._by_base[self._bases[i]] if i < len(self._bases) else None

    def lower_segment(self, offset: int) -> LogSegment | None:
        i = bisect.bisect_left(self._bases, offset) - 1
        return self._by_base[self._bases[i]] if i >= 0 else None

    def values_between(self, from_offset: int, to_offset: int) -> list[LogSegment]:
        """Segments that may hold offsets in ``[from_offset, to_offset)``."""
        if from_offset == to_offset:
            return []
        if to_offset < from_offset:
            raise ValueError(f"Invalid log segment range: requested segments from offset {from_offset} "
                             f"mapping to segment with base offset {from_offset}, which is greater than limit "
                             f"offset {to_offset}")
        floor = self.floor_segment(from_offset)
        start = floor.base_offset if floor is not None else (self._bases[0] if self._bases else 0)
        return [self._by_base[b] for b in self._bases if start <= b < to_offset]

    def non_active_log_segments_from(self, from_offset: int) -> list[LogSegment]:
        active = self.last_segment()
        if active is None or from_offset > active.base_offset:
            return []
        return self.values_between(from_offset, active.base_offset)

    def size_in_bytes(self) -> int:
        return sum(self._by_base[b].size for b in self._bases)

    def close(self) -> None:
        for segment in self.values():
            segment.close()
