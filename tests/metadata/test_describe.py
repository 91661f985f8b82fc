"""One-line descriptions of metadata records."""

from __future__ import annotations

import pytest

from minikafka.common.uuid import Uuid
from minikafka.metadata.describe import describe, describe_log
from minikafka.metadata.records import (RECORD_TYPES, ApiMessageAndVersion, BeginTransactionRecord,
                                        BrokerEndpoint, BrokerRegistrationChangeRecord, ConfigRecord,
                                        FeatureLevelRecord, PartitionChangeRecord, PartitionRecord,
                                        RegisterBrokerRecord, RemoveTopicRecord, TopicRecord)

T = Uuid.from_string("xOxBrcYuSRWgtFuZIBiXIA")


@pytest.mark.parametrize("cls", list(RECORD_TYPES.values()), ids=lambda c: c.__name__)
def test_every_record_type_has_a_sentence(cls):
    text = describe(cls())
    assert text.startswith(cls.__name__ + ": ") and "{" not in text


def test_log_names_topics_from_earlier_records():
    lines = describe_log([
        RegisterBrokerRecord(broker_id=1, broker_epoch=5,
                             end_points=[BrokerEndpoint("PLAINTEXT", "h", 9092)]),
        BrokerRegistrationChangeRecord(1, 5, cordoned_log_dirs=()),
        BrokerRegistrationChangeRecord(1, 5, fenced=-1),
        FeatureLevelRecord("metadata.version", 30),
        TopicRecord("orders", T),
        ConfigRecord(2, "orders", "retention.ms", "1000"),
        ApiMessageAndVersion(PartitionRecord(0, T, (1, 2), (1, 2), leader=1, leader_epoch=0,
                                             partition_epoch=0), 2),
        PartitionChangeRecord(0, T, isr=(1,)),
        PartitionChangeRecord(0, T, leader=-1, isr=(2,)),
        ConfigRecord(4, "", "log.retention.ms", None),
        RemoveTopicRecord(T),
        BeginTransactionRecord("Bootstrap records"),
    ])
    assert lines == [
        "RegisterBrokerRecord: broker 1 registered with broker epoch 5, fenced; listeners PLAINTEXT://h:9092",
        "BrokerRegistrationChangeRecord: broker 1 (epoch 5) cordoned log dirs -> []",
        "BrokerRegistrationChangeRecord: broker 1 (epoch 5) unfenced",
        "FeatureLevelRecord: metadata.version finalized at level 30",
        f"TopicRecord: topic orders created with id {T}",
        "ConfigRecord: topic orders: retention.ms=1000",
        "PartitionRecord: orders-0 created: replicas [1,2], leader 1, isr [1,2], leader epoch 0, "
        "partition epoch 0",
        "PartitionChangeRecord: orders-0 changed: isr -> [1]",
        "PartitionChangeRecord: orders-0 changed: leader -> none (new leader epoch), isr -> [2]",
        "ConfigRecord: cluster-wide broker default: log.retention.ms deleted",
        "RemoveTopicRecord: topic orders deleted",
        "BeginTransactionRecord: metadata transaction begins: Bootstrap records",
    ]


def test_unknown_topic_ids_are_shown_as_ids():
    assert describe(PartitionChangeRecord(3, T, leader=2)) == (
        f"PartitionChangeRecord: partition 3 of topic id {T} changed: leader -> 2 (new leader epoch)")
