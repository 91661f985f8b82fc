"""A batch query over Kafka: ``spark.read.format("minikafka")``.

Theory of operation
-------------------
A batch read covers the offsets between ``startingOffsets`` (default
``earliest``) and ``endingOffsets`` (default ``latest``).  Planning runs
once, in a Spark planning worker: it lists the partitions the strategy
covers now and makes one task per partition.  Offsets given as
``earliest``/``latest`` stay sentinels in the plan; each task binds them when
it starts, so a batch query reads whatever the partition holds at that
moment (and a second action on the same DataFrame re-reads, seeing newer
records).

Mirrors ``org.apache.spark.sql.kafka010.KafkaBatch`` (``planInputPartitions``
through ``getOffsetRangesFromUnresolvedOffsets``).  Simplified: one task per
partition, always (no ``minPartitions``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pyspark.sql.datasource import DataSourceReader, InputPartition

from minikafka.spark.consumer_strategy import strategy
from minikafka.spark.kafka_batch_partition_reader import KafkaBatchInputPartition, read_partition
from minikafka.spark.kafka_offset_range_limit import EarliestOffsetRangeLimit
from minikafka.spark.kafka_offset_reader import KafkaOffsetReader
from minikafka.spark.kafka_source_provider import (
    client_config,
    ending_offsets,
    executor_group_id,
    fail_on_data_loss,
    include_headers,
    lower_keys,
    starting_offsets,
    validate_batch_options,
)


class KafkaBatch(DataSourceReader):
    """Plans and reads one batch query; pickled into the workers that run its tasks."""

    def __init__(self, options: Mapping[str, str]):
        params = lower_keys(options)
        validate_batch_options(params)
        self.strategy = strategy(params)  # which partitions to read
        self.starting = starting_offsets(params, EarliestOffsetRangeLimit())  # where each starts
        self.ending = ending_offsets(params)  # where each ends (exclusive)
        self.client_config = client_config(params)  # how workers reach Kafka
        self.fail_on_data_loss = fail_on_data_loss(params)
        self.include_headers = include_headers(params)
        self.custom_group_id = "kafka.group.id" in params
        self.group_id = executor_group_id(params, "spark-kafka-relation")  # named in error messages

    def partitions(self) -> list[InputPartition]:
        reader = KafkaOffsetReader(self.strategy, self.client_config.open_offsets_client("driver"), self.custom_group_id)
        try:
            ranges = reader.offset_ranges_from_unresolved(self.starting, self.ending)
        finally:
            reader.close()
        return [
            KafkaBatchInputPartition(r, self.client_config, self.fail_on_data_loss, self.include_headers, self.group_id)
            for r in ranges
        ]

    def read(self, partition: InputPartition) -> Iterator[Any]:  # pyarrow.RecordBatch
        return read_partition(partition)
