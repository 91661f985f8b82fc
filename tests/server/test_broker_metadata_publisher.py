"""BrokerMetadataPublisher alone: committed batches become images, published in Kafka's order.

A fake raft view says how far the committed log reaches; recording collaborators stand in
for the config publisher, the replica manager and the group coordinator adapter.
"""

from types import SimpleNamespace

from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.image import EMPTY_IMAGE
from minikafka.metadata.records import RemoveTopicRecord
from minikafka.raft.replicated_log import Batch
from minikafka.server.broker_metadata_publisher import BrokerMetadataPublisher
from tests.server.harness import START, registered_brokers, topic_records

ORDERS = Uuid(7, 7)


class Recorder:
    """Every call the publisher makes, in order, with the image it passed."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def apply_configs(self, previous, image) -> None:
        self.calls.append(("configs", previous, image))

    def apply_delta(self, changes, image) -> None:
        self.calls.append(("replicas", changes, image))

    def on_metadata(self, image, deleted_topics=()) -> None:
        self.calls.append(("groups", image, deleted_topics))

    def kinds(self) -> list[str]:
        return [call[0] for call in self.calls]


def publisher(broker_id: int = 2):
    raft = SimpleNamespace(high_watermark=None)
    recorder = Recorder()
    return raft, recorder, BrokerMetadataPublisher(
        raft, broker_id=broker_id, apply_configs=recorder.apply_configs,
        replica_manager=recorder, group_coordinator=recorder)


def batches(*record_lists, start: int = 0) -> list[Batch]:
    out, offset = [], start
    for records in record_lists:
        out.append(Batch(offset, 1, START, tuple(records)))
        offset += len(records)
    return out


def test_a_committed_batch_goes_to_configs_then_replicas_then_groups():
    raft, recorder, pub = publisher(broker_id=2)
    [batch] = batches(registered_brokers(1, 2, 3) + topic_records("orders", ORDERS, [(1, 2), (2, 3)]))
    raft.high_watermark = batch.next_offset
    pub.handle_commit(batch)
    assert recorder.kinds() == ["configs", "replicas", "groups"]
    (_, previous, image), (_, changes, image2), (_, image3, deleted) = recorder.calls
    assert previous is EMPTY_IMAGE and image is image2 is image3 is pub.image and deleted == ()
    assert image.topics.get_topic("orders") is not None
    assert list(changes.followers) == [TopicPartition("orders", 0)]      # broker 2 follows 1
    assert list(changes.leaders) == [TopicPartition("orders", 1)]        # and leads partition 1
    assert pub.offset == batch.last_offset


def test_batches_below_the_high_watermark_are_folded_into_one_publication():
    raft, recorder, pub = publisher(broker_id=1)
    created, removed = batches(registered_brokers(1) + topic_records("old", ORDERS, [(1,)]),
                               [RemoveTopicRecord(ORDERS)])
    raft.high_watermark = removed.next_offset                # a restarting broker catching up
    pub.handle_commit(created)
    assert recorder.calls == [] and pub.offset == -1
    pub.handle_commit(removed)
    assert recorder.kinds() == ["configs", "replicas", "groups"]
    changes = recorder.calls[1][1]
    assert (changes.leaders, changes.followers, changes.deletes) == ({}, {}, ())  # never created
    assert pub.image.topics.get_topic("old") is None
    assert pub.offset == removed.last_offset


def test_each_batch_at_the_high_watermark_is_published_with_the_previous_image():
    raft, recorder, pub = publisher(broker_id=1)
    first, second = batches(registered_brokers(1), topic_records("orders", ORDERS, [(1,)]))
    raft.high_watermark = first.next_offset
    pub.handle_commit(first)
    image_after_first = pub.image
    raft.high_watermark = second.next_offset
    pub.handle_commit(second)
    assert recorder.kinds() == ["configs", "replicas", "groups"] * 2
    assert recorder.calls[3][1] is image_after_first         # configs see (previous, new)
    assert list(recorder.calls[4][1].leaders) == [TopicPartition("orders", 0)]


def test_a_control_batch_moves_the_offset_without_records():
    raft, recorder, pub = publisher()
    [batch] = batches(registered_brokers(1))
    pub.handle_commit(batch)
    control = Batch(batch.next_offset, 2, START, (object(),), is_control=True)
    pub.handle_commit(control)
    assert pub.offset == control.last_offset
    assert recorder.calls[-1][1] is pub.image and pub.image.cluster.broker(1) is not None


def test_the_group_coordinator_learns_the_names_of_deleted_topics():
    raft, recorder, pub = publisher(broker_id=1)
    created, removed = batches(registered_brokers(1) + topic_records("orders", ORDERS, [(1,)]),
                               [RemoveTopicRecord(ORDERS)])
    raft.high_watermark = created.next_offset
    pub.handle_commit(created)
    raft.high_watermark = removed.next_offset
    pub.handle_commit(removed)
    assert [call[2] for call in recorder.calls if call[0] == "groups"] == [(), ("orders",)]
