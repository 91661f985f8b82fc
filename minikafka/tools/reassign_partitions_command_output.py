"""``kafka-reassign-partitions.sh``: ``--generate``, ``--execute``, ``--verify``, ``--list``, ``--cancel``.

Theory of operation
-------------------
A reassignment moves a partition's replicas to other brokers.  The tool's
workflow is: ``--generate`` proposes new assignments for some topics,
``--execute`` starts them (printing the current assignment to keep for a
rollback), ``--verify`` reports progress and, once nothing is moving any
more, clears the replication throttles, ``--cancel`` stops them.

``--generate`` in Kafka 4.1+ places replicas with the controller's
``StripedReplicaPlacer`` (KAFKA-18798; 3.x used ``AdminUtils``' rack-unaware
assignment): once per topic, for as many partitions as the topic has, with
the replication factor of the first partition the tool's ``HashMap``
yields.  Kafka seeds the placer with an unseeded ``java.util.Random``, so
its proposal is random; here the caller passes a seeded ``random.Random``.

Output details kept from Kafka: singular/plural wording (``partition
reassignment`` / ``reassignments``, ``broker``/``brokers``), partitions
sorted by topic then partition, the sets of brokers and topics in the
throttle-clearing lines in ``HashSet`` order, ``--cancel`` printing ``None
of the specified partition moves are active.`` without a line break (so
the next line follows on the same line), and errors: "terse" ones as the
bare message, the others as ``Error: <message>``, all on stdout with exit
code 1.

In Kafka 4.3 (4.1 printed ``"any"`` there) the current assignment that
``--generate`` and ``--execute`` print names the log directory of every
replica whose broker is alive (the tool asks each of those brokers with
DescribeLogDirs), so the rollback JSON puts each replica back where it was;
``"any"`` stays for the others and for proposed replicas.

The functions are pure: the caller gathers the cluster facts (current
assignment, ongoing reassignments, broker ids) and passes callbacks for the
actions (``alter``, ``cancel``, ``set_throttles``, ``clear_throttles``) and
for the replicas' log directories (``replica_log_dirs``), which run at the
point where Kafka runs them.

Mirrors ``org.apache.kafka.tools.reassign.ReassignPartitionsCommand`` (4.3.1).
Simplified: moves between log directories of one broker (``log_dirs`` other
than ``"any"``) are parsed but not executed or verified (the sandbox gives
every broker one log directory); stack traces are not printed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.controller.striped_replica_placer import PlacementSpec, StripedReplicaPlacer, UsableBroker
from minikafka.tools.java_hash_codes import (copy_capacity, hash_set_capacity, int_order, string_order,
                                             topic_partition_order)
from minikafka.tools.reassignment_json import (ReassignCommandError, Replica, check_duplicate_topics,
                                               format_reassignment_json, parse_broker_list, parse_execute_args,
                                               parse_reassignment, parse_topics_to_move)

ReplicaLogDirs = Callable[[Mapping[TopicPartition, Sequence[int]]], Mapping[Replica, str]]
"""``getReplicaToLogDir``: the log directory of each replica of an assignment whose broker is alive."""
from minikafka.tools.tool_output import Console, ToolOutput

CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE = (
    "Cannot execute because there is an existing partition assignment.  Use --additional to override this and "
    "create a new partition assignment in addition to the existing one. The --additional flag can also be used "
    "to change the throttle by resubmitting the current reassignment.")
YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE = (
    "Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is "
    "removed.")
_UNKNOWN_TOPIC = "org.apache.kafka.common.errors.UnknownTopicOrPartitionException"


@dataclass(frozen=True, slots=True)
class PartitionReassignment:
    """``PartitionReassignment``: an ongoing reassignment (``replicas`` includes the adding ones)."""

    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class BrokerMetadata:
    """A broker ``describeCluster`` returns."""

    id: int
    rack: str | None = None


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


def _sorted(parts: Iterable[TopicPartition]) -> list[TopicPartition]:
    return sorted(parts, key=lambda tp: (tp.topic, tp.partition))


def _failed(exc: KafkaException, console: Console | None = None) -> ToolOutput:
    console = console or Console()
    terse = isinstance(exc, ReassignCommandError) and exc.terse
    console.println(exc.message if terse else f"Error: {exc.message}")
    return console.result(exit_code=1)


def _unknown_topic(message: str) -> ReassignCommandError:
    # ExecutionException(cause).getMessage() is cause.toString(): class name, colon, message.
    return ReassignCommandError(f"{_UNKNOWN_TOPIC}: {message}", java_class="java.util.concurrent.ExecutionException")


def _described_topics(topics: Iterable[str], current: Mapping[TopicPartition, Sequence[int]]) -> list[str]:
    """The topics in the order the tool's describe map yields them; the first unknown one fails."""
    names = list(dict.fromkeys(topics))
    n = len(names)
    futures = string_order(string_order(names, hash_set_capacity(n)), max(n, 1))
    known = {tp.topic for tp in current}
    for name in string_order(futures, copy_capacity(n)):
        if name not in known:
            raise _unknown_topic(f"Topic {name} not found.")
    return string_order(string_order(futures, copy_capacity(n)))


# ----------------------------------------------------------------------------- --generate
def propose_assignment(current: Mapping[TopicPartition, Sequence[int]], topics_order: Sequence[str],
                       brokers: Sequence[UsableBroker], rng: random.Random) -> dict[TopicPartition, list[int]]:
    """``calculateAssignment``: one ``StripedReplicaPlacer.place`` call per topic."""
    inserted = [TopicPartition(t, p) for t in topics_order
                for p in sorted(tp.partition for tp in current if tp.topic == t)]
    grouped: dict[str, list[TopicPartition]] = {}
    for tp in topic_partition_order(inserted):
        grouped.setdefault(tp.topic, []).append(tp)
    placer = StripedReplicaPlacer(rng)
    proposed: dict[TopicPartition, list[int]] = {}
    for topic in string_order(grouped):
        group = grouped[topic]
        replication_factor = len(current[group[0]])
        placements = placer.place(PlacementSpec(0, len(group), replication_factor), brokers)
        proposed.update({TopicPartition(topic, i): list(r) for i, r in enumerate(placements)})
    return proposed


def _usable_brokers(brokers: Sequence[BrokerMetadata], wanted: Sequence[int], rack_aware: bool) -> list[UsableBroker]:
    chosen = [UsableBroker(b.id, b.rack if rack_aware else None, False) for b in brokers if b.id in set(wanted)]
    rackless = sum(1 for b in chosen if b.rack is None)
    if rack_aware and rackless not in (0, len(chosen)):
        raise ReassignCommandError("Not all brokers have rack information. Add --disable-rack-aware in command "
                                   "line to make replica assignment without rack information.",
                                   java_class="org.apache.kafka.tools.AdminOperationException")
    return chosen


def generate(topics_to_move_json: str, broker_list: str, *, current: Mapping[TopicPartition, Sequence[int]],
             brokers: Sequence[BrokerMetadata], rng: random.Random, disable_rack_aware: bool = False,
             replica_log_dirs: ReplicaLogDirs | None = None) -> ToolOutput:
    """``--generate``; ``current`` is the cluster's assignment, ``brokers`` what describeCluster returns."""
    try:
        wanted = parse_broker_list(broker_list)
        topics = parse_topics_to_move(topics_to_move_json)
        check_duplicate_topics(topics)
        order = _described_topics(topics, current)
        selected = {tp: list(r) for tp, r in current.items() if tp.topic in set(topics)}
        dirs = replica_log_dirs(selected) if replica_log_dirs is not None else {}
        usable = _usable_brokers(brokers, wanted, not disable_rack_aware)
        proposed = propose_assignment(selected, order, usable, rng)
    except KafkaException as exc:
        return _failed(exc)
    console = Console()
    console.println(f"Current partition replica assignment\n{format_reassignment_json(selected, dirs)}\n")
    console.println(f"Proposed partition reassignment configuration\n{format_reassignment_json(proposed)}")
    return console.result()


# ----------------------------------------------------------------------------- throttles
def _move_map(ongoing: Mapping[TopicPartition, PartitionReassignment], proposed: Mapping[TopicPartition, Sequence[int]],
              current: Mapping[TopicPartition, Sequence[int]]) -> dict[str, dict[int, tuple[set, set]]]:
    """``calculateProposedMoveMap``: per topic and partition, (source brokers, destination brokers)."""
    moves: dict[str, dict[int, tuple[set, set]]] = {}
    for tp, r in ongoing.items():
        moves.setdefault(tp.topic, {})[tp.partition] = (set(r.replicas) - set(r.adding_replicas),
                                                        set(r.adding_replicas))
    for tp, replicas in proposed.items():
        part_moves = moves.setdefault(tp.topic, {})
        sources = set(part_moves[tp.partition][0]) if tp.partition in part_moves else set(current[tp])
        part_moves[tp.partition] = (sources, set(replicas) - sources)
    return moves


def throttle_configs(ongoing: Mapping[TopicPartition, PartitionReassignment],
                     proposed: Mapping[TopicPartition, Sequence[int]], current: Mapping[TopicPartition, Sequence[int]],
                     throttle: int) -> tuple[dict[str, dict[str, str]], dict[int, dict[str, str]]]:
    """The topic and broker configs ``--execute --throttle`` sets: (per topic, per broker)."""
    topics: dict[str, dict[str, str]] = {}
    brokers: set[int] = set()
    for topic, part_moves in _move_map(ongoing, proposed, current).items():
        leaders = sorted(f"{p}:{b}" for p, (sources, _) in part_moves.items() for b in sources)
        followers = sorted(f"{p}:{b}" for p, (sources, dests) in part_moves.items() for b in dests - sources)
        topics[topic] = {"leader.replication.throttled.replicas": ",".join(leaders),
                         "follower.replication.throttled.replicas": ",".join(followers)}
        for sources, dests in part_moves.values():
            brokers |= sources | dests
    rate = str(throttle)
    return topics, {b: {"leader.replication.throttled.rate": rate, "follower.replication.throttled.rate": rate}
                    for b in sorted(brokers)}


# ----------------------------------------------------------------------------- --execute
def _current_parts(proposed: Mapping[TopicPartition, Sequence[int]],
                   current: Mapping[TopicPartition, Sequence[int]]) -> dict[TopicPartition, list[int]]:
    """``getReplicaAssignmentForPartitions``: unknown topics and partitions fail."""
    _described_topics([tp.topic for tp in topic_partition_order(proposed)], current)
    missing = [tp for tp in topic_partition_order(proposed, hash_set_capacity(len(proposed))) if tp not in current]
    if missing:
        raise _unknown_topic("Unable to find partition: " + ", ".join(str(tp) for tp in missing))
    return {tp: list(current[tp]) for tp in proposed}


def _first_unknown_broker(proposed: Mapping[TopicPartition, Sequence[int]], broker_ids: Iterable[int]) -> None:
    wanted = int_order(b for tp in topic_partition_order(proposed) for b in proposed[tp])
    known = set(broker_ids)
    unknown = next((b for b in wanted if b not in known), None)
    if unknown is not None:
        raise ReassignCommandError(f"Unknown broker id {unknown}")


def current_assignment_text(proposed: Mapping[TopicPartition, Sequence[int]],
                            current: Mapping[TopicPartition, Sequence[int]],
                            replica_log_dirs: ReplicaLogDirs | None = None) -> str:
    """``currentPartitionReplicaAssignmentToString``: the rollback JSON."""
    kept = {tp: current[tp] for tp in current if tp in proposed}
    dirs = replica_log_dirs(kept) if replica_log_dirs is not None else {}
    return (f"Current partition replica assignment\n\n{format_reassignment_json(kept, dirs)}\n\n"
            "Save this to use as the --reassignment-json-file option during rollback")


def execute(reassignment_json: str, *, current: Mapping[TopicPartition, Sequence[int]], broker_ids: Iterable[int],
            ongoing: Mapping[TopicPartition, PartitionReassignment], additional: bool = False,
            throttle: int = -1, replica_alter_log_dirs_throttle: int = -1,
            alter: Callable[[dict[TopicPartition, list[int]]], Mapping[TopicPartition, str]] | None = None,
            set_throttles: Callable[[dict, dict], None] | None = None,
            replica_log_dirs: ReplicaLogDirs | None = None) -> ToolOutput:
    """``--execute``: ``alter(proposed)`` starts the reassignments and returns ``{partition: error message}``."""
    console = Console()
    try:
        proposed, pinned = parse_execute_args(reassignment_json)
        if not additional and ongoing:
            raise ReassignCommandError(CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE, terse=True)
        _first_unknown_broker(proposed, broker_ids)
        current_parts = _current_parts(proposed, current)
        console.println(current_assignment_text(proposed, current_parts, replica_log_dirs))
        if throttle >= 0 or replica_alter_log_dirs_throttle >= 0:
            console.println(YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE)
            if throttle >= 0:
                if set_throttles is not None:
                    set_throttles(*throttle_configs(ongoing, proposed, current_parts, throttle))
                console.println(f"The inter-broker throttle limit was set to {throttle} B/s")
            if replica_alter_log_dirs_throttle >= 0:
                console.println(f"The replica-alter-dir throttle limit was set to {replica_alter_log_dirs_throttle} B/s")
        errors = dict(alter(proposed)) if alter is not None else {}
        if errors:
            raise ReassignCommandError("Error reassigning partition(s):\n" + "\n".join(
                f"{tp}: {errors[tp]}" for tp in _sorted(errors)), terse=True)
    except KafkaException as exc:
        return _failed(exc, console)
    console.println(f"Successfully started partition reassignment{_plural(len(proposed))} for "
                    + ",".join(str(tp) for tp in _sorted(proposed)))
    return console.result()


# ----------------------------------------------------------------------------- --verify, --list, --cancel
def _clear_throttles(console: Console, targets: Sequence[tuple[TopicPartition, list[int]]],
                     broker_ids: Iterable[int], clear: Callable[[list[int], list[str]], None] | None) -> None:
    brokers = int_order([*broker_ids, *(b for _, replicas in targets for b in replicas)])
    console.println(f"Clearing broker-level throttles on broker{_plural(len(brokers))} "
                    + ",".join(str(b) for b in brokers))
    topics = string_order(tp.topic for tp, _ in targets)
    console.println(f"Clearing topic-level throttles on topic{_plural(len(topics))} " + ",".join(topics))
    if clear is not None:
        clear(brokers, topics)


def _state_line(tp: TopicPartition, target: list[int], ongoing: Mapping[TopicPartition, PartitionReassignment],
                current: Mapping[TopicPartition, Sequence[int]]) -> str:
    if tp in ongoing:
        return f"Reassignment of partition {tp} is still in progress."
    partitions = sorted(p.partition for p in current if p.topic == tp.topic)
    if partitions and len(partitions) == tp.partition:      # partitions().get(n) on a list of n
        raise ReassignCommandError(f"Index {tp.partition} out of bounds for length {len(partitions)}",
                                   java_class="java.lang.IndexOutOfBoundsException")
    replicas = list(current.get(tp, ()))
    if replicas == target:
        return f"Reassignment of partition {tp} is completed."
    return (f"There is no active reassignment of partition {tp}, but replica set is "
            f"{','.join(map(str, replicas))} rather than {','.join(map(str, target))}.")


def verify(reassignment_json: str, *, current: Mapping[TopicPartition, Sequence[int]],
           ongoing: Mapping[TopicPartition, PartitionReassignment], broker_ids: Iterable[int],
           preserve_throttles: bool = False,
           clear_throttles: Callable[[list[int], list[str]], None] | None = None) -> ToolOutput:
    """``--verify``; throttles are cleared only when no reassignment at all is ongoing."""
    console = Console()
    try:
        targets, _ = parse_reassignment(reassignment_json)
        lines = [_state_line(tp, target, ongoing, current) for tp, target in
                 sorted(dict(targets).items(), key=lambda item: (item[0].topic, item[0].partition))]
    except KafkaException as exc:
        return _failed(exc, console)
    console.println("\n".join(["Status of partition reassignment:", *lines]))
    console.println("")                       # the (empty) list of replica log-dir moves
    if not ongoing and not preserve_throttles:
        _clear_throttles(console, targets, broker_ids, clear_throttles)
    return console.result()


def list_reassignments(ongoing: Mapping[TopicPartition, PartitionReassignment]) -> ToolOutput:
    """``--list``."""
    lines = []
    for tp in _sorted(ongoing):
        r = ongoing[tp]
        line = f"{tp}: replicas: {','.join(map(str, r.replicas))}."
        if r.adding_replicas:
            line += f" adding: {','.join(map(str, r.adding_replicas))}."
        if r.removing_replicas:
            line += f" removing: {','.join(map(str, r.removing_replicas))}."
        lines.append(line)
    console = Console()
    console.println("Current partition reassignments:\n" + "\n".join(lines) if lines
                    else "No partition reassignments found.")
    return console.result()


def cancel(reassignment_json: str, *, ongoing: Mapping[TopicPartition, PartitionReassignment],
           broker_ids: Iterable[int], preserve_throttles: bool = False,
           cancel: Callable[[list[TopicPartition]], Mapping[TopicPartition, str]] | None = None,
           clear_throttles: Callable[[list[int], list[str]], None] | None = None) -> ToolOutput:
    """``--cancel``: ``cancel(partitions)`` reverts them and returns ``{partition: error message}``."""
    console = Console()
    try:
        targets, _ = parse_reassignment(reassignment_json)
        active = _sorted({tp for tp, _ in targets if tp in ongoing
                          and (ongoing[tp].adding_replicas or ongoing[tp].removing_replicas)})
        if active:
            errors = dict(cancel(active)) if cancel is not None else {}
            if errors:
                raise ReassignCommandError(f"Error cancelling partition reassignment{_plural(len(errors))} for:\n"
                                           + "\n".join(f"{tp}: {errors[tp]}" for tp in _sorted(errors)), terse=True)
            console.println(f"Successfully cancelled partition reassignment{_plural(len(active))} for: "
                            + ",".join(str(tp) for tp in active))
        else:
            console.println("None of the specified partition reassignments are active.")
    except KafkaException as exc:
        return _failed(exc, console)
    console.print("None of the specified partition moves are active.")   # Kafka prints no line break here
    if not preserve_throttles:
        _clear_throttles(console, targets, broker_ids, clear_throttles)
    return console.result()


# ----------------------------------------------------------------------------- ClusterSnapshot adapters
def assignment_from_snapshot(snapshot) -> dict[TopicPartition, list[int]]:
    return {TopicPartition(t.name, p.partition): list(p.replicas) for t in snapshot.topics for p in t.partitions}


def reassignments_from_snapshot(snapshot) -> dict[TopicPartition, PartitionReassignment]:
    return {TopicPartition(t.name, p.partition): PartitionReassignment(tuple(p.replicas), tuple(p.adding_replicas),
                                                                       tuple(p.removing_replicas))
            for t in snapshot.topics for p in t.partitions if p.adding_replicas or p.removing_replicas}


def brokers_from_snapshot(snapshot) -> list[BrokerMetadata]:
    """The brokers ``describeCluster`` returns (registered, not fenced); the sandbox has no racks."""
    return [BrokerMetadata(n.node_id) for n in snapshot.brokers
            if n.registration in ("unfenced", "controlled_shutdown")]


__all__ = ["PartitionReassignment", "BrokerMetadata", "CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE",
           "YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE", "propose_assignment", "generate", "throttle_configs",
           "current_assignment_text", "execute", "verify", "list_reassignments", "cancel",
           "assignment_from_snapshot", "reassignments_from_snapshot", "brokers_from_snapshot"]
