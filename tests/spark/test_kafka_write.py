"""The sink: schema checks and writer tasks directly, then round trips through Spark (``spark``)."""

from __future__ import annotations

import pytest
from pyspark.sql import Row
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from minikafka.common.errors import ConfigException, UnknownTopicOrPartitionException
from minikafka.spark.errors import AnalysisException, NullPointerException
from minikafka.spark.kafka_record_to_row_converter import HEADERS_TYPE
from minikafka.spark.kafka_write import validate_query, write_task
from tests.spark._spark_helpers import options, tp


def schema(**columns) -> StructType:
    return StructType([StructField(name, data_type) for name, data_type in columns.items()])


def analysis_message(struct, topic=None) -> str:
    with pytest.raises(AnalysisException) as error:
        validate_query(struct, topic)
    return str(error.value)


def test_accepted_schemas():
    validate_query(schema(value=StringType()), topic="t")
    validate_query(schema(topic=StringType(), key=BinaryType(), value=BinaryType(), partition=IntegerType(),
                          headers=HEADERS_TYPE, extra=LongType()), topic=None)
    not_null_headers = ArrayType(StructType([StructField("KEY", StringType(), False),
                                             StructField("value", BinaryType(), False)]), False)
    validate_query(schema(value=StringType(), headers=not_null_headers), topic="t")


def test_topic_option_wins_over_a_topic_column_of_any_type():
    validate_query(schema(topic=IntegerType(), value=StringType()), topic="t")


def test_a_topic_is_required():
    assert analysis_message(schema(value=StringType())) == (
        "topic option required when no 'topic' attribute is present. Use the topic option for setting a topic."
    )


def test_value_is_required():
    assert analysis_message(schema(key=StringType()), topic="t") == "Required attribute 'value' not found"


@pytest.mark.parametrize(
    ("column", "data_type", "expected"),
    [
        ("key", IntegerType(), "key attribute unsupported type int. key must be a(n) string or binary"),
        ("partition", LongType(), "partition attribute unsupported type bigint. partition must be a(n) int"),
        ("headers", ArrayType(StringType()), "headers attribute unsupported type array<string>. headers must be "
                                             "a(n) array<struct<key:string,value:binary>>"),
    ],
)
def test_wrong_column_types(column, data_type, expected):
    assert analysis_message(schema(value=StringType(), **{column: data_type}), topic="t") == expected


def test_overwrite_is_refused(kafka):
    with pytest.raises(AnalysisException) as error:
        write_task(options(kafka, topic="t"), schema(value=StringType()), overwrite=True)
    assert str(error.value) == (
        "Save mode Overwrite not allowed for Kafka. Allowed save modes are Append and ErrorIfExists (default)."
    )


def test_bootstrap_servers_are_required_by_the_producer():
    with pytest.raises(ConfigException) as error:
        write_task({"topic": "t"}, schema(value=StringType()), overwrite=False)
    assert str(error.value) == 'Missing required configuration "bootstrap.servers" which has no default value.'


def test_a_task_sends_each_row_as_a_record(kafka):
    kafka.create_topic("t", 2)
    struct = schema(key=StringType(), value=BinaryType(), partition=IntegerType(), headers=HEADERS_TYPE,
                    topic=StringType())
    task = write_task(options(kafka), struct, overwrite=False)
    rows = [Row(key="a", value=b"1", partition=1, headers=[Row(key="h", value=b"x")], topic="t"),
            Row(key=None, value=None, partition=0, headers=None, topic="t")]
    assert task.execute(iter(rows)).records == 2
    [first] = kafka.records(tp("t", 1))
    assert (first.key, first.value, first.headers) == (b"a", b"1", (("h", b"x"),))
    [tombstone] = kafka.records(tp("t", 0))
    assert (tombstone.key, tombstone.value, tombstone.headers) == (None, None, ())


def test_the_topic_option_overrides_the_column(kafka):
    kafka.create_topic("chosen")
    task = write_task(options(kafka, topic=" chosen "), schema(topic=StringType(), value=StringType()), False)
    task.execute(iter([Row(topic="ignored", value="v")]))
    assert [r.value for r in kafka.records(tp("chosen", 0))] == [b"v"]


def test_a_row_without_topic_fails_the_task(kafka):
    task = write_task(options(kafka), schema(topic=StringType(), value=StringType()), False)
    with pytest.raises(NullPointerException) as error:
        task.execute(iter([Row(topic=None, value="v")]))
    assert str(error.value) == "null topic present in the data. Use the topic option for setting a default topic."


def test_the_first_failed_send_fails_the_task(kafka):
    task = write_task(options(kafka, topic="missing"), schema(value=StringType()), False)
    with pytest.raises(UnknownTopicOrPartitionException):
        task.execute(iter([Row(value="a"), Row(value="b")]))


# -- through Spark -----------------------------------------------------------------------


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_batch_write_then_read_back(spark, kafka):
    kafka.create_topic("out", 2)
    df = spark.createDataFrame(
        [("a", "1", 1, [("h", b"x")]), (None, "2", 0, None), ("c", None, 1, [])],
        "key STRING, value STRING, partition INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>",
    )
    df.write.format("minikafka").options(**options(kafka, topic="out")).mode("append").save()
    back = (spark.read.format("minikafka").options(**options(kafka, subscribe="out", includeHeaders="true"))
            .load().collect())
    seen = sorted((r.partition, r.offset, r.key, r.value, [tuple(h) for h in r.headers or []]) for r in back)
    assert sorted((p, k, v, h) for p, _, k, v, h in seen) == [
        (0, None, b"2", []), (1, b"a", b"1", [("h", b"x")]), (1, b"c", None, [])
    ]


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_a_schema_mistake_fails_before_anything_is_sent(spark, kafka):
    kafka.create_topic("out")
    df = spark.createDataFrame([("k",)], "key STRING")
    with pytest.raises(Exception) as error:
        df.write.format("minikafka").options(**options(kafka, topic="out")).mode("append").save()
    assert "AnalysisException: Required attribute 'value' not found" in str(error.value)
    assert kafka.records(tp("out", 0)) == []


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_streaming_copy_from_topic_to_topic(spark, kafka, tmp_path):
    kafka.create_topic("src", 2)
    kafka.create_topic("dst", 1)
    for n in range(6):
        kafka.produce("src", f"v{n}".encode(), key=f"k{n}".encode())
    query = (spark.readStream.format("minikafka").options(**options(kafka, subscribe="src",
                                                                    startingOffsets="earliest")).load()
             .selectExpr("key", "upper(CAST(value AS STRING)) AS value")
             .writeStream.format("minikafka").options(**options(kafka, topic="dst"))
             .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert sorted((r.key, r.value) for r in kafka.records(tp("dst", 0))) == [
        (f"k{n}".encode(), f"V{n}".encode()) for n in range(6)
    ]
