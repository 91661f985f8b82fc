"""MetadataImage queries and immutability."""

from __future__ import annotations

import pytest

from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.delta import replay_all
from minikafka.metadata.image import EMPTY_IMAGE, ConfigResource, MetadataImage
from minikafka.metadata.records import (BrokerRegistrationChangeRecord, FeatureLevelRecord,
                                        PartitionChangeRecord,
                                        PartitionRecord, RegisterBrokerRecord, TopicRecord)

A, B = Uuid(2, 1), Uuid(2, 2)


@pytest.fixture(scope="module")
def image() -> MetadataImage:
    records = [FeatureLevelRecord("metadata.version", 27)]
    records += [RegisterBrokerRecord(broker_id=b, broker_epoch=b * 10) for b in (1, 2, 3)]
    records += [BrokerRegistrationChangeRecord(b, b * 10, fenced=-1) for b in (1, 2)]
    records += [TopicRecord("b-topic", B), TopicRecord("a-topic", A)]
    records += [PartitionRecord(i, A, r, r, leader=r[0], leader_epoch=0, partition_epoch=0)
                for i, r in enumerate([(1, 2), (2, 3)])]
    records += [PartitionRecord(0, B, (3, 1), (3, 1), leader=3, leader_epoch=0, partition_epoch=0),
                PartitionChangeRecord(0, B, leader=-1, isr=(3,))]
    return replay_all(records)


def test_topic_queries(image):
    assert image.topic_names() == ["a-topic", "b-topic"]
    assert image.topic_partitions() == [TopicPartition("a-topic", 0), TopicPartition("a-topic", 1),
                                        TopicPartition("b-topic", 0)]
    assert image.topics_hosted_by(1) == [TopicPartition("a-topic", 0), TopicPartition("b-topic", 0)]
    assert image.topics_hosted_by(4) == []


def test_leaders(image):
    assert image.leaders() == {TopicPartition("a-topic", 0): 1, TopicPartition("a-topic", 1): 2,
                               TopicPartition("b-topic", 0): -1}
    assert image.partitions_led_by(2) == [TopicPartition("a-topic", 1)]


def test_fencing_and_features(image):
    assert [image.is_fenced(b) for b in (1, 2, 3, 4)] == [False, False, True, True]
    assert image.metadata_version() == 27 and EMPTY_IMAGE.metadata_version() is None


def test_empty_image():
    assert EMPTY_IMAGE.is_empty() and EMPTY_IMAGE.offset == -1 and EMPTY_IMAGE.topic_names() == []
    assert MetadataImage() == EMPTY_IMAGE


def test_images_cannot_be_changed(image):
    with pytest.raises(TypeError):
        image.topics.topics_by_name["x"] = None
    with pytest.raises(TypeError):
        image.topic("a-topic").partitions[5] = None
    with pytest.raises(AttributeError):
        image.topic("a-topic").name = "other"


def test_config_resource_text():
    assert str(ConfigResource(ConfigResource.TOPIC, "orders")) == "ConfigResource(type=TOPIC, name='orders')"
