"""``minikafka consumer-groups``: ``kafka-consumer-groups.sh`` over the Kafka protocol.

Theory of operation
-------------------
Option checks come first (jopt-simple, then Kafka's rules: ``--bootstrap-server``
is required, ``--describe`` and ``--delete`` need ``--group`` or
``--all-groups``, ``--members``/``--offsets``/``--state`` exclude each
other), then exactly one action runs:

* ``--list``: ListGroups on every broker, consumer groups only (protocol
  type ``consumer`` or empty), optionally with ``--state``/``--type``;
* ``--describe``: per group ConsumerGroupDescribe on its coordinator
  (DescribeGroups for a classic group), the committed
  offsets (OffsetFetch) and the log end offsets of those partitions
  (ListOffsets, latest), so the lag of each partition is the log end offset
  minus the committed offset; `consumer_group_describe` gathers it and
  `minikafka.tools.consumer_group_command_output` prints it;
* ``--delete``: DeleteGroups on the coordinators, then ``Deletion of
  requested consumer groups ('g') was successful.`` or the failures;
* ``--reset-offsets``: for each inactive group, a plan of new committed
  offsets (`consumer_group_reset`, scenarios in `offsets_utils`), printed as
  a table or CSV and committed only with ``--execute``; an active group is
  refused with ``Assignments can only be reset if the group 'g' is
  inactive, but the current state is Stable.``;
* ``--delete-offsets``: OffsetDelete of the group's offsets of the given
  topics or partitions (`consumer_group_delete_offsets`), then ``Request
  succeeded for deleting offsets from group g.`` or the error, and a table
  of each partition's outcome.

``--timeout`` (default 30000 ms, as in Kafka) is the deadline of each
admin call, retries included, and of the wait for a first broker: a
coordinator that answers COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR or
COORDINATOR_NOT_AVAILABLE is asked again, with Kafka's backoff, until it
runs out (`minikafka.commands.coordinator_call`); then the call fails with
Kafka's ``TimeoutException``.

A failed action prints ``Error: Executing consumer group command failed
due to <exception>``; like Kafka, whose ``main`` returns normally after
printing it, the tool still exits 0.  An unknown option escapes Kafka's
``main`` and the JVM prints ``Exception in thread "main" ...`` (exit 1).

Mirrors ``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`` and
``ConsumerGroupCommandOptions`` (4.3.1).  Simplified: ``--command-config``
is accepted and not read; ``--timeout`` bounds only the calls to group
coordinators (listing groups, describing topics and looking up log offsets
keep kafka-python's 30 s request timeout); Java stack traces after an error
are left out.
"""

from __future__ import annotations

import re

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, ExecutionException, java_string
from minikafka.commands.coordinator_call import CoordinatorCall, group_error
from minikafka.commands.consumer_group_delete_offsets import delete_offsets
from minikafka.commands.consumer_group_reset import reset_offsets
from minikafka.commands.consumer_group_describe import describe_groups, group_listings, list_group_ids
from minikafka.commands.offsets_utils import UsageError
from minikafka.commands.option_parser import OPTIONAL_ARG, OptionException, OptionParser, REQUIRED_ARG, long
from minikafka.common.errors import Errors, KafkaException
from minikafka.tools import consumer_group_command_output as output
from minikafka.tools.java_hash_codes import string_order

NAME = "consumer-groups"
SUMMARY = "kafka-consumer-groups.sh: list, describe and delete consumer groups"
ACTIONS = ("list", "describe", "delete", "reset-offsets", "delete-offsets", "validate-regex")
RESET_SCENARIOS = ("to-offset", "shift-by", "to-datetime", "by-duration", "to-earliest", "to-latest", "to-current",
                   "from-file")
CONSUMER_STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning",
                   "Reconciling")


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "The broker(s) to connect to; required except with --validate-regex.",
              argument=REQUIRED_ARG, described_as="server to connect to")
    p.accepts("group", "The consumer group to act on.", argument=REQUIRED_ARG, described_as="consumer group")
    p.accepts("topic", "The topic (--delete-offsets, --reset-offsets).", argument=REQUIRED_ARG, described_as="topic")
    for name, text in (("all-topics", "All topics (--reset-offsets)."), ("list", "List all consumer groups."),
                       ("describe", "Describe groups: offsets and lag, members or state."),
                       ("all-groups", "Every group (--describe, --delete, --reset-offsets)."),
                       ("delete", "Delete groups."), ("reset-offsets", "Reset a group's committed offsets."),
                       ("delete-offsets", "Delete a group's committed offsets of a topic."),
                       ("dry-run", "Show what would be reset."), ("execute", "Reset the offsets."),
                       ("export", "Print the reset plan as CSV.")):
        p.accepts(name, text)
    p.accepts("timeout", "How long each admin call may take, retries included (ms).", argument=REQUIRED_ARG,
              convert=long, default=30000, described_as="timeout (ms)")
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG,
              described_as="command config property file")
    for name, convert, what in (("to-offset", long, "offset"), ("from-file", str, "path to CSV file"),
                                ("to-datetime", str, "datetime"), ("by-duration", str, "duration"),
                                ("shift-by", long, "number-of-offsets")):
        p.accepts(name, "A --reset-offsets scenario.", argument=REQUIRED_ARG, convert=convert, described_as=what)
    for name in ("to-earliest", "to-latest", "to-current"):
        p.accepts(name, "A --reset-offsets scenario.")
    p.accepts("members", "Describe the members (with --describe).", available_if=("describe",))
    p.accepts("verbose", "More detail (with --describe).", available_if=("describe",))
    p.accepts("offsets", "Describe offsets and lag (the default of --describe).", available_if=("describe",))
    p.accepts("state", "Describe the state, or list groups with their states.", argument=OPTIONAL_ARG,
              available_if=("describe", "list"))
    p.accepts("type", "List groups with their types.", argument=OPTIONAL_ARG, available_if=("list",))
    p.accepts("validate-regex", "Check a regular expression.", argument=REQUIRED_ARG, described_as="regex")
    return p


def check_args(p: OptionParser, o, args: list[str]) -> None:
    """``ConsumerGroupCommandOptions.checkArgs``."""
    clu.maybe_print_help_or_version(p, o, args, "This tool helps to list all consumer groups, describe a consumer "
                                    "group, delete consumer group info, or reset consumer group offsets.")
    if not o.has("validate-regex"):
        clu.check_required_args(p, o, "bootstrap-server")
    scope = "[group], [all-groups]"
    if o.has("describe"):
        if not o.has("group") and not o.has("all-groups"):
            clu.print_usage_and_exit(p, f"Option [describe] takes one of these options: {scope}")
        if sum(o.has(n) for n in ("members", "offsets", "state")) > 1:
            clu.print_usage_and_exit(p, "Option [describe] takes at most one of these options: [members], "
                                        "[offsets], [state]")
        if o.has("state") and o.value_of("state") is not None:
            clu.print_usage_and_exit(p, "Option [describe] does not take a value for [state]")
    if o.has("delete"):
        if not o.has("group") and not o.has("all-groups"):
            clu.print_usage_and_exit(p, f"Option [delete] takes one of these options: {scope}")
        if o.has("topic"):
            clu.print_usage_and_exit(p, "The consumer does not support topic-specific offset deletion from a "
                                        "consumer group.")
    if o.has("delete-offsets") and (not o.has("group") or not o.has("topic")):
        clu.print_usage_and_exit(p, "Option [delete-offsets] takes the following options: [group], [topic]")
    if o.has("reset-offsets"):
        _check_reset_args(p, o, scope)
    clu.check_invalid_args(p, o, "group", ("all-groups",))
    clu.check_invalid_args(p, o, "group", ("list",))
    clu.check_invalid_args(p, o, "topic", ("list", "describe"))


def _check_reset_args(p: OptionParser, o, scope: str) -> None:
    if o.has("dry-run") and o.has("execute"):
        clu.print_usage_and_exit(p, "Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    if not o.has("dry-run") and not o.has("execute"):
        clu.eprintln("WARN: No action will be performed as the --execute option is missing. In version 5.0, this "
                     "command will require either --dry-run or --execute to be specified. You should add the "
                     "--dry-run option explicitly if you are scripting this command and want to keep the current "
                     "default behavior without prompting.")
    if not o.has("group") and not o.has("all-groups"):
        clu.print_usage_and_exit(p, f"Option [reset-offsets] takes one of these options: {scope}")
    for used in RESET_SCENARIOS:
        clu.check_invalid_args(p, o, used, [s for s in RESET_SCENARIOS if s != used])


# ----------------------------------------------------------------------------- actions
def _states_filter(p: OptionParser, raw: str | None) -> list[str]:
    if not raw:
        return []
    states = []
    for name in (s.strip() for s in raw.split(",")):
        match = next((s for s in CONSUMER_STATES if s.lower() == name.lower()), None)
        if match is None:
            clu.print_usage_and_exit(p, f"Invalid state list '{raw}'. Valid states are: " + ", ".join(CONSUMER_STATES))
        states.append(match)
    return states


def _types_filter(p: OptionParser, raw: str | None) -> list[str]:
    if not raw:
        return []
    types = [t.strip() for t in raw.lower().split(",")]
    if any(t not in ("classic", "consumer") for t in types):
        clu.print_usage_and_exit(p, f"Invalid types list '{raw}'. Valid types are: Classic, Consumer")
    return types


def list_groups(connection: AdminConnection, p: OptionParser, o) -> output.ToolOutput:
    if not o.has("state") and not o.has("type"):
        return output.list_groups([output.GroupListing(g) for g in list_group_ids(connection)])
    states, types = _states_filter(p, o.value_of("state")), _types_filter(p, o.value_of("type"))
    listings = [g for g in group_listings(connection)
                if (not states or g.state in states) and (not types or g.type.lower() in types)]
    return output.list_groups(listings, include_state=o.has("state"), include_type=o.has("type"))


def delete_groups(connection: AdminConnection, group_ids: list[str]) -> output.ToolOutput:
    """DeleteGroups on each group's coordinator (retried until --timeout); Kafka's success and failure lines."""
    from kafka.protocol.admin import DeleteGroupsRequest
    call = CoordinatorCall(connection, "deleteConsumerGroups", "DELETE_GROUPS")

    def split(response, groups):
        return {r.group_id: (Errors.for_code(r.error_code), group_error(r.error_code)) for r in response.results}
    errors: dict[str, KafkaException | None] = call.run(
        group_ids, lambda groups: DeleteGroupsRequest(groups_names=groups), split)
    console = output.Console()
    succeeded = string_order(g for g, e in errors.items() if e is None)
    failed = {g: e for g, e in errors.items() if e is not None}
    # Kafka 4.3 quotes the joined list once ('a, b'), prints each failure as the exception
    # the group's future failed with (its cause, not the ExecutionException around it), and joins
    # the partial successes with a bare quote ('a'b', ') -- all as ConsumerGroupCommand.deleteGroups
    # writes them.
    if not failed:
        console.println("Deletion of requested consumer groups ('" + ", ".join(succeeded)
                        + "') was successful.")
        return console.result()
    console.println("\nError: Deletion of some consumer groups failed:")
    for group in string_order(failed):
        console.println(f"* Group '{group}' could not be deleted due to: "
                        f"{java_string(failed[group])}")
    if succeeded:
        console.println("\nThese consumer groups were deleted successfully: '" + "'".join(succeeded) + "', '")
    return console.result()


def _validate_regex(regex: str) -> None:
    try:
        re.compile(regex)
        clu.println(f"The regular expression `{regex}` is valid.")
    except re.error as exc:
        clu.println(f"The regular expression `{regex}` is invalid: {exc.msg}.")


def run(connection: AdminConnection, p: OptionParser, o) -> output.ToolOutput:
    if o.has("list"):
        return list_groups(connection, p, o)
    group_ids = list_group_ids(connection) if o.has("all-groups") else o.values_of("group")
    if o.has("describe"):
        return describe_groups(connection, group_ids, o)
    if o.has("delete"):
        return delete_groups(connection, group_ids)
    if o.has("reset-offsets"):
        return reset_offsets(connection, group_ids, o)
    return delete_offsets(connection, o.value_of("group"), o.values_of("topic"))


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        check_args(p, o, args)
    except OptionException as exc:            # escapes Kafka's main: the JVM reports it, exit 1
        clu.eprintln(f'Exception in thread "main" {exc.java_class}: {exc}')
        return 1
    if sum(o.has(a) for a in ACTIONS) != 1:
        clu.print_usage_and_exit(p, "Command must include exactly one action: " + ", ".join(f"--{a}" for a in ACTIONS))
    if o.has("validate-regex"):
        _validate_regex(o.value_of("validate-regex"))
        return 0
    with AdminConnection("") as connection:
        try:
            connection.bootstrap_servers = o.value_of("bootstrap-server")
            # Kafka passes --timeout to every Admin call as its timeoutMs: the deadline of the call, retries
            # included, and so also of the wait for a first broker.
            connection.api_timeout_ms = connection.bootstrap_timeout_ms = o.value_of("timeout")
            result = run(connection, p, o)
        except (OptionException, UsageError) as exc:     # IllegalArgumentException: usage, exit 1
            clu.print_usage_and_exit(p, str(exc))
        except KafkaException as exc:
            text = exc.message if isinstance(exc, ExecutionException) else str(exc)
            result = output.command_failed(text)
    clu.emit(result)
    # Kafka's main returns normally after printing a failure, so the exit code is 0.
    return 0


__all__ = ["NAME", "SUMMARY", "build_parser", "check_args", "list_groups", "delete_groups", "run", "main"]
