"""``minikafka reassign-partitions``: ``kafka-reassign-partitions.sh`` over the Kafka protocol.

Theory of operation
-------------------
The tool runs one of five actions; `minikafka.tools.reassign_partitions_command_output`
decides what to print, this module gathers the cluster facts it needs and
performs the actions it calls back for:

* the current assignment of every partition (Metadata), the brokers
  (DescribeCluster, fenced brokers left out), the ongoing reassignments
  (ListPartitionReassignments), and for the current assignment it prints, the
  log directory of each replica on a live broker (DescribeLogDirs to that
  broker, as Kafka 4.3 does; 4.1 printed "any");
* ``--execute`` starts reassignments with AlterPartitionReassignments
  (``--disallow-replication-factor-change`` sets KIP-860's flag) and, with
  ``--throttle``, first sets the replication throttles with
  IncrementalAlterConfigs (``leader/follower.replication.throttled.replicas``
  on the topics, ``...throttled.rate`` on the brokers);
* ``--cancel`` sends AlterPartitionReassignments with null replica lists;
* ``--verify`` and ``--cancel`` clear the throttles (DELETE) unless
  ``--preserve-throttles``.

Option checks come first, with Kafka's texts: exactly one action, exactly
one of ``--bootstrap-server``/``--bootstrap-controller``, the action's
required file options, and no option the action does not permit
(``Option "[throttle]" can't be used with action "[verify]"``).  Failures of
the action print ``Error: <message>`` (or a bare message for Kafka's terse
errors) on standard output, exit code 1.

Mirrors ``org.apache.kafka.tools.reassign.ReassignPartitionsCommand`` (4.3.1).
Simplified: ``--bootstrap-controller`` is refused (kafka-python cannot talk
to controllers); moves between log directories are not executed;
``--command-config`` is accepted and not read; no stack traces.
"""

from __future__ import annotations

from pathlib import Path

from minikafka.commands import command_line_utils as clu
from minikafka.commands import tool_commands
from minikafka.commands.admin_client import AdminConnection, ExecutionException, error_for, execution
from minikafka.commands.option_parser import OPTIONAL_ARG, OptionException, OptionParser, REQUIRED_ARG, long
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools import reassign_partitions_command_output as output
from minikafka.tools.tool_output import ToolOutput

NAME = "reassign-partitions"
SUMMARY = "kafka-reassign-partitions.sh: move partition replicas between brokers"
ACTIONS = ("generate", "execute", "verify", "cancel", "list")
BROKER_LEVEL_THROTTLES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate",
                          "replica.alter.log.dirs.io.max.bytes.per.second")
TOPIC_LEVEL_THROTTLES = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
REQUIRED = {"verify": ("reassignment-json-file",), "generate": ("topics-to-move-json-file", "broker-list"),
            "execute": ("reassignment-json-file",), "cancel": ("reassignment-json-file",), "list": ()}
PERMITTED = {"verify": ("bootstrap-server", "command-config", "preserve-throttles"),
             "generate": ("bootstrap-server", "broker-list", "command-config", "disable-rack-aware"),
             "execute": ("additional", "bootstrap-server", "command-config", "throttle",
                         "replica-alter-log-dirs-throttle", "timeout", "disallow-replication-factor-change"),
             "cancel": ("bootstrap-server", "command-config", "preserve-throttles", "timeout"),
             "list": ("bootstrap-server", "command-config")}
HELP_TEXT = ("This tool helps to move topic partitions between replicas.")


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("verify", "Check the status of the reassignment in --reassignment-json-file.")
    p.accepts("generate", "Propose a reassignment of --topics-to-move-json-file onto --broker-list.")
    p.accepts("execute", "Start the reassignment in --reassignment-json-file.")
    p.accepts("cancel", "Cancel an active reassignment.")
    p.accepts("list", "List all active partition reassignments.")
    p.accepts("bootstrap-server", "The broker(s) to connect to.", argument=OPTIONAL_ARG,
              described_as="Server(s) to use for bootstrapping")
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG,
              described_as="Admin client property file")
    p.accepts("reassignment-json-file", "The partition reassignment JSON file.", argument=REQUIRED_ARG,
              described_as="manual assignment json file path")
    p.accepts("topics-to-move-json-file", "JSON file of the topics to move.", argument=REQUIRED_ARG,
              described_as="topics to reassign json file path")
    p.accepts("broker-list", 'Brokers to move the partitions to, e.g. "0,1,2".', argument=REQUIRED_ARG,
              described_as="brokerlist")
    p.accepts("bootstrap-controller", "The controller(s) to connect to.", argument=OPTIONAL_ARG,
              described_as="bootstrap controller to connect to")
    p.accepts("disable-rack-aware", "Ignore racks when proposing an assignment.")
    p.accepts("throttle", "Throttle replication of moving partitions to this rate (bytes/sec).",
              argument=REQUIRED_ARG, convert=long, described_as="throttle", default=-1)
    p.accepts("replica-alter-log-dirs-throttle", "Throttle moves between log directories (bytes/sec).",
              argument=REQUIRED_ARG, convert=long, described_as="replicaAlterLogDirsThrottle", default=-1)
    p.accepts("timeout", "How long to wait for a log directory move to begin (ms).", argument=REQUIRED_ARG,
              convert=long, described_as="timeout", default=10000)
    p.accepts("additional", "Start this reassignment in addition to the ongoing ones.")
    p.accepts("preserve-throttles", "Leave the broker and topic throttles as they are.")
    p.accepts("disallow-replication-factor-change", "Refuse reassignments that change a replication factor.")
    return p


def validate_and_parse_args(args: list[str]):
    """``validateAndParseArgs``: the options and the one action, or a usage error (exit 1)."""
    p = build_parser()
    o = p.parse(args)
    clu.maybe_print_help_or_version(p, o, args, HELP_TEXT)
    chosen = [a for a in ACTIONS if o.has(a)]
    if len(chosen) != 1:
        clu.print_usage_and_exit(p, "Command must include exactly one action: "
                                    + ", ".join(f"--{a}" for a in ACTIONS))
    action = chosen[0]
    if o.has("bootstrap-server") and o.has("bootstrap-controller"):
        clu.print_usage_and_exit(p, "Please don't specify both --bootstrap-server and --bootstrap-controller")
    if not o.has("bootstrap-server") and not o.has("bootstrap-controller"):
        clu.print_usage_and_exit(p, "Please specify either --bootstrap-server or --bootstrap-controller")
    clu.check_required_args(p, o, *REQUIRED[action])
    permitted = list(PERMITTED[action])
    if o.has("bootstrap-controller") and action in ("cancel", "list"):
        permitted[0] = "bootstrap-controller"
    for spec in o.specs():
        if spec.name != action and spec.name not in REQUIRED[action] and spec.name not in permitted:
            clu.print_usage_and_exit(p, f'Option "{spec}" can\'t be used with action "[{action}]"')
    return o, action


# ----------------------------------------------------------------------------- cluster facts
class ClusterFacts:
    """What the tool asks the cluster before it acts (each fetched once, when first needed)."""

    def __init__(self, connection: AdminConnection):
        self.connection = connection

    def current(self) -> dict[TopicPartition, list[int]]:
        topics = execution(lambda: self.connection.admin("describeTopics").describe_topics())
        return {TopicPartition(t["name"], p["partition_index"]): list(p["replica_nodes"])
                for t in topics if not t["error_code"] for p in t["partitions"]}

    def brokers(self) -> list[output.BrokerMetadata]:
        cluster = execution(lambda: self.connection.admin("describeCluster").describe_cluster())
        return [output.BrokerMetadata(b["broker_id"], b.get("rack")) for b in cluster["brokers"]
                if not b.get("is_fenced")]

    def replica_log_dirs(self, assignment) -> dict[tuple[str, int, int], str]:
        """``getReplicaToLogDir``: the directory of each replica whose broker is in the metadata (alive),
        asked of that broker with DescribeLogDirs, as the admin client's ``describeReplicaLogDirs``."""
        from kafka.protocol.admin import DescribeLogDirsRequest as Request
        wanted: dict[int, dict[str, list[int]]] = {}
        for tp, replicas in assignment.items():
            for broker in replicas:
                if self.connection.broker_endpoint(broker) is not None:
                    wanted.setdefault(broker, {}).setdefault(tp.topic, []).append(tp.partition)
        dirs: dict[tuple[str, int, int], str] = {}
        for broker, topics in wanted.items():
            request = Request(topics=[Request.DescribableLogDirTopic(topic=t, partitions=ps) for t, ps in topics.items()])
            response = execution(lambda: self.connection.send(request, "describeReplicaLogDirs", node_id=broker))
            for result in response.results:
                for topic in result.topics if not result.error_code else ():
                    for p in topic.partitions:
                        if not p.is_future_key and p.partition_index in topics.get(topic.name, ()):
                            dirs[(topic.name, p.partition_index, broker)] = result.log_dir
        return dirs

    def ongoing(self) -> dict[TopicPartition, output.PartitionReassignment]:
        found = execution(lambda: self.connection.admin("listPartitionReassignments")
                          .list_partition_reassignments())
        return {TopicPartition(tp.topic, tp.partition): output.PartitionReassignment(
            tuple(r["replicas"]), tuple(r["adding_replicas"]), tuple(r["removing_replicas"]))
            for tp, r in found.items()}


# ----------------------------------------------------------------------------- actions the formatter calls
def _alter_reassignments(connection: AdminConnection, targets: dict, allow_rf_change: bool = True) -> dict:
    """AlterPartitionReassignments; {partition: error message} of the failed ones."""
    from kafka.protocol.admin import AlterPartitionReassignmentsRequest as Request
    by_topic: dict[str, list] = {}
    for tp, replicas in targets.items():
        by_topic.setdefault(tp.topic, []).append(Request.ReassignableTopic.ReassignablePartition(
            partition_index=tp.partition, replicas=None if replicas is None else list(replicas)))
    request = Request(timeout_ms=30_000, allow_replication_factor_change=allow_rf_change,
                      topics=[Request.ReassignableTopic(name=t, partitions=ps) for t, ps in by_topic.items()])
    response = execution(lambda: connection.send(request, "alterPartitionReassignments"))
    if response.error_code:
        error = error_for(response.error_code, response.error_message)
        return {tp: error.message for tp in targets}
    return {TopicPartition(t.name, p.partition_index): error_for(p.error_code, p.error_message).message
            for t in response.responses for p in t.partitions if p.error_code}


def _alter_configs(connection: AdminConnection, changes: dict) -> None:
    """IncrementalAlterConfigs of {(resource type, name): {config: value, or None to delete}}.

    Broker resources go to that broker, the others to any broker, as the Java admin client sends them;
    the first failed resource fails the call (``all().get()``).
    """
    from kafka.admin import AlterConfigOp, ConfigResourceType
    from kafka.protocol.admin import IncrementalAlterConfigsRequest as Request
    targets: dict[int | None, list] = {}
    for (kind, name), configs in changes.items():
        entries = [(k, AlterConfigOp.DELETE.value if v is None else AlterConfigOp.SET.value, v)
                   for k, v in configs.items()]
        node = int(name) if kind == "BROKER" else None
        targets.setdefault(node, []).append((ConfigResourceType[kind].value, name, entries))
    for node, resources in targets.items():
        request = Request(resources=resources, validate_only=False)
        response = execution(lambda: connection.send(request, "incrementalAlterConfigs", node_id=node))
        for result in response.responses:
            if result.error_code:
                raise ExecutionException(error_for(result.error_code, result.error_message))


def _set_throttles(connection: AdminConnection, topics: dict, brokers: dict) -> None:
    changes = {("TOPIC", t): c for t, c in topics.items()}
    changes.update({("BROKER", str(b)): c for b, c in brokers.items()})
    _alter_configs(connection, changes)


def _clear_throttles(connection: AdminConnection, brokers: list[int], topics: list[str]) -> None:
    changes = {("BROKER", str(b)): dict.fromkeys(BROKER_LEVEL_THROTTLES) for b in brokers}
    changes.update({("TOPIC", t): dict.fromkeys(TOPIC_LEVEL_THROTTLES) for t in topics})
    _alter_configs(connection, changes)


# ----------------------------------------------------------------------------- running an action
def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        raise KafkaException(path) from None            # NoSuchFileException's message is the path


def handle_action(connection: AdminConnection, o, action: str) -> ToolOutput:
    facts = ClusterFacts(connection)
    if action == "list":
        return output.list_reassignments(facts.ongoing())
    if action == "generate":
        return output.generate(_read(o.value_of("topics-to-move-json-file")), o.value_of("broker-list"),
                               current=facts.current(), brokers=facts.brokers(), rng=tool_commands.tool_random(),
                               disable_rack_aware=o.has("disable-rack-aware"), replica_log_dirs=facts.replica_log_dirs)
    text = _read(o.value_of("reassignment-json-file"))
    preserve = o.has("preserve-throttles")
    broker_ids = [b.id for b in facts.brokers()]
    clear = (lambda brokers, topics: _clear_throttles(connection, brokers, topics))
    if action == "verify":
        return output.verify(text, current=facts.current(), ongoing=facts.ongoing(), broker_ids=broker_ids,
                             preserve_throttles=preserve, clear_throttles=clear)
    if action == "cancel":
        return output.cancel(text, ongoing=facts.ongoing(), broker_ids=broker_ids, preserve_throttles=preserve,
                             cancel=lambda parts: _alter_reassignments(connection, dict.fromkeys(parts)),
                             clear_throttles=clear)
    allow = not o.has("disallow-replication-factor-change")
    return output.execute(text, current=facts.current(), broker_ids=broker_ids, ongoing=facts.ongoing(),
                          additional=o.has("additional"), throttle=o.value_of("throttle"),
                          replica_alter_log_dirs_throttle=o.value_of("replica-alter-log-dirs-throttle"),
                          alter=lambda proposed: _alter_reassignments(connection, proposed, allow),
                          set_throttles=lambda topics, brokers: _set_throttles(connection, topics, brokers),
                          replica_log_dirs=facts.replica_log_dirs)


def main(args: list[str]) -> int:
    try:
        o, action = validate_and_parse_args(args)
    except OptionException as exc:            # thrown out of main: the JVM prints it, exit code 1
        clu.eprintln(f'Exception in thread "main" {exc.java_class}: {exc}')
        return 1
    if o.has("bootstrap-controller"):
        clu.println("Error: minikafka's tools cannot connect to a controller listener (kafka-python has no "
                    "bootstrap.controllers); use --bootstrap-server")
        return 1
    with AdminConnection("", client_id="reassign-partitions-tool") as connection:
        try:
            connection.bootstrap_servers = o.value_of("bootstrap-server") or ""
            result = handle_action(connection, o, action)
        except (KafkaException, OptionException) as exc:
            clu.println(f"Error: {exc}")
            return 1
    clu.emit(result)
    return result.exit_code


__all__ = ["NAME", "SUMMARY", "build_parser", "validate_and_parse_args", "ClusterFacts", "handle_action", "main"]
