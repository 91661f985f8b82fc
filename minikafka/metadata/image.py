"""`MetadataImage`: the cluster metadata as of one offset of the metadata log.

Theory of operation
-------------------
Every node (controllers and brokers alike) holds the metadata as an
immutable `MetadataImage`.  The image changes only one way: a `MetadataDelta`
replays committed records on top of it and ``apply()`` returns the next image
(see `delta`).  Because images never change in place, a component can keep
the image it started from while a newer one is published, and two nodes that
replayed the same records hold equal images.

The image is split like Kafka's: `FeaturesImage` (finalized feature levels,
``metadata.version`` among them), `ClusterImage` (registered brokers and
controllers), `TopicsImage` (every topic by name and by id, each with its
`PartitionRegistration` per partition), `ConfigurationsImage` (dynamic
configs per resource), `ProducerIdsImage` (the next producer id block) and
`MetadataProvenance` (the offset, epoch and time of the last record in it).

Sharing: an applied delta copies only the maps it touched; untouched topics,
partitions and brokers are the same objects in the old and the new image.

Mirrors ``org.apache.kafka.image.MetadataImage`` and its parts.  Simplified:
no ACL, SCRAM, client-quota or delegation-token images (the sandbox has no
security features); maps are read-only views of plain dicts instead of
persistent hash maps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, TypeVar

from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.broker_registration import BrokerRegistration, ControllerRegistration
from minikafka.metadata.partition_registration import PartitionRegistration

METADATA_VERSION = "metadata.version"

K = TypeVar("K")
V = TypeVar("V")

_EMPTY: Mapping[Any, Any] = MappingProxyType({})


def _empty() -> Mapping[Any, Any]:
    return _EMPTY


def frozen_map(entries: dict[K, V]) -> Mapping[K, V]:
    """A read-only view of ``entries`` (the caller must not keep mutating the dict)."""
    return MappingProxyType(entries)


@dataclass(frozen=True, slots=True)
class MetadataProvenance:
    """Where an image comes from: the last metadata log record it includes."""

    last_contained_offset: int = -1      # offset of the last record applied
    last_contained_epoch: int = -1       # leader epoch of that record's batch
    last_contained_log_time_ms: int = -1  # append time of that batch


@dataclass(frozen=True, slots=True)
class FeaturesImage:
    # feature -> finalized level; metadata.version is kept apart, below
    finalized_versions: Mapping[str, int] = field(default_factory=_empty)
    metadata_version: int | None = None             # metadata.version feature level (30 = 4.3-IV0)

    def level(self, feature: str) -> int:
        """The finalized level of ``feature``; 0 means "not enabled"."""
        if feature == METADATA_VERSION:
            return self.metadata_version or 0
        return self.finalized_versions.get(feature, 0)


@dataclass(frozen=True, slots=True)
class ClusterImage:
    brokers: Mapping[int, BrokerRegistration] = field(default_factory=_empty)          # by broker id
    controllers: Mapping[int, ControllerRegistration] = field(default_factory=_empty)  # by controller id

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        return self.brokers.get(broker_id)

    def broker_epoch(self, broker_id: int) -> int:
        """The registered epoch, or -1 for an unknown broker (as Kafka's ClusterImage)."""
        broker = self.brokers.get(broker_id)
        return -1 if broker is None else broker.epoch

    def unfenced_broker_ids(self) -> list[int]:
        return sorted(b.id for b in self.brokers.values() if not b.fenced)


@dataclass(frozen=True, slots=True)
class TopicImage:
    name: str                                       # topic name
    topic_id: Uuid                                  # topic id from the TopicRecord
    partitions: Mapping[int, PartitionRegistration] = field(default_factory=_empty)  # by partition index

    def partition(self, index: int) -> PartitionRegistration | None:
        return self.partitions.get(index)


@dataclass(frozen=True, slots=True)
class TopicsImage:
    topics_by_id: Mapping[Uuid, TopicImage] = field(default_factory=_empty)   # topic id -> topic
    topics_by_name: Mapping[str, TopicImage] = field(default_factory=_empty)  # topic name -> the same topic

    def get_topic(self, name_or_id: str | Uuid) -> TopicImage | None:
        if isinstance(name_or_id, Uuid):
            return self.topics_by_id.get(name_or_id)
        return self.topics_by_name.get(name_or_id)

    def partition(self, topic: str | Uuid, index: int) -> PartitionRegistration | None:
        image = self.get_topic(topic)
        return None if image is None else image.partition(index)


@dataclass(frozen=True, slots=True, order=True)
class ConfigResource:
    """A resource that has dynamic configs: ``ConfigResource(TOPIC, "orders")``.

    The type is ``ConfigResource.Type``'s id, as written in ConfigRecord.
    """

    type: int
    name: str

    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4               # name "" is the cluster-wide default for every broker
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32
    TYPE_NAMES = {0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS",
                  32: "GROUP"}

    def __str__(self) -> str:
        return f"ConfigResource(type={self.TYPE_NAMES.get(self.type, self.type)}, name='{self.name}')"


@dataclass(frozen=True, slots=True)
class ConfigurationsImage:
    # resource -> {config name: value}; only resources with at least one dynamic config
    resource_data: Mapping[ConfigResource, Mapping[str, str]] = field(default_factory=_empty)

    def config(self, resource: ConfigResource) -> Mapping[str, str]:
        """The dynamic configs set on ``resource`` (empty if none)."""
        return self.resource_data.get(resource, _EMPTY)

    def topic_config(self, topic: str) -> Mapping[str, str]:
        return self.config(ConfigResource(ConfigResource.TOPIC, topic))

    def broker_config(self, broker_id: int | str) -> Mapping[str, str]:
        """Per-broker configs; ``""`` gives the cluster-wide broker defaults."""
        return self.config(ConfigResource(ConfigResource.BROKER, str(broker_id)))


@dataclass(frozen=True, slots=True)
class ProducerIdsImage:
    next_producer_id: int = -1            # first id of the next block the controller hands out


@dataclass(frozen=True, slots=True)
class MetadataImage:
    provenance: MetadataProvenance = field(default_factory=MetadataProvenance)
    features: FeaturesImage = field(default_factory=FeaturesImage)
    cluster: ClusterImage = field(default_factory=ClusterImage)
    topics: TopicsImage = field(default_factory=TopicsImage)
    configs: ConfigurationsImage = field(default_factory=ConfigurationsImage)
    producer_ids: ProducerIdsImage = field(default_factory=ProducerIdsImage)

    @property
    def offset(self) -> int:
        """Offset of the last record this image includes (-1 for the empty image)."""
        return self.provenance.last_contained_offset

    def is_empty(self) -> bool:
        return self == EMPTY_IMAGE

    # ------------------------------------------------------------------ handy queries
    def partition(self, topic: str | Uuid, index: int) -> PartitionRegistration | None:
        return self.topics.partition(topic, index)

    def topic(self, name_or_id: str | Uuid) -> TopicImage | None:
        return self.topics.get_topic(name_or_id)

    def topic_names(self) -> list[str]:
        return sorted(self.topics.topics_by_name)

    def topic_partitions(self) -> list[TopicPartition]:
        """Every partition of every topic, sorted as Kafka's tools sort them."""
        return sorted(TopicPartition(t.name, index)
                      for t in self.topics.topics_by_id.values() for index in t.partitions)

    def topics_hosted_by(self, broker_id: int) -> list[TopicPartition]:
        """The partitions that have a replica on ``broker_id``."""
        return sorted(TopicPartition(t.name, index)
                      for t in self.topics.topics_by_id.values()
                      for index, p in t.partitions.items() if broker_id in p.replicas)

    def leaders(self) -> dict[TopicPartition, int]:
        """The leader of every partition (-1 where there is none)."""
        return {tp: self.topics.topics_by_name[tp.topic].partitions[tp.partition].leader
                for tp in self.topic_partitions()}

    def partitions_led_by(self, broker_id: int) -> list[TopicPartition]:
        return [tp for tp, leader in self.leaders().items() if leader == broker_id]

    def is_fenced(self, broker_id: int) -> bool:
        """True for a fenced broker, and for one that is not registered at all."""
        broker = self.cluster.broker(broker_id)
        return broker is None or broker.fenced

    def metadata_version(self) -> int | None:
        """The finalized ``metadata.version`` feature level, None before bootstrap."""
        return self.features.metadata_version


EMPTY_IMAGE = MetadataImage()
