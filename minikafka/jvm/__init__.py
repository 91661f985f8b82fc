"""Java beside the sandbox: Maven artifacts fetched into a cache, and Java main classes run safely.

The sandbox is Python, but Kafka's reference client, Kafka's own tools, a
real Kafka broker and Spark's Kafka connector are Java.  This package fetches
their jars once and runs them:

* `jar_cache` -- ``fetch_jars(name, ["group:artifact:version", ...])``: the jars
  with their runtime dependencies in ``~/.cache/minikafka/jars/<name>/``
  (``$MINIKAFKA_JARS/<name>/`` when set), with Maven, or without it with the
  Ivy jar PySpark ships; offline once fetched; `JarFetchError` in one line;
* `java_process` -- ``run_java`` / ``start_java``: ``-Xmx256m``, log4j2 at
  WARN to stderr, each JVM in its own process group, stopped by
  `JavaProcess.stop` / ``with`` / at interpreter exit;
* `apache_kafka` -- Kafka 4.3.1 (``kafka_2.13``, ``kafka-tools``,
  ``kafka-shell``): ``run_kafka_tool("kafka-topics", [...])``,
  ``start_kafka_tool("kafka-server-start", ["server.properties"])``, and
  `KAFKA_TOOLS`, the script-to-main-class map;
* `java_runtime` -- which ``java``, and `JavaNotFoundError` when none >= 17;
* `spark_connector` -- Spark's Kafka connector for the installed PySpark
  (``connector_jars``), which `minikafka.spark` puts on its session's class path.

A broker, a controller and the tools of Kafka 4.3.1::

    from minikafka.jvm import run_kafka_tool, start_kafka_tool
    cluster_id = run_kafka_tool("kafka-storage", ["random-uuid"]).stdout.strip()
    run_kafka_tool("kafka-storage", ["format", "--standalone", "-t", cluster_id, "-c", "server.properties"])
    with start_kafka_tool("kafka-server-start", ["server.properties"], heap="512m", fast_start=False) as node:
        node.wait_for_output("Kafka Server started", stream="stderr")  # needs log_level="INFO"
        print(run_kafka_tool("kafka-topics", ["--bootstrap-server", "localhost:9092", "--list"]).stdout)

Any other Java program::

    from minikafka.jvm import classpath, fetch_jars, run_java
    jars = fetch_jars("clients-3.9.2", ["org.apache.kafka:kafka-clients:3.9.2"])
    run_java("org.example.Main", ["arg"], classpath=classpath(jars))

Nothing here is imported by ``import minikafka``; none of it runs inside a
simulated node (it starts processes and reads clocks, like the drivers).
"""

from minikafka.jvm.apache_kafka import (
    KAFKA_ARTIFACTS,
    KAFKA_TOOLS,
    KAFKA_VERSION,
    exec_kafka_tool,
    kafka_classpath,
    kafka_jars,
    run_kafka_tool,
    start_kafka_tool,
    tool_main_class,
)
from minikafka.jvm.jar_cache import JarFetchError, cache_root, cached_jars, classpath, fetch_jars, jar_dir
from minikafka.jvm.java_process import JavaProcess, java_command, run_java, running_processes, start_java, stop_all
from minikafka.jvm.java_runtime import JavaNotFoundError, check_java, find_java, java_version

__all__ = [
    "KAFKA_ARTIFACTS",
    "KAFKA_TOOLS",
    "KAFKA_VERSION",
    "JarFetchError",
    "JavaNotFoundError",
    "JavaProcess",
    "cache_root",
    "cached_jars",
    "check_java",
    "classpath",
    "exec_kafka_tool",
    "fetch_jars",
    "find_java",
    "jar_dir",
    "java_command",
    "java_version",
    "kafka_classpath",
    "kafka_jars",
    "run_java",
    "run_kafka_tool",
    "running_processes",
    "start_java",
    "start_kafka_tool",
    "stop_all",
    "tool_main_class",
]
