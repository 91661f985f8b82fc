"""The fixed schema of a Kafka read, and consumed records as Arrow batches of its rows.

Theory of operation
-------------------
A Kafka DataFrame always has the same columns, whatever the topic holds:
``key`` and ``value`` as raw bytes (deserialising them is the query's job),
then where the record came from (``topic``, ``partition``, ``offset``), its
``timestamp`` and ``timestampType`` (0 CreateTime, 1 LogAppendTime).  With
``includeHeaders=true`` a ``headers`` column follows, an array of
``(key string, value binary)`` structs that is null, not empty, for a record
without headers.  Every column is nullable.

A task hands its rows to Spark as ``pyarrow.RecordBatch``es rather than one
Python tuple per row: PySpark passes a batch straight to the JVM, whereas
tuples are converted value by value in Python, which costs more than
reading the records from Kafka.  The batch's Arrow schema is the one PySpark
derives from `kafka_schema` (timestamps as microseconds since the epoch in
UTC, so the instant is exact whatever the session time zone is), and PySpark
checks that they are equal.

Mirrors ``org.apache.spark.sql.kafka010.KafkaRecordToRowConverter`` (which
builds Spark's ``UnsafeRow``s; Arrow batches are their Python counterpart).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from minikafka.spark.offsets_client import ConsumedRecord

HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))

_SCHEMA_WITHOUT_HEADERS = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
)
_SCHEMA_WITH_HEADERS = StructType(_SCHEMA_WITHOUT_HEADERS.fields + [StructField("headers", HEADERS_TYPE)])

# spark.sql.execution.arrow.maxRecordsPerBatch's default: the rows a task puts in one batch.
ARROW_BATCH_ROWS = 10_000


def kafka_schema(include_headers: bool) -> StructType:
    return _SCHEMA_WITH_HEADERS if include_headers else _SCHEMA_WITHOUT_HEADERS


def arrow_schema(include_headers: bool) -> Any:
    """The ``pyarrow.Schema`` PySpark expects for `kafka_schema` (pyarrow imported on use)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(kafka_schema(include_headers), timezone="UTC")


def _headers(record: ConsumedRecord) -> list[tuple[str, bytes | None]] | None:
    return [(key, value) for key, value in record.headers] if record.headers else None


def to_record_batch(records: Sequence[ConsumedRecord], include_headers: bool, schema: Any = None) -> Any:
    """The records' rows as one ``pyarrow.RecordBatch`` of ``schema`` (default `arrow_schema`)."""
    import pyarrow as pa

    schema = schema if schema is not None else arrow_schema(include_headers)
    columns = [
        [r.key for r in records],
        [r.value for r in records],
        [r.topic for r in records],
        [r.partition for r in records],
        [r.offset for r in records],
        [r.timestamp * 1000 for r in records],  # ms -> the microseconds of Spark's TimestampType
        [r.timestamp_type for r in records],
    ]
    if include_headers:
        columns.append([_headers(r) for r in records])
    arrays = [pa.array(values, type=field.type) for values, field in zip(columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
