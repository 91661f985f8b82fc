from __future__ import annotations

from datetime import datetime, timezone

from minikafka.spark.kafka_record_to_row_converter import kafka_schema, to_row
from minikafka.spark.offsets_client import KafkaRecord


def test_schema_is_sparks_kafka_schema():
    assert kafka_schema(False).simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,timestamp:timestamp,"
        "timestampType:int>"
    )
    assert kafka_schema(True).simpleString().endswith(",headers:array<struct<key:string,value:binary>>>")
    assert all(field.nullable for field in kafka_schema(True).fields)


def test_row_carries_the_exact_instant_in_utc():
    record = KafkaRecord("t", 2, 41, 1767225600123, 1, b"k", None)
    row = to_row(record, include_headers=False)
    assert row == (b"k", None, "t", 2, 41, datetime(2026, 1, 1, 0, 0, 0, 123000, tzinfo=timezone.utc), 1)


def test_headers_are_null_when_a_record_has_none():
    assert to_row(KafkaRecord("t", 0, 0, 0, 0, None, b"v"), include_headers=True)[-1] is None
    record = KafkaRecord("t", 0, 0, 0, 0, None, b"v", (("a", b"1"), ("a", None)))
    assert to_row(record, include_headers=True)[-1] == [("a", b"1"), ("a", None)]
