"""The gauges and ISR meters a broker registers: ReplicaManager, KafkaServer and Log.

Theory of operation
-------------------
A Kafka broker's operators watch a handful of numbers, each a gauge the
owning component registers and the registry reads on demand:

* ``kafka.server:type=ReplicaManager``:
  ``LeaderCount`` (partitions this broker leads), ``PartitionCount`` (replicas
  it hosts), ``UnderReplicatedPartitions`` (partitions it *leads* whose ISR is
  smaller than the replica set; a follower never counts, so the cluster total
  is the sum over brokers), ``UnderMinIsrPartitionCount`` and
  ``AtMinIsrPartitionCount`` (led partitions whose ISR is below / exactly at
  the effective ``min.insync.replicas``), ``ReassigningPartitions`` (led
  partitions with replicas being added or removed) and
  ``OfflineReplicaCount``; and the meters ``IsrShrinksPerSec``,
  ``IsrExpandsPerSec`` and ``FailedIsrUpdatesPerSec``, marked by `Partition`
  when the controller answers its AlterPartition request;
* ``kafka.server:type=KafkaServer,name=BrokerState``: the broker's state as
  Kafka's ``BrokerState`` value (3 = RUNNING, 6 = PENDING_CONTROLLED_SHUTDOWN...);
* ``kafka.log:type=Log,name=Size|LogEndOffset|LogStartOffset|NumLogSegments,
  topic=<t>,partition=<p>``: one set per log on this broker.

The replication factor of a partition being reassigned is its replica count
without the replicas being added, as in Kafka's ``OngoingReassignmentState``.

What it depends on, all passed in by `BrokerServer`: the registry, the
replica manager's partition map (read each time a gauge is read), the
broker's lifecycle state (a callable) and its live logs (the `LogManager`'s
map of them).

Mirrors the gauge definitions in ``kafka.server.ReplicaManager``,
``kafka.server.KafkaBroker`` and ``kafka.log.UnifiedLog`` (Kafka 4.x).
Simplified: one log directory, so ``OfflineReplicaCount`` is always 0; no
``ProducerIdCount`` or late-transaction gauges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from minikafka.metrics.metric_name import mbean_name
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.server.broker_lifecycle_manager import BrokerState

if TYPE_CHECKING:
    from minikafka.common.topic_partition import TopicPartition
    from minikafka.server.partition import Partition
    from minikafka.storage.unified_log import UnifiedLog

BROKER_STATE_VALUES = {BrokerState.NOT_RUNNING: 0, BrokerState.STARTING: 1, BrokerState.RECOVERY: 2,
                       BrokerState.RUNNING: 3, BrokerState.PENDING_CONTROLLED_SHUTDOWN: 6,
                       BrokerState.SHUTTING_DOWN: 7}


def replica_manager_metric(name: str) -> str:
    return mbean_name("kafka.server", "ReplicaManager", name)


def is_under_replicated(partition: "Partition") -> bool:
    replication_factor = len(partition.replicas) - len(partition.adding_replicas)
    return partition.is_leader and replication_factor - len(partition.isr) > 0


def _is_at_min_isr(partition: "Partition") -> bool:
    return partition.is_leader and partition.log is not None and len(partition.isr) == partition.min_isr()


def _is_reassigning(partition: "Partition") -> bool:
    return partition.is_leader and bool(partition.adding_replicas or partition.removing_replicas)


class IsrChangeMeters:
    """The three meters `Partition` marks when its AlterPartition is answered."""

    def __init__(self, registry: MetricsRegistry):
        self.expands = registry.meter(replica_manager_metric("IsrExpandsPerSec"), "expands")
        self.shrinks = registry.meter(replica_manager_metric("IsrShrinksPerSec"), "shrinks")
        self.failed = registry.meter(replica_manager_metric("FailedIsrUpdatesPerSec"), "failedUpdates")


def register_broker_metrics(registry: MetricsRegistry, *,
                            partitions: Mapping["TopicPartition", "Partition"],
                            broker_state: Callable[[], BrokerState],
                            logs: Mapping["TopicPartition", "UnifiedLog"]) -> IsrChangeMeters:
    """Register the gauges on ``registry`` (each reads the live maps when read); returns the
    ISR change meters for the replica manager's partitions to mark."""
    def leaders() -> Iterator["Partition"]:
        return (p for p in partitions.values() if p.is_leader)

    counts = {
        "LeaderCount": lambda: sum(1 for _ in leaders()),
        "PartitionCount": lambda: len(partitions),
        "OfflineReplicaCount": lambda: 0,
        "UnderReplicatedPartitions": lambda: sum(1 for p in leaders() if is_under_replicated(p)),
        "UnderMinIsrPartitionCount": lambda: sum(1 for p in leaders()
                                                 if p.log is not None and p.is_under_min_isr()),
        "AtMinIsrPartitionCount": lambda: sum(1 for p in leaders() if _is_at_min_isr(p)),
        "ReassigningPartitions": lambda: sum(1 for p in leaders() if _is_reassigning(p)),
    }
    for name, fn in counts.items():
        registry.gauge(replica_manager_metric(name), fn)
    registry.gauge(mbean_name("kafka.server", "KafkaServer", "BrokerState"),
                   lambda: BROKER_STATE_VALUES[broker_state()])
    registry.gauges(lambda: _log_gauges(logs))
    return IsrChangeMeters(registry)


def _log_gauges(logs: Mapping["TopicPartition", "UnifiedLog"]) -> Iterator[tuple[str, int]]:
    for tp, log in logs.items():
        tags = (("topic", tp.topic), ("partition", str(tp.partition)))
        yield mbean_name("kafka.log", "Log", "NumLogSegments", tags), log.number_of_segments
        yield mbean_name("kafka.log", "Log", "LogStartOffset", tags), log.log_start_offset
        yield mbean_name("kafka.log", "Log", "LogEndOffset", tags), log.log_end_offset
        yield mbean_name("kafka.log", "Log", "Size", tags), log.size_in_bytes
