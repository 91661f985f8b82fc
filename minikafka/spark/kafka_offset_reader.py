"""Driver-side offset questions: where each partition starts and ends, and what to read.

Theory of operation
-------------------
Spark's driver never reads records; it decides offsets and hands each task a
fixed ``[from, until)`` range.  This class answers the driver's questions
through an `OffsetsClient`:

* the earliest and latest offsets of the partitions the `ConsumerStrategy`
  covers right now;
* a ``startingOffsets`` JSON limit resolved to real offsets (``-2``/``-1``
  replaced), after checking that it names exactly the covered partitions;
* for a micro-batch, the ranges between two resolved offset maps.  That last
  step is where data loss shows: a partition that vanished, a partition that
  appeared but does not start at offset 0, or an end offset below the start
  (the topic was deleted and recreated).  Each is handed to a
  ``report_data_loss(message, make_exception)`` callback that fails the query
  or logs a warning, depending on ``failOnDataLoss``.
* for a batch query, ranges that may still hold the ``-2``/``-1`` sentinels;
  each task binds them when it starts reading.

Ranges with nothing to read are dropped, so a micro-batch launches one task
per partition that has new records.

Mirrors ``org.apache.spark.sql.kafka010.KafkaOffsetReaderAdmin``.
Simplified: no retries around failed offset requests, no re-fetch when a
latest offset goes backwards (KAFKA-7703), no ``minPartitions`` splitting.
"""

from __future__ import annotations

from collections.abc import Callable

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.consumer_strategy import ConsumerStrategy
from minikafka.spark.errors import (
    IllegalStateException,
    KafkaIllegalStateException,
    SparkAssertionError,
    data_loss,
    format_topic_partitions,
)
from minikafka.spark.json_utils import OffsetMap
from minikafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    KafkaOffsetRange,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
)
from minikafka.spark.kafka_source_provider import CUSTOM_GROUP_ID_ERROR_MESSAGE
from minikafka.spark.offsets_client import OffsetsClient

ReportDataLoss = Callable[[str, Callable[[], Exception]], None]
"""``report_data_loss(message, make_exception)``: raise ``make_exception()`` or log ``message``."""


class KafkaOffsetReader:
    """Offsets of the partitions a strategy covers, fetched through one client."""

    def __init__(self, strategy: ConsumerStrategy, client: OffsetsClient, custom_group_id: bool = False):
        self.strategy = strategy  # which partitions the query covers
        self.client = client  # the driver-side client; closed by `close`
        self.custom_group_id = custom_group_id  # kafka.group.id was set (changes one message)

    def close(self) -> None:
        self.client.close()

    def __str__(self) -> str:
        return str(self.strategy)

    def assigned_partitions(self) -> set[TopicPartition]:
        return self.strategy.assigned_topic_partitions(self.client)

    def fetch_earliest_offsets(self, new_partitions: list[TopicPartition] | None = None) -> OffsetMap:
        """Earliest offsets of all covered partitions, or of those of ``new_partitions`` still covered."""
        covered = self.assigned_partitions()
        wanted = covered if new_partitions is None else [tp for tp in new_partitions if tp in covered]
        return self.client.earliest(wanted) if wanted else {}

    def fetch_latest_offsets(self) -> OffsetMap:
        partitions = self.assigned_partitions()
        return self.client.latest(partitions) if partitions else {}

    def _check_specified(self, specified: OffsetMap) -> set[TopicPartition]:
        assigned = self.assigned_partitions()
        if assigned != set(specified):
            raise KafkaIllegalStateException(
                "KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED",
                {
                    "specifiedPartitions": format_topic_partitions(specified),
                    "assignedPartitions": format_topic_partitions(assigned),
                },
            )
        return assigned

    def fetch_specific_offsets(self, partition_offsets: OffsetMap) -> OffsetMap:
        """Resolve a ``startingOffsets`` JSON: sentinels become the partition's real offsets."""
        assigned = self.assigned_partitions()
        if assigned != set(partition_offsets):
            raise SparkAssertionError(
                "If startingOffsets contains specific offsets, you must specify all TopicPartitions.\n"
                "Use -1 for latest, -2 for earliest, if you don't care.\n"
                f"Specified: {format_topic_partitions(partition_offsets)} "
                f"Assigned: {format_topic_partitions(assigned)}"
            )
        earliest = self.client.earliest([tp for tp, off in partition_offsets.items() if off == EARLIEST])
        latest = self.client.latest([tp for tp, off in partition_offsets.items() if off == LATEST])
        return {tp: earliest.get(tp, latest.get(tp, off)) for tp, off in partition_offsets.items()}

    def fetch_partition_offsets(self, limit: KafkaOffsetRangeLimit) -> OffsetMap:
        """Batch planning: per-partition offsets that may still be EARLIEST/LATEST sentinels."""
        if isinstance(limit, EarliestOffsetRangeLimit):
            return {tp: EARLIEST for tp in self.assigned_partitions()}
        if isinstance(limit, LatestOffsetRangeLimit):
            return {tp: LATEST for tp in self.assigned_partitions()}
        self._check_specified(limit.partition_offsets)
        return dict(limit.partition_offsets)

    def offset_ranges_from_unresolved(
        self, start: KafkaOffsetRangeLimit, end: KafkaOffsetRangeLimit
    ) -> list[KafkaOffsetRange]:
        """Batch planning: one range per covered partition, sentinels left for the task to bind."""
        from_offsets = self.fetch_partition_offsets(start)
        until_offsets = self.fetch_partition_offsets(end)
        if set(from_offsets) != set(until_offsets):
            from_topics = ",".join(str(tp) for tp in sorted(from_offsets))
            until_topics = ",".join(str(tp) for tp in sorted(until_offsets))
            raise IllegalStateException(
                f"different topic partitions for starting offsets topics[{from_topics}] and "
                f"ending offsets topics[{until_topics}]"
            )
        return [KafkaOffsetRange(tp, from_offsets[tp], until_offsets[tp]) for tp in sorted(until_offsets)]

    def offset_ranges_from_resolved(
        self, from_offsets: OffsetMap, until_offsets: OffsetMap, report_data_loss: ReportDataLoss
    ) -> list[KafkaOffsetRange]:
        """Micro-batch planning: the non-empty ranges between two resolved offset maps."""
        new_partitions = sorted(set(until_offsets) - set(from_offsets))
        new_initial = self.fetch_earliest_offsets(new_partitions) if new_partitions else {}
        missing = set(new_partitions) - set(new_initial)
        if missing:
            report_data_loss(
                f"Cannot find earliest offsets of {format_topic_partitions(missing)}. Some data may have been missed",
                lambda: data_loss("INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS", partitions=format_topic_partitions(missing)),
            )
        for tp, offset in sorted(new_initial.items()):
            if offset != 0:
                report_data_loss(
                    f"Added partition {tp} starts from {offset} instead of 0. Some data may have been missed",
                    lambda tp=tp, offset=offset: data_loss(
                        "ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO", topicPartition=tp, startOffset=offset
                    ),
                )
        self._report_deleted(set(from_offsets) - set(until_offsets), report_data_loss)
        starts = {**from_offsets, **new_initial}
        ranges = []
        for tp in sorted(tp for tp in until_offsets if tp in starts):
            start, until = starts[tp], until_offsets[tp]
            if until < start:
                report_data_loss(
                    f"Partition {tp}'s offset was changed from {start} to {until}, some data may have been missed",
                    lambda tp=tp, start=start, until=until: data_loss(
                        "PARTITION_OFFSET_CHANGED", topicPartition=tp, prevOffset=start, newOffset=until
                    ),
                )
            ranges.append(KafkaOffsetRange(tp, start, until))
        return [r for r in ranges if r.size > 0]

    def _report_deleted(self, deleted: set[TopicPartition], report_data_loss: ReportDataLoss) -> None:
        if not deleted:
            return
        shown = format_topic_partitions(deleted)
        if self.custom_group_id:
            message = f"{shown} are gone.{CUSTOM_GROUP_ID_ERROR_MESSAGE}"
            make = lambda: data_loss(  # noqa: E731
                "PARTITIONS_DELETED_AND_GROUP_ID_CONFIG_PRESENT", partitions=shown, groupIdConfig="group.id"
            )
        else:
            message = f"{shown} are gone. Some data may have been missed."
            make = lambda: data_loss("PARTITIONS_DELETED", partitions=shown)  # noqa: E731
        report_data_loss(message, make)
