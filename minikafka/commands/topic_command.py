"""``minikafka topics``: ``kafka-topics.sh`` over the Kafka protocol.

Theory of operation
-------------------
The tool parses its options (jopt-simple), checks them with Kafka's rules
and messages, then runs exactly one action through the admin client:

* ``--create``: parse ``--replica-assignment`` and ``--config`` (validated
  client-side like ``LogConfig.validate``), print the ``.``/``_`` collision
  warning, check the partition and replication-factor ranges, then send
  CreateTopics; ``--if-not-exists`` swallows ``TopicExistsException``;
* ``--list``: all topic names (internal ones too unless ``--exclude-internal``),
  filtered by the ``--topic`` regular expression;
* ``--describe``: the selected topics through DescribeTopicPartitions (with
  ELR), their configs through DescribeConfigs, live brokers through
  DescribeCluster and ongoing reassignments; the text comes from
  `minikafka.tools.topic_command_output`;
* ``--alter``: CreatePartitions (``--partitions``, optionally with new
  replicas from ``--replica-assignment``);
* ``--delete``: DeleteTopics for every selected topic.

Failures while running an action print ``Error while executing topic
command : <message>`` on standard output and exit 1; option errors print on
standard error.

Mirrors ``org.apache.kafka.tools.TopicCommand`` (4.3.1).  Simplified:
``--command-config`` is accepted but only the bootstrap servers are used;
``--topic-id`` describes by id only among listed topics; no stack traces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, error_for, from_client_error
from minikafka.commands.option_parser import OptionException, OptionParser, OptionSet, REQUIRED_ARG, integer
from minikafka.commands.topic_describe import describe_topics
from minikafka.common import topic as topic_rules
from minikafka.common.config.topic_configs import validate_topic_configs
from minikafka.common.errors import Errors, KafkaException
from minikafka.tools import topic_command_output as output
from minikafka.tools.reassignment_json import ReassignCommandError, duplicates
from minikafka.tools.java_hash_codes import int_order
from minikafka.tools.tool_output import system_out

NAME = "topics"
SUMMARY = "kafka-topics.sh: create, list, describe, alter or delete topics"
ACTIONS = ("create", "list", "alter", "describe", "delete")
CONFIGS_HINT = " (To alter topic configurations, the kafka-configs tool can be used.)"


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: the Kafka broker(s) to connect to.", argument=REQUIRED_ARG,
              described_as="server to connect to")
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG,
              described_as="command config property file")
    for action, text in (("list", "List the topics."), ("create", "Create a topic."), ("delete", "Delete topics."),
                         ("alter", "Add partitions to topics." + CONFIGS_HINT),
                         ("describe", "Describe topics.")):
        p.accepts(action, text)
    p.accepts("topic", "The topic, or for all actions but --create a regular expression of topics.",
              argument=REQUIRED_ARG, described_as="topic")
    p.accepts("topic-id", "The id of the topic to describe.", argument=REQUIRED_ARG, described_as="topic-id")
    p.accepts("config", "A topic config override for --create, as name=value.", argument=REQUIRED_ARG,
              described_as="name=value")
    p.accepts("delete-config", "No longer supported since Kafka 4.0.", argument=REQUIRED_ARG, described_as="name")
    p.accepts("partitions", "The number of partitions (--create, --alter).", argument=REQUIRED_ARG,
              convert=integer, described_as="# of partitions")
    p.accepts("replication-factor", "The replication factor of a new topic.", argument=REQUIRED_ARG,
              convert=integer, described_as="replication factor")
    p.accepts("replica-assignment", "Brokers of each partition, e.g. 1:2,2:3.", argument=REQUIRED_ARG,
              described_as="broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , "
                           "broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ...")
    for report, text in (("under-replicated-partitions", "Only partitions with fewer in-sync replicas than replicas."),
                         ("unavailable-partitions", "Only partitions whose leader is not available."),
                         ("under-min-isr-partitions", "Only partitions with fewer in-sync replicas than the minimum."),
                         ("at-min-isr-partitions", "Only partitions with exactly the minimum in-sync replicas."),
                         ("topics-with-overrides", "Only topics with overridden configs.")):
        p.accepts(report, text)
    p.accepts("if-exists", "Act only if the topic exists (--alter, --delete, --describe).")
    p.accepts("if-not-exists", "Do not fail if the topic already exists (--create).")
    p.accepts("exclude-internal", "Leave out internal topics (--list, --describe).")
    p.accepts("partition-size-limit-per-response", "Partitions per DescribeTopicPartitions response.",
              argument=REQUIRED_ARG, convert=integer, described_as="maximum number of partitions per response")
    return p


REPORTS = ("under-replicated-partitions", "under-min-isr-partitions", "at-min-isr-partitions",
           "unavailable-partitions")


def _others(keep: tuple[str, ...], add: tuple[str, ...] = ()) -> list[str]:
    """``invalidOptions``: every action but ``keep``, plus ``add``."""
    return [a for a in ("alter", "create", "describe", "list", "delete") if a not in keep] + list(add)


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> None:
    """``TopicCommandOptions.checkArgs`` (raises `ToolExit` or ValueError like Kafka)."""
    if not args:
        clu.print_usage_and_exit(p, "Create, delete, describe, or change a topic.")
    clu.maybe_print_help_or_version(p, o, args, "This tool helps to create, delete, describe, or change a topic.")
    if sum(o.has(a) for a in ACTIONS) != 1:
        clu.print_usage_and_exit(p, "Command must include exactly one action: --list, --describe, --create, "
                                    "--alter or --delete")
    if o.has("delete-config"):
        clu.eprintln("delete-config option is no longer supported and deprecated since version 4.0. "
                     "The config will be fully removed in future releases.")
    if not o.has("bootstrap-server"):
        raise ValueError("--bootstrap-server must be specified")
    if o.has("describe") and o.has("if-exists"):
        if not o.has("topic") and not o.has("topic-id"):
            clu.print_usage_and_exit(p, "--topic or --topic-id is required to describe a topic")
        if o.has("topic") and o.has("topic-id"):
            clu.println("Only topic id will be used when both --topic and --topic-id are specified and topicId "
                        "is not Uuid.ZERO_UUID")
    if not o.has("list") and not o.has("describe"):
        clu.check_required_args(p, o, "topic")
    if o.has("alter"):
        clu.check_invalid_args_set(p, o, ("bootstrap-server", "config"), ("alter",), CONFIGS_HINT)
        clu.check_required_args(p, o, "partitions")
    for used, keep in (("config", ("alter", "create")), ("partitions", ("alter", "create")),
                       ("replication-factor", ("create",)), ("replica-assignment", ("alter", "create"))):
        clu.check_invalid_args(p, o, used, _others(keep))
    if o.has("create"):
        clu.check_invalid_args(p, o, "replica-assignment", ("partitions", "replication-factor"))
    for report in REPORTS:
        clu.check_invalid_args(p, o, report, _others(("describe",), ("topics-with-overrides",)))
    clu.check_invalid_args(p, o, "topics-with-overrides", _others(("describe",), REPORTS))
    clu.check_invalid_args(p, o, "if-exists", _others(("alter", "delete", "describe")))
    clu.check_invalid_args(p, o, "if-not-exists", _others(("create",)))
    clu.check_invalid_args(p, o, "exclude-internal", _others(("list", "describe")))


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        check_args(p, o, args)
        servers = o.value_of("bootstrap-server")
    except (OptionException, ValueError) as exc:      # mainNoExit: the message (and a stack trace) on stderr
        clu.eprintln(str(exc))
        return 1
    with AdminConnection(servers) as connection:
        try:
            _run_action(connection, o)
        except (KafkaException, OptionException, ValueError) as exc:
            clu.println(f"Error while executing topic command : {exc}")
            return 1
    return 0


def _run_action(connection: AdminConnection, o: OptionSet) -> None:
    if o.has("create"):
        create_topic(connection, o)
    elif o.has("alter"):
        alter_topic(connection, o)
    elif o.has("list"):
        names = list_topic_names(connection, "listTopics")
        system_out().write(output.list_topics(names, topic=o.value_of("topic"),
                                            exclude_internal=o.has("exclude-internal")).text)
    elif o.has("describe"):
        system_out().write(describe_topics(connection, o).text)
    else:
        delete_topic(connection, o)


# ----------------------------------------------------------------------------- parsing helpers
def _parse_int(text: str) -> int:
    """``Integer.parseInt`` with its NumberFormatException message."""
    try:
        return integer(text)
    except ValueError:
        raise ValueError(f'For input string: "{text}"') from None


def parse_replica_assignment(text: str) -> dict[int, list[int]]:
    """``parseReplicaAssignment``: ``1:2,2:3`` -> {0: [1, 2], 1: [2, 3]}."""
    parts = text.split(",")
    while parts and not parts[-1]:                 # Java's split drops trailing empty strings
        parts.pop()
    result: dict[int, list[int]] = {}
    for index, part in enumerate(parts):
        brokers = [_parse_int(b.strip()) for b in part.split(":")]
        repeated = duplicates(brokers, int_order)
        if repeated:
            raise ReassignCommandError("Partition replica lists may not contain duplicate entries: "
                                       + ",".join(str(b) for b in repeated))
        result[index] = brokers
        if len(brokers) != len(result[0]):
            raise ReassignCommandError(f"Partition {index} has different replication factor: "
                                       f"[{', '.join(str(b) for b in brokers)}]")
    return result


def parse_topic_configs(values: list[str]) -> dict[str, str]:
    """``parseTopicConfigsToBeAdded``: ``name=value`` pairs, checked like ``LogConfig.validate``."""
    import re
    pairs = []
    for value in values:
        parts = re.split(r"\s*=\s*", value)
        while len(parts) > 1 and not parts[-1]:    # Java's split drops trailing empty strings
            parts.pop()
        pairs.append(parts)
    if not all(len(pair) == 2 for pair in pairs):
        raise ValueError('requirement failed: Invalid topic config: all configs to be added must be in the '
                         'format "key=val".')
    props = {name.strip(): value.strip() for name, value in pairs}
    validate_topic_configs(props)
    return props


# ----------------------------------------------------------------------------- actions
def list_topic_names(connection: AdminConnection, call_name: str) -> list[str]:
    """``listTopics`` with ``listInternal(true)``: every topic name."""
    try:
        return connection.admin(call_name).list_topics()
    except KafkaException:
        raise
    except Exception as exc:
        raise from_client_error(exc) from None


def _selected(connection: AdminConnection, o: OptionSet) -> list[str]:
    """``getTopics`` + ``ensureTopicExists``."""
    names = list_topic_names(connection, "listTopics")
    try:
        return output.select_topics(names, o.value_of("topic"), o.has("exclude-internal"), o.has("if-exists"))
    except output.TopicCommandError as exc:
        raise KafkaException(str(exc)) from None


@dataclass(frozen=True, slots=True)
class NewTopicRequest:
    """``CommandTopicPartition``: what ``--create`` asks for."""

    name: str
    partitions: int | None
    replication_factor: int | None
    assignment: dict[int, list[int]]
    configs: dict[str, str]


def create_topic(connection: AdminConnection, o: OptionSet) -> None:
    raw_assignment = o.value_of("replica-assignment")
    topic = NewTopicRequest(o.value_of("topic"), o.value_of("partitions"), o.value_of("replication-factor"),
                            parse_replica_assignment(raw_assignment) if raw_assignment else {},
                            parse_topic_configs(o.values_of("config")))
    if topic_rules.has_collision_chars(topic.name):
        clu.println(output.COLLISION_WARNING)
    if topic.replication_factor is not None and not 1 <= topic.replication_factor <= 32767:
        raise ValueError("The replication factor must be between 1 and 32767 inclusive")
    if topic.partitions is not None and topic.partitions < 1:
        raise ValueError("The partitions must be greater than 0")
    spec: dict[str, Any] = {"configs": topic.configs}
    if topic.assignment:
        spec["assignments"] = topic.assignment
    else:
        spec["num_partitions"] = -1 if topic.partitions is None else topic.partitions
        spec["replication_factor"] = -1 if topic.replication_factor is None else topic.replication_factor
    admin = connection.admin("createTopics")
    try:
        response = admin.create_topics({topic.name: spec}, raise_errors=False)
    except Exception as exc:
        raise from_client_error(exc) from None
    for result in response["topics"]:
        if result["error_code"] == Errors.TOPIC_ALREADY_EXISTS.code and o.has("if-not-exists"):
            return
        if result["error_code"]:
            raise error_for(result["error_code"], result.get("error_message"))
    clu.println(f"Created topic {topic.name}.")


def alter_topic(connection: AdminConnection, o: OptionSet) -> None:
    raw_assignment = o.value_of("replica-assignment")
    assignment = parse_replica_assignment(raw_assignment) if raw_assignment else {}
    parse_topic_configs(o.values_of("config"))
    names = _selected(connection, o)
    if not names:
        return
    admin = connection.admin("createPartitions")
    total = o.value_of("partitions")
    wanted = {}
    for described in admin.describe_topics(names):
        if assignment:
            start = len(described["partitions"])
            new = [replicas for index, replicas in assignment.items() if index >= start]
            wanted[described["name"]] = {"count": total, "assignments": new}
        else:
            wanted[described["name"]] = total
    try:
        response = admin.create_partitions(wanted, raise_errors=False)
    except Exception as exc:
        raise from_client_error(exc) from None
    for result in response.results:
        if result.error_code:
            raise error_for(result.error_code, result.error_message)


def delete_topic(connection: AdminConnection, o: OptionSet) -> None:
    names = _selected(connection, o)
    admin = connection.admin("deleteTopics")
    if not names:
        return
    try:
        response = admin.delete_topics(names, raise_errors=False)
    except Exception as exc:
        raise from_client_error(exc) from None
    for result in response["topics"]:
        if result["error_code"]:
            raise error_for(result["error_code"], result.get("error_message"))


__all__ = ["NAME", "SUMMARY", "build_parser", "check_args", "main", "parse_replica_assignment",
           "parse_topic_configs", "list_topic_names", "create_topic", "alter_topic", "delete_topic"]
