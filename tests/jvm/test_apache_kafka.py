"""Apache Kafka 4.3.1's tools, fetched from Maven Central and run by script name."""

from __future__ import annotations


import pytest

from minikafka.jvm import KAFKA_TOOLS, JarFetchError, fetch_jars, run_kafka_tool, tool_main_class
from minikafka.jvm.apache_kafka import kafka_jars


def test_script_names_map_to_main_classes():
    assert tool_main_class("kafka-topics.sh") == "org.apache.kafka.tools.TopicCommand"
    assert tool_main_class("kafka-dump-log") == "org.apache.kafka.tools.DumpLogSegments"


def test_an_unknown_tool_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"Unknown Kafka tool 'kafka-topic'. Known tools: kafka-acls, "):
        tool_main_class("kafka-topic")


@pytest.mark.spark
def test_every_main_class_is_in_the_fetched_jars(kafka_classpath):
    import zipfile

    classes = set()
    for jar in kafka_jars(quiet=True):
        if jar.name.startswith("kafka"):
            classes.update(zipfile.ZipFile(jar).namelist())
    missing = [main for main in KAFKA_TOOLS.values() if main.replace(".", "/") + ".class" not in classes]
    assert missing == []


@pytest.mark.spark
def test_a_tool_runs_by_its_script_name(kafka_classpath):
    result = run_kafka_tool("kafka-topics", ["--version"], quiet=True)
    assert (result.returncode, result.stdout.strip()) == (0, "4.3.1")


@pytest.mark.spark
def test_a_missing_artifact_is_named_in_one_line(monkeypatch, tmp_path, kafka_classpath):
    monkeypatch.setenv("MINIKAFKA_JARS", str(tmp_path))
    with pytest.raises(JarFetchError) as error:
        fetch_jars("nothing", ["org.apache.kafka:kafka-tools:0.0.0-none"], quiet=True)
    message = str(error.value)
    assert message.startswith("Could not fetch org.apache.kafka:kafka-tools:0.0.0-none with ")
    assert "\n" not in message


@pytest.mark.spark
def test_without_maven_spark_s_ivy_fetches_with_dependencies(monkeypatch, tmp_path, kafka_classpath):
    monkeypatch.setenv("MINIKAFKA_JARS", str(tmp_path))
    monkeypatch.setenv("MINIKAFKA_JAR_RESOLVER", "ivy")
    try:
        jars = fetch_jars("slf4j-simple", ["org.slf4j:slf4j-simple:1.7.36"], quiet=True)
    except JarFetchError as error:
        pytest.skip(f"Maven Central is not reachable: {error}")
    assert sorted(jar.name for jar in jars) == ["slf4j-api-1.7.36.jar", "slf4j-simple-1.7.36.jar"]




@pytest.mark.spark
def test_a_tool_s_classes_are_archived_once_and_mapped_afterwards(kafka_classpath):
    from minikafka.jvm.apache_kafka import KAFKA_JARS_NAME, _class_data_sharing
    from minikafka.jvm.jar_cache import jar_dir

    first = run_kafka_tool("kafka-storage", ["random-uuid"], quiet=True)
    second = run_kafka_tool("kafka-storage", ["random-uuid"], quiet=True)
    assert (first.returncode, second.returncode, first.stderr, second.stderr) == (0, 0, "", "")
    assert first.stdout != second.stdout  # each run drew its own uuid
    cds = jar_dir(KAFKA_JARS_NAME) / "cds"
    names = [path.name for path in cds.glob("kafka-storage-*")]
    assert len(names) == 1 and names[0].endswith(".jsa")  # one archive, no temporary file left
    options, writing = _class_data_sharing("kafka-storage")
    assert writing is None and options[0].startswith("-XX:SharedArchiveFile=")
