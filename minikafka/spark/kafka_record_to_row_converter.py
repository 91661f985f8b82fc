"""The fixed schema of a Kafka read, and one consumed record as one row of it.

Theory of operation
-------------------
A Kafka DataFrame always has the same columns, whatever the topic holds:
``key`` and ``value`` as raw bytes (deserialising them is the query's job),
then where the record came from (``topic``, ``partition``, ``offset``), its
``timestamp`` and ``timestampType`` (0 CreateTime, 1 LogAppendTime).  With
``includeHeaders=true`` a ``headers`` column follows, an array of
``(key string, value binary)`` structs that is null, not empty, for a record
without headers.  Every column is nullable.

The timestamp is handed to Spark as a timezone-aware UTC ``datetime`` so the
instant is exact whatever the session time zone is.

Mirrors ``org.apache.spark.sql.kafka010.KafkaRecordToRowConverter``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

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

from minikafka.spark.offsets_client import KafkaRecord

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

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def kafka_schema(include_headers: bool) -> StructType:
    return _SCHEMA_WITH_HEADERS if include_headers else _SCHEMA_WITHOUT_HEADERS


def to_row(record: KafkaRecord, include_headers: bool) -> tuple:
    """The record's row, in `kafka_schema` column order."""
    row = (
        record.key,
        record.value,
        record.topic,
        record.partition,
        record.offset,
        _EPOCH + timedelta(milliseconds=record.timestamp),
        record.timestamp_type,
    )
    if not include_headers:
        return row
    headers = [(key, value) for key, value in record.headers] if record.headers else None
    return row + (headers,)
