"""Helpers for the tests that run Apache Kafka's own tools against a live sandbox cluster.

`real` runs a 4.3.1 tool (through `minikafka.jvm`) with the cluster's
bootstrap address and returns its exit code, stdout, and the lines of its
stderr that the tool itself printed.  Log4j records are set apart: WARN
records come and go with timing, and after an error several tools log the
Java stack trace at ERROR, which the sandbox's look-alikes leave out
(docs/cli.md); `ToolRun.logged_errors` keeps their first lines.  `lookalike`
runs the sandbox's own version of the same command (`Cluster.run_tool`).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass

from minikafka import Cluster
from minikafka.jvm import run_kafka_tool

_LOG_RECORD = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*)")


@dataclass(frozen=True)
class ToolRun:
    returncode: int
    stdout: str
    errors: str  # the tool's own stderr lines
    logged_errors: tuple[str, ...] = ()  # first lines of its ERROR log records and printed stack traces

    @property
    def text(self) -> str:
        """What a terminal shows, minus log records: stdout then the tool's stderr lines."""
        return (self.stdout + self.errors).rstrip("\n")


def split_stderr(stderr: str) -> tuple[str, tuple[str, ...]]:
    """(the tool's own stderr lines, the first lines of its ERROR log records and stack traces)."""
    kept, logged, in_record = [], [], False
    for line in stderr.splitlines():
        record = _LOG_RECORD.match(line)
        if record:
            in_record = True
            if record.group(1) in ("ERROR", "FATAL"):
                logged.append(record.group(2))
            continue
        if in_record and (line.startswith(("\tat ", "\t... ", "Caused by: ")) or not line.strip()
                          or re.match(r"^[\w.$]+(Exception|Error)\b", line)
                          or re.match(r"^\s*\([\w.$]+\)$", line)):  # a record's "(logger)" trailer
            continue
        in_record = False
        if line.startswith(("\tat ", "\t... ")) and kept and re.match(r"^[\w.$]+(Exception|Error)\b", kept[-1]):
            logged.append(kept.pop())  # a stack trace the tool printed itself: its exception line goes too
            in_record = True
            continue
        kept.append(line)
    return "".join(f"{line}\n" for line in kept), tuple(logged)


def real(cluster: Cluster, command: str, stdin: str | None = None, bootstrap: bool = True) -> ToolRun:
    """``bin/<tool>.sh args`` of Kafka 4.3.1 against ``cluster`` (first broker as bootstrap server)."""
    words = shlex.split(command)
    args = words[1:]
    if bootstrap:
        args = ["--bootstrap-server", cluster.bootstrap_servers.split(",")[0], *args]
    result = run_kafka_tool(words[0], args, input=stdin, quiet=True)
    errors, logged = split_stderr(result.stderr)
    return ToolRun(result.returncode, result.stdout, errors, logged)


def lookalike(cluster: Cluster, command: str) -> ToolRun:
    """The sandbox's look-alike of the same command (``minikafka <tool>``), stdout and stderr apart."""
    from minikafka.commands import tool_commands

    words = shlex.split(command)
    name = words[0].removesuffix(".sh").removeprefix("kafka-")
    args = ["--bootstrap-server", cluster.bootstrap_servers.split(",")[0], *words[1:]]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tool_commands.run_named(name, args)
    return ToolRun(code, out.getvalue(), err.getvalue())
