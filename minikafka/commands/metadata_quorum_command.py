"""``minikafka metadata-quorum``: ``kafka-metadata-quorum.sh describe`` over the Kafka protocol.

Theory of operation
-------------------
Unlike most Kafka tools this one parses its arguments with argparse4j, so
its mistakes look like Python's argparse: a usage line, then
``kafka-metadata-quorum: error: <message>`` on standard error, and exit
code 1 (``--help`` exits 0).  Exactly one of ``--bootstrap-server`` and
``--bootstrap-controller`` is required, then a sub-command; the usage line
lists ``[-h] [--command-config COMMAND_CONFIG]`` before that choice and is
wrapped at argparse4j's text width (``$COLUMNS``, else the terminal's
width, else 75 columns, as in a notebook): a part that would pass the width
starts a new line indented under the first, and the sub-commands start a
line of their own.  A ``--command-config`` file that does not exist ends
the tool first: ``Properties file <path> does not exists!`` (exit 1).

``describe`` asks any broker for DescribeQuorum on ``__cluster_metadata-0``
(the broker forwards it to the active controller) and, for ``--status``,
DescribeCluster for the cluster id; `minikafka.tools.metadata_quorum_command_output`
prints the answer.  ``--human-readable`` turns the fetch and caught-up
timestamps into ``<n> ms ago`` against this machine's clock, and refuses
timestamps in the future, as Kafka does.  Errors of the command itself
(``TerseException``) are one line on standard error; failed calls print the
Java exception's text.

Mirrors ``org.apache.kafka.tools.MetadataQuorumCommand`` (4.3.1).
Simplified: ``--bootstrap-controller`` (talking to controllers directly)
and the ``add-controller``/``remove-controller`` sub-commands are
recognised but not available, because kafka-python cannot connect to a
controller listener; ``--command-config`` is read for its errors only;
argparse4j's error messages are not wrapped and justified to the width (a
narrow terminal shows ``one  of  the  arguments ...``), unrecognized
arguments are not quoted or followed by ``Did you mean``, and the help
descriptions are the sandbox's own words.
"""

from __future__ import annotations

import argparse
import os
import time

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, from_client_error, java_string, kafka_uuid
from minikafka.common.errors import KafkaException
from minikafka.tools import metadata_quorum_command_output as output
from minikafka.tools.tool_output import system_err, system_out

NAME = "metadata-quorum"
SUMMARY = "kafka-metadata-quorum.sh: describe the KRaft metadata quorum"
PROG = "kafka-metadata-quorum"
CONNECTION = ("(--bootstrap-server BOOTSTRAP_SERVER", "|", "--bootstrap-controller BOOTSTRAP_CONTROLLER)")
# The parts of each parser's usage line after the program name, as argparse4j lists them (optional, positional).
USAGE_PARTS = {
    None: (("[-h]", "[--command-config COMMAND_CONFIG]", *CONNECTION),
           ("{describe,add-controller,remove-controller}", "...")),
    "describe": ((*CONNECTION, "describe", "[-h]", "[--status]", "[--replication]", "[--human-readable]"), ()),
    "add-controller": ((*CONNECTION, "add-controller", "[-h]", "[--dry-run]"), ()),
    "remove-controller": ((*CONNECTION, "remove-controller", "[-h]", "--controller-id CONTROLLER_ID",
                           "--controller-directory-id CONTROLLER_DIRECTORY_ID", "[--dry-run]"), ()),
}
UNAVAILABLE = ("minikafka: {what} is not available in minikafka's tools: they speak to brokers through "
               "kafka-python, which cannot connect to a controller listener.")


def format_width() -> int:
    """argparse4j's text width: ``$COLUMNS``, else the terminal's width, else 75."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        with open("/dev/tty") as tty:
            return os.get_terminal_size(tty.fileno()).columns
    except OSError:
        return 75


def _lines(parts, indent: int, used: int, width: int) -> list[str]:
    """Parts joined by spaces, a new line (indented) whenever the next part would pass ``width``."""
    lines: list[list[str]] = []
    line: list[str] = []
    for part in parts:
        if line and used + 1 + len(part) > width:
            lines.append(line)
            line, used = [], indent - 1
        line.append(part)
        used += len(part) + 1
    return [" ".join(words) for words in lines + [line] if words]


def usage_line(command: str | None = None, width: int | None = None) -> str:
    """``usage: kafka-metadata-quorum ...`` wrapped as argparse4j wraps it (optional parts, then positional ones)."""
    width = format_width() if width is None else width
    optional, positional = USAGE_PARTS[command]
    prefix, indent = "usage: ", len("usage: ") + len(PROG) + 1
    if len(prefix) + len(" ".join((PROG, *optional, *positional))) <= width:
        return prefix + " ".join((PROG, *optional, *positional))
    lines = _lines((PROG, *optional), indent, len(prefix) - 1, width) + _lines(positional, indent, indent - 1, width)
    return prefix + ("\n" + " " * indent).join(lines)


class ArgumentParser(argparse.ArgumentParser):
    """argparse4j's behaviour: errors print usage and ``prog: error: message``, then exit 1."""

    command: str | None = None                   # the sub-command this parser reads (None: the tool's own)

    def format_usage(self) -> str:
        return usage_line(self.command) + "\n"

    def format_help(self) -> str:
        return usage_line(self.command) + "\n\n" + super().format_help().split("\n\n", 1)[1]

    def print_usage(self, file=None) -> None:
        super().print_usage(file or system_out())

    def print_help(self, file=None) -> None:
        super().print_help(file or system_out())

    def error(self, message: str):
        if message.startswith("the following arguments are required: command"):
            message = "too few arguments"        # argparse4j's words for a missing sub-command
        self.print_usage(system_err())
        clu.eprintln(f"{self.prog}: error: {message}")
        raise clu.ToolExit(1)

    def exit(self, status: int = 0, message: str | None = None):
        if message:
            system_err().write(message)
        raise clu.ToolExit(status)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=PROG, description="This tool describes kraft metadata quorum status.")
    connection = parser.add_mutually_exclusive_group(required=True)
    connection.add_argument("--bootstrap-server",
                            help="A comma-separated list of host:port pairs of brokers to connect to.")
    connection.add_argument("--bootstrap-controller",
                            help="A comma-separated list of host:port pairs of controllers to connect to.")
    parser.add_argument("--command-config", help="Admin client properties file (for add-controller also the "
                                                 "controller's properties).")
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
    for command, sub_parser in (("describe", describe), ("add-controller", add), ("remove-controller", remove)):
        sub_parser.command = command
    for each in (parser, describe, add, remove):
        each._optionals.title = "optional arguments"        # argparse4j's heading (Python 3.10 says "options")
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


def read_command_config(path: str | None) -> dict[str, str]:
    """``getProperties``: the ``--command-config`` file; TerseException when it does not exist."""
    if path is None:
        return {}
    if not os.path.exists(path):
        raise KafkaException(f"Properties file {path} does not exists!")
    return clu.load_props(path)


def main(args: list[str]) -> int:
    ns = build_parser().parse_args(args)
    try:
        read_command_config(ns.command_config)    # read for its errors; kafka-python's client gets no settings
    except KafkaException as exc:
        return _terse(exc.message)
    if ns.bootstrap_controller is not None:
        return _terse(UNAVAILABLE.format(what="--bootstrap-controller"))
    if ns.command != "describe":
        return _terse(UNAVAILABLE.format(what=ns.command))
    with AdminConnection(ns.bootstrap_server) as connection:
        return _describe(connection, ns)


__all__ = ["NAME", "SUMMARY", "format_width", "usage_line", "build_parser", "read_command_config", "quorum_info",
           "main"]
