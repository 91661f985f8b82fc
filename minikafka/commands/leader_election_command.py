"""``minikafka leader-election``: ``kafka-leader-election.sh`` over the Kafka protocol.

Theory of operation
-------------------
The tool sends one ElectLeaders request: ``PREFERRED`` moves leadership
back to each partition's first replica when it is in the ISR; ``UNCLEAN``
elects a live replica outside the ISR for partitions that have no leader.
The partitions are ``--topic`` + ``--partition``, the ``partitions`` of a
``--path-to-json-file``, or, with ``--all-topic-partitions``, null: then the
controller chooses, and reports only the partitions where an election was
needed (so a balanced cluster prints nothing).

The broker answers per partition.  Successes, partitions that needed no
election (``ElectionNotNeededException``) and failures are collected into
Java ``HashSet``/``HashMap``\\ s and printed in their iteration order::

    Successfully completed leader election (PREFERRED) for partitions orders-0, orders-2
    Valid replica already elected for partitions orders-1
    Error completing leader election (PREFERRED) for partition: nope-0: org.apache...Exception: ...

and any failure ends the tool with ``N replica(s) could not be elected`` on
standard error and exit code 1.  Option mistakes are reported the same way
(message on standard error, exit 1), e.g. ``Missing required option(s):
bootstrap-server, election-type``.

The admin client's properties file is ``--command-config``; its old name
``--admin.config`` still works, after printing ``Option --admin.config has
been deprecated and will be removed in a future version. Use
--command-config instead.`` on standard output (once the options and the
JSON file have been checked), and the two together are refused
(``Option "[admin.config]" can't be used with option "[command-config]"``
and the option table).  A missing properties file ends the tool with its
path on standard error (exit 1).

Mirrors ``org.apache.kafka.tools.LeaderElectionCommand`` (4.3.1).
Simplified: the properties file is read (for its errors) but its settings
are not passed to kafka-python's client; no stack traces.
"""

from __future__ import annotations

import json
from pathlib import Path

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, error_for, from_client_error, java_string
from minikafka.commands.option_parser import NO_ARG, OptionException, OptionParser, REQUIRED_ARG, integer
from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools.java_hash_codes import topic_partition_order

NAME = "leader-election"
SUMMARY = "kafka-leader-election.sh: elect preferred or unclean partition leaders"
ELECTION_TYPES = ("PREFERRED", "UNCLEAN")        # ElectionType, in enum order (wire values 0 and 1)
MAPPING_EXCEPTION = "com.fasterxml.jackson.databind.JsonMappingException"
ADMIN_CONFIG_DEPRECATED = ("Option --admin.config has been deprecated and will be removed in a future version. Use "
                           "--command-config instead.")


def election_type(text: str) -> str:
    """jopt-simple's ``EnumConverter``: the enum constant, ignoring case."""
    for name in ELECTION_TYPES:
        if name.lower() == text.lower():
            return name
    raise ValueError(text)


election_type.type_name = "ElectionType"  # type: ignore[attr-defined]  # shown as <ElectionType: ...>


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: host:port of the broker(s) to connect to.", argument=REQUIRED_ARG,
              described_as="host:port")
    p.accepts("admin.config", "(DEPRECATED) Admin client properties file; use --command-config instead.",
              argument=REQUIRED_ARG, described_as="config file")
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG, described_as="Config file")
    p.accepts("path-to-json-file", 'JSON file of partitions: {"partitions": [{"topic": "foo", "partition": 1}]}.',
              argument=REQUIRED_ARG, described_as="Path to JSON file")
    p.accepts("topic", "Topic of the partition to elect a leader for.", argument=REQUIRED_ARG,
              described_as="topic name")
    p.accepts("partition", "Partition to elect a leader for (with --topic).", argument=REQUIRED_ARG,
              convert=integer, described_as="partition id")
    p.accepts("all-topic-partitions", "Elect leaders for every eligible partition.", argument=NO_ARG)
    p.accepts("election-type", 'REQUIRED: "preferred" or "unclean".', argument=REQUIRED_ARG, convert=election_type,
              described_as="election type")
    return p


def validate(o) -> None:
    """``LeaderElectionCommandOptions.validate`` (AdminCommandFailedException messages)."""
    missing = [name for name in ("bootstrap-server", "election-type") if not o.has(name)]
    if missing:
        raise KafkaException("Missing required option(s): " + ", ".join(missing))
    clu.check_invalid_args(o.parser, o, "admin.config", ["command-config"])
    scopes = ("topic", "all-topic-partitions", "path-to-json-file")
    if sum(o.has(s) for s in scopes) != 1:
        raise KafkaException("One and only one of the following options is required: " + ", ".join(scopes))
    if o.has("topic") and not o.has("partition"):
        raise KafkaException("Missing required option(s): partition")
    if not o.has("topic") and o.has("partition"):
        raise KafkaException("Option partition is only allowed if topic is used")


def _mapping_error(message: str) -> KafkaException:
    return KafkaException(f"{MAPPING_EXCEPTION}: {message}")


def _node(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_replica_election_data(path: str) -> list[TopicPartition]:
    """``parseReplicaElectionData``: the partitions of a JSON file (duplicates refused)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        raise KafkaException(f"java.io.IOException: Unable to read file {path}") from None
    try:
        document = json.loads(text)
    except ValueError:
        raise KafkaException("Replica election data is empty") from None
    if not isinstance(document, dict):
        raise _mapping_error(f"Expected JSON object, received {_node(document)}")
    if "partitions" not in document:
        raise KafkaException('Replica election data is missing "partitions" field')
    if not isinstance(document["partitions"], list):
        raise _mapping_error(f"Expected JSON array, received {_node(document['partitions'])}")
    partitions = []
    for entry in document["partitions"]:
        if not isinstance(entry, dict):
            raise _mapping_error(f"Expected JSON object, received {_node(entry)}")
        for field in ("topic", "partition"):
            if field not in entry:
                raise _mapping_error(f"No such field exists: `{field}`")
        if not isinstance(entry["topic"], str):
            raise _mapping_error(f"Expected `String` value, received {_node(entry['topic'])}")
        if isinstance(entry["partition"], bool) or not isinstance(entry["partition"], int):
            raise _mapping_error(f"Expected `Integer` value, received {_node(entry['partition'])}")
        partitions.append(TopicPartition(entry["topic"], entry["partition"]))
    repeated = topic_partition_order(sorted({tp for tp in partitions if partitions.count(tp) > 1}))
    if repeated:
        raise KafkaException("Replica election data contains duplicate partitions: ["
                             + ", ".join(str(tp) for tp in repeated) + "]")
    return partitions


def admin_config(o) -> dict[str, str]:
    """The admin client's properties: ``--command-config``, or ``--admin.config`` after a deprecation line."""
    if o.has("admin.config"):
        clu.println(ADMIN_CONFIG_DEPRECATED)
    path = o.value_of("admin.config" if o.has("admin.config") else "command-config")
    return clu.load_props(path) if path is not None else {}


def elect_leaders(connection: AdminConnection, kind: str, partitions: list[TopicPartition] | None) -> dict:
    """Send ElectLeaders; {partition: None or the Java exception}."""
    from kafka.protocol.admin import ElectLeadersRequest, ElectionType
    by_topic: dict[str, list[int]] = {}
    for tp in partitions or ():
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    request = ElectLeadersRequest(election_type=ElectionType(ELECTION_TYPES.index(kind)),
                                  topic_partitions=None if partitions is None else list(by_topic.items()),
                                  timeout_ms=30_000)
    response = connection.send(request, "electLeaders")
    if getattr(response, "error_code", 0):
        raise error_for(response.error_code)
    results = {}
    for topic in response.replica_election_results:
        for p in topic.partition_result:
            error = error_for(p.error_code, p.error_message) if p.error_code else None
            results[TopicPartition(topic.topic, p.partition_id)] = error
    return results


def report(kind: str, results: dict) -> int:
    """Print the three groups as the tool does; the exit code."""
    succeeded = [tp for tp, e in results.items() if e is None]
    noop = [tp for tp, e in results.items() if e is not None and e.error is Errors.ELECTION_NOT_NEEDED]
    failed = {tp: e for tp, e in results.items() if e is not None and e.error is not Errors.ELECTION_NOT_NEEDED}

    def names(parts) -> str:
        return ", ".join(str(tp) for tp in topic_partition_order(sorted(parts)))
    if succeeded:
        clu.println(f"Successfully completed leader election ({kind}) for partitions {names(succeeded)}")
    if noop:
        clu.println(f"Valid replica already elected for partitions {names(noop)}")
    if failed:
        for tp in topic_partition_order(sorted(failed)):
            clu.println(f"Error completing leader election ({kind}) for partition: {tp}: {java_string(failed[tp])}")
        clu.eprintln(f"{len(failed)} replica(s) could not be elected")
        return 1
    return 0


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        clu.maybe_print_help_or_version(p, o, args, "This tool attempts to elect a new leader for a set of topic "
                                        "partitions. The type of elections supported are preferred replicas and "
                                        "unclean replicas.")
        validate(o)
        kind = o.value_of("election-type")
        partitions = None
        if o.has("path-to-json-file"):
            partitions = parse_replica_election_data(o.value_of("path-to-json-file"))
        elif o.has("topic"):
            partitions = [TopicPartition(o.value_of("topic"), o.value_of("partition"))]
        servers = o.value_of("bootstrap-server")
        admin_config(o)                          # read for its errors; kafka-python's client gets no settings
    except (OptionException, KafkaException) as exc:
        clu.eprintln(str(exc))
        return 1
    with AdminConnection(servers) as connection:
        try:
            results = elect_leaders(connection, kind, partitions)
        except Exception as exc:
            error = from_client_error(exc)
            if error.error is Errors.REQUEST_TIMED_OUT:
                clu.println("Timeout waiting for election results")
                clu.eprintln("Timeout waiting for election results")
            else:
                clu.eprintln(f"java.util.concurrent.ExecutionException: {java_string(error)}")
            return 1
    return report(kind, results)


__all__ = ["NAME", "SUMMARY", "build_parser", "validate", "parse_replica_election_data", "admin_config",
           "elect_leaders", "report", "main"]
