"""One small SparkSession for the lessons, and plain-spoken errors before Spark's.

Theory of operation
-------------------
`get_spark()` starts Spark once per kernel and hands back the same session
afterwards.  The settings suit a laptop and mybinder.org (1-2 GB of RAM for
everything): two local cores, a 512 MB driver heap, no web UI, no console
progress bars, two shuffle partitions, a quiet log, UTC as the session time
zone (so printed timestamps are the same on every machine), the driver
bound to 127.0.0.1, and a JVM tuned to start fast rather than to run long.
It also tells Spark to start its Python workers with this interpreter,
without which they cannot import ``minikafka``, and registers the
``minikafka`` data source.  Starting the JVM takes several
seconds, so one line says that it is happening.  The JVM's own console
output (start-up notices, ERROR log lines, its Python workers' stderr) goes
to ``SPARK_LOG`` (``minikafka-spark.log`` in the temporary directory):
Jupyter would otherwise paste it into whatever cell runs at that moment.
Failures still reach the notebook, as the Python exceptions PySpark raises.

Two mistakes otherwise end in pages of Java stack trace; both are caught
first and explained in one sentence:

* no Java runtime (or one older than 17): `get_spark` raises
  `JavaNotFoundError` naming the package to install;
* a bootstrap address nobody answers on, or a topic that does not exist:
  `check_kafka` (call it before ``readStream``) raises
  `KafkaUnreachableError` or Kafka's ``UnknownTopicOrPartitionException``.

This module is the sandbox's own convenience; nothing in Spark corresponds
to it.  It runs in the notebook's kernel, never in Spark's workers.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from minikafka.common.errors import UnknownTopicOrPartitionException

JAVA_PACKAGE = "openjdk-17-jre-headless"
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
SPARK_LOG = Path(tempfile.gettempdir()) / "minikafka-spark.log"
# A lesson's JVM lives minutes and handles little data: the client compiler alone and the
# serial collector start it several seconds sooner and keep its footprint down; a 64 MB young
# generation and a heap that gives back what it does not use keep ~60 MB more out of RAM.
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmn64m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30"

_session: Any = None  # the SparkSession this kernel started


class JavaNotFoundError(RuntimeError):
    """PySpark needs a Java runtime >= 17 and none was found."""


class KafkaUnreachableError(RuntimeError):
    """No broker answered at the bootstrap address."""


def java_version(java: str) -> int | None:
    """Major version of ``java`` ("17.0.15" -> 17, "1.8.0_292" -> 8), None if it will not run."""
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(?:1\.)?(\d+)', result.stderr + result.stdout)
    return int(match.group(1)) if match else None


def find_java() -> str:
    """The java Spark would start: ``$JAVA_HOME/bin/java`` if JAVA_HOME is set, else ``java`` on PATH.

    Like Spark's ``bin/spark-class``, a set JAVA_HOME is never second-guessed:
    if it names no Java, Spark fails even when PATH has one, so we say so.
    """
    java_home = os.environ.get("JAVA_HOME", "")
    if java_home:
        return str(Path(java_home, "bin", "java"))
    return shutil.which("java") or ""


def check_java() -> None:
    java = find_java()
    version = java_version(java) if java else None
    if version is not None and version >= 17:
        return
    if not java:
        found = "no Java runtime was found"
    elif version is None and os.environ.get("JAVA_HOME"):
        found = f"JAVA_HOME is {os.environ['JAVA_HOME']} and {java} does not run (fix or unset JAVA_HOME)"
    else:
        found = f"{java} is Java {version or 'of unknown version'}"
    raise JavaNotFoundError(
        f"PySpark 4 needs Java 17 or newer, but {found}. Install it with: sudo apt-get install {JAVA_PACKAGE}"
    )


@contextlib.contextmanager
def _process_output_to(path: Path) -> Iterator[None]:
    """Point this process's file descriptors 1 and 2 at ``path`` (appending) for a while.

    A child started meanwhile keeps writing there for its whole life, while
    Python's own ``print`` is unaffected (Jupyter sends it over ZeroMQ, not fd 1).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        for fd, original in zip((1, 2), saved):
            os.dup2(original, fd)
            os.close(original)


def get_spark(quiet: bool = False) -> Any:
    """The kernel's SparkSession, started on first use, with ``minikafka`` registered."""
    global _session
    if _session is not None and _session.sparkContext._jsc is not None:
        return _session
    check_java()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers must import minikafka
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from minikafka.spark.source import MiniKafkaDataSource

    if not quiet:
        print(f"Starting Spark ({SPARK_CONF['spark.master']}, driver memory {SPARK_CONF['spark.driver.memory']})...",
              flush=True)
    builder = SparkSession.builder.appName("minikafka")
    for key, value in SPARK_CONF.items():
        builder = builder.config(key, value)
    log_config = f"-Dlog4j2.configurationFile=file:{_LOG4J} " if _LOG4J.exists() else ""
    builder = builder.config("spark.driver.extraJavaOptions", log_config + JAVA_OPTIONS)
    with _process_output_to(SPARK_LOG):  # the JVM, and the Python workers it starts, inherit these
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(MiniKafkaDataSource)
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
