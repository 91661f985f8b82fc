"""``minikafka kafka-tool``: the command's own answers (the tools themselves are tested in tests/jvm)."""

from __future__ import annotations

import pytest

from minikafka.cli import kafka_tool
from minikafka.jvm import KAFKA_TOOLS, KAFKA_VERSION, JavaNotFoundError


def test_alone_it_prints_the_usage_and_every_tool_and_fails(capsys):
    assert kafka_tool.main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: minikafka kafka-tool <tool>")
    assert all(tool in out for tool in KAFKA_TOOLS) and f"Apache Kafka {KAFKA_VERSION}'s tools" in out


def test_help_succeeds(capsys):
    assert kafka_tool.main(["--help"]) == 0
    assert "kafka-topics" in capsys.readouterr().out


def test_an_unknown_tool_is_refused_in_one_line_without_starting_java(capsys, monkeypatch):
    monkeypatch.setattr(kafka_tool, "exec_kafka_tool", lambda *a, **k: pytest.fail("a JVM was started"))
    assert kafka_tool.main(["kafka-topicz", "--list"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith("minikafka kafka-tool: unknown tool 'kafka-topicz'; Apache Kafka")


def test_a_missing_java_ends_in_one_line(capsys, monkeypatch):
    def no_java(tool, args):
        raise JavaNotFoundError("Java 17 or newer is needed; install openjdk-17-jre-headless")
    monkeypatch.setattr(kafka_tool, "exec_kafka_tool", no_java)
    assert kafka_tool.main(["kafka-topics.sh", "--version"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "minikafka kafka-tool: Java 17 or newer is needed; install openjdk-17-jre-headless"


def test_the_sh_suffix_is_accepted_and_arguments_pass_through(monkeypatch):
    calls = []
    monkeypatch.setattr(kafka_tool, "exec_kafka_tool", lambda tool, args: calls.append((tool, args)) or 3)
    assert kafka_tool.main(["kafka-topics.sh", "--bootstrap-server", "h:1", "--list"]) == 3
    assert calls == [("kafka-topics", ["--bootstrap-server", "h:1", "--list"])]
