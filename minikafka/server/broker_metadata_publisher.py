"""How a broker turns committed metadata records into action.

Theory of operation
-------------------
A broker is a KRaft *observer*: its raft client replicates
``__cluster_metadata-0`` from the active controller and hands every
committed batch to this listener.  The records are replayed into a
`MetadataDelta` over the current `MetadataImage`; the new image becomes the
broker's view of the cluster (what Metadata responses say), and the delta is
published to the parts that act on it, in Kafka's order: first the dynamic
configs (broker configs are reapplied and every log's config follows its
topic's), then the `ReplicaManager` creates, leads, follows or deletes the
partition replicas this broker hosts (the delta's local changes), then the
group coordinator sees the new image.

While the broker is still catching up (the batch ends below the high
watermark the raft client learned), batches are folded into one delta and
published once, as Kafka's ``MetadataLoader`` does: a restarting broker
does not create and delete the logs of a topic that was deleted long ago.

What it depends on, all passed in by `BrokerServer`: the raft client's view
of the metadata log (its ``high_watermark``), the broker id (which local
changes are ours), and the three parts it publishes to -- a callable that
applies config changes between two images, the replica manager
(``apply_delta``) and the group coordinator adapter (``on_metadata``, told
which topics were deleted, by name).
A change of active controller needs nothing from it: requests to the
controller look the leader up in the raft client each time.

Mirrors ``kafka.server.metadata.BrokerMetadataPublisher`` together with the
batching of ``org.apache.kafka.image.loader.MetadataLoader``.
Simplified: no snapshots to load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

from minikafka.metadata.delta import MetadataDelta
from minikafka.metadata.image import EMPTY_IMAGE, MetadataImage, MetadataProvenance

if TYPE_CHECKING:
    from minikafka.metadata.topics_delta import LocalReplicaChanges
    from minikafka.raft.replicated_log import Batch


class MetadataLogView(Protocol):
    """What the publisher reads of the raft client: how far the committed log reaches."""

    @property
    def high_watermark(self) -> int | None: ...


class ReplicaChangesListener(Protocol):
    """The replica manager, as told which local replicas to create, lead, follow or delete."""

    def apply_delta(self, changes: "LocalReplicaChanges", image: MetadataImage) -> None: ...


class ImageListener(Protocol):
    """The group coordinator adapter, told of every new image."""

    def on_metadata(self, image: MetadataImage, deleted_topics: tuple[str, ...] = ()) -> None: ...


class BrokerMetadataPublisher:
    def __init__(self, raft: MetadataLogView, *, broker_id: int,
                 apply_configs: Callable[[MetadataImage, MetadataImage], None],
                 replica_manager: ReplicaChangesListener, group_coordinator: ImageListener):
        self.raft = raft
        self.broker_id = broker_id
        self.apply_configs = apply_configs
        self.replica_manager = replica_manager
        self.group_coordinator = group_coordinator
        self.image: MetadataImage = EMPTY_IMAGE      # the last published image
        self._delta: MetadataDelta | None = None     # batches folded while catching up
        self._provenance: MetadataProvenance | None = None

    def handle_commit(self, batch: "Batch") -> None:
        if self._delta is None:
            self._delta = MetadataDelta(self.image)
        if not batch.is_control:
            for record in batch.records:
                self._delta.replay(record)
        self._provenance = MetadataProvenance(batch.last_offset, batch.epoch, batch.append_time_ms)
        high_watermark = self.raft.high_watermark
        if high_watermark is not None and batch.next_offset < high_watermark:
            return                                   # more committed batches are on their way
        self._publish()

    def _publish(self) -> None:
        delta, self._delta = self._delta, None
        if delta is None:
            return
        previous = self.image
        self.image = image = delta.apply(self._provenance)
        self.apply_configs(previous, image)
        self.replica_manager.apply_delta(delta.local_changes(self.broker_id), image)
        self.group_coordinator.on_metadata(image, deleted_topic_names(delta, previous))

    def handle_leader_change(self, leader_and_epoch) -> None:
        pass                    # requests to the controller ask raft for the leader each time

    @property
    def offset(self) -> int:
        """The last metadata offset this broker has applied (-1 before the first)."""
        provenance = self.image.provenance
        return provenance.last_contained_offset if provenance else -1


def deleted_topic_names(delta: MetadataDelta, previous: MetadataImage) -> tuple[str, ...]:
    """The names, in the image before ``delta``, of the topics ``delta`` deleted."""
    if delta.topics_delta is None:
        return ()
    topics = (previous.topics.get_topic(topic_id) for topic_id in delta.topics_delta.deleted_topic_ids)
    return tuple(topic.name for topic in topics if topic is not None)
