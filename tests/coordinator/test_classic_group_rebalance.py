"""The timed side of the classic protocol: delays, rebalance timeouts, session and sync expiry."""

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.requests import SyncGroupRequest, SyncGroupRequestAssignment

from .harness import Box, Consumer, Harness, form_group

S = ClassicGroupState


@pytest.fixture
def h():
    harness = Harness()
    harness.elect_all()
    return harness


def test_initial_rebalance_waits_for_the_delay(h):
    box = Consumer(h, "c-1").join()
    h.advance(2999)
    assert not box.done
    h.advance(1)
    assert box.value.generation_id == 1


def test_each_newcomer_extends_the_initial_delay_up_to_the_rebalance_timeout(h):
    first = Consumer(h, "c-1", rebalance_timeout_ms=7000).join()
    h.advance(2500)
    second = Consumer(h, "c-2", rebalance_timeout_ms=7000).join()   # extends by another 3 s
    h.advance(500)
    assert not first.done
    h.advance(2999)
    assert not first.done
    h.advance(1)                                                     # 6000 ms after the first join
    assert first.value.generation_id == second.value.generation_id == 1


def test_a_newcomer_to_a_stable_group_completes_when_the_others_rejoin_without_the_initial_delay(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    form_group(h, [a, b])
    newcomer = Consumer(h, "c-3").join()
    assert not newcomer.done and h.group().state is S.PREPARING_REBALANCE
    assert a.heartbeat() is Errors.REBALANCE_IN_PROGRESS   # how the old members learn of it
    first = a.join()
    assert not first.done
    second = b.join()                                       # the last one back: no timer to wait for
    assert newcomer.value.generation_id == first.value.generation_id == second.value.generation_id == 2
    assert len(first.value.members) == 3 and newcomer.value.members == second.value.members == ()


def test_member_that_does_not_rejoin_within_the_rebalance_timeout_is_dropped(h):
    a = Consumer(h, "c-1", rebalance_timeout_ms=5000)
    b = Consumer(h, "c-2", rebalance_timeout_ms=5000)
    form_group(h, [a, b])
    parked = a.join()                                       # leader rejoin: rebalance
    h.advance(4999)
    b.heartbeat()                                           # alive, but never rejoins
    assert not parked.done
    h.advance(1)
    assert parked.value.generation_id == 2 and [m.member_id for m in parked.value.members] == [a.member_id]
    assert b.member_id not in h.group().members


def test_static_members_are_not_dropped_for_missing_the_rebalance(h):
    a = Consumer(h, "c-1", rebalance_timeout_ms=5000, instance_id="a")
    b = Consumer(h, "c-2", rebalance_timeout_ms=5000, instance_id="b", session_timeout_ms=60000)
    form_group(h, [a, b])
    parked = a.join()
    h.advance(5000)
    assert parked.value.generation_id == 2
    assert b.member_id in h.group().members                 # kept until its session expires


def test_member_missing_sync_is_dropped_and_the_group_rebalances(h):
    a = Consumer(h, "c-1", rebalance_timeout_ms=4000)
    b = Consumer(h, "c-2", rebalance_timeout_ms=4000)
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    a.joined(boxes[0])
    b.joined(boxes[1])
    leader_sync = a.sync({a.member_id: b"1", b.member_id: b"2"})
    assert leader_sync.value.error_code is Errors.NONE and h.group().state is S.STABLE
    h.advance(4000)                                         # b never sent SyncGroup
    assert b.member_id not in h.group().members
    assert h.group().state is S.PREPARING_REBALANCE


def test_followers_waiting_on_sync_must_rejoin_when_a_rebalance_starts(h):
    a, b, c = Consumer(h, "c-1"), Consumer(h, "c-2"), Consumer(h, "c-3")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    b.joined(boxes[1])
    waiting = b.sync()                                      # parked until the leader syncs
    assert not waiting.done
    c.join()                                                # a newcomer restarts the rebalance
    assert waiting.value.error_code is Errors.REBALANCE_IN_PROGRESS
    assert waiting.value.assignment == b""


def test_heartbeats_keep_a_member_alive_and_silence_expires_it(h):
    a = Consumer(h, "c-1", session_timeout_ms=6000)
    form_group(h, [a])
    for _ in range(10):
        h.advance(5000)
        assert a.heartbeat() is Errors.NONE
    h.advance(6000)
    assert h.group().state is S.EMPTY
    removed = [e for e in h.events if e.kind == "group_member_removed"][-1]
    assert "session.timeout.ms=6000" in removed.text


def test_offset_commit_counts_as_a_heartbeat(h):
    a = Consumer(h, "c-1", session_timeout_ms=6000)
    form_group(h, [a])
    for _ in range(4):
        h.advance(5000)
        assert a.commit({("t", 0): 1}).value.topics[0].partitions[0].error_code is Errors.NONE
    assert h.group().state is S.STABLE


def test_pending_member_that_never_comes_back_is_forgotten(h):
    a = Consumer(h, "c-1", session_timeout_ms=6000, api_version=5)
    box = Box()
    h.coordinator.handle_join_group(a.join_request(), box)
    pending_id = box.value.member_id
    assert h.group().is_pending_member(pending_id)
    h.advance(6000)
    assert not h.group().is_pending_member(pending_id)


def test_generation_and_rebalance_events_read_like_kafka(h):
    a = Consumer(h, "c-1")
    form_group(h, [a])
    texts = [e.text for e in h.events if e.kind.startswith("group_")]
    assert texts[-3].startswith(f"group demo: member {a.member_id} joined, rebalancing (generation 0 -> 1)")
    assert texts[-2] == (f"group demo generation 1: 1 members joined, protocol range, leader "
                         f"{a.member_id}; waiting for the leader's SyncGroup")
    assert texts[-1] == f"group demo generation 1 is Stable: leader {a.member_id} assigned 1 members"


def test_assignment_that_cannot_be_stored_sends_members_back_to_rejoin(h):
    a = Consumer(h, "c-1")
    box = a.join()
    h.advance(3000)
    a.joined(box)
    sync = Box()
    h.coordinator.handle_sync_group(SyncGroupRequest(
        "demo", a.generation, a.member_id, None, "consumer", "range",
        (SyncGroupRequestAssignment(a.member_id, b"x"),)), sync)
    h.fail_appends(Errors.NOT_LEADER_OR_FOLLOWER)
    assert sync.value.error_code is Errors.NOT_COORDINATOR
    assert h.group().state is S.PREPARING_REBALANCE


def test_a_member_parked_in_join_group_outlives_its_session_timeout(h):
    a = Consumer(h, "c-1", session_timeout_ms=6000, rebalance_timeout_ms=20000)
    b = Consumer(h, "c-2", session_timeout_ms=30000, rebalance_timeout_ms=20000)
    form_group(h, [a, b])
    parked = a.join()                                       # parked: it cannot heartbeat meanwhile
    h.advance(15000)
    b.heartbeat()
    assert a.member_id in h.group().members and not parked.done
    h.advance(5000)                                         # b never rejoined: dropped, a goes on
    assert parked.value.generation_id == 2
