"""``minikafka metadata-quorum``: ``kafka-metadata-quorum.sh describe`` over the Kafka protocol.

Theory of operation
-------------------
Unlike most Kafka tools this one parses its arguments with argparse4j, so
its mistakes look like Python's argparse: a usage line, then
``kafka-metadata-quorum: error: <message>`` on standard error, and exit
code 1 (``--help`` exits 0).  Exactly one of ``--bootstrap-server`` and
``--bootstrap-controller`` is required, then a sub-command.

``describe`` asks any broker for DescribeQuorum on ``__cluster_metadata-0``
(the broker forwards it to the active controller) and, for ``--status``,
DescribeCluster for the cluster id; `minikafka.tools.metadata_quorum_command_output`
prints the answer.  ``--human-readable`` turns the fetch and caught-up
timestamps into ``<n> ms ago`` against this machine's clock, and refuses
timestamps in the future, as Kafka does.  Errors of the command itself
(``TerseException``) are one line on standard error; failed calls print the
Java exception's text.

Mirrors ``org.apache.kafka.tools.MetadataQuorumCommand`` (4.1.1).  Kafka
4.3.1 differs in the usage line: it lists ``[--command-config
COMMAND_CONFIG]`` before the bootstrap choice (and wraps it at a narrower
width).  Simplified: ``--bootstrap-controller`` (talking to controllers directly) and
the ``add-controller``/``remove-controller`` sub-commands are recognised but
not available, because kafka-python cannot connect to a controller
listener; ``--command-config`` is accepted and not read.
"""

from __future__ import annotations

import argparse
import sys
import time

from minikafka.cli import command_line_utils as clu
from minikafka.cli.admin_client import AdminConnection, from_client_error, java_string, kafka_uuid
from minikafka.common.errors import KafkaException
from minikafka.tools import metadata_quorum_command_output as output

NAME = "metadata-quorum"
SUMMARY = "kafka-metadata-quorum.sh: describe the KRaft metadata quorum"
PROG = "kafka-metadata-quorum"
UNAVAILABLE = ("minikafka: {what} is not available in minikafka's tools: they speak to brokers through "
               "kafka-python, which cannot connect to a controller listener.")


class ArgumentParser(argparse.ArgumentParser):
    """argparse4j's behaviour: errors print usage and ``prog: error: message``, then exit 1."""

    def error(self, message: str):
        if message.startswith("the following arguments are required: command"):
            message = "too few arguments"        # argparse4j's words for a missing sub-command
        self.print_usage(sys.stderr)
        clu.eprintln(f"{self.prog}: error: {message}")
        raise clu.ToolExit(1)

    def exit(self, status: int = 0, message: str | None = None):
        if message:
            sys.stderr.write(message)
        raise clu.ToolExit(status)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=PROG, description="This tool describes kraft metadata quorum status.")
    connection = parser.add_mutually_exclusive_group(required=True)
    connection.add_argument("--bootstrap-server",
                            help="A comma-separated list of host:port pairs of brokers to connect to.")
    connection.add_argument("--bootstrap-controller",
                            help="A comma-separated list of host:port pairs of controllers to connect to.")
    parser.add_argument("--command-config", help="Admin client properties file.")
    sub = parser.add_subparsers(dest="command", parser_class=ArgumentParser)
    sub.required = True
    describe = sub.add_parser("describe", help="Describe the metadata quorum info")
    status = describe.add_argument_group("Status")
    status.add_argument("--status", action="store_true", help="A short summary of the quorum status.")
    replication = describe.add_argument_group("Replication")
    replication.add_argument("--replication", action="store_true", help="Replication state of every replica.")
    replication.add_argument("--human-readable", action="store_true", help="Human-readable timestamps.")
    add = sub.add_parser("add-controller", help="Add a controller to the KRaft controller cluster")
    add.add_argument("--dry-run", action="store_true", help="Print what would be done, without doing it.")
    remove = sub.add_parser("remove-controller", help="Remove a controller from the KRaft controller cluster")
    remove.add_argument("--controller-id", "-i", type=int, required=True, help="The controller's id.")
    remove.add_argument("--controller-directory-id", "-d", required=True, help="The controller's directory id.")
    remove.add_argument("--dry-run", action="store_true", help="Print what would be done, without doing it.")
    return parser


def quorum_info(described: dict) -> output.QuorumInfo:
    """kafka-python's ``describe_metadata_quorum()`` answer as ``QuorumInfo``."""
    partition = described["topics"][0]["partitions"][0]
    if partition.get("error"):
        raise KafkaException(partition["error"])

    def state(r: dict) -> output.QuorumReplicaState:
        def known(value):
            return None if value is None or value < 0 else value
        return output.QuorumReplicaState(r["replica_id"], kafka_uuid(r.get("replica_directory_id")),
                                         r["log_end_offset"], known(r.get("last_fetch_timestamp")),
                                         known(r.get("last_caught_up_timestamp")))
    endpoints = {}
    for node in described.get("nodes") or ():
        endpoints[node["node_id"]] = tuple(
            f"{l['name']}://{'[' + l['host'] + ']' if ':' in l['host'] else l['host']}:{l['port']}"
            for l in node["listeners"])
    return output.QuorumInfo(partition["leader_id"], partition["leader_epoch"], partition["high_watermark"],
                             tuple(state(v) for v in partition["current_voters"]),
                             tuple(state(o) for o in partition["observers"]), endpoints)


def _describe(connection: AdminConnection, ns: argparse.Namespace) -> int:
    if ns.status and ns.replication:
        return _terse("Only one of --status or --replication should be specified with describe sub-command")
    if not ns.status and not ns.replication:
        return _terse("One of --status or --replication must be specified with describe sub-command")
    if ns.status and ns.human_readable:
        return _terse("The option --human-readable is only supported along with --replication")
    call = "describeCluster" if ns.status else "describeMetadataQuorum"
    try:
        admin = connection.admin(call)
        cluster_id = admin.describe_cluster()["cluster_id"] if ns.status else ""
        quorum = quorum_info(admin.describe_metadata_quorum())
    except KafkaException as exc:
        clu.eprintln(java_string(exc))
        return 1
    except Exception as exc:
        clu.eprintln(java_string(from_client_error(exc)))
        return 1
    result = output.describe(cluster_id, quorum, status=ns.status, replication=ns.replication,
                             human_readable=ns.human_readable, now_ms=int(time.time() * 1000))
    clu.emit(result)
    return result.exit_code


def _terse(message: str) -> int:
    clu.eprintln(message)
    return 1


def main(args: list[str]) -> int:
    ns = build_parser().parse_args(args)
    if ns.bootstrap_controller is not None:
        return _terse(UNAVAILABLE.format(what="--bootstrap-controller"))
    if ns.command != "describe":
        return _terse(UNAVAILABLE.format(what=ns.command))
    with AdminConnection(ns.bootstrap_server) as connection:
        return _describe(connection, ns)


__all__ = ["NAME", "SUMMARY", "build_parser", "quorum_info", "main"]
