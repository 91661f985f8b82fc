"""``TopicMetadata`` and the topics image a consumer group's assignment reads.

Theory of operation
-------------------
The server-side assignors of KIP-848 need to know, for every topic a group
subscribes to, its id and how many partitions it has.  The group coordinator
reads this from the broker's metadata image (the KRaft metadata log replayed
on every broker); a consumer group remembers a *hash* of the metadata of the
topics it subscribes to (KIP-1101), and when that hash changes (a topic is
created, deleted or grows partitions) the group epoch is bumped and a new
target assignment computed.

`TopicsImage` is the part of the image this package reads: topics by name
and by id.  The caller builds it from the cluster's metadata and passes a new
one whenever the metadata changes; nothing here reads the cluster itself.

Mirrors ``modern.TopicMetadata``, ``SubscribedTopicDescriberImpl`` and
``Utils.computeGroupHash`` / ``computeTopicHash`` (KIP-1101).  Simplified:
the hash is a 64-bit digest of (topic id, name, partition count) per
subscribed topic, not Kafka's XXH3 over the same fields plus the partitions'
racks, so its value differs from Kafka's; what it is used for (notice a change
of the subscribed topics' metadata) is the same.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable

from minikafka.common.uuid import Uuid


@dataclass(frozen=True, slots=True)
class TopicMetadata:
    topic_id: Uuid
    name: str
    num_partitions: int


@dataclass(frozen=True, slots=True)
class TopicsImage:
    topics: tuple[TopicMetadata, ...] = field(default=())

    @classmethod
    def of(cls, *topics: TopicMetadata) -> "TopicsImage":
        return cls(tuple(topics))

    def by_name(self, name: str) -> TopicMetadata | None:
        for t in self.topics:
            if t.name == name:
                return t
        return None

    def by_id(self, topic_id: Uuid) -> TopicMetadata | None:
        for t in self.topics:
            if t.topic_id == topic_id:
                return t
        return None

    def names(self) -> list[str]:
        return sorted(t.name for t in self.topics)

    def num_partitions(self, topic_id: Uuid) -> int:
        """Partitions of ``topic_id``, or -1 when the topic does not exist (SubscribedTopicDescriber)."""
        topic = self.by_id(topic_id)
        return -1 if topic is None else topic.num_partitions


def group_metadata_hash(image: TopicsImage, subscribed_topic_names: Iterable[str]) -> int:
    """A signed 64-bit hash of the metadata of the subscribed topics that exist; 0 when none do."""
    present = sorted((t for t in (image.by_name(n) for n in set(subscribed_topic_names)) if t is not None),
                     key=lambda t: t.name)
    if not present:
        return 0
    digest = hashlib.sha256()
    for t in present:
        digest.update(t.topic_id.to_bytes() + t.name.encode() + b"\0" + t.num_partitions.to_bytes(4, "big"))
    return int.from_bytes(digest.digest()[:8], "big", signed=True)
