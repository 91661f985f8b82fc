"""A Java exception from Spark, said in one line in the notebook instead of a page of stack trace.

Theory of operation
-------------------
When Spark's Kafka connector fails, PySpark raises either a "captured"
exception (``IllegalArgumentException`` for an option Spark rejects,
``StreamingQueryException`` for a query that died) or a raw
``Py4JJavaError`` whose text is the whole Java stack trace, sixty lines that
bury the one that matters: the innermost cause, such as
``org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This
server does not host this topic-partition.``

`java_error_line` walks the Java exception's ``getCause()`` chain past the
wrappers that only say "something failed" (``ExecutionException``, Spark's
"Job aborted due to stage failure", ``StreamingQueryException``) to the
first exception that says what, and returns its class and message (Spark's
and Kafka's own texts, unchanged), followed, for the mistakes learners make
most, by a short hint in brackets.  `install` registers it with IPython
(``set_custom_exc``) for exactly these exception types: a failing cell then
prints that line, and the full trace goes to the Spark log
(``spark.log`` in the learner's private temporary directory, see
`minikafka.spark.session.spark_log`) for whoever wants it.  Outside IPython nothing
changes.

This module is the sandbox's own convenience; nothing in Spark corresponds
to it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Exceptions that only wrap the one that explains the failure (skipped while they have a cause).
_WRAPPERS = frozenset({
    "java.util.concurrent.ExecutionException",
    "java.lang.reflect.InvocationTargetException",
    "org.apache.spark.SparkException",
    "org.apache.spark.sql.streaming.StreamingQueryException",
    "org.apache.kafka.common.KafkaException",
})

# The explaining Java exception -> what the learner most likely did (only for unambiguous cases).
_HINTS = {
    "org.apache.kafka.common.errors.UnknownTopicOrPartitionException":
        "a topic the cluster does not have; check_kafka(bootstrap, [topics]) lists the ones it has",
    "org.apache.kafka.common.errors.TimeoutException":
        "is the cluster running, and is kafka.bootstrap.servers its address? check_kafka(bootstrap) says in seconds",
}


def java_exception_of(error: BaseException) -> Any | None:
    """The Java ``Throwable`` behind a PySpark/Py4J exception, else None."""
    for attribute in ("java_exception", "_origin"):
        java = getattr(error, attribute, None)
        if java is not None:
            return java
    return None


def java_error_line(error: BaseException) -> str | None:
    """``<Java exception class>: <its message>`` plus a hint for common mistakes, or None if not Java."""
    java = java_exception_of(error)
    if java is None:
        return None
    try:
        root, seen = java, 0
        while root.getClass().getName() in _WRAPPERS and root.getCause() is not None and seen < 20:
            root, seen = root.getCause(), seen + 1
        name = root.getClass().getName()
        message = root.getMessage()
    except Exception:  # the JVM is gone (Spark stopped): fall back on PySpark's own text
        return str(error).split("\n\nJVM stacktrace:", 1)[0].strip() or None
    line = f"{name}: {message.strip()}" if message else name
    hint = _HINTS.get(name)
    return f"{line} ({hint})" if hint else line


def java_error_types() -> tuple[type[BaseException], ...]:
    """The exception types shortened: Py4J's and PySpark's captured ones (PySpark imported lazily)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    return (Py4JJavaError, CapturedException)


def install(log: Path) -> bool:
    """Show Java errors in one line in this IPython kernel (full trace appended to ``log``); False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False

    def show(shell, etype, value, tb, tb_offset=None):
        line = java_error_line(value)
        if line is None:  # not a Java failure after all: IPython's usual traceback
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        _append(log, value)
        text = f"{etype.__name__}: {line}\n(The full Java stack trace is in {log}.)"
        print(text, file=sys.stderr)
        return [text]

    shell.set_custom_exc(java_error_types(), show)
    return True


def _append(log: Path, error: BaseException) -> None:
    try:
        with open(log, "a") as handle:
            handle.write(f"\n--- {type(error).__name__} shown in the notebook as one line ---\n{error}\n")
    except OSError:
        pass  # the log is a convenience; the notebook line already said what failed
