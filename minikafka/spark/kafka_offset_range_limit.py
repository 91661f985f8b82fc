"""Where a Kafka read starts or ends, and the offset range one Spark task reads.

Theory of operation
-------------------
The ``startingOffsets``/``endingOffsets`` options name a *limit*, not yet an
offset: ``earliest``, ``latest``, or specific offsets per partition in which
``-2`` and ``-1`` still stand for earliest and latest.  Spark resolves a
limit to real offsets as late as it can: a batch query plans ranges that may
still hold the sentinels and each task asks Kafka for the partition's
current start or end when it begins to read ("late binding").

A `KafkaOffsetRange` is the half-open interval ``[from_offset,
until_offset)`` of one topic-partition that one Spark task reads.  Its size
is only an estimate of the record count: compaction and transaction markers
leave gaps in the offsets.

Mirrors ``org.apache.spark.sql.kafka010.KafkaOffsetRangeLimit`` and
``KafkaOffsetRange`` (from ``KafkaOffsetRangeCalculator.scala``).
Simplified: the timestamp limits (``startingTimestamp``,
``startingOffsetsByTimestamp``, ...) are not modelled, and a range never
carries a preferred executor location.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minikafka.common.topic_partition import TopicPartition

EARLIEST = -2
"""In a specific-offsets limit: start (or end) at the partition's log start offset."""
LATEST = -1
"""In a specific-offsets limit: start (or end) at the partition's end (its high watermark)."""


@dataclass(frozen=True, slots=True)
class EarliestOffsetRangeLimit:
    """``earliest``: every partition from its log start offset."""


@dataclass(frozen=True, slots=True)
class LatestOffsetRangeLimit:
    """``latest``: every partition from its current end."""


@dataclass(frozen=True, slots=True)
class SpecificOffsetRangeLimit:
    """A JSON limit such as ``{"orders":{"0":23,"1":-2}}``."""

    partition_offsets: dict[TopicPartition, int] = field(hash=False)  # offset or EARLIEST/LATEST


KafkaOffsetRangeLimit = EarliestOffsetRangeLimit | LatestOffsetRangeLimit | SpecificOffsetRangeLimit


@dataclass(frozen=True, slots=True, order=True)
class KafkaOffsetRange:
    """The offsets ``[from_offset, until_offset)`` of one partition, read by one task."""

    topic_partition: TopicPartition
    from_offset: int  # first offset to read, or EARLIEST before late binding
    until_offset: int  # first offset *not* to read, or LATEST before late binding

    @property
    def size(self) -> int:
        """Estimated number of records (offsets may have gaps)."""
        return self.until_offset - self.from_offset
