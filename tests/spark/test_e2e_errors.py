"""Mistakes learners make, against a live cluster: what they see must name the mistake.

Each mistake is checked twice: the sandbox's own guard (`check_kafka`,
`check_java`) says it in one sentence before Spark starts work, and when the
mistake reaches Spark's connector anyway, the line a notebook shows
(`java_errors.java_error_line`) is Kafka's or Spark's own text, not a page of
stack trace.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from minikafka.common.errors import UnknownTopicOrPartitionException
from minikafka.spark.java_errors import java_error_line
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
        f"minikafka.jvm.java_runtime.JavaNotFoundError: PySpark 4 needs Java 17 or newer, but JAVA_HOME is "
        f"{tmp_path / 'no-jdk-here'} and {tmp_path / 'no-jdk-here' / 'bin' / 'java'} does not run (fix or unset "
        "JAVA_HOME). Install it with: sudo apt-get install openjdk-17-jre-headless"
    )
    assert "Starting Spark" not in result.stdout  # refused before the JVM was launched


@pytest.mark.spark
def test_an_unreachable_bootstrap_server(spark):
    address = unused_address()
    with pytest.raises(KafkaUnreachableError, match="No Kafka broker answered at 127.0.0.1:"):
        check_kafka(address, ["orders"], timeout_ms=1000)
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", address).option("subscribe", "orders")
          .option("kafka.default.api.timeout.ms", "1000").option("kafka.request.timeout.ms", "1000")
          .option("fetchOffset.numRetries", "1").load())
    with pytest.raises(Exception) as error:
        df.collect()
    assert java_error_line(error.value) == (
        "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listNodes "
        "(is the cluster running, and is kafka.bootstrap.servers its address? check_kafka(bootstrap) says in seconds)")


@pytest.mark.spark
def test_a_topic_that_does_not_exist(spark, cluster):
    with pytest.raises(UnknownTopicOrPartitionException) as checked:
        check_kafka(cluster.bootstrap_servers, ["order"])
    assert str(checked.value).startswith("Topic 'order' does not exist on 127.0.0.1:")
    assert str(checked.value).endswith("(existing topics: orders).")
    with pytest.raises(Exception) as error:
        spark.read.format("kafka").options(**source(cluster, "order")).load().collect()
    assert java_error_line(error.value) == (
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
        "topic-partition. (a topic the cluster does not have; check_kafka(bootstrap, [topics]) lists the ones it has)")


@pytest.mark.spark
def test_an_option_sparks_kafka_source_rejects_fails_at_load(spark, cluster):
    def reader():  # option() changes the reader it is called on, so each attempt takes a new one
        return spark.readStream.format("kafka").options(**source(cluster, "orders"))

    with pytest.raises(Exception) as error:
        reader().option("kafka.auto.offset.reset", "earliest").load()
    line = java_error_line(error.value)
    assert line.startswith("java.lang.IllegalArgumentException: Kafka option 'auto.offset.reset' is not supported.")
    assert "Instead set the source option 'startingoffsets' to 'earliest' or 'latest'" in line
    with pytest.raises(Exception) as error:
        reader().option("kafka.value.deserializer", "StringDeserializer").load()
    assert java_error_line(error.value).startswith(
        "java.lang.IllegalArgumentException: Kafka option 'value.deserializer' is not supported as values are "
        "deserialized as byte arrays")
    with pytest.raises(Exception) as error:
        spark.read.format("kafka").options(**source(cluster, "orders", startingOffsets="latest")).load()
    assert java_error_line(error.value) == (
        "java.lang.IllegalArgumentException: starting offset can't be latest for batch queries on Kafka")


def test_python_errors_are_not_mistaken_for_java_ones():
    assert java_error_line(ValueError("plain Python")) is None


@pytest.mark.spark
def test_a_notebook_cell_shows_the_java_error_in_one_line(spark, cluster, capsys, tmp_path):
    from IPython.core.interactiveshell import InteractiveShell

    from minikafka.spark import java_errors

    shell = InteractiveShell.instance()
    try:
        assert java_errors.install(tmp_path / "spark.log")
        shell.user_ns.update(spark=spark, bootstrap=cluster.bootstrap_servers)
        result = shell.run_cell('spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)'
                                '.option("subscribe", "order").load().collect()')
    finally:
        InteractiveShell.clear_instance()
    shown = capsys.readouterr()
    assert result.error_in_exec is not None
    assert shown.err.splitlines() == [
        "Py4JJavaError: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host "
        "this topic-partition. (a topic the cluster does not have; check_kafka(bootstrap, [topics]) lists the ones "
        "it has)",
        f"(The full Java stack trace is in {tmp_path / 'spark.log'}.)",
    ]
    assert "at org.apache.spark.sql.kafka010" in (tmp_path / "spark.log").read_text()  # the trace is kept
