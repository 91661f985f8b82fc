"""Apache Kafka's own jars (4.3.1): its broker, controller and command-line tools, run from Python.

Theory of operation
-------------------
Kafka's binary tarball is a ``libs/`` directory of jars plus ``bin/*.sh``
scripts that each start one main class.  Here the jars come from Maven
Central instead (`jar_cache.fetch_jars`, once, into ``<cache>/kafka-4.3.1/``):

* ``org.apache.kafka:kafka_2.13`` -- the broker and controller (``kafka.Kafka``),
  ``kafka-storage`` and ``kafka-configs``;
* ``org.apache.kafka:kafka-tools`` -- most ``kafka-*.sh`` main classes;
* ``org.apache.kafka:kafka-shell`` -- ``kafka-metadata-shell``;
* ``org.apache.logging.log4j:log4j-slf4j-impl`` -- the slf4j 1.7 binding the
  tarball ships but the POMs leave out (without it the JVMs log nothing).

4.3.1 is the newest release whose broker *and* tools Maven Central serves
together.  `KAFKA_TOOLS` maps each script name to its main class in
4.3.1 (checked against the jars: ``DumpLogSegments`` has moved to
``org.apache.kafka.tools``, ``ConfigCommand`` is still ``kafka.admin``), and
`run_kafka_tool` / `start_kafka_tool` run one as ``bin/<tool>.sh`` would,
with the JVM settings of `java_process`.

A tool's JVM spends most of its second loading classes.  `run_kafka_tool`
therefore keeps one class-data-sharing archive per tool (AppCDS, Java 13+):
the first run writes the classes it loaded to
``<cache>/kafka-4.3.1/cds/<tool>-java<N>.jsa`` as it exits (to a temporary
name, renamed once complete, so a concurrent run never maps half a file),
and every later run maps them instead of reading the jars, starting about
twice as fast (0.65 s -> 0.33 s for ``kafka-storage random-uuid`` here).
An archive that does not match the JVM or the class path is ignored by
Java itself.

Using it
--------
A tool, to completion (stdout holds only the tool's output)::

    from minikafka.jvm import run_kafka_tool
    result = run_kafka_tool("kafka-topics", ["--bootstrap-server", "localhost:9092", "--describe"])
    print(result.stdout)

A long-running one, stopped for sure::

    with start_kafka_tool("kafka-console-consumer", ["--bootstrap-server", "localhost:9092",
                          "--topic", "orders", "--from-beginning"]) as consumer:
        consumer.wait_for_output(r"^last line$")

A real KRaft broker and controller (one combined node; see Kafka's
``config/server.properties`` for the keys)::

    cluster_id = run_kafka_tool("kafka-storage", ["random-uuid"]).stdout.strip()
    run_kafka_tool("kafka-storage", ["format", "--standalone", "-t", cluster_id, "-c", "server.properties"])
    broker = start_kafka_tool("kafka-server-start", ["server.properties"], heap="512m", fast_start=False,
                              output_dir=log_dir)
    ...
    broker.stop()    # SIGTERM: a controlled shutdown; broker.kill() is kill -9

Separate controllers and brokers: format the controller with
``--standalone`` (or ``--initial-controllers``) and each broker with
``--no-initial-controllers``, every node with the same cluster id.

This module is the sandbox's own plumbing; nothing in Kafka corresponds to
it.  Simplified: only the tools listed in `KAFKA_TOOLS`; no ``KAFKA_OPTS`` /
``KAFKA_HEAP_OPTS`` handling (pass ``heap`` and ``jvm_options`` instead).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterable
from pathlib import Path

from minikafka.jvm.jar_cache import classpath, fetch_jars, jar_dir
from minikafka.jvm.java_process import JavaProcess, java_command, run_java, start_java
from minikafka.jvm.java_runtime import find_java, java_version

KAFKA_VERSION = "4.3.1"
SCALA_VERSION = "2.13"
LOG4J_VERSION = "2.25.4"  # the log4j2 kafka 4.3.1's POMs bring (log4j-api, log4j-core)
KAFKA_ARTIFACTS = (
    f"org.apache.kafka:kafka_{SCALA_VERSION}:{KAFKA_VERSION}",
    f"org.apache.kafka:kafka-tools:{KAFKA_VERSION}",
    f"org.apache.kafka:kafka-shell:{KAFKA_VERSION}",
    f"org.apache.logging.log4j:log4j-slf4j-impl:{LOG4J_VERSION}",
)
KAFKA_JARS_NAME = f"kafka-{KAFKA_VERSION}"

# bin/<tool>.sh -> main class, in Kafka 4.3.1.
KAFKA_TOOLS = {
    "kafka-server-start": "kafka.Kafka",
    "kafka-storage": "kafka.tools.StorageTool",
    "kafka-configs": "kafka.admin.ConfigCommand",
    "kafka-topics": "org.apache.kafka.tools.TopicCommand",
    "kafka-metadata-quorum": "org.apache.kafka.tools.MetadataQuorumCommand",
    "kafka-reassign-partitions": "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
    "kafka-leader-election": "org.apache.kafka.tools.LeaderElectionCommand",
    "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    "kafka-share-groups": "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
    "kafka-broker-api-versions": "org.apache.kafka.tools.BrokerApiVersionsCommand",
    "kafka-log-dirs": "org.apache.kafka.tools.LogDirsCommand",
    "kafka-get-offsets": "org.apache.kafka.tools.GetOffsetShell",
    "kafka-features": "org.apache.kafka.tools.FeatureCommand",
    "kafka-cluster": "org.apache.kafka.tools.ClusterTool",
    "kafka-dump-log": "org.apache.kafka.tools.DumpLogSegments",
    "kafka-metadata-shell": "org.apache.kafka.shell.MetadataShell",
    "kafka-delete-records": "org.apache.kafka.tools.DeleteRecordsCommand",
    "kafka-acls": "org.apache.kafka.tools.AclCommand",
    "kafka-transactions": "org.apache.kafka.tools.TransactionsCommand",
    "kafka-client-metrics": "org.apache.kafka.tools.ClientMetricsCommand",
    "kafka-groups": "org.apache.kafka.tools.GroupsCommand",
    "kafka-console-producer": "org.apache.kafka.tools.ConsoleProducer",
    "kafka-console-consumer": "org.apache.kafka.tools.consumer.ConsoleConsumer",
    "kafka-console-share-consumer": "org.apache.kafka.tools.consumer.ConsoleShareConsumer",
    "kafka-producer-perf-test": "org.apache.kafka.tools.ProducerPerformance",
    "kafka-consumer-perf-test": "org.apache.kafka.tools.ConsumerPerformance",
    "kafka-verifiable-producer": "org.apache.kafka.tools.VerifiableProducer",
    "kafka-verifiable-consumer": "org.apache.kafka.tools.VerifiableConsumer",
    "kafka-e2e-latency": "org.apache.kafka.tools.EndToEndLatency",
    "kafka-replica-verification": "org.apache.kafka.tools.ReplicaVerificationTool",
    "kafka-delegation-tokens": "org.apache.kafka.tools.DelegationTokenCommand",
    "kafka-streams-application-reset": "org.apache.kafka.tools.StreamsResetter",
    "kafka-streams-groups": "org.apache.kafka.tools.streams.StreamsGroupCommand",
    "kafka-jmx": "org.apache.kafka.tools.JmxTool",
}


def kafka_jars(quiet: bool = False) -> list[Path]:
    """Kafka 4.3.1's jars with their dependencies, fetched on first use (see `jar_cache`)."""
    return fetch_jars(KAFKA_JARS_NAME, KAFKA_ARTIFACTS, quiet=quiet)


def kafka_classpath(quiet: bool = False) -> str:
    """``java -cp`` value for Kafka 4.3.1 (fetches the jars on first use)."""
    return classpath(kafka_jars(quiet=quiet))


def tool_main_class(tool: str) -> str:
    """The main class of ``bin/<tool>.sh``; ``kafka-topics.sh`` and ``kafka-topics`` both work."""
    name = tool.removesuffix(".sh")
    if name not in KAFKA_TOOLS:
        raise ValueError(f"Unknown Kafka tool {tool!r}. Known tools: {', '.join(sorted(KAFKA_TOOLS))}.")
    return KAFKA_TOOLS[name]


def run_kafka_tool(tool: str, args: Iterable[str] = (), *, timeout: float = 120, input: str | None = None,
                   quiet: bool = False, class_data_sharing: bool = True,
                   **java_options) -> subprocess.CompletedProcess[str]:
    """Run ``bin/<tool>.sh args`` to completion; exit code, stdout and stderr (see `java_process.run_java`)."""
    main_class = tool_main_class(tool)
    path = kafka_classpath(quiet=quiet)
    options, writing = _class_data_sharing(tool.removesuffix(".sh")) if class_data_sharing else ((), None)
    java_options["jvm_options"] = (*options, *java_options.get("jvm_options", ()))
    try:
        return run_java(main_class, list(args), classpath=path, timeout=timeout, input=input, **java_options)
    finally:
        if writing is not None and writing.exists():
            os.replace(writing, writing.with_name(writing.name.split(".", 1)[0] + ".jsa"))


def exec_kafka_tool(tool: str, args: Iterable[str] = (), **java_options) -> int:
    """Run ``bin/<tool>.sh args`` on this terminal (its stdin, stdout and stderr); its exit code.

    For the ``minikafka kafka-tool`` command: Ctrl-C reaches the JVM as it would
    from Kafka's script (same process group), and the tool's exit code is returned.
    """
    main_class = tool_main_class(tool)
    path = kafka_classpath()
    options, writing = _class_data_sharing(tool.removesuffix(".sh"))
    command = java_command(main_class, list(args), classpath=path,
                           jvm_options=(*options, *java_options.pop("jvm_options", ())), **java_options)
    process = subprocess.Popen(command)
    try:
        code = process.wait()
    except KeyboardInterrupt:  # the JVM got the same SIGINT: let it finish its shutdown hooks
        code = process.wait()
    if writing is not None and writing.exists():
        os.replace(writing, writing.with_name(writing.name.split(".", 1)[0] + ".jsa"))
    return code


def _class_data_sharing(tool: str) -> tuple[tuple[str, ...], Path | None]:
    """JVM options to map ``tool``'s archive, or to write it (and the temporary file it is written to)."""
    directory = jar_dir(KAFKA_JARS_NAME) / "cds"
    archive = directory / f"{tool}-java{java_version(find_java())}.jsa"
    if archive.exists():
        return (f"-XX:SharedArchiveFile={archive}", "-Xlog:disable"), None
    directory.mkdir(exist_ok=True)
    writing = directory / f"{archive.stem}.{uuid.uuid4().hex}.tmp"
    return (f"-XX:ArchiveClassesAtExit={writing}", "-Xlog:disable"), writing


def start_kafka_tool(tool: str, args: Iterable[str] = (), *, quiet: bool = False, **java_options) -> JavaProcess:
    """Start ``bin/<tool>.sh args`` in the background (see `java_process.start_java`); stop it when done."""
    main_class = tool_main_class(tool)
    return start_java(main_class, list(args), classpath=kafka_classpath(quiet=quiet), **java_options)
