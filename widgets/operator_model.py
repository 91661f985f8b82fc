"""The operator's view of a cluster as plain data: health, disk, balance and traffic per broker.

Theory of operation
-------------------
An operator watching Kafka looks at a handful of MBeans on every broker and
controller and at a few sums across them.  `build_operator_summary` takes them
from a `ClusterSnapshot` (each running node's node-level metrics travel in
``NodeSnapshot.metrics``) and gives one `BrokerRow` per broker and one
`ClusterHealth` for the cluster:

* per broker: its state as an operator can observe it (`observed_state`:
  alive, fenced, not responding, "fenced, not responding", dead), the bytes
  of its log segments on disk, ``PartitionCount`` and ``LeaderCount``
  (balance), ``UnderReplicatedPartitions`` and ``UnderMinIsrPartitionCount``
  (of the partitions it leads), and the ``TenSecondRate`` of
  ``MessagesInPerSec``, ``BytesInPerSec`` and ``BytesOutPerSec``;
* for the cluster: the active controller and the sum of
  ``ActiveControllerCount`` over the controllers (healthy: exactly 1),
  ``OfflinePartitionsCount`` and ``GlobalPartitionCount`` as the active
  controller reports them, and the sum of the brokers' under-replicated
  partitions (each partition is counted by its leader only, so the sum is
  the cluster's number).

A broker that is not running reports no metrics; its numbers are None
(shown as "-"), as a real dashboard shows a gap for a JVM that does not
answer.  The controller metrics come from the active controller, or from any
running controller while an election is on.

What an operator can observe, and nothing more
----------------------------------------------
The sandbox knows why a broker misbehaves (its process was killed, paused
with the equivalent of ``kill -STOP``, or cut off by the network); an
operator does not, and the drills ask learners to find out.  So the state
column holds only observations (`BrokerProbe`, `probe`):

* whether the broker's process is listed by the process table: a crashed
  process is gone, a frozen (stopped) one is still listed;
* its registration as the active controller reports it: fenced once its
  heartbeats have stopped for ``broker.session.timeout.ms``;
* what a request sent to its port gets: an answer, a time-out (a frozen
  process: the connection may even open, nothing answers), or "connection
  refused" (nothing listens).  A broker cut off from the other nodes by a
  network partition still answers clients (the sandbox cuts node-to-node
  traffic only): what shows is its fencing, once its heartbeats stop
  reaching the controller.

`observed_state` folds these into one word or two: ``dead`` (no process),
``not responding`` (requests time out), ``fenced`` (the controller fenced
it), ``fenced, not responding``, or ``alive``.  A paused broker is therefore
"not responding" at once and "fenced, not responding" after the session
timeout, never "paused".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minikafka import ClusterSnapshot, NodeSnapshot

SERVER = "kafka.server:type="
CONTROLLER = "kafka.controller:type=KafkaController,name="
PARTITION_COUNT = SERVER + "ReplicaManager,name=PartitionCount"
LEADER_COUNT = SERVER + "ReplicaManager,name=LeaderCount"
UNDER_REPLICATED = SERVER + "ReplicaManager,name=UnderReplicatedPartitions"
UNDER_MIN_ISR = SERVER + "ReplicaManager,name=UnderMinIsrPartitionCount"
MESSAGES_IN = SERVER + "BrokerTopicMetrics,name=MessagesInPerSec"
BYTES_IN = SERVER + "BrokerTopicMetrics,name=BytesInPerSec"
BYTES_OUT = SERVER + "BrokerTopicMetrics,name=BytesOutPerSec"
ACTIVE_CONTROLLER_COUNT = CONTROLLER + "ActiveControllerCount"
OFFLINE_PARTITIONS = CONTROLLER + "OfflinePartitionsCount"
GLOBAL_PARTITIONS = CONTROLLER + "GlobalPartitionCount"
RATE = "TenSecondRate"


@dataclass(frozen=True, slots=True)
class BrokerRow:
    broker: int
    state: str                          # observed_state: alive | fenced | not responding | ... | dead
    disk_bytes: int                     # bytes of the broker's .log segment files
    partitions: int | None              # PartitionCount (None: the broker answers no metrics)
    leaders: int | None                 # LeaderCount
    under_replicated: int | None        # UnderReplicatedPartitions (of the partitions it leads)
    under_min_isr: int | None           # UnderMinIsrPartitionCount
    messages_in: float | None           # MessagesInPerSec, TenSecondRate (messages/s)
    bytes_in: float | None              # BytesInPerSec, TenSecondRate (bytes/s)
    bytes_out: float | None             # BytesOutPerSec, TenSecondRate (bytes/s)

    @property
    def healthy(self) -> bool:
        return self.state == "alive" and not self.under_replicated and not self.under_min_isr


@dataclass(frozen=True, slots=True)
class ClusterHealth:
    active_controller: int | None       # the quorum leader, None during an election
    active_controller_count: int        # sum of ActiveControllerCount over running controllers
    offline_partitions: int | None      # OfflinePartitionsCount (None: no controller answers)
    partitions: int | None              # GlobalPartitionCount
    under_replicated: int               # sum of UnderReplicatedPartitions over the brokers
    brokers_alive: int
    brokers_total: int

    @property
    def healthy(self) -> bool:
        return (self.active_controller_count == 1 and not self.offline_partitions
                and not self.under_replicated and self.brokers_alive == self.brokers_total)


@dataclass(frozen=True, slots=True)
class OperatorSummary:
    health: ClusterHealth
    brokers: tuple[BrokerRow, ...]


@dataclass(frozen=True, slots=True)
class BrokerProbe:
    """What an operator finds when looking at one broker from outside."""

    broker: int
    process_listed: bool                # the process table lists the broker's process
    registration: str                   # as the active controller reports it (fenced, unfenced...)
    request: str                        # answered | timed out | connection refused


def probe(node: NodeSnapshot) -> BrokerProbe:
    """The observations of ``node`` (see the module docstring): no cause, only symptoms."""
    listed = node.process in ("running", "paused")
    if not listed:
        request = "connection refused"
    elif node.process == "paused":
        request = "timed out"   # the sandbox's isolation cuts nodes from nodes, not from clients
    else:
        request = "answered"
    registration = node.registration or ("unregistered" if node.is_broker else "-")
    return BrokerProbe(node.node_id, listed, registration, request)


def observed_state(node: NodeSnapshot) -> str:
    """One word or two for the state column, from the observations alone."""
    seen = probe(node)
    if not seen.process_listed:
        return "dead"
    fenced = seen.registration in ("fenced", "unregistered")
    if seen.request == "timed out":
        return "fenced, not responding" if fenced else "not responding"
    return "fenced" if fenced else "alive"


def _value(node: NodeSnapshot, mbean: str, attribute: str = "Value") -> Any:
    found = node.metrics.get(mbean)
    return None if found is None else found.get(attribute)


def _broker_row(node: NodeSnapshot) -> BrokerRow:
    return BrokerRow(
        broker=node.node_id, state=observed_state(node), disk_bytes=node.disk_bytes,
        partitions=_value(node, PARTITION_COUNT), leaders=_value(node, LEADER_COUNT),
        under_replicated=_value(node, UNDER_REPLICATED), under_min_isr=_value(node, UNDER_MIN_ISR),
        messages_in=_value(node, MESSAGES_IN, RATE), bytes_in=_value(node, BYTES_IN, RATE),
        bytes_out=_value(node, BYTES_OUT, RATE))


def _reporting_controller(snapshot: ClusterSnapshot) -> NodeSnapshot | None:
    answering = [n for n in snapshot.controllers if n.metrics]
    for node in answering:
        if node.node_id == snapshot.quorum.leader:
            return node
    return answering[0] if answering else None


def build_operator_summary(snapshot: ClusterSnapshot) -> OperatorSummary:
    rows = tuple(_broker_row(node) for node in snapshot.brokers)
    controller = _reporting_controller(snapshot)
    active_counts = [_value(n, ACTIVE_CONTROLLER_COUNT) or 0 for n in snapshot.controllers]
    health = ClusterHealth(
        active_controller=snapshot.quorum.leader,
        active_controller_count=sum(active_counts),
        offline_partitions=None if controller is None else _value(controller, OFFLINE_PARTITIONS),
        partitions=None if controller is None else _value(controller, GLOBAL_PARTITIONS),
        under_replicated=sum(r.under_replicated or 0 for r in rows),
        brokers_alive=sum(1 for r in rows if r.state == "alive"),
        brokers_total=len(rows))
    return OperatorSummary(health, rows)
