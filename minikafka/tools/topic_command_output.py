"""``kafka-topics.sh``: ``--describe``, ``--list``, ``--create`` and the error line, as Kafka 4.3.1 prints them.

Theory of operation
-------------------
The tool selects topics first, then prints.  *Selection* (``getTopics``):
all topic names, internal ones included unless ``--exclude-internal``,
sorted, then filtered by ``--topic``, which is a regular expression (commas
mean "or", spaces and surrounding quotes are dropped) that must match the
whole name.  If ``--topic`` matched nothing the tool fails with
``Error while executing topic command : Topic 'x' does not exist as
expected`` (exit code 1) unless ``--if-exists`` was given.

*Printing* (``--describe``): for each topic a topic line, then one line per
partition in partition order.  Topics come out in the iteration order of the
``HashMap`` the admin client hands back, not sorted (see `describe_order`).
The topic line omits ``TopicId`` for the zero id; ``Configs:`` joins the
entries that are not Kafka defaults, in the admin client's order.  A
partition line shows ``Leader: none`` without a leader, ``Adding
Replicas``/``Removing Replicas`` only while a reassignment runs (and then the
replication factor counts only the target replicas), and ``Elr:`` /
``LastKnownElr:`` lists, which a 4.x broker sends (usually empty, so the
line ends with ``LastKnownElr: ``); ``N/A`` appears only when the admin
client had to fall back to the Metadata API.  The report options
(``--under-replicated-partitions`` ...) drop the topic lines and keep only
the partitions that match any of them; ``--topics-with-overrides`` prints
only topic lines of topics with a non-default config.

Mirrors ``org.apache.kafka.tools.TopicCommand`` (4.3.1) and its
``TopicFilter.IncludeList``.  Simplified: Java regular expressions are run
by Python's ``re`` (identical for the usual names and ``.*`` patterns);
``--alter`` and ``--delete`` print nothing on success and are not modelled;
the ``MarkedForDeletion`` flag, which 4.x never sets, is not modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from minikafka.common import topic as topic_rules
from minikafka.common.config.describe import admin_order, describe_topic
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.uuid import Uuid
from minikafka.tools.java_hash_codes import copy_capacity, string_order
from minikafka.tools.tool_output import Console, ToolOutput

ZERO_UUID = str(Uuid.ZERO)
COLLISION_WARNING = ("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore "
                     "('_') could collide. To avoid issues it is best to use either, but not both.")


@dataclass(frozen=True, slots=True)
class TopicPartitionInfo:
    """One partition as ``describeTopics`` and ``listPartitionReassignments`` report it."""

    partition: int
    leader: int | None                          # None: no leader ("Leader: none")
    replicas: tuple[int, ...]                   # assignment order (during a reassignment: all of them)
    isr: tuple[int, ...]                        # Kafka's stored order, not sorted
    elr: tuple[int, ...] | None = ()            # None: unknown (Metadata API fallback, prints N/A)
    last_known_elr: tuple[int, ...] | None = ()
    adding_replicas: tuple[int, ...] = ()       # non-empty only while a reassignment runs
    removing_replicas: tuple[int, ...] = ()

    @property
    def reassigning(self) -> bool:
        """Whether ``listPartitionReassignments`` lists this partition."""
        return bool(self.adding_replicas or self.removing_replicas)

    @property
    def replication_factor(self) -> int:
        """``TopicCommand.getReplicationFactor``: during a reassignment, the target count."""
        changing = set(self.adding_replicas) | set(self.removing_replicas)
        if self.reassigning and changing & set(self.replicas):
            return len(self.replicas) - len(self.adding_replicas)
        return len(self.replicas)


@dataclass(frozen=True, slots=True)
class TopicDescription:
    """A topic with its partitions and the config facts ``--describe`` needs."""

    name: str
    topic_id: str                                          # base64; the zero id is not printed
    partitions: tuple[TopicPartitionInfo, ...]
    configs: tuple[tuple[str, str | None], ...] = ()      # non-default entries, in the admin client's order
    min_insync_replicas: int = 1                           # effective value (for the min-ISR reports)


# ----------------------------------------------------------------------------- single lines
def _ids(ids: Iterable[int]) -> str:
    return ",".join(str(i) for i in ids)


def format_topic_line(topic: TopicDescription) -> str:
    partitions = sorted(topic.partitions, key=lambda p: p.partition)
    text = f"Topic: {topic.name}"
    if topic.topic_id != ZERO_UUID:
        text += f"\tTopicId: {topic.topic_id}"
    text += f"\tPartitionCount: {len(partitions)}\tReplicationFactor: {partitions[0].replication_factor}"
    configs = ",".join(f"{name}={value}" for name, value in topic.configs)
    return text + f"\tConfigs: {configs}"


def format_partition_line(topic: str, info: TopicPartitionInfo) -> str:
    leader = "none" if info.leader is None else str(info.leader)
    text = (f"\tTopic: {topic}\tPartition: {info.partition}\tLeader: {leader}"
            f"\tReplicas: {_ids(info.replicas)}\tIsr: {_ids(info.isr)}")
    if info.reassigning:
        text += f"\tAdding Replicas: {_ids(info.adding_replicas)}\tRemoving Replicas: {_ids(info.removing_replicas)}"
    text += "\tElr: " + ("N/A" if info.elr is None else _ids(info.elr))
    text += "\tLastKnownElr: " + ("N/A" if info.last_known_elr is None else _ids(info.last_known_elr))
    return text


# ----------------------------------------------------------------------------- selection
class TopicCommandError(Exception):
    """A failure the tool reports as ``Error while executing topic command : <message>``."""


def _include_pattern(raw: str) -> re.Pattern:
    """``TopicFilter``: commas become alternatives, spaces and surrounding quotes go."""
    regex = re.sub(r"[\"']+$", "", re.sub(r"^[\"']+", "", raw.strip().replace(",", "|").replace(" ", "")))
    try:
        return re.compile(regex)
    except re.error:
        raise TopicCommandError(f"{regex} is an invalid regex.") from None


def select_topics(names: Iterable[str], topic: str | None = None, exclude_internal: bool = False,
                  if_exists: bool = False) -> list[str]:
    """``getTopics`` + ``ensureTopicExists``: the sorted names the command works on."""
    candidates = sorted(set(names))
    if exclude_internal:
        candidates = [n for n in candidates if not topic_rules.is_internal(n)]
    if topic is not None:
        pattern = _include_pattern(topic)
        candidates = [n for n in candidates if pattern.fullmatch(n)]
        if topic and not if_exists and not candidates:
            raise TopicCommandError(f"Topic '{topic}' does not exist as expected")
    return candidates


def describe_order(names: Sequence[str]) -> list[str]:
    """The order ``--describe`` prints several topics in.

    The sorted names go into the admin client's future map (``new
    HashMap<>(n)``), which is copied (``new HashMap<>(map)``), and
    ``DescribeTopicsResult.allTopicNames`` collects the results into a third
    ``new HashMap<>(n)``; the tool prints that map's values.
    """
    n = len(names)
    futures = string_order(sorted(names), max(n, 1))
    returned = string_order(futures, copy_capacity(n))
    return string_order(returned, max(n, 1))


# ----------------------------------------------------------------------------- commands
def _matches_reports(info: TopicPartitionInfo, topic: TopicDescription, live_brokers: set[int],
                     reports: dict[str, bool]) -> bool:
    no_leader = info.leader is None
    return ((reports["under_replicated"] and info.replication_factor - len(info.isr) > 0)
            or (reports["unavailable"] and (no_leader or info.leader not in live_brokers))
            or (reports["under_min_isr"] and (no_leader or len(info.isr) < topic.min_insync_replicas))
            or (reports["at_min_isr"] and topic.min_insync_replicas == len(info.isr)))


def describe(topics: Iterable[TopicDescription], *, topic: str | None = None, topic_id: str | None = None,
             exclude_internal: bool = False, if_exists: bool = False,
             under_replicated_partitions: bool = False, under_min_isr_partitions: bool = False,
             at_min_isr_partitions: bool = False, unavailable_partitions: bool = False,
             topics_with_overrides: bool = False, live_brokers: Iterable[int] = ()) -> ToolOutput:
    """``kafka-topics.sh --describe`` over ``topics`` (every topic of the cluster)."""
    by_name = {t.name: t for t in topics}
    console = Console()
    try:
        if topic_id is not None and topic_id != ZERO_UUID:
            names = [t.name for t in by_name.values() if t.topic_id == topic_id
                     and not (exclude_internal and topic_rules.is_internal(t.name))]
            if not names and not if_exists:
                raise TopicCommandError(f"TopicId '{topic_id}' does not exist as expected")
        else:
            names = select_topics(by_name, topic, exclude_internal, if_exists)
    except TopicCommandError as exc:
        return error(str(exc))
    reports = {"under_replicated": under_replicated_partitions, "under_min_isr": under_min_isr_partitions,
               "at_min_isr": at_min_isr_partitions, "unavailable": unavailable_partitions}
    describe_configs = not any(reports.values())
    live = set(live_brokers)
    for name in describe_order(names):
        description = by_name[name]
        if describe_configs and (not topics_with_overrides or description.configs):
            console.println(format_topic_line(description))
        if topics_with_overrides:
            continue
        for info in sorted(description.partitions, key=lambda p: p.partition):
            if describe_configs or _matches_reports(info, description, live, reports):
                console.println(format_partition_line(name, info))
    return console.result()


def list_topics(names: Iterable[str], *, topic: str | None = None, exclude_internal: bool = False) -> ToolOutput:
    """``kafka-topics.sh --list``: one name per line, sorted (an empty cluster prints one empty line)."""
    try:
        selected = select_topics(names, topic, exclude_internal, if_exists=True)
    except TopicCommandError as exc:
        return error(str(exc))
    console = Console()
    console.println("\n".join(selected))
    return console.result()


def create(name: str) -> ToolOutput:
    """What ``kafka-topics.sh --create`` prints once the topic exists."""
    console = Console()
    if topic_rules.has_collision_chars(name):
        console.println(COLLISION_WARNING)
    console.println(f"Created topic {name}.")
    return console.result()


def error(message: str, warning_for: str | None = None) -> ToolOutput:
    """A failed command: ``Error while executing topic command : <message>`` on stdout, exit code 1.

    ``warning_for`` is the topic name of a failed ``--create``, whose collision
    warning Kafka prints before it even asks the cluster.
    """
    console = Console()
    if warning_for is not None and topic_rules.has_collision_chars(warning_for):
        console.println(COLLISION_WARNING)
    console.println(f"Error while executing topic command : {message}")
    return console.result(exit_code=1)


def does_not_exist_message(topic: str) -> str:
    return f"Topic '{topic}' does not exist as expected"


# ----------------------------------------------------------------------------- ClusterSnapshot adapter
def _default_broker_config() -> KafkaConfig:
    """A broker with nothing but the required settings: every topic config default is Kafka's."""
    return KafkaConfig({"node.id": "1", "process.roles": "broker", "controller.listener.names": "CONTROLLER",
                        "controller.quorum.voters": "1001@localhost:9093", "log.dirs": "/tmp/kafka-logs"})


def from_snapshot(snapshot, broker_config: KafkaConfig | None = None) -> list[TopicDescription]:
    """Every topic of a ``ClusterSnapshot`` as `TopicDescription`.

    ``broker_config`` is a broker's effective configuration: its static
    settings (``log.segment.bytes`` ...) are non-default values and show up in
    ``Configs:``.  Without it the broker is assumed to run Kafka's defaults.
    ``Elr:`` and ``LastKnownElr:`` come from the snapshot's partitions.
    """
    broker = broker_config or _default_broker_config()
    result = []
    for topic in snapshot.topics:
        described = describe_topic(topic.name, dict(topic.configs), broker)
        entries = admin_order(described.entries)
        configs = tuple((e.name, e.value) for e in entries if not e.is_default)
        min_isr = next((int(e.value) for e in entries if e.name == "min.insync.replicas"), 1)
        partitions = tuple(TopicPartitionInfo(p.partition, p.leader, tuple(p.replicas), tuple(p.isr),
                                              tuple(p.elr), tuple(p.last_known_elr),
                                              tuple(p.adding_replicas), tuple(p.removing_replicas))
                           for p in topic.partitions)
        result.append(TopicDescription(topic.name, str(topic.topic_id), partitions, configs, min_isr))
    return result


def live_brokers_from_snapshot(snapshot) -> list[int]:
    """The brokers ``describeCluster`` returns: registered and not fenced."""
    return [n.node_id for n in snapshot.brokers if n.registration in ("unfenced", "controlled_shutdown")]


__all__ = ["TopicPartitionInfo", "TopicDescription", "TopicCommandError", "COLLISION_WARNING",
           "format_topic_line", "format_partition_line", "select_topics", "describe_order", "describe",
           "list_topics", "create", "error", "does_not_exist_message", "from_snapshot",
           "live_brokers_from_snapshot"]
