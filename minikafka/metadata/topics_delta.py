"""`TopicsDelta`: topic and partition changes on their way into the next `TopicsImage`.

Theory of operation
-------------------
A `TopicsDelta` collects the topic records of a batch: `TopicRecord` starts a
new topic, `PartitionRecord` sets a partition's whole state,
`PartitionChangeRecord` merges a change into the latest state (the one
already in this delta, else the image's), `RemoveTopicRecord` deletes a
topic (a topic created and deleted within one delta leaves no trace) and
`ClearElrRecord` empties the eligible leader replicas.  ``apply()`` builds the
next `TopicsImage`, copying only the maps of topics that changed.

``local_changes(broker_id)`` answers the question a broker's ReplicaManager
asks after each delta: which local replicas must be *deleted* (the broker is
no longer a replica, or the topic is gone), which partitions it must now
*lead* (and of those, which have a new leader epoch: *elected_leaders*) and
which it must *follow* -- each with the partition's new registration.  A
partition counts only if its partition epoch moved, so unrelated records
never disturb a replica.

Mirrors ``org.apache.kafka.image.TopicsDelta``, ``TopicDelta`` and
``LocalReplicaChanges``.  Simplified: the unclean/ELR election counters
Kafka keeps for metrics are not kept; replay errors are RuntimeError with
Kafka's message; results are sorted so a simulation replays identically.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.image import TopicImage, TopicsImage, frozen_map
from minikafka.metadata.partition_registration import PartitionRegistration
from minikafka.metadata.records import (ClearElrRecord, PartitionChangeRecord, PartitionRecord,
                                        RemoveTopicRecord, TopicRecord)


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    """A partition this broker must lead or follow: its topic id and new registration."""

    topic_id: Uuid
    partition: PartitionRegistration


@dataclass(frozen=True, slots=True)
class LocalReplicaChanges:
    """What one broker must do with its replicas after a delta (sorted by partition)."""

    deletes: tuple[TopicPartition, ...] = ()                                       # stop and delete
    elected_leaders: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)  # new leader epoch
    leaders: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)     # lead (any change)
    followers: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)   # follow (any change)
    topic_ids: dict[str, Uuid] = field(default_factory=dict)                       # topics of the above
    directory_ids: dict[TopicPartition, Uuid] = field(default_factory=dict)        # new/changed log dir


class _ChangesCollector:
    """The mutable parts of a `LocalReplicaChanges` while the topic deltas fill them in."""

    def __init__(self) -> None:
        self.deletes: list[TopicPartition] = []
        self.elected_leaders: dict[TopicPartition, PartitionInfo] = {}
        self.leaders: dict[TopicPartition, PartitionInfo] = {}
        self.followers: dict[TopicPartition, PartitionInfo] = {}
        self.topic_ids: dict[str, Uuid] = {}
        self.directory_ids: dict[TopicPartition, Uuid] = {}

    def result(self) -> LocalReplicaChanges:
        return LocalReplicaChanges(
            deletes=tuple(sorted(set(self.deletes))),
            elected_leaders=dict(sorted(self.elected_leaders.items())),
            leaders=dict(sorted(self.leaders.items())),
            followers=dict(sorted(self.followers.items())),
            topic_ids=dict(sorted(self.topic_ids.items())),
            directory_ids=dict(sorted(self.directory_ids.items())))


class TopicDelta:
    """Changes to one topic's partitions."""

    def __init__(self, image: TopicImage):
        self.image = image                                          # the topic before this delta
        self.partition_changes: dict[int, PartitionRegistration] = {}  # index -> latest state

    @property
    def name(self) -> str:
        return self.image.name

    @property
    def topic_id(self) -> Uuid:
        return self.image.topic_id

    def latest(self, index: int) -> PartitionRegistration | None:
        found = self.partition_changes.get(index)
        return found if found is not None else self.image.partitions.get(index)

    def replay_partition(self, record: PartitionRecord) -> None:
        self.partition_changes[record.partition_id] = PartitionRegistration.from_record(record)

    def replay_change(self, record: PartitionChangeRecord) -> None:
        previous = self.latest(record.partition_id)
        if previous is None:
            raise RuntimeError(f"Unable to find partition {record.topic_id}:{record.partition_id}")
        self.partition_changes[record.partition_id] = previous.merge(record)

    def clear_elr(self) -> None:
        """ClearElrRecord: empty the ELR of every partition that has one."""
        indexes = list(self.partition_changes) + [i for i in self.image.partitions
                                                   if i not in self.partition_changes]
        for index in indexes:
            current = self.latest(index)
            assert current is not None  # every index listed has a registration
            if current.elr or current.last_known_elr:
                self.partition_changes[index] = current.merge(PartitionChangeRecord(
                    partition_id=index, topic_id=self.topic_id,
                    eligible_leader_replicas=(), last_known_elr=()))

    def new_partitions(self) -> dict[int, PartitionRegistration]:
        return {i: p for i, p in self.partition_changes.items() if i not in self.image.partitions}

    def apply(self) -> TopicImage:
        if not self.partition_changes:
            return self.image
        partitions = dict(self.image.partitions)
        partitions.update(self.partition_changes)
        return TopicImage(self.image.name, self.image.topic_id, frozen_map(partitions))

    def local_changes(self, broker_id: int, changes: _ChangesCollector) -> None:
        """Add this topic's part of `TopicsDelta.local_changes` to ``changes``."""
        for index, partition in self.partition_changes.items():
            tp = TopicPartition(self.name, index)
            previous = self.image.partitions.get(index)
            if broker_id not in partition.replicas:
                if previous is not None and broker_id in previous.replicas:
                    changes.deletes.append(tp)
                continue
            if previous is None or previous.partition_epoch != partition.partition_epoch:
                info = PartitionInfo(self.topic_id, partition)
                if partition.leader == broker_id:
                    changes.leaders[tp] = info
                    if previous is None or previous.leader_epoch != partition.leader_epoch:
                        changes.elected_leaders[tp] = info
                else:
                    changes.followers[tp] = info
                changes.topic_ids.setdefault(self.name, self.topic_id)
            directory = partition.directory(broker_id)
            if previous is None or broker_id not in previous.replicas \
                    or previous.directory(broker_id) != directory:
                changes.directory_ids[tp] = directory


class TopicsDelta:
    """Changes to the topics of a `TopicsImage`."""

    def __init__(self, image: TopicsImage):
        self.image = image                                  # topics before this delta
        self.changed_topics: dict[Uuid, TopicDelta] = {}    # topic id -> its delta (deleted ones absent)
        self.deleted_topic_ids: dict[Uuid, None] = {}       # ids in the image that were deleted (ordered set)
        self.created_topics: dict[str, Uuid] = {}           # topics created in this delta

    def _topic_delta(self, topic_id: Uuid) -> TopicDelta:
        delta = self.changed_topics.get(topic_id)
        if delta is None:
            image = self.image.topics_by_id.get(topic_id)
            if image is None:
                raise RuntimeError(f"Unable to find topic with id {topic_id}")
            delta = self.changed_topics[topic_id] = TopicDelta(image)
        return delta

    def replay_topic(self, record: TopicRecord) -> None:
        self.changed_topics[record.topic_id] = TopicDelta(TopicImage(record.name, record.topic_id))
        self.created_topics[record.name] = record.topic_id

    def replay_partition(self, record: PartitionRecord) -> None:
        self._topic_delta(record.topic_id).replay_partition(record)

    def replay_change(self, record: PartitionChangeRecord) -> None:
        self._topic_delta(record.topic_id).replay_change(record)

    def replay_clear_elr(self, record: ClearElrRecord) -> None:
        if not record.topic_name:
            for each_id in list(self.image.topics_by_id):
                self._topic_delta(each_id).clear_elr()
            return
        existing = self.image.topics_by_name.get(record.topic_name)
        topic_id = existing.topic_id if existing is not None else self.created_topics.get(record.topic_name)
        if topic_id is None:
            raise RuntimeError(f"Unable to clear elr for topic with name {record.topic_name}: "
                               f"no such topic found.")
        self._topic_delta(topic_id).clear_elr()

    def replay_remove(self, record: RemoveTopicRecord) -> str:
        """Delete a topic; returns its name (the configs delta needs it)."""
        delta = self.changed_topics.pop(record.topic_id, None)
        if delta is not None:
            name = delta.name
            if record.topic_id in self.image.topics_by_id:
                self.deleted_topic_ids[record.topic_id] = None
        else:
            image = self.image.topics_by_id.get(record.topic_id)
            if image is None:
                raise RuntimeError(f"Unable to delete topic with id {record.topic_id}: no such topic found.")
            name = image.name
            self.deleted_topic_ids[record.topic_id] = None
        self.created_topics.pop(name, None)
        return name

    def topic_was_deleted(self, name: str) -> bool:
        """True if the image's topic ``name`` was deleted (even if a new one took the name)."""
        image = self.image.topics_by_name.get(name)
        return image is not None and image.topic_id in self.deleted_topic_ids

    def apply(self) -> TopicsImage:
        if not self.changed_topics and not self.deleted_topic_ids:
            return self.image
        by_id = dict(self.image.topics_by_id)
        by_name = dict(self.image.topics_by_name)
        for topic_id in self.deleted_topic_ids:
            del by_name[by_id.pop(topic_id).name]
        for topic_id, delta in self.changed_topics.items():
            topic = delta.apply()
            by_id[topic_id] = topic
            by_name[topic.name] = topic
        return TopicsImage(frozen_map(by_id), frozen_map(by_name))

    def local_changes(self, broker_id: int) -> LocalReplicaChanges:
        """What ``broker_id`` must delete, lead and follow after this delta."""
        changes = _ChangesCollector()
        for delta in self.changed_topics.values():
            delta.local_changes(broker_id, changes)
        for topic_id in self.deleted_topic_ids:
            topic = self.image.topics_by_id[topic_id]
            changes.deletes.extend(TopicPartition(topic.name, index)
                                   for index, p in topic.partitions.items() if broker_id in p.replicas)
        return changes.result()
