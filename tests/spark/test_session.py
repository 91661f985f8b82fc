"""The notebook-side helpers; starting Spark itself is exercised by the ``spark`` fixture."""

from __future__ import annotations

import os
import socket
import stat
import subprocess

import pytest

from minikafka.spark import session
from minikafka.jvm.spark_connector import _artifact_name, connector_coordinates, pyspark_version
from minikafka.spark.session import JavaNotFoundError, KafkaUnreachableError, check_java, check_kafka


def fake_java(directory, version_line: str) -> None:
    java = directory / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)


def test_missing_java_names_the_package_to_install(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaNotFoundError) as error:
        check_java()
    assert str(error.value) == (
        "PySpark 4 needs Java 17 or newer, but no Java runtime was found. "
        "Install it with: sudo apt-get install openjdk-17-jre-headless"
    )


def test_old_java_is_refused(monkeypatch, tmp_path):
    fake_java(tmp_path, 'openjdk version "1.8.0_292"')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaNotFoundError) as error:
        check_java()
    assert f"{tmp_path}/bin/java is Java 8" in str(error.value)


def test_java_17_is_accepted(monkeypatch, tmp_path):
    fake_java(tmp_path, 'openjdk version "17.0.15" 2025-04-15')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    check_java()
    assert session.find_java() == os.path.join(tmp_path, "bin", "java")


def test_a_set_java_home_is_never_second_guessed(monkeypatch, tmp_path):
    fake_java(tmp_path / "path", 'openjdk version "17.0.15" 2025-04-15')  # a good java on PATH...
    monkeypatch.setenv("PATH", str(tmp_path / "path" / "bin"))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "gone"))  # ...but Spark would run this one
    with pytest.raises(JavaNotFoundError) as error:
        check_java()
    assert f"JAVA_HOME is {tmp_path / 'gone'} and {tmp_path / 'gone' / 'bin' / 'java'} does not run" in str(
        error.value
    )


def test_processes_started_while_redirected_write_to_the_log(tmp_path):
    log = tmp_path / "spark.log"
    with session._process_output_to(log):
        subprocess.run(["sh", "-c", "echo out; echo err >&2"], check=True)
    subprocess.run(["sh", "-c", "echo restored"], check=True)
    assert log.read_text() == "out\nerr\n"


def test_unreachable_bootstrap_is_one_sentence():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(KafkaUnreachableError) as error:
        check_kafka(f"127.0.0.1:{port}", timeout_ms=1000)
    assert str(error.value) == (
        f"No Kafka broker answered at 127.0.0.1:{port} within 1 s: "
        "is the cluster running, and is this its bootstrap address?"
    )


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_get_spark_returns_one_configured_session(spark):
    assert session.get_spark() is spark
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.master") == "local[2]"
    assert conf.get("spark.driver.memory") == "512m"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    jars = conf.get("spark.jars").split(",")
    assert any("spark-sql-kafka-0-10_2.13-" + pyspark_version() in jar for jar in jars)
    assert not any("hadoop-client" in jar for jar in jars)  # PySpark ships those already


def test_the_connector_is_pyspark_s_own_version():
    import pyspark

    assert connector_coordinates() == f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}"


def test_jar_names_lose_only_their_version():
    from pathlib import Path

    assert [_artifact_name(Path(name)) for name in (
        "kafka-clients-3.9.2.jar", "spark-sql-kafka-0-10_2.13-4.2.0.jar", "scala-library-2.13.15.jar",
        "hadoop-client-runtime-3.5.0.jar")] == [
        "kafka-clients", "spark-sql-kafka-0-10_2.13", "scala-library", "hadoop-client-runtime"]
