"""SyncGroup, Heartbeat, LeaveGroup and the group queries."""

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.requests import (
    DescribeGroupsRequest, HeartbeatRequest, LeaveGroupRequest, ListGroupsRequest, MemberIdentity,
    SyncGroupRequest,
)

from .harness import GROUP, Box, Consumer, Harness, form_group

S = ClassicGroupState


@pytest.fixture
def h():
    harness = Harness()
    harness.elect_all()
    return harness


def _joined_pair(h):
    """Two members through the join phase, waiting for SyncGroup."""
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    a.joined(boxes[0])
    b.joined(boxes[1])
    return a, b


def test_sync_to_a_missing_or_empty_group_is_unknown_member(h):
    box = Box()
    h.coordinator.handle_sync_group(SyncGroupRequest(GROUP, 1, "m", api_version=3), box)
    assert box.value.error_code is Errors.UNKNOWN_MEMBER_ID
    Consumer(h, "solo").commit({("t", 0): 1}, generation=-1, member_id="")
    box = Box()
    h.coordinator.handle_sync_group(SyncGroupRequest(GROUP, 0, "", api_version=3), box)
    assert box.value.error_code is Errors.UNKNOWN_MEMBER_ID


def test_sync_with_a_stale_generation_or_other_protocol_is_refused(h):
    a, _ = _joined_pair(h)
    a.generation = 0
    assert a.sync().value.error_code is Errors.ILLEGAL_GENERATION
    a.generation = 1
    assert a.sync(protocol="roundrobin").value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_follower_waits_for_the_leader_and_leader_omissions_get_nothing(h):
    a, b = _joined_pair(h)
    follower = b.sync()
    assert not follower.done and h.group().state is S.COMPLETING_REBALANCE
    leader = a.sync({a.member_id: b"everything"})
    assert leader.value.assignment == b"everything"
    assert follower.value.error_code is Errors.NONE and follower.value.assignment == b""
    assert follower.value.protocol_name == "range" and follower.value.protocol_type == "consumer"


def test_sync_during_preparing_rebalance_says_rebalance_in_progress(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    form_group(h, [a, b])
    a.join()                                                # leader rejoin starts a rebalance
    assert b.sync().value.error_code is Errors.REBALANCE_IN_PROGRESS


def test_heartbeat_errors(h):
    a, b = _joined_pair(h)
    assert a.heartbeat() is Errors.NONE                     # CompletingRebalance counts as fine
    box = Box()
    h.coordinator.handle_heartbeat(HeartbeatRequest("missing", 1, "m"), box)
    assert box.value.error_code is Errors.UNKNOWN_MEMBER_ID
    b.generation = 7
    assert b.heartbeat() is Errors.ILLEGAL_GENERATION
    b.member_id = "stranger"
    assert b.heartbeat() is Errors.UNKNOWN_MEMBER_ID


def test_leave_from_a_missing_group_reports_each_member_unknown(h):
    box = Box()
    h.coordinator.handle_leave_group(
        LeaveGroupRequest("missing", (MemberIdentity("a"), MemberIdentity("b"))), box)
    assert box.value.error_code is Errors.NONE
    assert [m.error_code for m in box.value.members] == [Errors.UNKNOWN_MEMBER_ID] * 2


def test_admin_removes_a_static_member_by_instance_id(h):
    a = Consumer(h, "c-1", instance_id="a")
    b = Consumer(h, "c-2", instance_id="b")
    form_group(h, [a, b])
    box = Box()
    h.coordinator.handle_leave_group(LeaveGroupRequest(GROUP, (
        MemberIdentity("", "b"), MemberIdentity("", "zz"), MemberIdentity("nobody"))), box)
    assert [m.error_code for m in box.value.members] == [
        Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID]
    assert box.value.legacy_error_code() is Errors.UNKNOWN_MEMBER_ID
    assert "b" not in h.group().static_members and h.group().state is S.PREPARING_REBALANCE


def test_pending_member_can_leave_before_joining(h):
    box = Box()
    c = Consumer(h, "c-1")
    h.coordinator.handle_join_group(c.join_request(), box)
    pending = box.value.member_id
    left = Box()
    h.coordinator.handle_leave_group(LeaveGroupRequest.single(GROUP, pending), left)
    assert left.value.members[0].error_code is Errors.NONE
    assert not h.group().is_pending_member(pending)


def test_describe_shows_metadata_only_when_stable(h):
    a, b = _joined_pair(h)
    box = Box()
    h.coordinator.handle_describe_groups(DescribeGroupsRequest((GROUP,)), box)
    described = box.value.groups[0]
    assert described.group_state == "CompletingRebalance" and described.protocol_data == ""
    assert {m.member_metadata for m in described.members} == {b""}
    assert {m.client_host for m in described.members} == {"/127.0.0.1"}


def test_describe_v6_reports_missing_groups(h):
    box = Box()
    h.coordinator.handle_describe_groups(DescribeGroupsRequest(("nope",), api_version=6), box)
    described = box.value.groups[0]
    assert (described.error_code, described.error_message, described.group_state) == (
        Errors.GROUP_ID_NOT_FOUND, "Group nope not found.", "Dead")


def test_list_groups_filters_by_state_and_type(h):
    form_group(h, [Consumer(h, "c-1")])
    Consumer(h, "solo", group_id="standalone").commit({("t", 0): 1}, generation=-1, member_id="")
    def listed(**filters):
        box = Box()
        h.coordinator.handle_list_groups(ListGroupsRequest(**filters), box)
        return sorted((g.group_id, g.group_state, g.protocol_type) for g in box.value.groups)
    assert listed() == [(GROUP, "Stable", "consumer"), ("standalone", "Empty", "")]
    assert listed(states_filter=(" EMPTY ",)) == [("standalone", "Empty", "")]
    assert listed(types_filter=("consumer",)) == []
    assert listed(types_filter=("Classic",)) == listed()


def test_list_groups_during_a_load_says_so():
    h = Harness()
    h.coordinator.on_elected(3, 0)
    box = Box()
    h.coordinator.handle_list_groups(ListGroupsRequest(), box)
    assert box.value.error_code is Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_unloading_answers_parked_syncs_with_not_coordinator(h):
    a, b = _joined_pair(h)
    parked = b.sync()
    h.coordinator.on_resigned(h.partition)
    assert parked.value.error_code is Errors.NOT_COORDINATOR
