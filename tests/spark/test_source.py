"""The data source through Spark itself: schema, partitioning, options, batch reads."""

from __future__ import annotations

from datetime import datetime

import pytest

from minikafka.spark.fake_kafka import FAKE_CLOCK_START_MS
from minikafka.spark.source import MiniKafkaDataSource
from tests.spark._spark_helpers import fill, options

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def test_name_is_minikafka_because_spark_reserves_kafka():
    assert MiniKafkaDataSource.name() == "minikafka"


def test_batch_read_has_sparks_schema_and_one_spark_partition_per_kafka_partition(spark, kafka):
    kafka.create_topic("orders", 3)
    kafka.produce("orders", b"v0", key=b"k", partition=1)
    kafka.produce("orders", b"v1", partition=2, headers=[("trace", b"7")])
    df = spark.read.format("minikafka").options(**options(kafka, subscribe="orders", includeHeaders="true")).load()
    assert df.schema.simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,timestamp:timestamp,"
        "timestampType:int,headers:array<struct<key:string,value:binary>>>"
    )
    assert df.rdd.getNumPartitions() == 3
    rows = sorted(df.collect(), key=lambda row: row.partition)
    assert [(r.key, r.value, r.topic, r.partition, r.offset, r.timestampType) for r in rows] == [
        (b"k", b"v0", "orders", 1, 0, 0), (None, b"v1", "orders", 2, 0, 0)
    ]
    assert rows[0].headers is None
    assert [(h.key, h.value) for h in rows[1].headers] == [("trace", b"7")]
    # the session time zone is UTC, so Spark shows the instant as a naive UTC datetime
    assert rows[1].timestamp == datetime(2026, 1, 1, 0, 0, 0, 1000)
    assert FAKE_CLOCK_START_MS == 1767225600000


def test_batch_offsets_select_a_slice(spark, kafka):
    kafka.create_topic("t", 2)
    fill(kafka, "t", {0: 5, 1: 5})
    df = (spark.read.format("minikafka")
          .options(**options(kafka, subscribe="t", startingOffsets='{"t":{"0":1,"1":-2}}',
                             endingOffsets='{"t":{"0":3,"1":2}}'))
          .load())
    assert sorted((r.partition, r.offset) for r in df.select("partition", "offset").collect()) == [
        (0, 1), (0, 2), (1, 0), (1, 1)
    ]


def test_option_mistakes_surface_at_load_with_sparks_message(spark, kafka):
    with pytest.raises(Exception) as error:
        spark.read.format("minikafka").option("subscribe", "t").load()
    assert "IllegalArgumentException: Option 'kafka.bootstrap.servers' must be specified for configuring " \
           "Kafka consumer" in str(error.value)


def test_a_custom_schema_is_refused(spark, kafka):
    kafka.create_topic("t")
    with pytest.raises(Exception) as error:
        spark.read.format("minikafka").schema("value STRING").options(**options(kafka, subscribe="t")).load().collect()
    assert "Kafka source has a fixed schema and cannot be set with a custom one" in str(error.value)
