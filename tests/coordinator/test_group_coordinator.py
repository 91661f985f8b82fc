"""End-to-end scenarios against one GroupCoordinator in virtual time."""

import random

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.coordinator_context import CoordinatorState
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.records import GroupMetadataValue, MemberMetadata, group_metadata_record
from minikafka.coordinator.requests import (
    DeleteGroupsRequest, DescribeGroupsRequest, HeartbeatRequest, JoinGroupRequest,
    JoinGroupRequestProtocol, ListGroupsRequest, OffsetCommitRequest, OffsetCommitRequestPartition,
    OffsetCommitRequestTopic, OffsetFetchRequest, OffsetFetchRequestGroup, OffsetFetchRequestTopics,
    SyncGroupRequest,
)

from .harness import GROUP, Box, Consumer, Harness, form_group

S = ClassicGroupState


@pytest.fixture
def h():
    harness = Harness()
    harness.elect_all()
    return harness


def test_two_members_form_a_group_with_one_leader_and_their_assignments(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    form_group(h, [a, b])
    group = h.group()
    assert group.state is S.STABLE and group.generation_id == 1
    assert group.leader_id == a.member_id                  # the first to join leads
    assert group.protocol_name == "range"
    assert group.member(a.member_id).assignment == b"assignment-of-consumer-1"
    assert group.member(b.member_id).assignment == b"assignment-of-consumer-2"
    assert a.member_id.startswith("consumer-1-") and len(a.member_id) == len("consumer-1-") + 36
    assert h.kinds()[-3:] == ["group_rebalance", "group_join_completed", "group_stable"]


def test_only_the_leader_receives_the_member_list(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    ja, jb = a.join(), b.join()
    h.advance(6000)
    assert [m.member_id for m in ja.value.members] and not jb.value.members
    assert {m.member_id for m in ja.value.members} == {ja.value.member_id, jb.value.member_id}
    assert ja.value.leader == jb.value.leader == ja.value.member_id
    assert ja.value.protocol_type == "consumer" and ja.value.protocol_name == "range"


def test_new_member_must_rejoin_with_the_id_it_was_given(h):
    box = Box()
    request = JoinGroupRequest(GROUP, 10000, protocols=(JoinGroupRequestProtocol("range", b""),),
                               api_version=4, client_id="kafka-python-3.0.12")
    h.coordinator.handle_join_group(request, box)
    assert box.value.error_code is Errors.MEMBER_ID_REQUIRED
    assert box.value.member_id.startswith("kafka-python-3.0.12-")
    assert h.group().is_pending_member(box.value.member_id)


def test_old_join_versions_join_at_once(h):
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(
        GROUP, 10000, protocols=(JoinGroupRequestProtocol("range", b""),), api_version=3,
        client_id="c"), box)
    assert not box.done                                    # parked: the rebalance is pending
    assert h.group().state is S.PREPARING_REBALANCE and len(h.group().members) == 1


def test_silent_member_is_removed_after_its_session_timeout_and_the_group_rebalances(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    form_group(h, [a, b])
    for _ in range(4):                                     # 8 s: only a heartbeats
        h.advance(2000)
        assert a.heartbeat() is Errors.NONE
    h.advance(2001)                                        # b's 10 s session expires
    assert b.member_id not in h.group().members
    assert h.group().state is S.PREPARING_REBALANCE
    assert a.heartbeat() is Errors.REBALANCE_IN_PROGRESS
    rejoin = a.join()
    assert rejoin.value.generation_id == 2 and rejoin.value.members  # a alone: it leads
    assert "group_member_removed" in h.kinds()


def test_leave_group_triggers_a_rebalance_and_the_survivor_rejoins(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    form_group(h, [a, b])
    assert b.leave().value.members[0].error_code is Errors.NONE
    assert h.group().state is S.PREPARING_REBALANCE
    rebalance = [e for e in h.events if e.kind == "group_rebalance"][-1]
    assert rebalance.text == f"group demo: member {b.member_id} left, rebalancing (generation 1 -> 2)"
    a.joined(a.join())
    assert a.generation == 2 and h.group().state is S.COMPLETING_REBALANCE
    a.sync({a.member_id: b"all"})
    assert h.group().state is S.STABLE and h.group().member(a.member_id).assignment == b"all"


def test_last_member_leaving_empties_the_group_with_a_new_generation(h):
    a = Consumer(h, "consumer-1")
    form_group(h, [a])
    a.leave()
    group = h.group()
    assert group.state is S.EMPTY and group.generation_id == 2 and group.leader_id is None


def test_commits_and_fetches(h):
    a = Consumer(h, "consumer-1")
    form_group(h, [a])
    assert a.commit({("orders", 0): 10, ("orders", 1): 20}).value.topics[0].partitions[1].error_code \
        is Errors.NONE
    parts = a.fetch({"orders": (0, 1, 2)}).value.groups[0].topics[0].partitions
    assert [(p.committed_offset, p.committed_leader_epoch, p.metadata) for p in parts] == \
        [(10, 3, "meta"), (20, 3, "meta"), (-1, -1, "")]


def test_fetch_for_an_unknown_group_answers_minus_one(h):
    nobody = Consumer(h, "x", group_id="never-seen")
    group = nobody.fetch({"orders": (0,)}).value.groups[0]
    assert group.error_code is Errors.NONE
    assert group.topics[0].partitions[0].committed_offset == -1
    assert nobody.fetch(None).value.groups[0].topics == ()


def test_standalone_consumer_commits_create_a_simple_group(h):
    solo = Consumer(h, "solo", group_id="standalone")
    assert solo.commit({("orders", 0): 7}, generation=-1, member_id="").value.topics[0] \
        .partitions[0].error_code is Errors.NONE
    group = h.group("standalone")
    assert group.state is S.EMPTY and group.protocol_type is None
    assert solo.fetch(None).value.groups[0].topics[0].partitions[0].committed_offset == 7


def test_coordinator_failover_restores_groups_and_offsets():
    first = Harness(node_id=1)
    first.elect_all()
    a, b = Consumer(first, "consumer-1"), Consumer(first, "consumer-2")
    form_group(first, [a, b])
    a.commit({("orders", 0): 42})
    p = first.partition
    first.coordinator.on_resigned(p, leader_epoch=1)
    assert a.heartbeat() is Errors.NOT_COORDINATOR
    assert "group_unloaded" in first.kinds()

    second = Harness(node_id=2, log=first.log, start=first.node.now)
    second.coordinator.on_elected(p, 1, list(first.log[p]))
    group = second.group()
    assert group.state is S.STABLE and group.generation_id == 1 and group.leader_id == a.member_id
    assert group.member(b.member_id).assignment == b"assignment-of-consumer-2"
    assert group.member(a.member_id).client_host == "/127.0.0.1"
    assert second.coordinator.committed_offsets(GROUP) == {("orders", 0): 42}
    for consumer in (a, b):
        consumer.h = second
        assert consumer.heartbeat() is Errors.NONE
    second.advance(10001)                                  # loaded members get a session clock
    assert second.group().state is S.EMPTY and second.group().generation_id == 2


def test_static_member_restart_keeps_its_assignment_without_a_rebalance(h):
    a = Consumer(h, "consumer-1", instance_id="worker-a")
    b = Consumer(h, "consumer-2", instance_id="worker-b")
    form_group(h, [a, b])
    old_id = b.member_id
    assert old_id.startswith("worker-b-")
    restarted = Consumer(h, "consumer-2", instance_id="worker-b")
    box = restarted.join()
    assert box.value.error_code is Errors.NONE and box.value.generation_id == 1
    restarted.joined(box)
    assert restarted.member_id != old_id
    assert h.group().state is S.STABLE and h.group().generation_id == 1
    assert restarted.sync().value.assignment == b"assignment-of-consumer-2"
    assert b.heartbeat() is Errors.FENCED_INSTANCE_ID


@pytest.mark.parametrize("timeout", [5999, 1800001])
def test_session_timeout_outside_the_broker_bounds_is_refused(h, timeout):
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, timeout, protocols=(
        JoinGroupRequestProtocol("range", b""),)), box)
    assert box.value.error_code is Errors.INVALID_SESSION_TIMEOUT


def test_empty_group_id_is_invalid(h):
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest("", 10000), box)
    assert box.value.error_code is Errors.INVALID_GROUP_ID


def test_groups_of_partitions_we_do_not_lead_get_not_coordinator():
    h = Harness()
    box = Box()
    h.coordinator.handle_heartbeat(HeartbeatRequest(GROUP, 1, "m"), box)
    assert box.value.error_code is Errors.NOT_COORDINATOR
    commit = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(0, 1),)),)), commit)
    assert commit.value.topics[0].partitions[0].error_code is Errors.NOT_COORDINATOR


def test_loading_partition_answers_load_in_progress_and_heartbeats_blindly():
    h = Harness()
    h.coordinator.on_elected(h.partition, 3)               # records still being read
    assert h.coordinator.partition_state(h.partition) is CoordinatorState.LOADING
    join, beat = Box(), Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, 10000, protocols=(
        JoinGroupRequestProtocol("range", b""),)), join)
    h.coordinator.handle_heartbeat(HeartbeatRequest(GROUP, 1, "m"), beat)
    assert join.value.error_code is Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert beat.value.error_code is Errors.NONE
    h.coordinator.complete_load(h.partition, 3, [])
    assert h.coordinator.partition_state(h.partition) is CoordinatorState.ACTIVE


def test_a_corrupt_partition_fails_to_load_and_answers_not_coordinator():
    h = Harness()
    h.coordinator.on_elected(h.partition, 0, [(b"\x00\x02\x00\x01g", b"\x00\x03\x00")])
    assert h.coordinator.partition_state(h.partition) is CoordinatorState.FAILED
    assert "group_load_failed" in h.kinds()
    box = Box()
    h.coordinator.handle_heartbeat(HeartbeatRequest(GROUP, 1, "m"), box)
    assert box.value.error_code is Errors.NOT_COORDINATOR
    assert h.queued == []                                  # nothing was written


def test_shutdown_makes_every_request_coordinator_not_available(h):
    h.coordinator.shutdown()
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, 10000), box)
    assert box.value.error_code is Errors.COORDINATOR_NOT_AVAILABLE


def test_parked_joins_learn_of_a_coordinator_move(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    form_group(h, [a, b])
    parked = a.join()                                      # the leader rejoins: a rebalance starts
    assert not parked.done
    h.coordinator.on_resigned(h.partition)
    assert parked.value.error_code is Errors.NOT_COORDINATOR


def test_list_describe_and_delete(h):
    a = Consumer(h, "consumer-1")
    form_group(h, [a])
    Consumer(h, "solo", group_id="standalone").commit({("t", 0): 1}, generation=-1, member_id="")
    listed = Box()
    h.coordinator.handle_list_groups(ListGroupsRequest(states_filter=("stable",)), listed)
    assert [(g.group_id, g.protocol_type, g.group_state, g.group_type) for g in listed.value.groups] \
        == [(GROUP, "consumer", "Stable", "classic")]
    described = Box()
    h.coordinator.handle_describe_groups(DescribeGroupsRequest((GROUP, "nope"), api_version=5), described)
    stable, missing = described.value.groups
    assert stable.protocol_data == "range" and stable.members[0].member_metadata == b"sub"
    assert (missing.error_code, missing.group_state) == (Errors.NONE, "Dead")
    deleted = Box()
    h.coordinator.handle_delete_groups(DeleteGroupsRequest((GROUP, "standalone", "nope")), deleted)
    h.settle()
    assert {r.group_id: r.error_code for r in deleted.value.results} == {
        GROUP: Errors.NON_EMPTY_GROUP, "standalone": Errors.NONE, "nope": Errors.GROUP_ID_NOT_FOUND}
    assert h.group("standalone") is None


def test_multi_group_offset_fetch_answers_each_group(h):
    Consumer(h, "solo", group_id="g1").commit({("t", 0): 5}, generation=-1, member_id="")
    box = Box()
    h.coordinator.handle_offset_fetch(OffsetFetchRequest((
        OffsetFetchRequestGroup("g1", (OffsetFetchRequestTopics("t", (0,)),)),
        OffsetFetchRequestGroup("g2", None))), box)
    g1, g2 = box.value.groups
    assert g1.topics[0].partitions[0].committed_offset == 5 and g2.topics == ()


def test_sync_group_v5_must_name_the_protocol(h):
    box = Box()
    h.coordinator.handle_sync_group(SyncGroupRequest(GROUP, 1, "m", api_version=5), box)
    assert box.value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


# ---------------------------------------------------------------------------- seeded simulation
def _check_invariants(h: Harness, generations: dict[str, int]) -> None:
    for group_id in ("sim-a", "sim-b"):
        group = h.group(group_id)
        if group is None:
            continue
        assert group.generation_id >= generations.get(group_id, 0), "generation went backwards"
        generations[group_id] = group.generation_id
        if group.state is S.STABLE:
            assert all(m.assignment for m in group.members.values()), "Stable member without assignment"
        if group.members:
            assert group.leader_id in group.members
        assert group.num_members_awaiting_join == sum(m.is_awaiting_join for m in group.members.values())
        assert set(group.static_members.values()) <= set(group.members)


@pytest.mark.parametrize("seed", range(6))
def test_random_membership_churn_keeps_the_invariants(seed):
    rng = random.Random(seed)
    h = Harness(seed=seed, config=GroupCoordinatorConfig(initial_rebalance_delay_ms=500))
    h.elect_all()
    consumers = [Consumer(h, f"c-{i}", group_id=rng.choice(["sim-a", "sim-b"]),
                          rebalance_timeout_ms=8000,
                          instance_id=f"inst-{i}" if rng.random() < 0.3 else None) for i in range(5)]
    pending: dict[int, Box] = {}
    syncing: dict[int, Box] = {}
    generations: dict[str, int] = {}
    for _ in range(150):
        i = rng.randrange(len(consumers))
        c = consumers[i]
        action = rng.random()
        if action < 0.25 and i not in pending:
            c.member_id = "" if rng.random() < 0.3 and c.instance_id is None else c.member_id
            pending[i] = c.join()
        elif action < 0.5:
            c.heartbeat()
        elif action < 0.6:
            c.leave()
        elif action < 0.7:
            c.commit({("t", i): rng.randrange(100)})
        else:
            h.advance(rng.choice([100, 700, 3000]))
        for j, box in list(pending.items()):
            if box.done:
                del pending[j]
                response = box.values[-1]
                if response.error_code is Errors.NONE:
                    consumers[j].member_id = response.member_id
                    consumers[j].generation = response.generation_id
                    plan = {m.member_id: b"x" for m in response.members}
                    syncing[j] = consumers[j].sync(plan if response.members else None)
                elif response.error_code is Errors.UNKNOWN_MEMBER_ID:
                    consumers[j].member_id = ""
        _check_invariants(h, generations)


def test_resigning_with_an_assignment_in_flight_answers_once_and_leaves_no_timers(h):
    a, b = Consumer(h, "consumer-1"), Consumer(h, "consumer-2")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    a.joined(boxes[0])
    b.joined(boxes[1])
    follower = b.sync()
    leader = Box()
    h.coordinator.handle_sync_group(SyncGroupRequest(
        GROUP, a.generation, a.member_id, None, "consumer", "range", ()), leader)
    events_before = len(h.kinds())
    h.coordinator.on_resigned(h.partition)
    h.settle()                                             # the broker acknowledges too late
    assert follower.values[0].error_code is Errors.NOT_COORDINATOR and len(follower.values) == 1
    assert leader.value.error_code is Errors.NOT_COORDINATOR
    assert "group_rebalance" not in h.kinds()[events_before:]
    assert not any(k[:2] == ("group", h.partition) for k in h.node._timer_fns)


def test_a_load_survives_a_leader_epoch_bump_while_loading():
    h = Harness()
    h.coordinator.on_elected(h.partition, 4)
    h.coordinator.on_elected(h.partition, 5)               # same broker, newer epoch
    h.coordinator.complete_load(h.partition, 4, [])
    assert h.coordinator.partition_state(h.partition) is CoordinatorState.ACTIVE


def test_a_record_with_impossible_contents_fails_the_load_instead_of_the_broker():
    twin = MemberMetadata("x-1", "x", "c", "/h", 1, 6000, b"", b"")
    clone = MemberMetadata("x-2", "x", "c", "/h", 1, 6000, b"", b"")   # same static instance twice
    h = Harness()
    h.coordinator.on_elected(h.partition, 0, [group_metadata_record(
        GROUP, GroupMetadataValue("consumer", 1, "range", "x-1", 0, (twin, clone)))])
    assert h.coordinator.partition_state(h.partition) is CoordinatorState.FAILED
