"""Spark Structured Streaming over the sandbox: Spark's Kafka source and sink, in Python.

``get_spark()`` starts a small SparkSession with the ``minikafka`` data source
registered; ``format("minikafka")`` then takes the options of Spark's
``format("kafka")`` (``kafka.bootstrap.servers``, ``subscribe``,
``startingOffsets``, ``maxOffsetsPerTrigger``, ...) and gives the same
schema, offsets and error messages.  Module map, after Spark's
``org.apache.spark.sql.kafka010`` package:

* `source` -- the DataSource (KafkaSourceProvider's entry-point role);
* `kafka_source_provider` -- option parsing and validation;
* `kafka_batch`, `kafka_micro_batch_stream` -- batch and streaming reads;
* `kafka_offset_reader`, `consumer_strategy` -- driver-side offsets;
* `kafka_batch_partition_reader`, `kafka_record_to_row_converter` -- tasks;
* `kafka_write` -- the sink;
* `offsets_client`, `kafka_python_client`, `fake_kafka` -- the Kafka seam;
* `internal_kafka_consumer_pool` -- consumers and producers reused across tasks;
* `session` -- `get_spark()` and `check_kafka()` for notebooks.

Importing this package does not import PySpark; the submodules do.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MiniKafkaDataSource", "check_kafka", "get_spark"]


def __getattr__(name: str) -> Any:
    if name == "MiniKafkaDataSource":
        from minikafka.spark.source import MiniKafkaDataSource

        return MiniKafkaDataSource
    if name in ("get_spark", "check_kafka"):
        from minikafka.spark import session

        return getattr(session, name)
    raise AttributeError(f"module 'minikafka.spark' has no attribute {name!r}")
