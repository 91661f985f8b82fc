"""How a broker turns committed metadata records into action.

Theory of operation
-------------------
A broker is a KRaft *observer*: its raft client replicates
``__cluster_metadata-0`` from the active controller and hands every
committed batch to this listener.  The records are replayed into a
`MetadataDelta` over the current `MetadataImage`; the new image becomes the
broker's view of the cluster (what Metadata responses say), and the delta is
published to the parts that act on it: the `ReplicaManager` creates,
leads, follows or deletes partition replicas, log configs are updated, and
dynamic broker configs are reapplied.

While the broker is still catching up (the batch ends below the high
watermark the raft client learned), batches are folded into one delta and
published once, as Kafka's ``MetadataLoader`` does: a restarting broker
does not create and delete the logs of a topic that was deleted long ago.

Mirrors ``kafka.server.metadata.BrokerMetadataPublisher`` together with the
batching of ``org.apache.kafka.image.loader.MetadataLoader``.
Simplified: no snapshots to load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minikafka.metadata.delta import MetadataDelta
from minikafka.metadata.image import EMPTY_IMAGE, MetadataImage, MetadataProvenance

if TYPE_CHECKING:
    from minikafka.raft.replicated_log import Batch
    from minikafka.server.broker_server import BrokerServer


class BrokerMetadataPublisher:
    def __init__(self, broker: "BrokerServer", raft):
        self.broker = broker
        self.raft = raft
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
        self.image = delta.apply(self._provenance)
        self.broker.publish(delta, previous, self.image)

    def handle_leader_change(self, leader_and_epoch) -> None:
        self.broker.on_controller_change(leader_and_epoch)

    @property
    def offset(self) -> int:
        """The last metadata offset this broker has applied (-1 before the first)."""
        provenance = self.image.provenance
        return provenance.last_contained_offset if provenance else -1
