"""``kafka-consumer-groups.sh``: ``--list``, ``--describe`` (offsets, members, state), ``--reset-offsets`` plans.

Theory of operation
-------------------
``--describe`` works on groups sorted by id.  For each group the tool first
reports the group's state, on *standard error*: ``Consumer group 'g' has no
active members.`` for an Empty group, ``Warning: Consumer group 'g' is
rebalancing.`` while it rebalances; a Dead group is ``Error: Consumer group
'g' does not exist.`` on standard output.  Every message starts with a line
break, so a blank line precedes it.

The offsets view then prints, after a blank line, a header and one row per
partition: first the partitions of members that own some (members with the
most partitions first), then partitions that only have a committed offset
(``CONSUMER-ID``, ``HOST``, ``CLIENT-ID`` are ``-``).  ``CURRENT-OFFSET`` is
the committed offset, ``LAG`` the log end offset minus it; either is ``-``
when unknown.  Columns are left-aligned with minimum widths (group, topic,
consumer id and host: 15 or the widest value; partition 10; offsets and lag
15); the last column is not padded.  Within one member (and among the
partitions without one), rows are sorted by topic, then partition: Kafka
4.3's ``describePartitions`` sorts them (4.1 printed them in the iteration
order of a ``HashMap`` keyed by ``TopicPartition``, such as ``4, 2, 3, 0, 1``,
as the seed texts' screenshots may still show).

``--members`` lists members (``#PARTITIONS`` padded to 15 and followed by a
space, so every line ends in spaces); ``--verbose`` adds the assignment as
``topic:0,1;other:2``.  ``--state`` prints coordinator (``host:port  (id)``),
assignment strategy, state and member count.  ``--list`` prints one group
id per line in the order the brokers answered; with ``--state``/``--type``
it prints a padded table.

``--delete-offsets`` prints a verdict line (``Request succeeded for deleting
offsets from group g.``, or after a blank line ``Error:`` and the group error's
text or "Encountered some partition-level error, see the follow-up
details."), then a ``TOPIC PARTITION STATUS`` table whose rows each start
with a line break (``Successful``, or ``Error:`` and the failure; partition
``-`` for a topic that could not be described) and a final line break
(`delete_offsets_result`).

``--reset-offsets`` prints its plan (`print_offsets_to_reset`): a header
``GROUP TOPIC PARTITION NEW-OFFSET`` and one row per partition, group and
topic columns 15 wide or the widest value, partition 10; every row *starts*
with a line break and a final one ends the table.  ``--export`` prints CSV
lines instead (`export_offsets_to_csv`), then an empty line.

Mirrors ``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`` (4.3.1's row order) and
``org.apache.kafka.tools.OffsetsUtils.printOffsetsToReset`` (4.3.1).
Simplified: the group data is given (the sandbox's classic coordinator or a
kafka-python admin client supplies it); the base order of partitions that
Kafka draws from an unordered ``Set`` is topic then partition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools.tool_output import Console, ToolOutput

MISSING = "-"
REBALANCING_STATES = ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling")


@dataclass(frozen=True, slots=True)
class MemberDescription:
    """``MemberDescription``: one member of a group."""

    consumer_id: str
    client_id: str
    host: str                                           # as the coordinator saw it, e.g. "/127.0.0.1"
    assignment: tuple[TopicPartition, ...] = ()
    group_instance_id: str | None = None
    target_assignment: tuple[TopicPartition, ...] = ()
    member_epoch: int | None = None
    upgraded: bool | None = None                        # consumer protocol only


@dataclass(frozen=True, slots=True)
class ConsumerGroupDescription:
    """``ConsumerGroupDescription`` plus what ``--describe`` looks up around it."""

    group_id: str
    state: str                                          # GroupState text: Stable, Empty, PreparingRebalance...
    members: tuple[MemberDescription, ...] = ()         # in the coordinator's order
    coordinator: tuple[int, str, int] = (-1, "", -1)    # (id, host, port)
    partition_assignor: str = ""
    committed_offsets: Mapping[TopicPartition, int] = field(default_factory=dict)
    log_end_offsets: Mapping[TopicPartition, int] = field(default_factory=dict)   # missing: unknown ("-")
    leader_epochs: Mapping[TopicPartition, int] = field(default_factory=dict)     # of the commits (--verbose)
    group_epoch: int | None = None
    target_assignment_epoch: int | None = None


@dataclass(frozen=True, slots=True)
class GroupListing:
    """``GroupListing``: one group as ListGroups reports it."""

    group_id: str
    state: str = "Unknown"
    type: str = "Classic"                               # GroupType text: Classic, Consumer, Share, Streams; "" unknown
    protocol: str = "consumer"                          # the protocol type: consumer, connect, share... ("": simple)


def _opt(value) -> str:
    return MISSING if value is None else str(value)


def _state_message(console: Console, group: ConsumerGroupDescription, rows: int) -> bool:
    """``shouldPrintMemberState``: report the state; True if there is a table to print."""
    if group.state == "Dead":
        console.println(f"\nError: Consumer group '{group.group_id}' does not exist.")
        return False
    if group.state == "Empty":
        console.eprintln(f"\nConsumer group '{group.group_id}' has no active members.")
    elif group.state in REBALANCING_STATES:
        console.eprintln(f"\nWarning: Consumer group '{group.group_id}' is rebalancing.")
    elif group.state != "Stable":
        raise KafkaException(f"Expected a valid consumer group state, but found '{group.state}'.")
    return rows > 0


# ----------------------------------------------------------------------------- offsets
def _partition_rows(group: ConsumerGroupDescription, partitions: Iterable[TopicPartition],
                    owner: tuple[str, str, str]) -> list[list[str]]:
    committed, ends, epochs = group.committed_offsets, group.log_end_offsets, group.leader_epochs
    rows = []
    for tp in sorted(partitions, key=lambda tp: (tp.topic, tp.partition)):
        offset, end = committed.get(tp), ends.get(tp)
        lag = end - offset if offset is not None and offset != -1 and end is not None else None
        rows.append([group.group_id, tp.topic, str(tp.partition), _opt(epochs.get(tp) if offset is not None else None),
                     _opt(offset), _opt(end), _opt(lag), *owner])
    return rows


def offset_rows(group: ConsumerGroupDescription) -> list[list[str]]:
    """``collectGroupsOffsets``: rows of GROUP TOPIC PARTITION LEADER-EPOCH CURRENT-OFFSET ... CLIENT-ID."""
    rows: list[list[str]] = []
    assigned: set[TopicPartition] = set()
    members = sorted((m for m in group.members if m.assignment), key=lambda m: -len(m.assignment))
    for member in members:
        assigned |= set(member.assignment)
        rows += _partition_rows(group, member.assignment, (member.consumer_id, member.host, member.client_id))
    unassigned = [tp for tp in group.committed_offsets if tp not in assigned]
    if unassigned:
        rows += _partition_rows(group, unassigned, (MISSING, MISSING, MISSING))
    return rows


def format_offsets(rows: Sequence[Sequence[str]], verbose: bool = False) -> str:
    """The table (header and rows of `offset_rows`), each line preceded by a line break."""
    widths = [15, 15, 15, 15]                # group, topic, consumer id, host
    for row in rows:
        for i, value in enumerate((row[0], row[1], row[7], row[8])):
            widths[i] = max(widths[i], len(value))
    headers = ["GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
               "CONSUMER-ID", "HOST", "CLIENT-ID"]
    columns = [widths[0], widths[1], 10, 15, 15, 15, 15, widths[2], widths[3], 0]
    if not verbose:
        del columns[3], headers[3]
        rows = [[*row[:3], *row[4:]] for row in rows]
    return "".join("\n" + " ".join(f"{v:<{w}}" if w else v for v, w in zip(row, columns))
                   for row in [headers, *rows]) + "\n"


def describe_offsets(groups: Iterable[ConsumerGroupDescription], verbose: bool = False) -> ToolOutput:
    """``--describe`` (or ``--describe --offsets``)."""
    console = Console()
    try:
        for group in sorted(groups, key=lambda g: g.group_id):
            rows = offset_rows(group)
            if _state_message(console, group, len(rows)):
                console.print(format_offsets(rows, verbose))
    except KafkaException as exc:
        return failed(console, exc.message)
    return console.result()


# ----------------------------------------------------------------------------- members
def assignment_text(assignment: Iterable[TopicPartition]) -> str:
    """``getAssignmentString``: ``topic:0,1;other:2`` (topics sorted, partitions sorted)."""
    by_topic: dict[str, list[int]] = {}
    for tp in assignment:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return ";".join(sorted(f"{t}:" + ",".join(str(p) for p in sorted(ps)) for t, ps in by_topic.items()))


def _member_columns(group: ConsumerGroupDescription) -> tuple[list[int], bool, bool]:
    """Column widths (group, id, instance id, host, client id, current, target), instance column?, migrating?"""
    widths = [15, 15, 17, 15, 15, 20, 20]
    with_instance = classic = consumer = False
    for m in group.members:
        instance = m.group_instance_id or ""
        current = assignment_text(m.assignment) or MISSING
        target = assignment_text(m.target_assignment) or MISSING
        for i, value in enumerate((group.group_id, m.consumer_id, instance, m.host, m.client_id, current, target)):
            widths[i] = max(widths[i], len(value))
        with_instance = with_instance or bool(instance)
        classic = classic or m.upgraded is False
        consumer = consumer or m.upgraded is True
    return widths, with_instance, classic and consumer


def format_members(group: ConsumerGroupDescription, verbose: bool = False, measure: bool = True) -> str:
    """Header and member rows; ``measure=False`` keeps the default widths (Kafka skips measuring
    when the state check said there is nothing to show)."""
    widths, with_instance, migrating = (_member_columns(group) if measure
                                        else ([15, 15, 17, 15, 15, 20, 20], False, False))

    def line(cells: Sequence[str], extra: Sequence[str]) -> str:
        gid, cid, instance, host, client, count = cells
        first = [(gid, widths[0]), (cid, widths[1])] + ([(instance, widths[2])] if with_instance else [])
        text = "".join(f"{v:<{w}} " for v, w in first + [(host, widths[3]), (client, widths[4]), (count, 15)])
        if verbose:
            text += " ".join(f"{v:<{w}}" for v, w in zip(extra, (15, widths[5], 15, widths[6])))
            text += f" {extra[4]}" if migrating else ""
        return text + "\n"
    out = "\n" + line(("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"),
                      ("CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT", "UPGRADED"))
    for m in group.members:
        extra = (_opt(m.member_epoch), assignment_text(m.assignment) or MISSING, _opt(group.target_assignment_epoch),
                 assignment_text(m.target_assignment) or MISSING, _opt(m.upgraded).lower())
        out += line((group.group_id, m.consumer_id, m.group_instance_id or "", m.host, m.client_id,
                     str(len(m.assignment))), extra)
    return out


def describe_members(groups: Iterable[ConsumerGroupDescription], verbose: bool = False) -> ToolOutput:
    """``--describe --members [--verbose]``: the header is printed even when there is no member."""
    console = Console()
    try:
        for group in sorted(groups, key=lambda g: g.group_id):
            printable = _state_message(console, group, len(group.members))
            console.print(format_members(group, verbose, measure=printable))
    except KafkaException as exc:
        return failed(console, exc.message)
    return console.result()


# ----------------------------------------------------------------------------- state, list
def format_state(group: ConsumerGroupDescription, verbose: bool = False) -> str:
    coord_id, host, port = group.coordinator
    coordinator = f"{host}:{port}  ({coord_id})"
    widths = [max(15, len(group.group_id)), max(25, len(coordinator)), 20, 20]
    strategy = group.partition_assignor or MISSING
    headers = ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"]
    values = [group.group_id, coordinator, strategy, group.state]
    if verbose:
        widths += [15, 25]
        headers += ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH"]
        values += [_opt(group.group_epoch), _opt(group.target_assignment_epoch)]
    headers.append("#MEMBERS")
    values.append(str(len(group.members)))
    widths.append(0)
    return "".join("\n" + " ".join(f"{v:<{w}}" if w else v for v, w in zip(row, widths))
                   for row in (headers, values)) + "\n"


def describe_state(groups: Iterable[ConsumerGroupDescription], verbose: bool = False) -> ToolOutput:
    """``--describe --state [--verbose]``."""
    console = Console()
    try:
        for group in sorted(groups, key=lambda g: g.group_id):
            if _state_message(console, group, 1):
                console.print(format_state(group, verbose))
    except KafkaException as exc:
        return failed(console, exc.message)
    return console.result()


def list_groups(listings: Sequence[GroupListing], include_state: bool = False,
                include_type: bool = False) -> ToolOutput:
    """``--list`` (ids in the brokers' order), or the table of ``--list --state/--type``."""
    console = Console()
    if not (include_state or include_type):
        for listing in listings:
            console.println(listing.group_id)
        return console.result()
    width = max([15] + [len(g.group_id) for g in listings]) + 10
    columns = [("GROUP", width, lambda g: g.group_id)]
    if include_type:
        columns.append(("TYPE", 20, lambda g: g.type))
    if include_state:
        columns.append(("STATE", 20, lambda g: g.state))
    console.println(" ".join(f"{name:<{w}}" for name, w, _ in columns))
    for listing in listings:
        console.println(" ".join(f"{get(listing):<{w}}" for _, w, get in columns))
    return console.result()


def failed(console: Console, message: str | None) -> ToolOutput:
    console.println(f"\nError: Executing consumer group command failed due to {message}")
    # Kafka 4.3.1's ConsumerGroupCommand.main prints this and returns normally: exit code 0.
    return console.result(exit_code=0)


def command_failed(message: str) -> ToolOutput:
    """A failure the tool reports as ``Error: Executing consumer group command failed due to ...``.

    For a group that does not exist a 4.3.1 broker answers GROUP_ID_NOT_FOUND and
    ``message`` is ``org.apache.kafka.common.errors.GroupIdNotFoundException: Group g not found.``
    """
    return failed(Console(), message)


# ----------------------------------------------------------------------------- --delete-offsets
GROUP_LEVEL_ERRORS = (Errors.INVALID_GROUP_ID, Errors.GROUP_ID_NOT_FOUND, Errors.GROUP_AUTHORIZATION_FAILED,
                      Errors.NON_EMPTY_GROUP)
PARTITION_LEVEL_ERRORS = (Errors.GROUP_SUBSCRIBED_TO_TOPIC, Errors.TOPIC_AUTHORIZATION_FAILED,
                          Errors.UNKNOWN_TOPIC_OR_PARTITION)


def delete_offsets_result(group_id: str, error: Errors,
                          outcomes: Mapping[TopicPartition, str | None]) -> ToolOutput:
    """``--delete-offsets``: the verdict, then ``TOPIC PARTITION STATUS`` rows.

    ``outcomes`` maps each partition (``-1``: its topic could not be described) to
    None when its offset was deleted, else the message of the exception it failed
    with.  The topic column is as wide as the longest topic (at least 15); rows are
    sorted by topic and partition glued into one string, as Kafka sorts them.
    """
    console = Console()
    if error is Errors.NONE:
        console.println(f"Request succeeded for deleting offsets from group {group_id}.")
    elif error in GROUP_LEVEL_ERRORS:
        console.println(f"\nError: {error.message}")
    elif error in PARTITION_LEVEL_ERRORS:
        console.println("\nError: Encountered some partition-level error, see the follow-up details.")
    else:
        console.println(f"\nError: Encountered some unknown error: {error.name}")
    width = max([15] + [len(tp.topic) for tp in outcomes])

    def row(topic: str, partition: str, status: str) -> str:
        return f"\n{topic:<{width}} {partition:<10} {status:<15}"
    console.print(row("TOPIC", "PARTITION", "STATUS"))
    for tp in sorted(outcomes, key=lambda tp: tp.topic + str(tp.partition)):
        failure = outcomes[tp]
        console.print(row(tp.topic, str(tp.partition) if tp.partition >= 0 else MISSING,
                          "Successful" if failure is None else f"Error: {failure}"))
    console.println()
    return console.result()


def print_offsets_to_reset(console: Console, plans: Mapping[str, Mapping[TopicPartition, int]]) -> ToolOutput:
    """``--reset-offsets``: the plan, one row per partition; every row starts with a line break."""
    group_width = max([15] + [len(g) for g in plans])
    topic_width = max([15] + [len(tp.topic) for plan in plans.values() for tp in plan])

    def row(*cells) -> str:
        return f"\n{cells[0]:<{group_width}} {cells[1]:<{topic_width}} {cells[2]:<10} {cells[3]}"
    if plans:               # a refused group has an empty plan, yet the header still comes out
        console.print(row("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"))
    for group, plan in plans.items():
        for tp, offset in plan.items():
            console.print(row(group, tp.topic, str(tp.partition), str(offset)))
    console.println()
    return console.result()


def export_offsets_to_csv(console: Console, plans: Mapping[str, Mapping[TopicPartition, int]],
                          with_group: bool) -> ToolOutput:
    """``--export``: ``topic,partition,offset`` lines (``group,`` first unless exactly one ``--group``)."""
    console.println("".join((f"{group}," if with_group else "") + f"{tp.topic},{tp.partition},{offset}\n"
                            for group, plan in plans.items() for tp, offset in plan.items()))
    return console.result()


__all__ = ["print_offsets_to_reset", "export_offsets_to_csv", "failed", "MemberDescription",
           "ConsumerGroupDescription", "GroupListing", "offset_rows", "format_offsets",
           "describe_offsets", "assignment_text", "format_members", "describe_members", "format_state",
           "describe_state", "list_groups", "command_failed", "delete_offsets_result"]
