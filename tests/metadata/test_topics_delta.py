"""TopicsDelta.local_changes: what a broker must delete, lead and follow after a delta."""

from __future__ import annotations

from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.delta import MetadataDelta, replay_all
from minikafka.metadata.partition_registration import DirectoryId
from minikafka.metadata.records import (ConfigRecord, PartitionChangeRecord, PartitionRecord,
                                        RemoveTopicRecord,
                                        TopicRecord)

T = Uuid(1, 111)
DIRS = {1: Uuid(1, 1001), 2: Uuid(1, 1002), 3: Uuid(1, 1003)}


def partition(index: int, replicas: tuple[int, ...]) -> PartitionRecord:
    return PartitionRecord(index, T, replicas, replicas, leader=replicas[0], leader_epoch=0,
                           partition_epoch=0, directories=tuple(DIRS[r] for r in replicas))


CREATE = [TopicRecord("orders", T), partition(0, (1, 2)), partition(1, (2, 1)), partition(2, (2, 3))]


def changes_after(records, base=None, broker=1):
    delta = MetadataDelta(replay_all(base or []))
    for record in records:
        delta.replay(record)
    return delta.local_changes(broker)


def tp(index: int) -> TopicPartition:
    return TopicPartition("orders", index)


def test_new_topic():
    changes = changes_after(CREATE)
    assert list(changes.leaders) == [tp(0)] and list(changes.elected_leaders) == [tp(0)]
    assert list(changes.followers) == [tp(1)]
    assert changes.deletes == () and changes.topic_ids == {"orders": T}
    assert changes.directory_ids == {tp(0): DIRS[1], tp(1): DIRS[1]}
    assert changes.leaders[tp(0)].topic_id == T and changes.leaders[tp(0)].partition.leader == 1


def test_isr_change_is_a_leader_change_without_election():
    changes = changes_after([PartitionChangeRecord(0, T, isr=(1,))], CREATE)
    assert list(changes.leaders) == [tp(0)] and changes.elected_leaders == {}
    assert changes.directory_ids == {}


def test_leader_moves_to_another_broker():
    records = [PartitionChangeRecord(0, T, leader=2, isr=(2,))]
    assert list(changes_after(records, CREATE, broker=1).followers) == [tp(0)]
    moved = changes_after(records, CREATE, broker=2)
    assert list(moved.leaders) == [tp(0)] and list(moved.elected_leaders) == [tp(0)]


def test_reassignment_away_deletes_the_replica():
    changes = changes_after([PartitionChangeRecord(2, T, replicas=(2, 1), isr=(2,))], CREATE, broker=3)
    assert changes.deletes == (tp(2),) and changes.leaders == {} and changes.followers == {}
    joined = changes_after([PartitionChangeRecord(2, T, replicas=(2, 1), isr=(2,))], CREATE, broker=1)
    assert list(joined.followers) == [tp(2)] and joined.directory_ids == {tp(2): DirectoryId.UNASSIGNED}


def test_topic_deletion_deletes_every_local_replica():
    assert changes_after([RemoveTopicRecord(T)], CREATE, broker=2).deletes == (tp(0), tp(1), tp(2))
    assert changes_after([RemoveTopicRecord(T)], CREATE, broker=3).deletes == (tp(2),)


def test_unrelated_records_change_nothing():
    changes = changes_after([ConfigRecord(2, "orders", "retention.ms", "1")], CREATE)
    assert changes.leaders == {} and changes.followers == {} and changes.deletes == ()


def test_partitions_the_broker_never_hosted_are_not_reported():
    changes = changes_after([PartitionChangeRecord(2, T, isr=(3,))], CREATE, broker=1)
    assert changes.leaders == {} and changes.followers == {} and changes.deletes == ()


def test_results_are_sorted():
    records = [TopicRecord("orders", T)] + [partition(i, (1,)) for i in (5, 3, 9, 0)]
    assert list(changes_after(records).leaders) == [tp(0), tp(3), tp(5), tp(9)]


def test_topic_was_deleted():
    delta = MetadataDelta(replay_all(CREATE))
    delta.replay(RemoveTopicRecord(T))
    assert delta.topics_delta.topic_was_deleted("orders")
    assert not delta.topics_delta.topic_was_deleted("payments")


def test_a_repeated_partition_record_with_the_same_epoch_is_not_a_change():
    # e.g. the same state loaded again from a snapshot
    changes = changes_after([partition(0, (1, 2)), partition(1, (2, 1))], CREATE)
    assert changes.leaders == {} and changes.followers == {} and changes.directory_ids == {}
