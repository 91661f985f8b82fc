"""The gauges every KRaft controller reports under ``kafka.controller:type=KafkaController``.

Theory of operation
-------------------
Two groups of controller metrics matter to an operator:

* ``ActiveControllerCount`` (`QuorumControllerMetrics`): 1 on the controller
  that currently leads the metadata quorum, 0 on the others.  Summed over the
  controllers it must be exactly 1; 0 means no active controller (the quorum
  lost its majority or an election is running).
* what the controller sees in the committed metadata
  (`ControllerMetadataMetrics`, published from each controller's own
  metadata image, so standby controllers report them too):
  ``GlobalTopicCount``, ``GlobalPartitionCount``, ``OfflinePartitionsCount``
  (partitions without a leader, internal topics included, as Kafka's
  publisher counts them), ``PreferredReplicaImbalanceCount`` (partitions
  whose leader is not their first replica), ``ActiveBrokerCount`` and
  ``FencedBrokerCount`` (registered brokers unfenced / fenced).

Kafka keeps the image metrics up to date incrementally as deltas are
published; the sandbox counts them from the committed image when read,
which gives the same numbers.  Brokers do not report these MBeans (in KRaft
mode only controllers register them); a combined node reports both sets.

Mirrors ``org.apache.kafka.controller.metrics.QuorumControllerMetrics``,
``ControllerMetadataMetrics`` and ``ControllerMetadataMetricsPublisher``.
Simplified: no event-queue histograms, no ZooKeeper-migration gauges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from minikafka.metrics.metric_name import mbean_name
from minikafka.metrics.metrics_registry import MetricsRegistry

if TYPE_CHECKING:
    from minikafka.controller.quorum_controller import QuorumController
    from minikafka.metadata.image import MetadataImage
    from minikafka.metadata.partition_registration import PartitionRegistration


def kafka_controller_metric(name: str) -> str:
    return mbean_name("kafka.controller", "KafkaController", name)


def _partitions(image: "MetadataImage") -> Iterator[PartitionRegistration]:
    for topic in image.topics.topics_by_id.values():
        yield from topic.partitions.values()


def _offline(image: "MetadataImage") -> int:
    return sum(1 for p in _partitions(image) if p.leader < 0)


def _imbalanced(image: "MetadataImage") -> int:
    # Kafka's hasPreferredLeader: the leader is replicas[0] (-1 for an empty replica list)
    return sum(1 for p in _partitions(image) if p.leader != (p.replicas[0] if p.replicas else -1))


def register_controller_metrics(controller: "QuorumController", registry: MetricsRegistry) -> None:
    def image() -> "MetadataImage":
        return controller.committed_image

    gauges = {
        "ActiveControllerCount": lambda: 1 if controller.is_active else 0,
        "GlobalTopicCount": lambda: len(image().topics.topics_by_id),
        "GlobalPartitionCount": lambda: sum(1 for _ in _partitions(image())),
        "OfflinePartitionsCount": lambda: _offline(image()),
        "PreferredReplicaImbalanceCount": lambda: _imbalanced(image()),
        "ActiveBrokerCount": lambda: sum(1 for b in image().cluster.brokers.values() if not b.fenced),
        "FencedBrokerCount": lambda: sum(1 for b in image().cluster.brokers.values() if b.fenced),
    }
    for name, fn in gauges.items():
        registry.gauge(kafka_controller_metric(name), fn)
