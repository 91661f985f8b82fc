"""One small SparkSession with Spark's Kafka connector, and plain-spoken errors before Spark's.

Theory of operation
-------------------
`get_spark()` starts Spark once per kernel and hands back the same session
afterwards.  The settings suit a laptop and mybinder.org (1-2 GB of RAM for
everything): two local cores, a 512 MB driver heap, no web UI, no console
progress bars, two shuffle partitions, a quiet log, UTC as the session time
zone (so printed timestamps are the same on every machine), the driver
bound to 127.0.0.1, and a JVM tuned to start fast rather than to run long.
It also tells Spark to start its Python workers with this interpreter.

``format("kafka")`` needs Spark's Kafka connector, a Java artifact of
exactly PySpark's version; `minikafka.jvm.spark_connector.connector_jars` fetches it once into
a cache outside the repository and the session gets it through
``spark.jars``, so later sessions start without the network.  Starting the
JVM takes several seconds, so one line says that it is happening.  The
JVM's own console output (start-up notices, ERROR log lines, its Python
workers' stderr) goes to `spark_log()` (``spark.log`` in this user's
private temporary directory, `minikafka.jvm.private_temp`: on a shared
host a fixed name in the shared ``/tmp`` would belong to whoever ran Spark
first): Jupyter would otherwise paste it into whatever cell runs at that
moment.

Four mistakes otherwise end in pages of Java stack trace; each is said in
one line instead:

* no Java runtime (or one older than 17): `get_spark` raises
  `JavaNotFoundError` naming the package to install; a connector that
  cannot be fetched raises `JarFetchError` naming what to install or which
  address failed;
* a bootstrap address nobody answers on, or a topic that does not exist:
  `check_kafka` (call it before ``readStream``) raises
  `KafkaUnreachableError` or Kafka's ``UnknownTopicOrPartitionException``
  in seconds, where the connector would retry for minutes;
* an option Spark rejects, or any other failure inside Spark: in a notebook,
  `java_errors` prints the innermost Java exception's own line (with a hint
  for the two mistakes above) and leaves the stack trace in `spark_log()`.

This module is the sandbox's own convenience; nothing in Spark corresponds
to it.  It runs in the notebook's kernel, never in Spark's workers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from minikafka.common.errors import UnknownTopicOrPartitionException
from minikafka.jvm.jar_cache import JarFetchError
from minikafka.jvm.java_runtime import JAVA_PACKAGE, JavaNotFoundError, find_java, java_version
from minikafka.jvm.java_runtime import check_java as _check_java
from minikafka.jvm.private_temp import private_temp_dir
import minikafka.spark.java_errors as java_errors
from minikafka.jvm.spark_connector import connector_jars

__all__ = ["JAVA_PACKAGE", "JarFetchError", "JavaNotFoundError", "KafkaUnreachableError",
           "check_java", "check_kafka", "find_java", "get_spark", "java_version", "spark_log"]

SPARK_CONF = {
    "spark.master": "local[2]",
    "spark.driver.memory": "512m",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}
_LOG4J = Path(__file__).with_name("log4j2.properties")  # root logger at ERROR, to stderr
# Where the JVM's console goes (its start-up notices, ERROR logs, the Python workers' stderr):
# Jupyter would otherwise copy it into whichever cell happens to run.
SPARK_LOG_NAME = "spark.log"
# A lesson's JVM lives minutes and handles little data: the client compiler alone and the
# serial collector start it several seconds sooner and keep its footprint down; a 64 MB young
# generation and a heap that gives back what it does not use keep ~60 MB more out of RAM.
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmn64m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30"

_session: Any = None  # the SparkSession this kernel started


def spark_log() -> Path:
    """Where the JVM's console goes: ``spark.log`` in this user's private temporary directory."""
    return private_temp_dir() / SPARK_LOG_NAME


def __getattr__(name: str) -> Path:
    # ``session.SPARK_LOG``, the constant of earlier versions, still answers (computed on use).
    if name == "SPARK_LOG":
        return spark_log()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class KafkaUnreachableError(RuntimeError):
    """No broker answered at the bootstrap address."""


def check_java() -> None:
    """`JavaNotFoundError` in one sentence unless Spark's java (JAVA_HOME's, else PATH's) is 17 or newer."""
    _check_java("PySpark 4")


@contextlib.contextmanager
def _process_output_to(path: Path) -> Iterator[None]:
    """Point this process's file descriptors 1 and 2 at ``path`` (appending) for a while.

    A child started meanwhile keeps writing there for its whole life, while
    Python's own ``print`` is unaffected (Jupyter sends it over ZeroMQ, not fd 1).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    # never through a link, readable by this user only (the directory is private already)
    log = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    saved = os.dup(1), os.dup(2)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    try:
        yield
    finally:
        for fd, original in zip((1, 2), saved):
            os.dup2(original, fd)
            os.close(original)


def get_spark(quiet: bool = False) -> Any:
    """The kernel's SparkSession, started on first use, with Spark's Kafka connector (``format("kafka")``)."""
    global _session
    if _session is not None and _session.sparkContext._jsc is not None:
        return _session
    check_java()
    jars = connector_jars(quiet=quiet)  # JarFetchError, in one line, when it cannot be fetched
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run this interpreter
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    if not quiet:
        print(f"Starting Spark ({SPARK_CONF['spark.master']}, driver memory {SPARK_CONF['spark.driver.memory']})...",
              flush=True)
    builder = SparkSession.builder.appName("minikafka")
    for key, value in SPARK_CONF.items():
        builder = builder.config(key, value)
    builder = builder.config("spark.jars", ",".join(str(jar) for jar in jars))
    log_config = f"-Dlog4j2.configurationFile=file:{_LOG4J} " if _LOG4J.exists() else ""
    builder = builder.config("spark.driver.extraJavaOptions", log_config + JAVA_OPTIONS)
    log = spark_log()
    with _process_output_to(log):  # the JVM, and the Python workers it starts, inherit these
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    java_errors.install(log)  # in a notebook: a failing Spark call prints one line, not a page
    _session = session
    return session


def check_kafka(bootstrap_servers: str, topics: Iterable[str] = (), timeout_ms: int = 10000) -> None:
    """Fail in one sentence if Kafka is not reachable or a topic is missing."""
    from kafka import KafkaConsumer
    from kafka.errors import KafkaTimeoutError

    try:
        consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, bootstrap_timeout_ms=timeout_ms)
    except KafkaTimeoutError:
        raise KafkaUnreachableError(
            f"No Kafka broker answered at {bootstrap_servers} within {timeout_ms / 1000:g} s: "
            "is the cluster running, and is this its bootstrap address?"
        ) from None
    try:
        existing = consumer.topics()
    finally:
        consumer.close()
    for topic in topics:
        if topic not in existing:
            raise UnknownTopicOrPartitionException(
                f"Topic '{topic}' does not exist on {bootstrap_servers} "
                f"(existing topics: {', '.join(sorted(existing)) or 'none'})."
            )
