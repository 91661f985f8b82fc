"""What a log read returns, and where in the log an offset lives.

Theory of operation
-------------------
An offset alone says *which* record; to read from it the log must also know
*where* it is: which segment, and at what byte position.  `LogOffsetMetadata`
carries both.  The log end offset's metadata is always known (the end of the
active segment); the high watermark's is looked up lazily the first time a
read needs it, because a follower may learn a high watermark long before it
holds that offset's bytes.

A read answers a `FetchDataInfo`: the metadata of the offset it started at and
the record bytes (whole batches), plus ``first_entry_incomplete`` when the
first batch alone did not fit in the size limit and ``min_one_message`` was not
asked for.

`FetchIsolation` bounds a read: ``log_end`` (followers), ``high_watermark``
(consumers with read_uncommitted) or ``txn_committed`` (read_committed).

Mirrors ``LogOffsetMetadata``, ``FetchDataInfo`` and ``FetchIsolation`` in
``org.apache.kafka.storage.internals.log`` / ``server.storage.log``.
Simplified: ``txn_committed`` reads stop at the high watermark (the sandbox
keeps no transaction index; see `UnifiedLog`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

UNKNOWN_OFFSET = -1


class FetchIsolation(str, enum.Enum):
    LOG_END = "log_end"
    HIGH_WATERMARK = "high_watermark"
    TXN_COMMITTED = "txn_committed"


@dataclass(frozen=True, slots=True)
class LogOffsetMetadata:
    """An offset, and (when known) the segment and byte position where its batch starts."""

    message_offset: int
    segment_base_offset: int = UNKNOWN_OFFSET
    relative_position_in_segment: int = -1

    def message_offset_only(self) -> bool:
        return self.segment_base_offset == UNKNOWN_OFFSET and self.relative_position_in_segment == -1

    def on_older_segment(self, that: "LogOffsetMetadata") -> bool:
        if self.message_offset_only() or that.message_offset_only():
            raise ValueError(f"{self} cannot compare its segment info with {that} since it only has "
                             f"message offset info")
        return self.segment_base_offset < that.segment_base_offset

    def __str__(self) -> str:
        return (f"(offset={self.message_offset}segment=[{self.segment_base_offset}:"
                f"{self.relative_position_in_segment}])")


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """The result of a log read: where it started and the bytes of whole record batches."""

    fetch_offset_metadata: LogOffsetMetadata
    records: bytes
    first_entry_incomplete: bool = False

    @property
    def size_in_bytes(self) -> int:
        return len(self.records)
