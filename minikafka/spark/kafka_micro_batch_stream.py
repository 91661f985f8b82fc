"""A streaming query over Kafka: ``spark.readStream.format("minikafka")``.

Theory of operation
-------------------
Spark drives a micro-batch source through a fixed cycle, all of it in one
long-lived Python planning worker on the driver, while the records are read
by tasks in other workers:

1. ``initialOffset()`` once for a new query: ``startingOffsets`` (default
   ``latest``) resolved to an offset per partition.  A restarted query skips
   this and resumes from the end offset of its last batch in the checkpoint.
2. ``latestOffset(start, limit)`` each trigger: the partitions' current
   high watermarks, capped by the read limit.  With ``maxOffsetsPerTrigger``
   the default limit is ``ReadMaxRows(n)`` and the ``n`` offsets are shared
   out in proportion to each partition's backlog (a share under one record
   is rounded up so small partitions are never starved).  Returning
   ``start`` means "no new data": no batch runs.
3. ``partitions(start, end)``: one task per partition with new offsets; this
   is where vanished, added or rewound partitions are reported as possible
   data loss (fail, or warn when ``failOnDataLoss=false``).
4. ``read(partition)`` in a task; ``commit(end)`` once the batch is written.
   Like Spark, nothing is committed to Kafka: progress lives only in the
   checkpoint's offset log, which is why restarts neither skip nor repeat.

Offsets travel as ``{"topic": {"0": 5}}``, Spark's own JSON form; an offset is
the *next* offset to read, as ``KafkaConsumer.position()`` reports it.
Partitions that appear while the query runs start at their earliest offset.
With ``Trigger.AvailableNow`` the end offsets are fetched once up front and
the query stops when it reaches them.

Mirrors ``org.apache.spark.sql.kafka010.KafkaMicroBatchStream``.
Simplified: ``minOffsetsPerTrigger``/``maxTriggerDelay`` are not offered;
the initial offsets are not written to a metadata log of their own, so a
query stopped before its first batch re-resolves ``startingOffsets`` when it
is restarted; ``Trigger.AvailableNow`` skips Spark's four consistency checks
of the prefetched offsets; no lag metrics are reported.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.consumer_strategy import strategy
from minikafka.spark.errors import INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE
from minikafka.spark.json_utils import OffsetMap, from_offset_dict, partition_offsets_json, to_offset_dict
from minikafka.spark.kafka_batch_partition_reader import KafkaBatchInputPartition, read_partition
from minikafka.spark.kafka_offset_range_limit import EarliestOffsetRangeLimit, LatestOffsetRangeLimit
from minikafka.spark.kafka_offset_reader import KafkaOffsetReader
from minikafka.spark.kafka_source_provider import (
    client_config,
    executor_group_id,
    fail_on_data_loss,
    include_headers,
    lower_keys,
    max_offsets_per_trigger,
    starting_offsets,
    validate_stream_options,
)

log = logging.getLogger("minikafka.spark")


def rate_limit(
    limit: int, start: OffsetMap, until: OffsetMap, earliest_of: Callable[[list[TopicPartition]], OffsetMap]
) -> OffsetMap:
    """Advance at most ``limit`` offsets in total, shared in proportion to each backlog."""
    new = [tp for tp in until if tp not in start]
    begins = {**(earliest_of(new) if new else {}), **start}
    sizes = {tp: end - begins[tp] for tp, end in until.items() if tp in begins and end - begins[tp] > 0}
    total = sum(sizes.values())
    if total < 1:
        return dict(until)
    result = {}
    for tp, end in until.items():
        if tp not in sizes:
            result[tp] = end
            continue
        share = limit * (sizes[tp] / total)
        result[tp] = min(end, begins[tp] + (math.ceil(share) if share < 1 else math.floor(share)))
    return result


class KafkaMicroBatchStream(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """The driver-side half of a Kafka stream; its `read` runs in the tasks."""

    def __init__(self, options: Mapping[str, str]):
        params = lower_keys(options)
        validate_stream_options(params)
        self.strategy = strategy(params)  # which partitions to follow
        self.starting = starting_offsets(params, LatestOffsetRangeLimit())  # for a new query only
        self.client_config = client_config(params)  # how workers reach Kafka
        self.fail_on_data_loss = fail_on_data_loss(params)
        self.include_headers = include_headers(params)
        self.max_offsets_per_trigger = max_offsets_per_trigger(params)  # None: read all available
        self.custom_group_id = "kafka.group.id" in params
        self.group_id = executor_group_id(params, "spark-kafka-source")  # named in error messages
        self._reader: KafkaOffsetReader | None = None  # open client; lives only in the planning worker
        self._latest: OffsetMap | None = None  # high watermarks seen by the last latestOffset
        self._available_now: OffsetMap | None = None  # end offsets fixed for Trigger.AvailableNow

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_reader"] = None  # a live client never travels to a task
        return state

    def _offset_reader(self) -> KafkaOffsetReader:
        if self._reader is None:
            client = self.client_config.open_offsets_client("driver")
            self._reader = KafkaOffsetReader(self.strategy, client, self.custom_group_id)
        return self._reader

    def initialOffset(self) -> dict:
        reader = self._offset_reader()
        if isinstance(self.starting, EarliestOffsetRangeLimit):
            offsets = reader.fetch_earliest_offsets()
        elif isinstance(self.starting, LatestOffsetRangeLimit):
            offsets = reader.fetch_latest_offsets()
        else:
            offsets = reader.fetch_specific_offsets(self.starting.partition_offsets)
        log.info("Initial offsets: %s", partition_offsets_json(offsets))
        return to_offset_dict(offsets)

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.max_offsets_per_trigger is None:
            return ReadAllAvailable()
        return ReadMaxRows(self.max_offsets_per_trigger)

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        start_offsets = from_offset_dict(start)
        latest = self._available_now if self._available_now is not None else self._offset_reader().fetch_latest_offsets()
        self._latest = latest
        if isinstance(limit, ReadMaxRows):
            offsets = rate_limit(limit.max_rows, start_offsets, latest, self._offset_reader().fetch_earliest_offsets)
        else:
            offsets = latest
        return to_offset_dict(offsets) if offsets else start  # no partitions at all: no new data

    def reportLatestOffset(self) -> dict | None:
        return to_offset_dict(self._latest) if self._latest else None

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        ranges = self._offset_reader().offset_ranges_from_resolved(
            from_offset_dict(start), from_offset_dict(end), self._report_data_loss
        )
        return [
            KafkaBatchInputPartition(r, self.client_config, self.fail_on_data_loss, self.include_headers, self.group_id)
            for r in ranges
        ]

    def _report_data_loss(self, message: str, make_exception: Callable[[], Exception]) -> None:
        if self.fail_on_data_loss:
            raise make_exception()
        log.warning("%s. %s", message, INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE)

    def read(self, partition: InputPartition) -> Iterator[Any]:  # pyarrow.RecordBatch
        return read_partition(partition)

    def commit(self, end: dict) -> None:
        """Nothing to do: Spark's Kafka source keeps its progress in the checkpoint only."""

    def prepareForTriggerAvailableNow(self) -> None:
        self._available_now = self._offset_reader().fetch_latest_offsets()

    def stop(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
