"""The log lines Kafka's tools write to standard error (``config/tools-log4j2.yaml``).

Kafka's shell tools log through log4j2 with one console appender on
standard error, level WARN, pattern ``[%d] %p %m (%c)%n``: a local
timestamp such as ``[2026-01-01 12:00:00,123]``, the level, the message and
the logger's class name in parentheses.  When the log call carries an
exception, its ``toString()`` follows on the next line (then the stack
trace, which the sandbox leaves out).  The console consumer's "terminating
consumer process" line after ``--timeout-ms`` is the one learners meet
most.

Mirrors ``config/tools-log4j2.yaml`` of Kafka 4.1.1 (a file of the binary
distribution, not of the 4.3.1 jars the rest was checked against).
Simplified: no stack trace frames.
"""

from __future__ import annotations

from datetime import datetime

from minikafka.tools.tool_output import system_err


def log_line(level: str, message: str, logger: str, exception: str | None = None) -> None:
    """Write one tools-log4j2 line (and the exception's text) to standard error."""
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    system_err().write(f"[{stamp}] {level} {message} ({logger})\n")
    if exception is not None:
        system_err().write(exception + "\n")
    system_err().flush()


__all__ = ["log_line"]
