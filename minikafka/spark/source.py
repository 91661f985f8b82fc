"""The ``minikafka`` Spark data source: Spark's Kafka connector, rebuilt in Python.

Theory of operation
-------------------
PySpark (4.x) lets a Python class act as a data source.  This one behaves
like Spark's built-in Kafka source and sink: the same schema, the same
options with the same meanings and error messages, the same offsets.  Only
the format name differs, because Spark reserves ``kafka`` for its Java
connector (``format("kafka")`` fails before Python sources are consulted)::

    spark.dataSource.register(MiniKafkaDataSource)
    df = (spark.readStream.format("minikafka")
          .option("kafka.bootstrap.servers", "127.0.0.1:9092")
          .option("subscribe", "orders")
          .load())

Spark calls each method in a Python worker process of its own: ``schema``
when ``load()`` runs, ``reader``/``streamReader`` while a query is planned,
``writer``/``streamWriter`` when a write is planned.  Every one of them
works from the options alone and reaches Kafka over TCP (kafka-python), so
the notebook's kernel holds no Kafka connection for Spark.

Options are checked as early as PySpark allows: the rules common to batch
and streaming reads in ``schema()`` (so at ``load()``, as in Spark), the
batch-only and streaming-only rules when the query is planned.

Mirrors ``org.apache.spark.sql.kafka010.KafkaSourceProvider`` (its role as
the entry point).  Simplified: continuous processing is not offered; a
custom schema, and a streaming ``endingOffsets``, are refused when the query
is planned rather than at ``load()``.
"""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from minikafka.spark.errors import IllegalArgumentException
from minikafka.spark.kafka_batch import KafkaBatch
from minikafka.spark.kafka_micro_batch_stream import KafkaMicroBatchStream
from minikafka.spark.kafka_offset_range_limit import EarliestOffsetRangeLimit
from minikafka.spark.kafka_record_to_row_converter import kafka_schema
from minikafka.spark.kafka_source_provider import (
    include_headers,
    lower_keys,
    starting_offsets,
    validate_general_options,
)
from minikafka.spark.kafka_write import KafkaBatchWrite, KafkaStreamingWrite, write_task

SHORT_NAME = "minikafka"


class MiniKafkaDataSource(DataSource):
    """``format("minikafka")``: read from and write to Kafka with Spark's Kafka options."""

    @classmethod
    def name(cls) -> str:
        return SHORT_NAME

    def schema(self) -> StructType:
        # PySpark calls schema() at load() for reads only, so the options common to batch and
        # streaming reads are checked here, where Spark checks them too.
        params = lower_keys(self.options)
        validate_general_options(params)
        starting_offsets(params, EarliestOffsetRangeLimit())
        return kafka_schema(include_headers(params))

    def _check_schema(self, schema: StructType) -> None:
        if schema != kafka_schema(include_headers(self.options)):
            raise IllegalArgumentException(
                "requirement failed: Kafka source has a fixed schema and cannot be set with a custom one"
            )

    def reader(self, schema: StructType) -> DataSourceReader:
        self._check_schema(schema)
        return KafkaBatch(lower_keys(self.options))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        self._check_schema(schema)
        return KafkaMicroBatchStream(lower_keys(self.options))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return KafkaBatchWrite(write_task(self.options, schema, overwrite))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        return KafkaStreamingWrite(write_task(self.options, schema, overwrite=False))
