"""What the topology picture shows, decided once for every rendering.

Theory of operation
-------------------
The diagram (`widgets.topology.topology_dot`) and its plain-text twin
(`widgets.topology_text.topology_text`) must never disagree, so neither reads
the `ClusterSnapshot` directly.  `build_topology` turns a snapshot into a
`Topology`: one `NodeBox` per node (controllers in the quorum row, brokers
and combined nodes in the broker row) and, inside every broker box, one
`ReplicaMark` per partition replica that broker holds.  The renderers only
lay these out.

A replica's mark follows Kafka's vocabulary for a partition (as
``kafka-topics.sh --describe`` and ``Partition`` in the broker use it):

* ``L``  the partition leader (the broker the controller elected);
* ``F``  a follower; ``(out of sync)`` is added when it is not in the ISR;
* ``-``  the partition has no leader (``Leader: none``), so nobody is a
  follower either; ``(no leader)`` says so;
* ``(adding)`` / ``(removing)`` while a reassignment is moving the replica.

Node states come from `NodeSnapshot.state` (alive, fenced, paused, isolated,
dead).  The broker registration, as the active controller sees it, is added
when it says more than the state does: a killed broker stays *unfenced*
until its session times out (``broker.session.timeout.ms``), and the
picture shows ``dead · unfenced`` during that window.

Simplified: topics are filtered by exact name only (Kafka's tools also take
regular expressions), and a topic with many partitions is cut at
``max_partitions`` with a note saying how many were left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from minikafka import ClusterSnapshot, NodeSnapshot, PartitionSnapshot, TopicSnapshot

DEFAULT_MAX_PARTITIONS = 20
MAX_NAME_CHARS = 24          # longest topic-partition name drawn before it is shortened

_REGISTRATION_WORDS = {
    "unfenced": "unfenced",
    "fenced": "fenced",
    "controlled_shutdown": "in controlled shutdown",
    "unregistered": "unregistered",
}


@dataclass(frozen=True, slots=True)
class ReplicaMark:
    """One partition replica inside a broker box."""

    name: str                           # "orders-1" (shortened when very long)
    role: str                           # "L" leader, "F" follower, "-" no leader
    flags: tuple[str, ...]              # "out of sync", "no leader", "adding", "removing"
    log_end_offset: int | None          # from the broker's own log; None when unknown
    high_watermark: int | None

    @property
    def mark(self) -> str:
        """``L``, ``F`` or ``F (out of sync)`` and friends."""
        return f"{self.role} ({', '.join(self.flags)})" if self.flags else self.role

    @property
    def kind(self) -> str:
        """Colour class: leader, follower, out_of_sync or offline."""
        if self.role == "L":
            return "leader"
        if self.role == "-":
            return "offline"
        return "out_of_sync" if "out of sync" in self.flags else "follower"

    @property
    def offsets(self) -> str:
        """``LEO 12 HW 10``, with ``?`` for what the broker's log could not tell."""
        def show(value: int | None) -> str:
            return "?" if value is None else str(value)
        return f"LEO {show(self.log_end_offset)} HW {show(self.high_watermark)}"


@dataclass(frozen=True, slots=True)
class NodeBox:
    """One node of the picture: a controller, a broker or a combined node."""

    node_id: int
    title: str                          # "broker 1", "node 1 (broker+controller)", ...
    state: str                          # alive | fenced | paused | isolated | dead
    status: str                         # state plus registration, e.g. "dead · unfenced"
    active_controller: bool             # this node is the quorum's current leader
    raft: str | None                    # "leader · epoch 3" for voters; None for pure brokers
    address: str | None                 # "localhost:9092"; None when the node has no listener
    disk: str                           # bytes under its data directory, human-readable
    replicas: tuple[ReplicaMark, ...]   # only for nodes with the broker role
    hidden_replicas: int                # replicas left out by max_partitions

    @property
    def is_broker(self) -> bool:
        return not self.title.startswith("controller")

    @property
    def details(self) -> str:
        """``localhost:9092 · 12.3 KiB``."""
        return " · ".join(part for part in (self.address, self.disk) if part)


@dataclass(frozen=True, slots=True)
class Topology:
    quorum: str                         # one line about the KRaft controller quorum
    controllers: tuple[NodeBox, ...]    # controller-only nodes, by id
    brokers: tuple[NodeBox, ...]        # brokers and combined nodes, by id
    notes: tuple[str, ...]              # hidden partitions, unknown topic names


def human_bytes(size: int) -> str:
    """Bytes in binary units with one decimal: ``512 B``, ``1.5 KiB``, ``3.0 MiB``."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.1f} {unit}"


def short_name(topic: str, partition: int, limit: int = MAX_NAME_CHARS) -> str:
    """``topic-partition``; a long topic name loses its middle, never the partition."""
    suffix = f"-{partition}"
    if len(topic) + len(suffix) <= limit:
        return topic + suffix
    keep = max(2, limit - len(suffix) - 1)
    head = keep - keep // 3
    return topic[:head] + "…" + topic[len(topic) - (keep - head):] + suffix


def build_topology(snapshot: ClusterSnapshot, *, topics: Iterable[str] | str | None = None,
                   show_internal: bool = False,
                   max_partitions: int = DEFAULT_MAX_PARTITIONS) -> Topology:
    """Decide what the picture of ``snapshot`` shows (see the module docstring).

    ``topics``: names to show (a single string is one name); ``None`` shows
    every topic except internal ones such as ``__consumer_offsets``, which
    ``show_internal=True`` adds.  ``max_partitions`` caps the partitions
    drawn per topic.
    """
    if isinstance(max_partitions, bool) or not isinstance(max_partitions, int) \
            or max_partitions < 1:
        raise ValueError(f"max_partitions must be a positive integer, got {max_partitions!r}")
    shown, notes = _select_topics(snapshot, topics, show_internal)
    partitions: list[PartitionSnapshot] = []
    for topic in shown:
        ordered = sorted(topic.partitions, key=lambda p: p.partition)
        partitions.extend(ordered[:max_partitions])
        if len(ordered) > max_partitions:
            notes.append(f"{topic.name}: showing {max_partitions} of {len(ordered)} partitions")
    replicas_of = _replicas_by_broker(partitions)
    hidden_of = _hidden_by_broker(shown, max_partitions)
    nodes = sorted(snapshot.nodes, key=lambda n: n.node_id)
    controllers = tuple(_box(snapshot, n, (), 0) for n in nodes if not n.is_broker)
    brokers = tuple(_box(snapshot, n, tuple(replicas_of.get(n.node_id, ())),
                         hidden_of.get(n.node_id, 0)) for n in nodes if n.is_broker)
    return Topology(_quorum_line(snapshot), controllers, brokers, tuple(notes))


def _select_topics(snapshot: ClusterSnapshot, topics: Iterable[str] | str | None,
                   show_internal: bool) -> tuple[list[TopicSnapshot], list[str]]:
    by_name = {t.name: t for t in snapshot.topics}
    if topics is None:
        chosen = [t for t in by_name.values() if show_internal or not t.internal]
        return sorted(chosen, key=lambda t: t.name), []
    wanted = [topics] if isinstance(topics, str) else list(topics)
    for name in wanted:
        if not isinstance(name, str):
            raise ValueError(f"topic names must be strings, got {name!r}")
    notes = [f"no topic named '{name}'" for name in wanted if name not in by_name]
    chosen = sorted({by_name[name].name for name in wanted if name in by_name})
    return [by_name[name] for name in chosen], notes


def _replicas_by_broker(partitions: list[PartitionSnapshot]) -> dict[int, list[ReplicaMark]]:
    marks: dict[int, list[ReplicaMark]] = {}
    for partition in partitions:
        # Kafka's replica list already contains adding replicas; the union
        # only guards against a snapshot that lists them separately.
        holders = list(partition.replicas) + [b for b in partition.adding_replicas
                                              if b not in partition.replicas]
        for broker in holders:
            marks.setdefault(broker, []).append(replica_mark(partition, broker))
    return marks


def _hidden_by_broker(topics: list[TopicSnapshot], max_partitions: int) -> dict[int, int]:
    hidden: dict[int, int] = {}
    for topic in topics:
        for partition in sorted(topic.partitions, key=lambda p: p.partition)[max_partitions:]:
            for broker in set(partition.replicas) | set(partition.adding_replicas):
                hidden[broker] = hidden.get(broker, 0) + 1
    return hidden


def replica_mark(partition: PartitionSnapshot, broker: int) -> ReplicaMark:
    """The mark of ``broker``'s replica of ``partition``."""
    flags: list[str] = []
    if partition.leader is None:
        role = "-"
        flags.append("no leader")
    elif partition.leader == broker:
        role = "L"
    else:
        role = "F"
    if role != "L" and broker not in partition.isr:
        flags.append("out of sync")
    if broker in partition.adding_replicas:
        flags.append("adding")
    if broker in partition.removing_replicas:
        flags.append("removing")
    state = next((s for s in partition.replica_states if s.broker == broker), None)
    return ReplicaMark(
        name=short_name(partition.topic, partition.partition),
        role=role,
        flags=tuple(flags),
        log_end_offset=state.log_end_offset if state else None,
        high_watermark=state.high_watermark if state else None,
    )


def _box(snapshot: ClusterSnapshot, node: NodeSnapshot, replicas: tuple[ReplicaMark, ...],
         hidden: int) -> NodeBox:
    active = node.node_id == snapshot.quorum.leader
    return NodeBox(
        node_id=node.node_id,
        title=_title(node),
        state=node.state,
        status=_status(node),
        active_controller=active,
        raft=_raft_line(node, active) if node.is_controller else None,
        address=f"{node.host}:{node.port}" if node.port is not None else None,
        disk=human_bytes(node.disk_bytes),
        replicas=replicas,
        hidden_replicas=hidden,
    )


def _title(node: NodeSnapshot) -> str:
    if node.is_broker and node.is_controller:
        return f"node {node.node_id} (broker+controller)"
    return f"{'broker' if node.is_broker else 'controller'} {node.node_id}"


def _status(node: NodeSnapshot) -> str:
    """The state word, plus the registration where it adds something."""
    state = node.state
    registration = node.registration
    if not node.is_broker or registration is None:
        return state
    implied = {"alive": "unfenced", "fenced": "fenced"}.get(state)
    if registration == implied:
        return state
    return f"{state} · {_REGISTRATION_WORDS.get(registration, registration)}"


def _raft_line(node: NodeSnapshot, active: bool) -> str | None:
    """What the node itself believes about the quorum (it may be stale)."""
    if node.raft_role is None:
        return "active controller" if active else None
    epoch = f" · epoch {node.raft_epoch}" if node.raft_epoch is not None else ""
    prefix = "active controller · " if active else ""
    return f"{prefix}{node.raft_role}{epoch}"


def _quorum_line(snapshot: ClusterSnapshot) -> str:
    quorum = snapshot.quorum
    voters = ", ".join(str(v) for v in sorted(quorum.voters))
    leader = (f"active controller {quorum.leader}" if quorum.leader is not None
              else "no active controller (election in progress)")
    return f"KRaft quorum: voters [{voters}] · {leader} · epoch {quorum.epoch}"
