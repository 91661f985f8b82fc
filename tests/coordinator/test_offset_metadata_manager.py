"""OffsetCommit and OffsetFetch: who may commit, what becomes visible when."""

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.records import OffsetCommitValue, decode_record
from minikafka.coordinator.requests import (
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic, OffsetFetchRequest,
    OffsetFetchRequestTopics,
)

from .harness import GROUP, Box, Consumer, Harness, form_group


@pytest.fixture
def h():
    harness = Harness()
    harness.elect_all()
    return harness


def _error(box: Box) -> Errors:
    return box.value.topics[0].partitions[0].error_code


def _committed(h: Harness, group: str = GROUP) -> dict:
    return h.coordinator.committed_offsets(group)


def test_member_of_an_older_generation_gets_illegal_generation(h):
    a = Consumer(h, "c-1")
    form_group(h, [a])
    assert _error(a.commit({("t", 0): 1}, generation=0)) is Errors.ILLEGAL_GENERATION


def test_unknown_member_gets_unknown_member_id(h):
    a = Consumer(h, "c-1")
    form_group(h, [a])
    assert _error(a.commit({("t", 0): 1}, member_id="someone-else")) is Errors.UNKNOWN_MEMBER_ID


def test_standalone_commit_to_a_group_with_members_is_refused(h):
    a = Consumer(h, "c-1")
    form_group(h, [a])
    assert _error(a.commit({("t", 0): 1}, generation=-1, member_id="")) is Errors.UNKNOWN_MEMBER_ID


def test_commit_while_completing_a_rebalance_is_refused(h):
    a = Consumer(h, "c-1")
    box = a.join()
    h.advance(3000)
    a.joined(box)
    assert _error(a.commit({("t", 0): 1})) is Errors.REBALANCE_IN_PROGRESS


@pytest.mark.parametrize("version,error", [(8, Errors.ILLEGAL_GENERATION), (9, Errors.GROUP_ID_NOT_FOUND)])
def test_member_commit_to_a_missing_group(h, version, error):
    ghost = Consumer(h, "c-1", group_id="gone")
    assert _error(ghost.commit({("t", 0): 1}, generation=3, member_id="m", api_version=version)) is error


def test_too_large_metadata_fails_only_its_partition(h):
    box = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic("t", (
        OffsetCommitRequestPartition(0, 5, committed_metadata="x" * 4097),
        OffsetCommitRequestPartition(1, 6, committed_metadata="x" * 4096))),)), box)
    h.settle()
    errors = [p.error_code for p in box.value.topics[0].partitions]
    assert errors == [Errors.OFFSET_METADATA_TOO_LARGE, Errors.NONE]
    assert _committed(h) == {("t", 1): 6}


def test_offsets_become_visible_only_once_committed(h):
    solo = Consumer(h, "solo")
    box = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 9),)),)), box)
    assert not box.done and _committed(h) == {}
    assert solo.fetch({"t": (0,)}).value.groups[0].topics[0].partitions[0].committed_offset == -1
    h.settle()
    assert _error(box) is Errors.NONE and _committed(h) == {("t", 0): 9}


def test_require_stable_fetch_waits_for_commits_in_flight(h):
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 9),)),)), Box())
    fetched = Box()
    h.coordinator.handle_offset_fetch(OffsetFetchRequest.single(
        GROUP, (OffsetFetchRequestTopics("t", (0,)),), require_stable=True), fetched)
    assert not fetched.done
    h.settle()
    assert fetched.value.groups[0].topics[0].partitions[0].committed_offset == 9


def test_failed_write_commits_nothing(h):
    box = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 9),)),)), box)
    h.fail_appends(Errors.NOT_LEADER_OR_FOLLOWER)
    assert _error(box) is Errors.NOT_COORDINATOR
    assert _committed(h) == {} and h.group() is None


def test_commit_without_an_answer_times_out_after_offsets_commit_timeout(h):
    box = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 9),)),)), box)
    h.advance(4999, settle=False)
    assert not box.done
    h.advance(1, settle=False)
    assert _error(box) is Errors.COORDINATOR_NOT_AVAILABLE
    h.settle()                                              # a late acknowledgement changes nothing
    assert box.values and len(box.values) == 1 and _committed(h) == {}


def test_commit_record_carries_offset_epoch_metadata_and_time(h):
    a = Consumer(h, "c-1")
    form_group(h, [a])
    a.commit({("orders", 3): 77})
    record = decode_record(*h.log[h.partition][-1])
    assert record.value == OffsetCommitValue(77, 3, "meta", h.node.now)


def test_retention_time_from_old_versions_writes_an_expire_timestamp(h):
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 1),)),), retention_time_ms=60000, api_version=2), Box())
    h.settle()
    key, value = h.log[h.partition][-1]
    assert value[:2] == b"\x00\x01"
    assert decode_record(key, value).value.expire_timestamp == h.node.now + 60000


def test_fetch_all_lists_every_committed_partition(h):
    solo = Consumer(h, "solo")
    solo.commit({("a", 0): 1, ("b", 2): 3}, generation=-1, member_id="")
    topics = solo.fetch(None).value.groups[0].topics
    assert {(t.name, p.partition_index, p.committed_offset) for t in topics for p in t.partitions} == \
        {("a", 0, 1), ("b", 2, 3)}
