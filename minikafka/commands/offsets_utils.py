"""The offsets a ``--reset-offsets`` scenario asks for, looked up and clamped as Kafka's tool does.

Theory of operation
-------------------
A reset is a plan: for each partition in scope, the offset the group should
resume from.  Each scenario computes it from a different fact:

* ``--to-earliest`` / ``--to-latest``: the log start / end offset (ListOffsets
  with the EARLIEST / LATEST sentinels);
* ``--to-offset N``: N itself; ``--shift-by N``: the committed offset plus N
  (a partition without a commit is an error: there is nothing to shift);
* ``--to-current``: the committed offset, or the log end offset where the
  group has none;
* ``--to-datetime`` / ``--by-duration``: the first offset whose record
  timestamp is at or after the instant (ListOffsets by timestamp); a
  partition with no such record falls back to its log end offset, with a
  ``Warn: Partition 0 from topic t is empty.`` line;
* ``--from-file``: the offsets of a CSV plan (``topic,partition,offset``,
  or ``group,topic,partition,offset`` when several groups are named).

Offsets that the user chose (to-offset, shift-by, from-file) are clamped
into ``[log start, log end]``; each clamp logs a WARN line on standard
error, naming the partition as ``topic-partition``.  Before any of that,
every partition in scope must exist (``The partitions "t-7" do not exist``)
and have a leader.

Mirrors ``org.apache.kafka.tools.OffsetsUtils`` (4.3.1) and
``Utils.getDateTime``.  Simplified: a malformed line of a ``--from-file``
CSV is refused with a one-line message of the sandbox's own, not Jackson's
text, and the stack trace Kafka 4.3.1 prints on standard error while it
tells the two CSV layouts apart is left out.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable

from minikafka.commands.admin_client import ExecutionException, error_for, execution
from minikafka.commands.tools_log import log_line
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools.java_hash_codes import topic_partition_order

LOGGER = "org.apache.kafka.tools.OffsetsUtils"
EARLIEST, LATEST = -2, -1                       # ListOffsets sentinels
UNKNOWN_OFFSET = -1


class UsageError(Exception):
    """``CommandLineUtils.printUsageAndExit``: the tool prints the message and its usage, exit 1."""


class ParseError(KafkaException):
    """A ``RuntimeException`` wrapping a parse failure: its message is the cause's ``toString()``."""


# ----------------------------------------------------------------------------- lookups
def runtime(call):
    """``new RuntimeException(executionException)``: its message is ``java.util.concurrent.ExecutionException: ...``."""
    try:
        return execution(call)
    except ExecutionException as exc:
        raise KafkaException(f"{exc.java_class}: {exc.message}") from None


def log_offsets(admin, partitions: Iterable[TopicPartition], spec: int) -> dict[TopicPartition, int]:
    """ListOffsets for ``partitions`` (a sentinel or a timestamp); a failed lookup fails the call."""
    from kafka import TopicPartition as KafkaTopicPartition
    wanted = {KafkaTopicPartition(tp.topic, tp.partition): spec for tp in partitions}
    if not wanted:
        return {}
    found = runtime(lambda: admin.list_partition_offsets(wanted))
    return {TopicPartition(tp.topic, tp.partition): o.offset for tp, o in found.items()}


def topic_partitions(admin, topics: Iterable[str]) -> dict[str, list[tuple[int, int]]]:
    """topic -> [(partition, leader)] (DescribeTopics); an unknown topic fails the call as Kafka's does."""
    names = list(dict.fromkeys(topics))
    if not names:
        return {}
    described = execution(lambda: admin.describe_topics(names))
    found = {}
    for topic in described:
        if topic["error_code"]:
            raise ExecutionException(error_for(topic["error_code"]))
        found[topic["name"]] = [(p["partition_index"], p["leader_id"]) for p in topic["partitions"]]
    return found


def parse_topic_partitions(admin, topic_args: list[str]) -> list[TopicPartition]:
    """``--topic t`` (every partition) and ``--topic t:0,1``: the given partitions first, then whole topics."""
    named = [tp for arg in topic_args if ":" in arg for tp in parse_topic_with_partitions(arg)]
    whole = topic_partitions(admin, [arg for arg in topic_args if ":" not in arg])
    return named + [TopicPartition(t, p) for t, partitions in whole.items() for p, _ in partitions]


def parse_topic_with_partitions(arg: str) -> list[TopicPartition]:
    """``OffsetsUtils.parseTopicsWithPartitions``: ``t:0,2`` -> t-0, t-2; a malformed argument is a usage error."""
    parts = [p for p in arg.split(":")]
    while parts and parts[-1] == "":                    # Java's split drops trailing empty strings
        parts.pop()
    if len(parts) != 2:
        raise UsageError(f"Invalid topic arg '{arg}', expected topic name and partitions")
    out = []
    for number in parts[1].split(","):
        if not re.fullmatch(r"[+-]?\d+", number):
            raise UsageError(f"Invalid partition '{number}' specified in topic arg '{arg}''")
        out.append(TopicPartition(parts[0], int(number)))
    return out


def check_all_topic_partitions_valid(admin, partitions: list[TopicPartition]) -> None:
    """Every partition must exist and have a leader (``checkAllTopicPartitionsValid``)."""
    known = runtime(lambda: topic_partitions(admin, [tp.topic for tp in partitions]))
    existing = {TopicPartition(t, p): leader for t, ps in known.items() for p, leader in ps}
    missing = [tp for tp in partitions if tp not in existing]
    if missing:
        raise error_for(3, 'The partitions "' + ",".join(map(str, missing)) + '" do not exist')
    leaderless = [tp for tp in partitions if existing[tp] < 0]
    if leaderless:
        raise error_for(5, 'The partitions "' + ",".join(map(str, leaderless)) + '" have no leader')


# ----------------------------------------------------------------------------- scenarios
def check_offsets_range(admin, requested: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
    """Clamp user-chosen offsets into [log start, log end], logging a WARN for each one moved."""
    starts, ends = log_offsets(admin, requested, EARLIEST), log_offsets(admin, requested, LATEST)
    result = {}
    for tp in topic_partition_order(requested):       # Kafka walks a HashMap
        offset = requested[tp]
        if offset > ends[tp]:
            log_line("WARN", f"New offset ({offset}) is higher than latest offset for topic partition {tp}. "
                             f"Value will be set to {ends[tp]}", LOGGER)
            result[tp] = ends[tp]
        elif offset < starts[tp]:
            log_line("WARN", f"New offset ({offset}) is lower than earliest offset for topic partition {tp}. "
                             f"Value will be set to {starts[tp]}", LOGGER)
            result[tp] = starts[tp]
        else:
            result[tp] = offset
    return result


def reset_to_offset(admin, partitions: list[TopicPartition], offset: int) -> dict[TopicPartition, int]:
    return check_offsets_range(admin, {tp: offset for tp in partitions})


def reset_to_log_offset(admin, partitions: list[TopicPartition], spec: int) -> dict[TopicPartition, int]:
    """``--to-earliest`` (EARLIEST) or ``--to-latest`` (LATEST)."""
    found = log_offsets(admin, partitions, spec)
    return {tp: found[tp] for tp in partitions}


def reset_by_shift_by(admin, partitions: list[TopicPartition], committed: dict[TopicPartition, int],
                      shift: int) -> dict[TopicPartition, int]:
    for tp in partitions:
        if tp not in committed:
            raise UsageError(f"Cannot shift offset for partition {tp} since there is no current committed offset")
    return check_offsets_range(admin, {tp: committed[tp] + shift for tp in partitions})


def reset_to_current(admin, partitions: list[TopicPartition],
                     committed: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
    result = {tp: committed[tp] for tp in partitions if tp in committed}
    result.update(log_offsets(admin, [tp for tp in partitions if tp not in committed], LATEST))
    return result


def reset_to_timestamp(admin, partitions: list[TopicPartition], timestamp_ms: int,
                       say: Callable[[str], None]) -> dict[TopicPartition, int]:
    """``--to-datetime`` and ``--by-duration``: the first offset at or after the instant, else the log end."""
    found = log_offsets(admin, partitions, timestamp_ms)
    empty = [tp for tp in partitions if found.get(tp, UNKNOWN_OFFSET) == UNKNOWN_OFFSET]
    for tp in topic_partition_order(empty):
        say(f"\nWarn: Partition {tp.partition} from topic {tp.topic} is empty. Falling back to latest known offset.")
    found.update(log_offsets(admin, empty, LATEST))
    return {tp: found[tp] for tp in partitions}


def date_time_ms(text: str) -> int:
    """``Utils.getDateTime``: ``yyyy-MM-ddTHH:mm:ss.SSS`` with an optional zone (UTC when none)."""
    halves = text.split("T")
    if len(halves) != 2:
        raise ParseError("java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according "
                         "to ISO8601 format")
    if not any(c in halves[1] for c in "+-Z"):
        text += "Z"
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|[+-]\d{2}(?::?\d{2})?)", text)
    try:
        if match is None:
            raise ValueError(text)
        zone = match.group(8)
        offset = timedelta(0) if zone == "Z" else (1 if zone[0] == "+" else -1) * timedelta(
            hours=int(zone[1:3]), minutes=int(zone[-2:]) if len(zone) > 3 else 0)
        y, mo, d, h, mi, s, ms = (int(g) for g in match.groups()[:7])
        moment = datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=timezone(offset))
    except ValueError:
        raise ParseError(f'java.text.ParseException: Unparseable date: "{text}"') from None
    return int(moment.timestamp() * 1000)


_DURATION = re.compile(r"([-+]?)P(?:([-+]?\d+)D)?"
                       r"(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:\.(\d{1,9}))?S)?)?", re.IGNORECASE)


def duration_ms(text: str) -> int:
    """``java.time.Duration.parse`` (``PnDTnHnMn.nS``) in milliseconds."""
    match = _DURATION.fullmatch(text)
    if match is None or not any(match.groups()[1:5]) or text.upper().endswith("T"):
        raise ParseError("Text cannot be parsed to a Duration")
    sign = -1 if match.group(1) == "-" else 1
    days, hours, minutes, seconds = (int(g or 0) for g in match.groups()[1:5])
    fraction = int((match.group(6) or "0").ljust(9, "0")[:3])
    total = ((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000 + (fraction if seconds >= 0 else -fraction)
    return sign * total


def reset_plan_from_file(path: str, groups: list[str]) -> dict[str, dict[TopicPartition, int]]:
    """A CSV plan: ``topic,partition,offset`` for one ``--group``, else ``group,topic,partition,offset``."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError):
        raise ParseError(f"java.io.IOException: Unable to read file {path}") from None
    while lines and lines[-1] == "":
        lines.pop()
    three = bool(lines) and len(lines[0].split(",")) == 3
    plan: dict[str, dict[TopicPartition, int]] = {}
    for line in lines:
        cells = line.split(",")
        group = groups[0] if three and len(groups) == 1 else None
        if group is None:
            cells, group = cells[1:], cells[0]
        if len(cells) != 3 or not all(re.fullmatch(r"-?\d+", c) for c in cells[1:]):
            raise ParseError(f"cannot read the reset plan line '{line}' (minikafka's words: it does not reproduce "
                             "Jackson's CSV error)")
        if int(cells[2]) < 0:                       # OffsetAndMetadata refuses it: IllegalArgumentException
            raise UsageError("Invalid negative offset")
        plan.setdefault(group, {})[TopicPartition(cells[0], int(cells[1]))] = int(cells[2])
    return plan


__all__ = ["UsageError", "ParseError", "EARLIEST", "LATEST", "log_offsets", "parse_topic_partitions",
           "parse_topic_with_partitions",
           "check_all_topic_partitions_valid", "check_offsets_range", "reset_to_offset", "reset_to_log_offset",
           "reset_by_shift_by", "reset_to_current", "reset_to_timestamp", "date_time_ms", "duration_ms",
           "reset_plan_from_file"]
