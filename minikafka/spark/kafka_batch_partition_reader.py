"""One Spark task: read one topic-partition's offset range and turn it into rows.

Theory of operation
-------------------
The driver plans a `KafkaBatchInputPartition` per topic-partition: the
range to read plus everything a task needs to reach Kafka on its own (a
`ClientConfig`, ``failOnDataLoss``, ``includeHeaders``, the consumer group id
named in error messages).  Spark pickles it to a Python worker, which calls
`read_partition`:

1. open an executor client;
2. bind late offsets: a range planned as ``earliest``/``latest`` (batch
   queries) takes the partition's current log start or end;
3. read ``[from, until)``, stopping at ``until`` even if more records have
   arrived since planning, and yield the rows in Arrow batches of up to
   10,000 (see `kafka_record_to_row_converter`);
4. close the client, even when the read fails.

If the start offset is gone (retention deleted it, the topic was
recreated) the read either fails with ``KAFKA_DATA_LOSS.
COULD_NOT_READ_OFFSET_RANGE`` or, with ``failOnDataLoss=false``, logs a
warning and continues from the earliest offset still available inside the
range, or skips the range if nothing of it is left.

Mirrors ``KafkaBatchInputPartition``, ``KafkaBatchPartitionReader`` and the
data-loss handling of ``KafkaDataConsumer.get``.  Simplified: a gap inside
the range is taken as compaction, not checked as possible loss.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import InputPartition

from minikafka.common.errors import OffsetOutOfRangeException
from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.errors import INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE, SparkAssertionError, data_loss
from minikafka.spark.kafka_offset_range_limit import KafkaOffsetRange
from minikafka.spark.kafka_record_to_row_converter import ARROW_BATCH_ROWS, arrow_schema, to_record_batch
from minikafka.spark.offsets_client import ClientConfig, ConsumedRecord, OffsetsClient

log = logging.getLogger("minikafka.spark")


@dataclass(frozen=True)
class KafkaBatchInputPartition(InputPartition):
    """What one task reads; pickled from the planning worker to the task's worker."""

    offset_range: KafkaOffsetRange
    client_config: ClientConfig
    fail_on_data_loss: bool
    include_headers: bool
    group_id: str  # the executor group id Spark would use; only shown in messages


def read_partition(partition: InputPartition, batch_rows: int = ARROW_BATCH_ROWS) -> Iterator[Any]:
    """The rows of one planned partition as ``pyarrow.RecordBatch``es (none for Spark's placeholder)."""
    if not isinstance(partition, KafkaBatchInputPartition):
        return  # Spark plans InputPartition(None) when a batch query has no partitions at all
    schema = arrow_schema(partition.include_headers)
    client = partition.client_config.open_offsets_client("executor")
    try:
        range_to_read = resolve_range(client, partition.offset_range)
        chunk: list[ConsumedRecord] = []
        for record in fetch_range(client, range_to_read, partition.fail_on_data_loss, partition.group_id):
            chunk.append(record)
            if len(chunk) == batch_rows:
                yield to_record_batch(chunk, partition.include_headers, schema)
                chunk = []
        if chunk:
            yield to_record_batch(chunk, partition.include_headers, schema)
    finally:
        client.close()


def resolve_range(client: OffsetsClient, offset_range: KafkaOffsetRange) -> KafkaOffsetRange:
    """Late binding: replace EARLIEST/LATEST with the partition's offsets now."""
    tp = offset_range.topic_partition
    start, until = offset_range.from_offset, offset_range.until_offset
    if start < 0:
        start = client.earliest([tp])[tp]
    if until < 0:
        until = client.latest([tp])[tp]
    if start > until:
        raise SparkAssertionError(
            f"Beginning offset {start} is after the ending offset {until} for topic {tp.topic} "
            f"partition {tp.partition}. You either provided an invalid fromOffset, or the Kafka topic "
            "has been damaged"
        )
    return KafkaOffsetRange(tp, start, until)


def fetch_range(
    client: OffsetsClient, offset_range: KafkaOffsetRange, fail_on_data_loss: bool, group_id: str
) -> Iterator[ConsumedRecord]:
    """The records of ``[from, until)``, handling offsets that are no longer in the log."""
    tp, until = offset_range.topic_partition, offset_range.until_offset
    offset = offset_range.from_offset
    while offset < until:
        try:
            for record in client.read_range(tp, offset, until):
                yield record
                offset = record.offset + 1
            return
        except OffsetOutOfRangeException as cause:
            if fail_on_data_loss:
                raise data_loss(
                    "COULD_NOT_READ_OFFSET_RANGE",
                    startOffset=offset, endOffset=until, topicPartition=tp, groupId=group_id,
                ) from cause
            log.warning("Cannot fetch offset %s (GroupId: %s, TopicPartition: %s). %s",
                        offset, group_id, tp, INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE)
            next_offset = _earliest_available_between(client, tp, offset, until)
            if next_offset is None or next_offset == offset:
                return  # nothing of the range is left (or it keeps vanishing): skip the rest
            offset = next_offset


def _earliest_available_between(client: OffsetsClient, tp: TopicPartition, offset: int, until: int) -> int | None:
    earliest, latest = client.earliest([tp])[tp], client.latest([tp])[tp]
    log.warning("Some data may be lost. Recovering from the earliest offset: %s", earliest)
    if offset >= latest or earliest >= until:
        log.warning("The current available offset range is [%s, %s). Offset %s is out of range, and records "
                    "in [%s, %s] will be skipped", earliest, latest, offset, offset, until)
        return None
    if offset >= earliest:
        return offset
    log.warning("The current available offset range is [%s, %s). Offset %s is out of range, and records "
                "in [%s, %s] will be skipped", earliest, latest, offset, offset, earliest)
    return earliest
