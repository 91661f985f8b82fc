"""``minikafka groups``: ``kafka-groups.sh`` over the Kafka protocol.

Theory of operation
-------------------
Kafka 4.x has a tool for groups of every type (classic, consumer, share and
streams), beside ``kafka-consumer-groups.sh``, which shows consumer groups
only.  Its one action is ``--list``: ListGroups on every broker, with no
filter sent to the brokers; the tool filters the answers itself and prints
``GROUP TYPE PROTOCOL`` (`minikafka.tools.groups_command_output`).

The options are checked in Kafka's order:

1. jopt-simple's parse: an unknown option, an option without its argument,
   or a missing ``--bootstrap-server`` (declared ``required()``: ``Missing
   required option(s) [bootstrap-server]``, except with ``--help`` or
   ``--version``) prints the message and the option table on standard
   error, exit 1;
2. ``--help`` (or no argument at all) and ``--version``;
3. exactly one action: ``Command must include exactly one action: --list.``;
4. ``--group-type`` must name a group type, case-insensitively (``classic``,
   ``consumer``, ``share``, ``streams``); anything else throws an
   ``IllegalArgumentException`` out of the tool: its message ``--group-type
   must be a valid group type.`` alone on standard error, exit 1;
5. ``--consumer``, ``--share`` and ``--streams`` exclude each other and
   ``--group-type``/``--protocol`` (``Option "[consumer]" can't be used with
   option "[group-type]"``); ``--group-type`` and ``--protocol`` combine.

A failure while listing prints ``Error while executing groups command :``
and the failure's message on standard output, exit 1.  Kafka waits 30 s for
the listing (``all().get(30, SECONDS)``); when no broker answers by then the
``java.util.concurrent.TimeoutException`` it throws has no message, so the
line ends in ``null``.

Mirrors ``org.apache.kafka.tools.GroupsCommand`` and its
``GroupsCommandOptions`` (4.3.1).  Simplified: ``--command-config`` is
accepted and not read; the Java stack trace after an error is left out.
"""

from __future__ import annotations

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, execution
from minikafka.commands.option_parser import OptionException, OptionParser, REQUIRED_ARG
from minikafka.common.errors import KafkaException, TimeoutException
from minikafka.tools import groups_command_output as output
from minikafka.tools.consumer_group_command_output import GroupListing

NAME = "groups"
SUMMARY = "kafka-groups.sh: list the groups of every type (classic, consumer, share, streams)"
PURPOSE = "This tool helps to list groups of all types."
GROUP_TYPES = ("classic", "consumer", "share", "streams")
LIST_TIMEOUT_MS = 30_000                 # listGroups().all().get(30, TimeUnit.SECONDS)
REQUIRED = ("bootstrap-server",)


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: The Kafka server to connect to.", argument=REQUIRED_ARG,
              described_as="server to connect to")
    p.accepts("command-config", "Property file containing configs to be passed to Admin Client.",
              argument=REQUIRED_ARG, described_as="command config property file")
    p.accepts("list", "List the groups.")
    p.accepts("group-type", "Filter the groups based on group type. Valid types are: 'classic', 'consumer', "
                            "'share' and 'streams'.", argument=REQUIRED_ARG, described_as="type")
    p.accepts("protocol", "Filter the groups based on protocol type.", argument=REQUIRED_ARG,
              described_as="protocol")
    p.accepts("consumer", "Filter the groups to show all kinds of consumer groups, including classic and simple "
                          "consumer groups. This matches group type 'consumer', and group type 'classic' where "
                          "the protocol type is 'consumer' or empty.")
    p.accepts("share", "Filter the groups to show share groups.")
    p.accepts("streams", "Filter the groups to show streams groups.")
    return p


def ensure_required_options(o) -> None:
    """jopt-simple's check of ``required()`` options, skipped when a help option is present."""
    if o.has("help") or o.has("version"):
        return
    missing = [name for name in REQUIRED if not o.has(name)]
    if missing:
        raise OptionException(f"Missing required option(s) [{', '.join(missing)}]")


def group_type(o) -> str | None:
    """``GroupType.parse`` of ``--group-type`` (lower-case name), None if absent or not a type."""
    raw = o.value_of("group-type")
    return raw.lower() if raw is not None and raw.lower() in GROUP_TYPES else None


def check_args(p: OptionParser, o, args: list[str]) -> None:
    """``GroupsCommandOptions.checkArgs``; raises ValueError for Kafka's IllegalArgumentException."""
    clu.maybe_print_help_or_version(p, o, args, PURPOSE)
    if not o.has("list"):
        clu.print_usage_and_exit(p, "Command must include exactly one action: --list.")
    if o.has("group-type") and group_type(o) is None:
        raise ValueError("--group-type must be a valid group type.")
    clu.check_invalid_args(p, o, "consumer", ("group-type", "protocol", "share", "streams"))
    clu.check_invalid_args(p, o, "share", ("consumer", "group-type", "protocol", "streams"))
    clu.check_invalid_args(p, o, "streams", ("consumer", "group-type", "protocol", "share"))


def groups_filter(o) -> output.GroupsFilter:
    return output.GroupsFilter(group_type(o), o.value_of("protocol"), o.has("consumer"), o.has("share"),
                               o.has("streams"))


def list_all_groups(connection: AdminConnection) -> list[GroupListing]:
    """``Admin.listGroups()``: every group of every broker, in the order the brokers answered."""
    groups = execution(lambda: connection.admin("findAllBrokers").list_groups())
    return [GroupListing(g["group_id"], g.get("group_state") or "Unknown",
                         (g.get("group_type") or "").capitalize(), g.get("protocol_type", ""))
            for g in groups]


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        ensure_required_options(o)
    except OptionException as exc:            # caught in GroupsCommandOptions: usage, exit 1
        clu.print_usage_and_exit(p, str(exc))
    try:
        check_args(p, o, args)
        chosen = groups_filter(o)
    except ValueError as exc:                 # escapes execute: mainNoExit prints the message, exit 1
        clu.eprintln(str(exc))
        return 1
    with AdminConnection(o.value_of("bootstrap-server"), bootstrap_timeout_ms=LIST_TIMEOUT_MS) as connection:
        try:
            groups = list_all_groups(connection)
        except KafkaException as exc:
            cause = getattr(exc, "cause", exc)
            # Kafka's get(30 s) gives up first, with a message-less java.util.concurrent.TimeoutException.
            message = "null" if isinstance(cause, TimeoutException) else cause.message
            clu.println(f"Error while executing groups command : {message}")
            return 1
    clu.emit(output.print_group_details(groups, chosen))
    return 0


__all__ = ["NAME", "SUMMARY", "build_parser", "check_args", "groups_filter", "list_all_groups", "main"]
