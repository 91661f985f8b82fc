"""`MetadataCache`: the questions clients ask a broker about the cluster, answered from its image.

Theory of operation
-------------------
A KRaft broker answers Metadata, DescribeCluster, DescribeTopicPartitions and
the "who leads now?" hints in Produce and Fetch responses from the metadata
image it has replayed, never by asking the controller.  Two brokers whose
images differ (one has not yet replayed the newest records) may therefore
answer differently for a moment, exactly as in Kafka.

The rules, as Kafka 4.3.1 applies them:

* **alive brokers** are the registered, unfenced ones; each is shown with the
  endpoint of the *listener the request arrived on*, and a broker without
  that listener is left out;
* a partition's **leader** is looked up in the registrations (fenced or not);
  no registration (leader -1, or an unknown id) gives LEADER_NOT_AVAILABLE,
  a registration without the listener gives LISTENER_NOT_FOUND (Metadata v6+)
  or LEADER_NOT_AVAILABLE (older versions);
* **offline replicas** are replicas whose broker is unknown or fenced, lacks
  the listener, or whose log directory is not online;
* Metadata v0 only lists replicas and ISR members that are alive with the
  listener, and flags the partition REPLICA_NOT_AVAILABLE when it dropped any;
* the **controller id** given to clients is a random alive broker (KIP-590):
  brokers forward controller-bound requests, so any of them will do.

Mirrors ``org.apache.kafka.metadata.KRaftMetadataCache`` (Kafka 4.3.1; earlier
releases had it in Scala as ``kafka.server.metadata.KRaftMetadataCache``) and
``DirectoryId.isOnline``.  Simplified: the broker's random draws come from
its seeded node RNG (Kafka uses ``ThreadLocalRandom``); partitions and brokers
are listed in id order, which is also what Kafka's small hash maps produce.

The module's functions take the image they read; `KRaftMetadataCache` binds
them to the broker's current image for the parts that keep asking (the
replica manager, the request handlers).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.broker_registration import BrokerRegistration
from minikafka.metadata.image import MetadataImage, TopicImage
from minikafka.metadata.partition_registration import DirectoryId, PartitionRegistration

NO_LEADER_ID = -1


@dataclass(frozen=True, slots=True)
class BrokerNode:
    """A broker as clients see it: Kafka's ``Node``."""

    node_id: int
    host: str
    port: int
    rack: str | None
    is_fenced: bool = False


@dataclass(frozen=True, slots=True)
class PartitionMetadata:
    """One partition as Metadata / DescribeTopicPartitions report it."""

    partition_index: int
    error: Errors
    leader_id: int
    leader_epoch: int
    replica_nodes: tuple[int, ...]
    isr_nodes: tuple[int, ...]
    offline_replicas: tuple[int, ...]
    eligible_leader_replicas: tuple[int, ...] = ()
    last_known_elr: tuple[int, ...] = ()


def node_of(broker: BrokerRegistration, listener: str) -> BrokerNode | None:
    """The broker's endpoint on ``listener`` (Kafka's ``BrokerRegistration.node``), or None."""
    endpoint = broker.listener(listener)
    if endpoint is None:
        return None
    return BrokerNode(broker.id, endpoint.host, endpoint.port, broker.rack, broker.fenced)


def is_online_dir(directory: Uuid, online_dirs: tuple[Uuid, ...]) -> bool:
    """``DirectoryId.isOnline``: unassigned and migrating replicas count as online, lost ones never."""
    if directory in (DirectoryId.UNASSIGNED, DirectoryId.MIGRATING):
        return True
    if directory == DirectoryId.LOST:
        return False
    return not online_dirs or directory in online_dirs


def alive_brokers(image: MetadataImage, listener: str) -> list[BrokerNode]:
    """Unfenced brokers that have ``listener``, in id order."""
    nodes = (node_of(b, listener) for _, b in sorted(image.cluster.brokers.items()) if not b.fenced)
    return [n for n in nodes if n is not None]


def all_brokers(image: MetadataImage, listener: str) -> list[BrokerNode]:
    """Every registered broker with ``listener``, fenced or not (DescribeCluster v2)."""
    nodes = (node_of(b, listener) for _, b in sorted(image.cluster.brokers.items()))
    return [n for n in nodes if n is not None]


def alive_broker_node(image: MetadataImage, broker_id: int, listener: str) -> BrokerNode | None:
    broker = image.cluster.broker(broker_id)
    if broker is None or broker.fenced:
        return None
    return node_of(broker, listener)


def random_alive_broker_id(image: MetadataImage, rng: random.Random) -> int:
    """KRaft's client-facing controller id: any unfenced broker, or -1 when there is none."""
    alive = [b.id for _, b in sorted(image.cluster.brokers.items()) if not b.fenced]
    return rng.choice(alive) if alive else -1


def offline_replicas(image: MetadataImage, partition: PartitionRegistration,
                     listener: str) -> tuple[int, ...]:
    offline = []
    for index, replica in enumerate(partition.replicas):
        broker = image.cluster.broker(replica)
        directory = partition.directories[index] if partition.directories else DirectoryId.MIGRATING
        if (broker is None or broker.fenced or broker.listener(listener) is None
                or not is_online_dir(directory, broker.directories)):
            offline.append(replica)
    return tuple(offline)


def _alive_with_listener(image: MetadataImage, ids: tuple[int, ...], listener: str) -> tuple[int, ...]:
    out = []
    for broker_id in ids:
        broker = image.cluster.broker(broker_id)
        if broker is not None and not broker.fenced and broker.listener(listener) is not None:
            out.append(broker_id)
    return tuple(out)


def partition_metadata(image: MetadataImage, index: int, partition: PartitionRegistration,
                       listener: str, error_unavailable_endpoints: bool = False,
                       error_unavailable_listeners: bool = True) -> PartitionMetadata:
    """One partition's entry (``getPartitionMetadata``); the two flags follow the Metadata version."""
    replicas, isr = tuple(partition.replicas), tuple(partition.isr)
    if error_unavailable_endpoints:
        replicas = _alive_with_listener(image, replicas, listener)
        isr = _alive_with_listener(image, isr, listener)
    offline = offline_replicas(image, partition, listener)
    leader = image.cluster.broker(partition.leader)
    if leader is None or leader.listener(listener) is None:
        error = Errors.LEADER_NOT_AVAILABLE
        if leader is not None and error_unavailable_listeners:
            error = Errors.LISTENER_NOT_FOUND
        return PartitionMetadata(index, error, NO_LEADER_ID, partition.leader_epoch, replicas, isr,
                                 offline, tuple(partition.elr), tuple(partition.last_known_elr))
    error = Errors.NONE
    if len(replicas) < len(partition.replicas) or len(isr) < len(partition.isr):
        error = Errors.REPLICA_NOT_AVAILABLE
    return PartitionMetadata(index, error, leader.id, partition.leader_epoch, replicas, isr, offline,
                             tuple(partition.elr), tuple(partition.last_known_elr))


def topic_partitions_metadata(image: MetadataImage, topic: str, listener: str,
                              error_unavailable_endpoints: bool = False,
                              error_unavailable_listeners: bool = True) -> list[PartitionMetadata] | None:
    """Every partition of ``topic`` in index order, or None if the topic does not exist."""
    topic_image = image.topics.get_topic(topic)
    if topic_image is None:
        return None
    return [partition_metadata(image, index, partition, listener, error_unavailable_endpoints,
                               error_unavailable_listeners)
            for index, partition in sorted(topic_image.partitions.items())]


def leader_and_epoch(image: MetadataImage, topic: str, partition: int) -> tuple[int, int]:
    """(leader id, leader epoch) from the image, (-1, -1) for an unknown partition."""
    registration = image.partition(topic, partition)
    if registration is None:
        return NO_LEADER_ID, -1
    return registration.leader, registration.leader_epoch


class KRaftMetadataCache:
    """The image the broker replayed last, asked the questions the broker's parts ask of it.

    It holds no copy: each answer reads ``image()`` (the metadata publisher's
    current image), so it is never behind the broker's replay.  The replica
    manager asks it whether a partition exists and whether a broker may join
    an ISR; the request handlers look topics up in it.
    """

    def __init__(self, image: Callable[[], MetadataImage]):
        self._image = image

    @property
    def image(self) -> MetadataImage:
        return self._image()

    def get_topic(self, name_or_id: str | Uuid) -> TopicImage | None:
        return self._image().topics.get_topic(name_or_id)

    def topic_name(self, topic_id: Uuid) -> str | None:
        """The name of topic ``topic_id`` (None: no such topic)."""
        topic = self._image().topics.get_topic(topic_id)
        return topic.name if topic is not None else None

    def partition_exists(self, tp: TopicPartition) -> bool:
        topic = self._image().topics.get_topic(tp.topic)
        return topic is not None and tp.partition in topic.partitions

    def is_broker_fenced(self, broker_id: int) -> bool:
        """Fenced, or not registered at all, in the current image."""
        return self._image().is_fenced(broker_id)

    def is_broker_isr_eligible(self, broker_id: int, broker_epoch: int) -> bool:
        registration = self._image().cluster.broker(broker_id)
        if registration is None or registration.fenced or registration.in_controlled_shutdown:
            return False
        return broker_epoch < 0 or registration.epoch == broker_epoch

    def broker_epoch(self, broker_id: int) -> int:
        """The epoch of ``broker_id``'s registration (-1: not registered)."""
        registration = self._image().cluster.broker(broker_id)
        return registration.epoch if registration else -1
