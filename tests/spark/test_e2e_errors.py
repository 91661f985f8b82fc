"""Mistakes learners make, against a live cluster: what they see must name the mistake."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from minikafka.common.errors import UnknownTopicOrPartitionException
from minikafka.spark.session import KafkaUnreachableError, check_kafka
from tests.spark._e2e_helpers import live_cluster, source

pytestmark = [pytest.mark.live, pytest.mark.xdist_group("spark")]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster():
    with live_cluster(seed=1402) as running:
        running.create_topic("orders", partitions=2, replication_factor=3)
        yield running


def unused_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def test_no_java_is_one_sentence_before_any_jvm_starts(tmp_path):
    script = "from minikafka.spark import get_spark\nget_spark()\n"
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-jdk-here"), "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line == (
        f"minikafka.spark.session.JavaNotFoundError: PySpark 4 needs Java 17 or newer, but JAVA_HOME is "
        f"{tmp_path / 'no-jdk-here'} and {tmp_path / 'no-jdk-here' / 'bin' / 'java'} does not run (fix or unset "
        "JAVA_HOME). Install it with: sudo apt-get install openjdk-17-jre-headless"
    )
    assert "Starting Spark" not in result.stdout  # refused before the JVM was launched


@pytest.mark.spark
def test_an_unreachable_bootstrap_server(spark):
    address = unused_address()
    with pytest.raises(KafkaUnreachableError, match="No Kafka broker answered at 127.0.0.1:"):
        check_kafka(address, ["orders"], timeout_ms=1000)
    df = (spark.read.format("minikafka").option("kafka.bootstrap.servers", address).option("subscribe", "orders")
          .option("kafka.default.api.timeout.ms", "1000").load())
    with pytest.raises(Exception) as error:
        df.collect()
    assert "TimeoutException: Timed out waiting for a node assignment. Call: listNodes" in str(error.value)


@pytest.mark.spark
def test_a_topic_that_does_not_exist(spark, cluster):
    with pytest.raises(UnknownTopicOrPartitionException) as checked:
        check_kafka(cluster.bootstrap_servers, ["order"])
    assert str(checked.value).startswith("Topic 'order' does not exist on 127.0.0.1:")
    assert str(checked.value).endswith("(existing topics: orders).")
    with pytest.raises(Exception) as error:
        spark.read.format("minikafka").options(**source(cluster, "order")).load().collect()
    assert "UnknownTopicOrPartitionException: This server does not host this topic-partition." in str(error.value)


@pytest.mark.spark
def test_an_option_sparks_kafka_source_rejects_fails_at_load(spark, cluster):
    def reader():  # option() changes the reader it is called on, so each attempt takes a new one
        return spark.readStream.format("minikafka").options(**source(cluster, "orders"))

    with pytest.raises(Exception) as error:
        reader().option("kafka.auto.offset.reset", "earliest").load()
    assert "IllegalArgumentException: \nKafka option 'auto.offset.reset' is not supported." in str(error.value)
    assert "Instead set the source option 'startingoffsets' to 'earliest' or 'latest'" in str(error.value)
    with pytest.raises(Exception) as error:
        reader().option("kafka.value.deserializer", "StringDeserializer").load()
    assert "Kafka option 'value.deserializer' is not supported as values are deserialized as byte arrays" in str(
        error.value
    )
