"""``minikafka kafka-tool`` starts Kafka's real tool, with the terminal's streams and its exit code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from minikafka.jvm import KAFKA_VERSION

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minikafka.cli", "kafka-tool", *args],
                          capture_output=True, text=True, timeout=120)


def test_the_real_tool_prints_its_version(kafka_classpath):
    result = run("kafka-topics", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(KAFKA_VERSION)


def test_the_real_tools_own_error_and_exit_code_come_through(kafka_classpath):
    result = run("kafka-topics.sh", "--list")          # no --bootstrap-server: the tool itself refuses
    assert result.returncode == 1
    assert "--bootstrap-server" in result.stdout + result.stderr
