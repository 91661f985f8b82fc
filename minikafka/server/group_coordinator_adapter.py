"""Hosting the group coordinator on a broker: ``__consumer_offsets`` leadership, writes, lookup.

Theory of operation
-------------------
The group coordinator for a group is whichever broker leads the group's
``__consumer_offsets`` partition.  This adapter connects the broker to
`GroupCoordinator`:

* when the broker becomes leader of ``__consumer_offsets-<p>`` it reads the
  partition's records back from its own log and lets the coordinator replay
  them (groups and committed offsets survive failover this way); when it
  stops leading, the coordinator unloads that partition;
* the coordinator's writes become record batches appended with acks=all, so
  an offset commit is acknowledged only once the ISR has it;
* FindCoordinator is answered from the metadata image, and the first lookup
  asks the controller to create ``__consumer_offsets`` (Kafka's
  ``AutoTopicCreationManager``) with ``offsets.topic.num.partitions``
  partitions, ``offsets.topic.replication.factor`` replicas and the topic
  configs Kafka uses (compacted, 100 MiB segments).

What it depends on, all passed in by `BrokerServer`: the node (the clock and
timers the `GroupCoordinator` runs on), the broker's current `KafkaConfig`
and timing profile (the ``group.*`` and ``offsets.*`` settings), the name of
the listener clients use (FindCoordinator answers with the leader's endpoint
on it), the current metadata image, the `ReplicaManager`'s
``append_records`` (the coordinator's writes) and the channel that forwards
CreateTopics to the active controller.  `BrokerServer` also calls
``on_became_leader``/``on_resigned_leader`` as the replica manager's
leadership listener and ``on_metadata`` for every published image, with the
names of the topics it deleted (the coordinator deletes their committed offsets).

Mirrors ``kafka.coordinator.group.CoordinatorPartitionWriter``, the
coordinator loader and the group branch of ``KafkaApis.getCoordinator``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.controller.requests import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
from minikafka.coordinator.find_coordinator import Endpoint, locate_group_coordinator
from minikafka.coordinator.group_coordinator import GroupCoordinator
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage
from minikafka.record.memory_records import SimpleRecord, build_batch, decode_records
from minikafka.storage.fetch_data_info import FetchIsolation

if TYPE_CHECKING:
    from minikafka.common.config.kafka_config import KafkaConfig
    from minikafka.metadata.image import MetadataImage
    from minikafka.runtime.node import Node
    from minikafka.server.auto_topic_creation_manager import ForwardToController
    from minikafka.common.timing import TimingProfile

OFFSETS_TOPIC = "__consumer_offsets"


class RecordAppender(Protocol):
    """The `ReplicaManager`'s produce path, as the coordinator's writes use it."""

    def append_records(self, required_acks: int, timeout_ms: int, entries: dict[TopicPartition, Any],
                       callback: Callable[[dict[TopicPartition, Any]], None],
                       internal: bool = False) -> None: ...


class GroupCoordinatorAdapter:
    def __init__(self, node: "Node", *, kafka_config: Callable[[], "KafkaConfig"],
                 timing: "TimingProfile", listener_name: str | None,
                 image: Callable[[], "MetadataImage"], replica_manager: RecordAppender,
                 forward_to_controller: "ForwardToController"):
        self.node = node
        self.kafka_config = kafka_config
        self.listener_name = listener_name
        self.image = image
        self.replica_manager = replica_manager
        self.forward_to_controller = forward_to_controller
        config = GroupCoordinatorConfig.from_configs(kafka_config().values, timing)
        self.config = config
        self.coordinator = GroupCoordinator(node, config, self._append, self._topics_image)
        self._topics_cache: tuple[Any, TopicsImage] | None = None
        self.creating_offsets_topic = False

    def _topics_image(self) -> TopicsImage:
        """The metadata's topics as the consumer-group assignors see them (id, name, partition count),
        rebuilt only when the image changed."""
        topics = self.image().topics
        if self._topics_cache is None or self._topics_cache[0] is not topics:
            self._topics_cache = (topics, TopicsImage(tuple(
                TopicMetadata(t.topic_id, t.name, len(t.partitions))
                for t in topics.topics_by_id.values())))
        return self._topics_cache[1]

    # ------------------------------------------------------------------ leadership
    def on_became_leader(self, partition) -> None:
        if partition.topic_partition.topic != OFFSETS_TOPIC:
            return
        records = self._read_all(partition.log)
        self.coordinator.on_elected(partition.topic_partition.partition, partition.leader_epoch,
                                    records)

    def on_resigned_leader(self, partition) -> None:
        if partition.topic_partition.topic == OFFSETS_TOPIC:
            self.coordinator.on_resigned(partition.topic_partition.partition)

    def on_metadata(self, image, deleted_topics: tuple[str, ...] = ()) -> None:
        if self.creating_offsets_topic and image.topics.get_topic(OFFSETS_TOPIC) is not None:
            self.creating_offsets_topic = False
        if deleted_topics:
            self.coordinator.on_topics_deleted(deleted_topics)   # their committed offsets go too

    def shutdown(self) -> None:
        self.coordinator.shutdown()

    @staticmethod
    def _read_all(log) -> list[tuple[bytes | None, bytes | None]]:
        out: list[tuple[bytes | None, bytes | None]] = []
        offset = log.log_start_offset
        while offset < log.log_end_offset:
            info = log.read(offset, 1 << 20, FetchIsolation.LOG_END, True)
            data = bytes(info.records)
            if not data:
                break
            records = decode_records(data)
            for record in records:
                if record.offset >= offset:
                    out.append((record.key, record.value))
            offset = records[-1].offset + 1 if records else log.log_end_offset
        return out

    # ------------------------------------------------------------------ writes
    def _append(self, partition_index: int, records: list[tuple[bytes, bytes | None]],
                callback: Callable[[Errors], None]) -> None:
        now = self.node.now
        batch = build_batch([SimpleRecord(value=value, key=key, timestamp=now)
                             for key, value in records])
        tp = TopicPartition(OFFSETS_TOPIC, partition_index)
        self.replica_manager.append_records(
            -1, self.config.offset_commit_timeout_ms, {tp: batch},
            lambda results: callback(results[tp].error), internal=True)

    # ------------------------------------------------------------------ lookup
    def find_group_coordinator(self, group_id: str) -> tuple[Errors, Endpoint]:
        image = self.image()
        exists = image.topics.get_topic(OFFSETS_TOPIC) is not None
        if not exists:
            self._create_offsets_topic()
        return locate_group_coordinator(group_id, self.config.offsets_topic_num_partitions,
                                        exists, self._leader_endpoint)

    def _leader_endpoint(self, partition_index: int) -> Endpoint | None:
        image = self.image()
        registration = image.partition(OFFSETS_TOPIC, partition_index)
        if registration is None or registration.leader < 0:
            return None
        broker = image.cluster.broker(registration.leader)
        if broker is None or broker.fenced:
            return None
        listener = broker.listener(self.listener_name)
        if listener is None:
            return None
        return Endpoint(broker.id, listener.host, listener.port)

    def _create_offsets_topic(self) -> None:
        if self.creating_offsets_topic:
            return
        self.creating_offsets_topic = True
        kafka_config = self.kafka_config()
        topic = CreatableTopic(
            OFFSETS_TOPIC, self.config.offsets_topic_num_partitions,
            int(kafka_config.get("offsets.topic.replication.factor")),
            configs=(CreatableTopicConfig("cleanup.policy", "compact"),
                     CreatableTopicConfig("compression.type", "producer"),
                     CreatableTopicConfig("segment.bytes",
                                          str(kafka_config.get("offsets.topic.segment.bytes")))))

        def done(response) -> None:
            self.creating_offsets_topic = False
        self.forward_to_controller(CreateTopicsRequest((topic,)), done, None)
