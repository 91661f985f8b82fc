"""Replay, DeleteGroups and offset retention of one __consumer_offsets partition."""


from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.records import GroupMetadataKey, OffsetCommitKey, decode_record
from minikafka.coordinator.requests import (
    DeleteGroupsRequest, OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
)

from .harness import GROUP, Box, Consumer, Harness, form_group

S = ClassicGroupState
DAY = 24 * 60 * 60 * 1000


def _harness(**config) -> Harness:
    h = Harness(config=GroupCoordinatorConfig(initial_rebalance_delay_ms=3000, **config))
    h.elect_all()
    return h


def _delete(h: Harness, *groups: str, settle: bool = True) -> Box:
    box = Box()
    h.coordinator.handle_delete_groups(DeleteGroupsRequest(groups), box)
    if settle:
        h.settle()
    return box


def test_deleting_an_empty_group_writes_offset_and_group_tombstones():
    h = _harness()
    solo = Consumer(h, "solo")
    solo.commit({("t", 0): 1, ("t", 1): 2}, generation=-1, member_id="")
    before = len(h.log[h.partition])
    assert _delete(h, GROUP).value.results[0].error_code is Errors.NONE
    tombstones = [decode_record(k, v) for k, v in h.log[h.partition][before:]]
    assert [r.key for r in tombstones] == [OffsetCommitKey(GROUP, "t", 0), OffsetCommitKey(GROUP, "t", 1),
                                           GroupMetadataKey(GROUP)]
    assert all(r.value is None for r in tombstones)
    assert h.group() is None and h.coordinator.committed_offsets(GROUP) == {}
    assert "group_deleted" in h.kinds()


def test_a_group_with_members_cannot_be_deleted():
    h = _harness()
    form_group(h, [Consumer(h, "c-1")])
    assert _delete(h, GROUP).value.results[0].error_code is Errors.NON_EMPTY_GROUP


def test_deleting_a_missing_group_is_group_id_not_found():
    h = _harness()
    assert _delete(h, "nope").value.results[0].error_code is Errors.GROUP_ID_NOT_FOUND


def test_failed_delete_brings_the_group_back():
    h = _harness()
    Consumer(h, "solo").commit({("t", 0): 1}, generation=-1, member_id="")
    box = _delete(h, GROUP, settle=False)
    assert h.group() is None                                # gone while the tombstones are written
    h.fail_appends(Errors.NOT_ENOUGH_REPLICAS)
    assert box.value.results[0].error_code is Errors.COORDINATOR_NOT_AVAILABLE
    assert h.group() is not None and h.coordinator.committed_offsets(GROUP) == {("t", 0): 1}


def test_a_group_recreated_while_its_tombstone_is_written_survives():
    h = _harness()
    Consumer(h, "solo").commit({("t", 0): 1}, generation=-1, member_id="")
    box = _delete(h, GROUP, settle=False)
    parked = Box()
    h.coordinator.handle_join_group(Consumer(h, "c-1", api_version=3).join_request(), parked)
    h.settle()
    assert box.value.results[0].error_code is Errors.NONE
    assert h.group().state is S.PREPARING_REBALANCE       # the new incarnation is untouched


def test_replay_skips_records_of_other_group_types():
    h = Harness()
    share_group_record = (bytes.fromhex("000b" "0001" "67"), b"\x00\x00\x00")   # type 11: a share group's
    h.coordinator.on_elected(0, 0, [share_group_record])
    assert h.coordinator._shards[0].skipped_records == 1


def test_replay_routes_consumer_group_records_to_the_consumer_groups():
    from minikafka.coordinator.consumer_group_records import (
        ConsumerGroupMetadataKey, ConsumerGroupMetadataValue, ConsumerGroupRecord, encode_record)
    h = Harness()
    record = encode_record(ConsumerGroupRecord(ConsumerGroupMetadataKey("g"), ConsumerGroupMetadataValue(7, 0)))
    h.coordinator.on_elected(0, 0, [record])
    shard = h.coordinator._shards[0]
    assert shard.skipped_records == 0
    assert shard.consumer.groups["g"].group_epoch == 7


def test_offsets_of_an_empty_group_expire_after_retention_counted_from_empty():
    h = _harness(offsets_retention_ms=DAY, offsets_retention_check_interval_ms=600000)
    a = Consumer(h, "c-1", session_timeout_ms=6000)
    form_group(h, [a])
    a.commit({("t", 0): 5})
    a.leave()                                               # Empty from now on
    h.advance(DAY - 600000)
    assert h.coordinator.committed_offsets(GROUP) == {("t", 0): 5}
    h.advance(2 * 600000)                                   # the next check after a day has passed
    assert h.coordinator.committed_offsets(GROUP) == {}
    assert h.group() is None                                # and the empty group went with them
    assert "offsets_expired" in h.kinds()


def test_offsets_of_a_group_with_members_do_not_expire():
    h = _harness(offsets_retention_ms=60000, offsets_retention_check_interval_ms=10000)
    a = Consumer(h, "c-1", session_timeout_ms=30000)
    form_group(h, [a])
    a.commit({("t", 0): 5})
    for _ in range(12):
        h.advance(10000)
        a.heartbeat()
    assert h.coordinator.committed_offsets(GROUP) == {("t", 0): 5}


def test_simple_group_offsets_expire_by_commit_time():
    h = _harness(offsets_retention_ms=60000, offsets_retention_check_interval_ms=10000)
    solo = Consumer(h, "solo")
    solo.commit({("t", 0): 1}, generation=-1, member_id="")
    h.advance(30000)
    solo.commit({("t", 1): 2}, generation=-1, member_id="")
    h.advance(30000)
    assert h.coordinator.committed_offsets(GROUP) == {("t", 1): 2}
    h.advance(30000)
    assert h.group() is None


def test_a_commit_in_flight_when_its_group_is_deleted_is_deleted_too():
    h = _harness()
    solo = Consumer(h, "solo")
    solo.commit({("t", 0): 1}, generation=-1, member_id="")
    commit = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(1, 9),)),)), commit)
    deleted = _delete(h, GROUP)
    assert commit.value.topics[0].partitions[0].error_code is Errors.NONE
    assert deleted.value.results[0].error_code is Errors.NONE
    assert h.group() is None and h.coordinator._shards[h.partition].offsets.offsets == {}
    reloaded = Harness(node_id=2, log=h.log)
    reloaded.elect_all()
    assert reloaded.group() is None and reloaded.coordinator._shards[h.partition].offsets.offsets == {}


def test_offsets_of_a_deleted_topic_are_deleted_and_the_group_stays():
    h = _harness()
    a = Consumer(h, "c-1")
    form_group(h, [a])
    a.commit({("gone", 0): 4, ("gone", 1): 6, ("kept", 0): 9})
    other = Consumer(h, "solo", group_id="other")
    other.commit({("gone", 0): 2}, generation=-1, member_id="")
    before = {p: len(records) for p, records in h.log.items()}
    h.coordinator.on_topics_deleted(["gone"])
    h.settle()
    written = [decode_record(k, v) for p, records in h.log.items() for k, v in records[before.get(p, 0):]]
    assert sorted((r.key.group, r.key.topic, r.key.partition) for r in written) == sorted([
        ("other", "gone", 0), (GROUP, "gone", 0), (GROUP, "gone", 1)])
    assert all(r.value is None for r in written)
    assert h.coordinator.committed_offsets(GROUP) == {("kept", 0): 9}
    assert h.coordinator.committed_offsets("other") == {}
    assert h.group().state is S.STABLE                      # the group itself is untouched
    assert h.kinds().count("offsets_deleted") == len({h.coordinator.partition_for(g) for g in (GROUP, "other")})


def test_offsets_of_a_deleted_topic_stay_when_the_tombstones_cannot_be_written():
    h = _harness()
    Consumer(h, "solo").commit({("gone", 0): 1}, generation=-1, member_id="")
    h.coordinator.on_topics_deleted(["gone"])
    h.fail_appends(Errors.NOT_ENOUGH_REPLICAS)
    assert h.coordinator.committed_offsets(GROUP) == {("gone", 0): 1}
    assert "offsets_delete_failed" in h.kinds()
