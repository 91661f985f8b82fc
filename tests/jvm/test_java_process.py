"""Running Java main classes: clean stdout, small heap, and no JVM left behind."""

from __future__ import annotations

import subprocess

import psutil
import pytest

from minikafka.jvm import java_command, run_java, running_processes, start_java

pytestmark = pytest.mark.spark  # needs a Java runtime (and Kafka's jars, fetched once)

STORAGE_TOOL = "kafka.tools.StorageTool"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
NOBODY = "127.0.0.1:9"  # the discard port: nothing answers Kafka there


def java_children() -> list[psutil.Process]:
    return [child for child in psutil.Process().children(recursive=True) if "java" in child.name()]


def test_the_command_has_a_small_heap_and_quiet_logging(kafka_classpath):
    command = java_command(STORAGE_TOOL, ["random-uuid"], classpath=kafka_classpath)
    assert "-Xmx256m" in command
    assert any(arg.startswith("-Dlog4j2.configurationFile=file:") and arg.endswith("log4j2.properties")
               for arg in command)
    assert "-Dminikafka.log.level=WARN" in command
    assert command[-2:] == [STORAGE_TOOL, "random-uuid"]


def test_a_bad_heap_size_is_refused(kafka_classpath):
    with pytest.raises(ValueError, match="Invalid heap size '256 MB'"):
        java_command(STORAGE_TOOL, classpath=kafka_classpath, heap="256 MB")


def test_a_tool_prints_only_its_output_on_stdout(kafka_classpath):
    result = run_java(STORAGE_TOOL, ["random-uuid"], classpath=kafka_classpath)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.strip()) == 22  # a base64 Uuid, and no log line around it
    assert result.stderr == ""


def test_info_logging_goes_to_stderr_when_asked(kafka_classpath):
    result = run_java(CONSOLE_CONSUMER, ["--bootstrap-server", NOBODY, "--topic", "t", "--timeout-ms", "1000"],
                      classpath=kafka_classpath, log_level="INFO", timeout=60)
    assert " INFO " in result.stderr
    assert " INFO " not in result.stdout


def test_a_timeout_kills_the_jvm(kafka_classpath):
    with pytest.raises(subprocess.TimeoutExpired):
        run_java(CONSOLE_CONSUMER, ["--bootstrap-server", NOBODY, "--topic", "t"], classpath=kafka_classpath,
                 timeout=3)
    assert java_children() == []


def test_a_started_jvm_is_stopped_by_its_with_block(kafka_classpath, tmp_path):
    with start_java(CONSOLE_CONSUMER, ["--bootstrap-server", NOBODY, "--topic", "t"], classpath=kafka_classpath,
                    output_dir=tmp_path) as process:
        assert process.alive()
        assert running_processes() == [process]
    assert not process.alive()
    # SIGTERM: 143 (128 + 15) once the JVM handles signals and ran its hooks, -15 if it came during start-up
    assert process.returncode in (143, -15)
    assert running_processes() == []
    assert java_children() == []


def test_kill_is_kill_minus_nine(kafka_classpath, tmp_path):
    process = start_java(CONSOLE_CONSUMER, ["--bootstrap-server", NOBODY, "--topic", "t"],
                         classpath=kafka_classpath, output_dir=tmp_path)
    assert process.kill() == -9
    assert running_processes() == []


def test_waiting_for_output_stops_when_the_jvm_exits(kafka_classpath, tmp_path):
    process = start_java(STORAGE_TOOL, ["no-such-command"], classpath=kafka_classpath, output_dir=tmp_path)
    with pytest.raises(TimeoutError, match=r"StorageTool exited with code \d+ without printing 'never'"):
        process.wait_for_output("never", timeout=60)
    process.stop()


def test_output_is_read_while_it_runs_and_stdin_is_fed(kafka_classpath, tmp_path):
    with start_java(STORAGE_TOOL, ["random-uuid"], classpath=kafka_classpath, output_dir=tmp_path) as process:
        match = process.wait_for_output(r"^(\S{22})$", timeout=60)
    assert (tmp_path / "StorageTool.stdout").read_text().strip() == match.group(1)
    with pytest.raises(ValueError, match="stdin=True"):
        process.send("x")
