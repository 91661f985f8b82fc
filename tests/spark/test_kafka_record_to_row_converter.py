from __future__ import annotations

from datetime import datetime, timezone

from minikafka.spark.kafka_record_to_row_converter import arrow_schema, kafka_schema, to_record_batch
from minikafka.spark.offsets_client import KafkaRecord


def test_schema_is_sparks_kafka_schema():
    assert kafka_schema(False).simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,timestamp:timestamp,"
        "timestampType:int>"
    )
    assert kafka_schema(True).simpleString().endswith(",headers:array<struct<key:string,value:binary>>>")
    assert all(field.nullable for field in kafka_schema(True).fields)


def test_batch_has_the_arrow_schema_pyspark_checks_against():
    batch = to_record_batch([KafkaRecord("t", 2, 41, 1767225600123, 1, b"k", None)], include_headers=False)
    assert batch.schema.equals(arrow_schema(False))
    assert str(batch.schema.field("timestamp").type) == "timestamp[us, tz=UTC]"


def test_rows_carry_every_field_and_the_exact_instant_in_utc():
    records = [KafkaRecord("t", 2, 41, 1767225600123, 1, b"k", None), KafkaRecord("t", 2, 42, 0, 0, None, b"v")]
    rows = to_record_batch(records, include_headers=False).to_pylist()
    assert rows[0] == {"key": b"k", "value": None, "topic": "t", "partition": 2, "offset": 41,
                       "timestamp": datetime(2026, 1, 1, 0, 0, 0, 123000, tzinfo=timezone.utc), "timestampType": 1}
    assert (rows[1]["key"], rows[1]["value"], rows[1]["offset"]) == (None, b"v", 42)


def test_headers_are_null_when_a_record_has_none():
    records = [KafkaRecord("t", 0, 0, 0, 0, None, b"v"),
               KafkaRecord("t", 0, 1, 0, 0, None, b"v", (("a", b"1"), ("a", None)))]
    batch = to_record_batch(records, include_headers=True)
    assert batch.schema.equals(arrow_schema(True))
    assert batch.column("headers").to_pylist() == [None, [{"key": "a", "value": b"1"}, {"key": "a", "value": None}]]
