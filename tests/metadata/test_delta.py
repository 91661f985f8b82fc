"""MetadataDelta: replaying hand-written record sequences gives the expected images."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from minikafka.common.uuid import Uuid
from minikafka.metadata.delta import MetadataDelta, replay_all
from minikafka.metadata.image import EMPTY_IMAGE, ConfigResource, MetadataProvenance
from minikafka.metadata.records import (AbortTransactionRecord, ApiMessageAndVersion, BeginTransactionRecord,
                                        BrokerEndpoint, BrokerRegistrationChangeRecord, ClearElrRecord,
                                        ConfigRecord, EndTransactionRecord, FeatureLevelRecord, NoOpRecord,
                                        PartitionChangeRecord, PartitionRecord, ProducerIdsRecord,
                                        RegisterBrokerRecord, RegisterControllerRecord, RemoveTopicRecord,
                                        TopicRecord, UnregisterBrokerRecord)
from minikafka.metadata.serde import deserialize, serialize

RNG = random.Random(42)
ORDERS = Uuid.random(RNG)
PAYMENTS = Uuid.random(RNG)
EPOCHS = {1: 10, 2: 11, 3: 12}


def bootstrap() -> list:
    records = [BeginTransactionRecord("Bootstrap records"), FeatureLevelRecord("metadata.version", 27),
               FeatureLevelRecord("group.version", 1), FeatureLevelRecord("transaction.version", 2),
               EndTransactionRecord(), RegisterControllerRecord(controller_id=1001)]
    for broker_id, epoch in EPOCHS.items():
        records.append(RegisterBrokerRecord(
            broker_id=broker_id, broker_epoch=epoch, incarnation_id=Uuid(broker_id, 1),
            end_points=[BrokerEndpoint("PLAINTEXT", "localhost", 9091 + broker_id, 0)]))
    records += [BrokerRegistrationChangeRecord(b, e, fenced=-1) for b, e in EPOCHS.items()]
    return records


def create_topic(topic_id: Uuid, name: str, assignments: list[tuple[int, ...]], configs=None) -> list:
    records = [TopicRecord(name, topic_id)]
    records += [ConfigRecord(ConfigResource.TOPIC, name, k, v) for k, v in (configs or {}).items()]
    records += [PartitionRecord(i, topic_id, replicas, replicas, leader=replicas[0], leader_epoch=0,
                                partition_epoch=0) for i, replicas in enumerate(assignments)]
    return records


def cluster() -> list:
    return bootstrap() + create_topic(ORDERS, "orders", [(1, 2, 3), (2, 3, 1), (3, 1, 2)],
                                      {"retention.ms": "60000"})


def test_bootstrap_gives_features_brokers_and_controllers():
    image = replay_all(bootstrap())
    assert image.metadata_version() == 27
    assert dict(image.features.finalized_versions) == {"group.version": 1, "transaction.version": 2}
    assert sorted(image.cluster.brokers) == [1, 2, 3] and list(image.cluster.controllers) == [1001]
    assert image.cluster.unfenced_broker_ids() == [1, 2, 3]
    assert image.cluster.broker(2).epoch == 11 and image.cluster.broker_epoch(9) == -1


def test_topic_creation():
    image = replay_all(cluster())
    topic = image.topic("orders")
    assert topic is image.topic(ORDERS) and topic.name == "orders" and sorted(topic.partitions) == [0, 1, 2]
    assert image.partition("orders", 1).replicas == (2, 3, 1) and image.partition("orders", 1).leader == 2
    assert image.partition("orders", 3) is None and image.partition("nope", 0) is None
    assert dict(image.configs.topic_config("orders")) == {"retention.ms": "60000"}


def test_partition_changes_follow_no_change_semantics():
    image = replay_all(cluster() + [
        PartitionChangeRecord(0, ORDERS, isr=(1, 2)),                  # ISR shrink, leader unchanged
        PartitionChangeRecord(0, ORDERS, leader=2, isr=(2,)),          # new leader
        PartitionChangeRecord(0, ORDERS),                              # nothing but the epoch
    ])
    p = image.partition("orders", 0)
    assert (p.leader, p.isr, p.leader_epoch, p.partition_epoch) == (2, (2,), 1, 3)
    assert p.replicas == (1, 2, 3)


def test_fencing_and_controlled_shutdown():
    image = replay_all(cluster() + [BrokerRegistrationChangeRecord(3, 12, fenced=1),
                                    BrokerRegistrationChangeRecord(2, 11, in_controlled_shutdown=1)])
    assert image.is_fenced(3) and not image.is_fenced(1) and image.is_fenced(99)
    assert image.cluster.broker(2).in_controlled_shutdown and not image.cluster.broker(2).fenced
    again = replay_all([BrokerRegistrationChangeRecord(3, 12, fenced=-1)], image)
    assert not again.is_fenced(3)


def test_log_dirs_change():
    new_dir = Uuid(5, 500)
    image = replay_all(cluster() + [BrokerRegistrationChangeRecord(1, 10, log_dirs=(new_dir,))])
    assert image.cluster.broker(1).directories == (new_dir,)


@pytest.mark.parametrize("record,message", [
    (BrokerRegistrationChangeRecord(7, 1, fenced=1),
     "Tried to change broker 7, but that broker was not registered."),
    (BrokerRegistrationChangeRecord(1, 99, fenced=1),
     "Tried to change broker 1, but the given epoch, 99, did not match the current broker epoch, 10"),
    (BrokerRegistrationChangeRecord(1, 10, fenced=2), "unknown value for fenced field: 2"),
    (BrokerRegistrationChangeRecord(1, 10, in_controlled_shutdown=-1),
     "unknown value for inControlledShutdown field: -1"),
    (PartitionChangeRecord(9, ORDERS, leader=1), f"Unable to find partition {ORDERS}:9"),
    (RemoveTopicRecord(PAYMENTS), f"Unable to delete topic with id {PAYMENTS}: no such topic found."),
    (ClearElrRecord("nope"), "Unable to clear elr for topic with name nope: no such topic found."),
])
def test_records_that_contradict_the_image_are_refused(record, message):
    delta = MetadataDelta(replay_all(cluster()))
    with pytest.raises(RuntimeError) as info:
        delta.replay(record)
    assert message in str(info.value)


def test_unregister_removes_the_broker():
    image = replay_all(cluster() + [UnregisterBrokerRecord(3, 12)])
    assert sorted(image.cluster.brokers) == [1, 2]


def test_configs_set_overwrite_and_delete():
    image = replay_all(cluster() + [
        ConfigRecord(ConfigResource.TOPIC, "orders", "retention.ms", "1000"),
        ConfigRecord(ConfigResource.TOPIC, "orders", "segment.bytes", "1048576"),
        ConfigRecord(ConfigResource.BROKER, "", "log.retention.ms", "5000"),
        ConfigRecord(ConfigResource.BROKER, "2", "log.cleaner.threads", "2"),
    ])
    assert dict(image.configs.topic_config("orders")) == {"retention.ms": "1000", "segment.bytes": "1048576"}
    assert dict(image.configs.broker_config("")) == {"log.retention.ms": "5000"}
    assert dict(image.configs.broker_config(2)) == {"log.cleaner.threads": "2"}
    image = replay_all([ConfigRecord(ConfigResource.TOPIC, "orders", "retention.ms", None),
                        ConfigRecord(ConfigResource.TOPIC, "orders", "segment.bytes", None)], image)
    assert ConfigResource(ConfigResource.TOPIC, "orders") not in image.configs.resource_data


def test_topic_removal_drops_partitions_and_configs():
    image = replay_all(cluster() + [RemoveTopicRecord(ORDERS)])
    assert image.topic("orders") is None and image.topic(ORDERS) is None
    assert dict(image.configs.topic_config("orders")) == {}


def test_topic_removal_in_a_later_delta_drops_configs_from_the_image():
    image = replay_all([RemoveTopicRecord(ORDERS)], replay_all(cluster()))
    assert image.topic_names() == [] and image.configs.resource_data == {}


def test_create_and_delete_in_one_delta_leaves_no_trace():
    base = replay_all(bootstrap())
    delta = MetadataDelta(base)
    for record in create_topic(PAYMENTS, "payments", [(1,)]) + [RemoveTopicRecord(PAYMENTS)]:
        delta.replay(record)
    assert delta.topics_delta.deleted_topic_ids == {}
    assert delta.apply().topics == base.topics


def test_delete_and_recreate_with_the_same_name():
    base = replay_all(cluster())
    image = replay_all([RemoveTopicRecord(ORDERS)] + create_topic(PAYMENTS, "orders", [(2,)]), base)
    assert image.topic("orders").topic_id == PAYMENTS and image.topic(ORDERS) is None
    assert sorted(image.topic("orders").partitions) == [0]


def test_feature_level_zero_removes_the_feature():
    image = replay_all(bootstrap() + [FeatureLevelRecord("group.version", 0)])
    assert "group.version" not in image.features.finalized_versions
    assert image.features.level("group.version") == 0 and image.features.level("metadata.version") == 27


def test_producer_ids():
    image = replay_all(cluster() + [ProducerIdsRecord(1, 10, 1000), ProducerIdsRecord(2, 11, 2000)])
    assert image.producer_ids.next_producer_id == 2000
    assert EMPTY_IMAGE.producer_ids.next_producer_id == -1


def test_clear_elr_for_one_topic_and_for_all():
    with_elr = replay_all(cluster() + create_topic(PAYMENTS, "payments", [(1, 2)]) + [
        PartitionChangeRecord(0, ORDERS, eligible_leader_replicas=(2,), last_known_elr=(3,)),
        PartitionChangeRecord(0, PAYMENTS, eligible_leader_replicas=(2,))])
    one = replay_all([ClearElrRecord("orders")], with_elr)
    assert one.partition("orders", 0).elr == () and one.partition("orders", 0).last_known_elr == ()
    assert one.partition("orders", 0).partition_epoch == with_elr.partition("orders", 0).partition_epoch + 1
    assert one.partition("payments", 0).elr == (2,)
    assert one.partition("orders", 1) is with_elr.partition("orders", 1)     # had no ELR: untouched
    every = replay_all([ClearElrRecord("")], with_elr)
    assert every.partition("payments", 0).elr == () and every.partition("orders", 0).elr == ()


def test_housekeeping_and_control_records_change_nothing():
    @dataclass(frozen=True)
    class LeaderChangeMessage:
        leader_id: int = 1

    base = replay_all(cluster())
    image = replay_all([NoOpRecord(), BeginTransactionRecord("x"), EndTransactionRecord(),
                        AbortTransactionRecord("y"), LeaderChangeMessage()], base)
    assert image == base
    with pytest.raises(RuntimeError, match="Unknown metadata record type str"):
        MetadataDelta(base).replay("TopicRecord")


def test_records_wrapped_with_their_version_replay_too():
    image = replay_all([ApiMessageAndVersion(r, r.written_version()) for r in cluster()])
    assert image == replay_all(cluster())


def test_replaying_twice_from_scratch_gives_equal_images():
    records = cluster() + [PartitionChangeRecord(1, ORDERS, leader=3, isr=(3, 1)),
                           BrokerRegistrationChangeRecord(2, 11, fenced=1),
                           ConfigRecord(ConfigResource.TOPIC, "orders", "cleanup.policy", "compact")]
    assert replay_all(records) == replay_all(records)


def test_batch_boundaries_do_not_matter():
    records = cluster() + [PartitionChangeRecord(1, ORDERS, leader=3, isr=(3, 1)),
                           RemoveTopicRecord(ORDERS)] \
        + create_topic(PAYMENTS, "orders", [(1, 2)])
    one_by_one = EMPTY_IMAGE
    for record in records:
        one_by_one = replay_all([record], one_by_one)
    assert one_by_one == replay_all(records)


def test_the_log_bytes_rebuild_the_same_image():
    records = cluster() + [PartitionChangeRecord(2, ORDERS, isr=(3,))]
    assert replay_all(deserialize(serialize(r)) for r in records) == replay_all(records)


def test_apply_shares_what_did_not_change():
    base = replay_all(cluster() + create_topic(PAYMENTS, "payments", [(1, 2)] * 50))
    image = replay_all([PartitionChangeRecord(7, PAYMENTS, isr=(1,))], base)
    assert image.topic("orders") is base.topic("orders")
    assert image.topic("payments").partition(8) is base.topic("payments").partition(8)
    assert image.cluster is base.cluster and image.configs is base.configs and image.features is base.features


def test_provenance():
    provenance = MetadataProvenance(41, 3, 1767225600000)
    image = MetadataDelta(replay_all(cluster())).apply(provenance)
    assert image.provenance == provenance and image.offset == 41
    assert replay_all([NoOpRecord()], image).provenance == provenance
