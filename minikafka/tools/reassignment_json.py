"""The JSON files of ``kafka-reassign-partitions.sh``: topics to move, and reassignments.

Theory of operation
-------------------
Two formats, both version 1:

* *topics to move* (``--generate`` input): ``{"topics":[{"topic":"foo"}],"version":1}``;
* *reassignment* (``--generate`` output, ``--execute``/``--verify``/``--cancel``
  input): ``{"version":1,"partitions":[{"topic":"foo","partition":0,
  "replicas":[1,2],"log_dirs":["any","any"]}]}``.

Kafka writes the reassignment JSON with Jackson, compactly (no spaces), keys
in the order above, partitions sorted by topic then partition, and
``log_dirs`` all ``"any"`` unless a replica is pinned to a directory.
Reading is lenient about ``log_dirs`` (default: ``"any"`` for every replica)
and ``version`` (default 1), and strict about everything else, with the
messages of Kafka's ``DecodeJson``/``JsonObject`` helpers (``No such field
exists: `topic```, ``Expected `Integer` value, received "x"``).  The
``--execute`` checks (empty list, duplicate partitions, duplicate replicas)
live in `parse_execute_args`.

Mirrors ``ReassignPartitionsCommand.formatAsReassignmentJson``,
``parseTopicsData``, ``parsePartitionReassignmentData`` and
``parseExecuteAssignmentArgs`` (4.3.1), and ``ToolsUtils.duplicates``.
Simplified: a JSON syntax error is reported with Python's parser message
after Jackson's exception class name, not Jackson's own wording.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools.java_hash_codes import int_order, string_order, topic_partition_order

ANY_LOG_DIR = "any"
Replica = tuple[str, int, int]          # TopicPartitionReplica: (topic, partition, broker id)


class ReassignCommandError(KafkaException):
    """A failure of the tool.  ``terse`` errors print their bare message; others print ``Error: <message>``."""

    def __init__(self, message: str, terse: bool = False, java_class: str = "org.apache.kafka.common.errors."
                 "AdminCommandFailedException"):
        super().__init__(message)
        self.terse = terse
        self._java_class = java_class

    @property
    def java_class(self) -> str:
        return self._java_class


def _admin_operation(message: str) -> ReassignCommandError:
    return ReassignCommandError(message, java_class="org.apache.kafka.tools.AdminOperationException")


def _mapping_error(message: str) -> ReassignCommandError:
    return ReassignCommandError(message, java_class="com.fasterxml.jackson.databind.JsonMappingException")


# ----------------------------------------------------------------------------- writing
def format_reassignment_json(assignment: Mapping[TopicPartition, Sequence[int]],
                             log_dirs: Mapping[Replica, str] | None = None) -> str:
    """``formatAsReassignmentJson``: compact, sorted by topic then partition."""
    dirs = log_dirs or {}
    partitions = [{"topic": tp.topic, "partition": tp.partition, "replicas": list(assignment[tp]),
                   "log_dirs": [dirs.get((tp.topic, tp.partition, r), ANY_LOG_DIR) for r in assignment[tp]]}
                  for tp in sorted(assignment, key=lambda tp: (tp.topic, tp.partition))]
    return json.dumps({"version": 1, "partitions": partitions}, separators=(",", ":"), ensure_ascii=False)


# ----------------------------------------------------------------------------- reading helpers
def _node_text(node: Any) -> str:
    return json.dumps(node, separators=(",", ":"), ensure_ascii=False)


def _field(obj: Any, name: str) -> Any:
    if not isinstance(obj, dict):
        raise _mapping_error(f"Expected `JSON object` value, received {_node_text(obj)}")
    if name not in obj:
        raise _mapping_error(f"No such field exists: `{name}`")
    return obj[name]


def _as_int(node: Any) -> int:
    if isinstance(node, bool) or not isinstance(node, int) or not -2**31 <= node < 2**31:
        raise _mapping_error(f"Expected `Integer` value, received {_node_text(node)}")
    return node


def _as_str(node: Any) -> str:
    if not isinstance(node, str):
        raise _mapping_error(f"Expected `String` value, received {_node_text(node)}")
    return node


def _as_list(node: Any) -> list:
    if not isinstance(node, list):
        raise _mapping_error(f"Expected `JSON array` value, received {_node_text(node)}")
    return node


def _version(document: Any) -> int:
    if not isinstance(document, dict):
        raise _mapping_error(f"Expected `JSON object` value, received {_node_text(document)}")
    version = _as_int(document["version"]) if "version" in document else 1
    if version != 1:
        raise _admin_operation(f"Not supported version field value {version}")
    return version


def duplicates(values: Sequence, order) -> list:
    """``ToolsUtils.duplicates``: each repeated value once, in ``HashSet`` order."""
    seen, repeated = set(), []
    for value in values:
        if value in seen and value not in repeated:
            repeated.append(value)
        seen.add(value)
    return order(repeated)


def java_set(values: Sequence) -> str:
    """``Set.toString``: ``[a, b]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


# ----------------------------------------------------------------------------- reading
def parse_topics_to_move(text: str) -> list[str]:
    """``parseTopicsData``: the topic names of a topics-to-move file, in file order."""
    try:
        document = json.loads(text)
    except ValueError:
        raise _admin_operation("The input string is not a valid JSON") from None
    _version(document)
    return [_as_str(_field(entry, "topic")) for entry in _as_list(document.get("topics", []))]


def parse_reassignment(text: str) -> tuple[list[tuple[TopicPartition, list[int]]], dict[Replica, str]]:
    """``parsePartitionReassignmentData``: (partition, replicas) in file order, and pinned log dirs."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise _admin_operation(f"com.fasterxml.jackson.core.JsonParseException: {exc}") from None
    _version(document)
    partitions: list[tuple[TopicPartition, list[int]]] = []
    log_dirs: dict[Replica, str] = {}
    for entry in _as_list(document.get("partitions", [])):
        topic = _as_str(_field(entry, "topic"))
        partition = _as_int(_field(entry, "partition"))
        replicas = [_as_int(r) for r in _as_list(_field(entry, "replicas"))]
        dirs = ([_as_str(d) for d in _as_list(entry["log_dirs"])] if "log_dirs" in entry
                else [ANY_LOG_DIR] * len(replicas))
        if len(dirs) != len(replicas):
            raise ReassignCommandError(f"Size of replicas list {java_set(replicas)} is different from size of "
                                       f"log dirs list {java_set(dirs)} for partition {topic}-{partition}")
        partitions.append((TopicPartition(topic, partition), replicas))
        log_dirs.update({(topic, partition, r): d for r, d in zip(replicas, dirs) if d != ANY_LOG_DIR})
    return partitions, log_dirs


def parse_execute_args(text: str) -> tuple[dict[TopicPartition, list[int]], dict[Replica, str]]:
    """``parseExecuteAssignmentArgs``: the reassignment file with the ``--execute`` checks."""
    partitions, log_dirs = parse_reassignment(text)
    if not partitions:
        raise ReassignCommandError("Partition reassignment list cannot be empty")
    if any(not replicas for _, replicas in partitions):
        raise ReassignCommandError("Partition replica list cannot be empty")
    keys = [tp for tp, _ in partitions]
    repeated = duplicates(keys, topic_partition_order)
    if repeated:
        raise ReassignCommandError("Partition reassignment contains duplicate topic partitions: "
                                   + ",".join(str(tp) for tp in repeated))
    messages = [f"{tp} contains multiple entries for {','.join(str(b) for b in twice)}"
                for tp, replicas in partitions if (twice := duplicates(replicas, int_order))]
    if messages:
        raise ReassignCommandError("Partition replica lists may not contain duplicate entries: "
                                   + ". ".join(messages))
    return dict(partitions), log_dirs


def parse_broker_list(text: str) -> list[int]:
    """``--broker-list 1,2,3`` (``Integer.parseInt`` of each entry, no duplicates)."""
    items = text.split(",")
    while items and not items[-1]:          # Java's split drops trailing empty strings
        items.pop()
    brokers = []
    for item in items:
        if not item or not item.lstrip("+-").isdigit() or not -2**31 <= int(item) < 2**31:
            raise ReassignCommandError(f'For input string: "{item}"', java_class="java.lang.NumberFormatException")
        brokers.append(int(item))
    repeated = duplicates(brokers, int_order)
    if repeated:
        raise ReassignCommandError(f"Broker list contains duplicate entries: {java_set(repeated)}")
    return brokers


def check_duplicate_topics(topics: Sequence[str]) -> None:
    repeated = duplicates(topics, string_order)
    if repeated:
        raise ReassignCommandError(f"List of topics to reassign contains duplicate entries: {java_set(repeated)}")


__all__ = ["ANY_LOG_DIR", "ReassignCommandError", "format_reassignment_json", "parse_topics_to_move",
           "parse_reassignment", "parse_execute_args", "parse_broker_list", "check_duplicate_topics",
           "duplicates", "java_set"]
