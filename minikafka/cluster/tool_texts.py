"""Kafka-tool texts from the `Cluster`: what ``kafka-topics.sh --describe`` and
``kafka-metadata-quorum.sh describe`` would print for this cluster right now.

The formatting lives in ``minikafka.tools`` (shared with the command-line
tools, which gather the same data over the wire); these verbs only collect the
data from the running nodes: the committed metadata (through a snapshot), a
broker's effective configuration (static settings such as ``log.segment.bytes``
appear under ``Configs:`` exactly as they would on a real cluster), and the
active controller's own view of the quorum.

``run_tool`` runs one of the sandbox's Kafka-tool look-alikes
(`minikafka.commands`, the ``minikafka <tool>`` commands, which talk to the
brokers over the Kafka protocol like Kafka's own scripts) in this process,
with the cluster's bootstrap address filled in when the command line has
none, and returns what it printed: the tool is given a stream to print to
(``run_named(..., out)``), so the process's stdout is never redirected
(other threads keep printing where they did).  With ``real=True`` it runs
Apache Kafka's own tool instead (`minikafka.jvm.run_kafka_tool`: a JVM, jars
fetched on first use), so a lesson can show both side by side.  A simulated
cluster has no sockets, so ``run_tool`` refuses at once there (rather than
letting the tool wait for a broker until its timeout), except for Kafka
tools that only read files.

`ToolTexts` receives the cluster's `NodeProcesses` and nothing else; it
keeps one fact of its own, how often each tool ran (it seeds the tools'
random choices).
"""

from __future__ import annotations

import io
import random
import shlex

from minikafka.cluster.processes import NodeProcesses
from minikafka.cluster.snapshot_builder import take_snapshot
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.tools import metadata_quorum_command_output, topic_command_output


class ToolTexts:
    def __init__(self, processes: NodeProcesses):
        self._processes = processes     # the driver and the nodes on it
        self.runs: dict[str, int] = {}  # tool name -> how many times run_tool ran it

    def describe_topic(self, name: str | None = None, *, exclude_internal: bool = False,
                       under_replicated_partitions: bool = False,
                       under_min_isr_partitions: bool = False,
                       unavailable_partitions: bool = False) -> str:
        """``kafka-topics.sh --describe [--topic name]``, as text."""
        snapshot = take_snapshot(self._processes)
        config = self._processes.call(self._any_broker_config)
        output = topic_command_output.describe(
            topic_command_output.from_snapshot(snapshot, config), topic=name,
            exclude_internal=exclude_internal,
            under_replicated_partitions=under_replicated_partitions,
            under_min_isr_partitions=under_min_isr_partitions,
            unavailable_partitions=unavailable_partitions,
            live_brokers=topic_command_output.live_brokers_from_snapshot(snapshot))
        return output.text.rstrip("\n")

    def _any_broker_config(self):
        for broker_id in self._processes.layout.brokers:
            if self._processes.state(broker_id) is NodeState.RUNNING:
                return self._processes.node(broker_id).broker.kafka_config
        return None

    def _quorum_info(self):
        def describe():
            node = self._processes.active_controller_node()
            return None if node is None else node.raft.describe_quorum()
        response = self._processes.call(describe)
        if response is None:
            raise RuntimeError("No active controller: the quorum has no leader right now, so "
                               "kafka-metadata-quorum.sh would time out as well")
        return metadata_quorum_command_output.from_describe_quorum_response(response)

    def quorum_status(self) -> str:
        """``kafka-metadata-quorum.sh describe --status``, as text."""
        return metadata_quorum_command_output.format_status(
            self._processes.layout.cluster_id, self._quorum_info()).rstrip("\n")

    def quorum_replication(self, human_readable: bool = False) -> str:
        """``kafka-metadata-quorum.sh describe --replication [--human-readable]``, as text."""
        now = self._processes.now()
        return metadata_quorum_command_output.format_replication(
            self._quorum_info(), human_readable, now).rstrip("\n")

    def run_tool(self, command: str, real: bool = False) -> str:
        """Run a Kafka shell tool against this cluster and return what it printed, e.g.
        ``cluster.run_tool("kafka-consumer-groups.sh --describe --group billing")``.

        The tool is the sandbox's look-alike of Kafka's script (same options, output and
        error texts; ``minikafka <tool>`` on a terminal), or with ``real=True`` Apache
        Kafka's own tool run from its jars (``minikafka kafka-tool <tool>``).  Without
        ``--bootstrap-server`` or ``--bootstrap-controller`` the first running broker is used."""
        from minikafka.commands import tool_commands  # on first use: `import minikafka` stays as quick
        words = shlex.split(command)
        if not words:
            raise ValueError("run_tool needs a command, e.g. 'kafka-topics.sh --list'")
        if real:
            return self._run_real_tool(words)
        name = words[0].removesuffix(".sh").removeprefix("kafka-")
        name = {"consumer-groups": "consumer-groups", "topics": "topics"}.get(name, name)
        if name not in tool_commands.TOOL_NAMES:
            known = ", ".join(f"kafka-{t}.sh" for t in tool_commands.TOOL_NAMES)
            raise ValueError(f"No such tool {words[0]!r}; the sandbox has {known}")
        self._refuse_if_simulated()
        args = words[1:]
        if not {"--bootstrap-server", "--bootstrap-controller"} & {a.split("=")[0] for a in args}:
            running = self._processes.bootstrap_servers().split(",")[0]
            args = ["--bootstrap-server", running] + args
        out = io.StringIO()
        # Seeded by the cluster's seed, the tool and how many times it ran before, so a
        # lesson's --generate proposes the same plan on every run (Kafka's own tool, like
        # the terminal command, draws it from an unseeded Random).
        self.runs[name] = self.runs.get(name, 0) + 1
        seeded = tool_commands.TOOL_RANDOM.set(
            random.Random(f"{self._processes.layout.seed}:{name}:{self.runs[name]}"))
        try:
            tool_commands.run_named(name, args, out)      # the tool prints to ``out`` only
        finally:
            tool_commands.TOOL_RANDOM.reset(seeded)
        return out.getvalue().rstrip("\n")

    def _refuse_if_simulated(self) -> None:
        # A simulated cluster has no sockets: a tool would wait for a broker until its timeout.
        if self._processes.simulated:
            raise RuntimeError("run_tool needs a live cluster: tools talk to the brokers over TCP; start the "
                               "cluster without simulated=True")

    def _run_real_tool(self, words: list[str]) -> str:
        from minikafka.jvm import run_kafka_tool, tool_main_class
        tool_main_class(words[0])  # an unknown tool: ValueError naming the known ones
        args = words[1:]
        takes_bootstrap = words[0].removesuffix(".sh") not in _TOOLS_WITHOUT_BOOTSTRAP
        if takes_bootstrap:
            self._refuse_if_simulated()
        if takes_bootstrap and not {"--bootstrap-server", "--bootstrap-controller"} & {a.split("=")[0] for a in args}:
            args = ["--bootstrap-server", self._processes.bootstrap_servers().split(",")[0]] + args
        result = run_kafka_tool(words[0], args)
        return (result.stdout + result.stderr).rstrip("\n")


# Kafka tools that read files or start servers rather than talking to a cluster.
_TOOLS_WITHOUT_BOOTSTRAP = frozenset({"kafka-dump-log", "kafka-metadata-shell", "kafka-storage",
                                      "kafka-server-start", "kafka-jmx", "kafka-e2e-latency"})
