"""JoinGroup, path by path."""

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.records import GroupMetadataKey, decode_record
from minikafka.coordinator.requests import JoinGroupRequest, JoinGroupRequestProtocol

from .harness import GROUP, Box, Consumer, Harness, form_group

S = ClassicGroupState


@pytest.fixture
def h():
    harness = Harness()
    harness.elect_all()
    return harness


def test_known_member_id_for_a_missing_group_is_unknown(h):
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, 10000, member_id="ghost", protocols=(
        JoinGroupRequestProtocol("range", b""),)), box)
    assert (box.value.error_code, box.value.member_id) == (Errors.UNKNOWN_MEMBER_ID, "ghost")
    assert h.group() is None


def test_a_new_group_is_written_as_an_empty_group_metadata_record(h):
    Consumer(h, "c").join()
    key, value = h.log[h.partition][0]
    record = decode_record(key, value)
    assert record.key == GroupMetadataKey(GROUP)
    assert (record.value.generation, record.value.protocol, record.value.members) == (0, None, ())


def test_a_new_group_whose_record_cannot_be_written_is_forgotten(h):
    box = Box()
    h.coordinator.handle_join_group(Consumer(h, "c", api_version=3).join_request(), box)
    h.fail_appends(Errors.NOT_ENOUGH_REPLICAS)
    assert box.value.error_code is Errors.COORDINATOR_NOT_AVAILABLE
    assert h.group() is None


def test_first_member_needs_a_protocol_type_and_a_protocol(h):
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, 10000, protocol_type="", protocols=(
        JoinGroupRequestProtocol("range", b""),)), box)
    assert box.value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_member_with_no_common_protocol_is_rejected(h):
    form_group(h, [Consumer(h, "c-1", protocols=("range",))])
    box = Consumer(h, "c-2", protocols=("sticky",)).join()
    assert box.value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_member_with_another_protocol_type_is_rejected(h):
    form_group(h, [Consumer(h, "c-1")])
    box = Box()
    h.coordinator.handle_join_group(JoinGroupRequest(GROUP, 10000, protocol_type="connect", protocols=(
        JoinGroupRequestProtocol("range", b""),)), box)
    assert box.value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_group_max_size_turns_away_extra_members():
    h = Harness(config=GroupCoordinatorConfig(max_size=1))
    h.elect_all()
    form_group(h, [Consumer(h, "c-1")])
    box = Consumer(h, "c-2").join()
    assert box.value.error_code is Errors.GROUP_MAX_SIZE_REACHED


def test_protocol_vote_picks_the_most_preferred_common_protocol(h):
    a = Consumer(h, "a", protocols=("roundrobin", "range"))
    b = Consumer(h, "b", protocols=("roundrobin", "range"))
    c = Consumer(h, "c", protocols=("range", "roundrobin"))
    form_group_boxes = [x.join() for x in (a, b, c)]
    while not all(x.done for x in form_group_boxes):
        h.advance(3000)
    assert h.group().protocol_name == "roundrobin"


def test_a_tied_vote_goes_to_the_first_protocol_in_java_hash_map_order(h):
    a = Consumer(h, "a", protocols=("roundrobin", "range"))
    b = Consumer(h, "b", protocols=("range", "roundrobin"))
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    assert h.group().protocol_name == "range"


def test_follower_rejoining_unchanged_gets_the_current_generation_back(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    form_group(h, [a, b])
    box = b.join()
    assert box.value.error_code is Errors.NONE and box.value.generation_id == 1
    assert box.value.members == () and h.group().state is S.STABLE


def test_leader_rejoining_starts_a_rebalance(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    form_group(h, [a, b])
    assert not a.join().done
    assert h.group().state is S.PREPARING_REBALANCE
    assert b.heartbeat() is Errors.REBALANCE_IN_PROGRESS
    b.joined(b.join())                                      # everyone is back: next generation
    assert b.generation == 2


def test_follower_with_a_new_subscription_starts_a_rebalance(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    form_group(h, [a, b])
    b.protocols = tuple(JoinGroupRequestProtocol(p.name, b"new-topics") for p in b.protocols)
    assert not b.join().done
    assert h.group().state is S.PREPARING_REBALANCE


def test_rejoin_during_completing_rebalance_with_same_metadata_repeats_the_generation(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    a.joined(boxes[0])
    assert h.group().state is S.COMPLETING_REBALANCE
    again = a.join()                                        # the leader lost its JoinGroup response
    assert again.value.generation_id == 1 and len(again.value.members) == 2


def test_follower_repeating_its_join_during_completing_rebalance_gets_no_member_list(h):
    a, b = Consumer(h, "c-1"), Consumer(h, "c-2")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    again = b.join()                                        # a follower that lost its response
    assert (again.value.generation_id, again.value.members) == (1, ())
    assert again.value.leader == boxes[0].value.member_id
    assert h.group().state is S.COMPLETING_REBALANCE


def test_follower_repeating_join_and_sync_in_a_stable_group_gets_its_assignment_back(h):
    # kafka-python 3.0.12 does this when it drops a round trip that finished between two polls.
    a, b, c = Consumer(h, "c-1"), Consumer(h, "c-2"), Consumer(h, "c-3")
    form_group(h, [a, b, c])
    rebalances = h.kinds().count("group_rebalance")
    again = b.join()
    assert (again.value.error_code, again.value.generation_id, again.value.members) == (Errors.NONE, 1, ())
    assert b.sync().value.assignment == b"assignment-of-c-2"
    assert h.group().state is S.STABLE and h.kinds().count("group_rebalance") == rebalances


def test_leader_repeating_an_unchanged_join_costs_a_generation_every_time(h):
    # Kafka reads any JoinGroup from the leader of a Stable group as a request to reassign.
    a, b, c = Consumer(h, "c-1"), Consumer(h, "c-2"), Consumer(h, "c-3")
    form_group(h, [a, b, c])
    for generation in (2, 3):
        parked = a.join()
        assert not parked.done and b.heartbeat() is Errors.REBALANCE_IN_PROGRESS
        others = [b.join(), c.join()]                       # told by their heartbeats to rejoin
        for consumer, box in zip((a, b, c), [parked] + others):
            consumer.joined(box)
        assert a.generation == generation
        b.sync(), c.sync()
        a.sync({x.member_id: x.client_id.encode() for x in (a, b, c)})
        assert h.group().state is S.STABLE
    texts = [e.text for e in h.events if e.kind == "group_rebalance"]
    assert texts[-2:] == [f"group demo: leader {a.member_id} rejoined, rebalancing (generation 1 -> 2)",
                          f"group demo: leader {a.member_id} rejoined, rebalancing (generation 2 -> 3)"]


def test_static_member_that_joins_afresh_gets_its_instance_id_as_member_id_prefix(h):
    box = Consumer(h, "client", instance_id="host-7", api_version=7).join()
    h.advance(3000)
    assert box.value.member_id.startswith("host-7-")      # static members skip MEMBER_ID_REQUIRED


def test_static_leader_restart_with_v9_learns_it_leads_without_reassigning(h):
    a = Consumer(h, "c-1", instance_id="a", api_version=9)
    b = Consumer(h, "c-2", instance_id="b", api_version=9)
    form_group(h, [a, b])
    box = Consumer(h, "c-1", instance_id="a", api_version=9).join()
    assert box.value.skip_assignment is True and len(box.value.members) == 2
    assert box.value.leader == box.value.member_id


def test_static_member_replacement_that_cannot_be_written_is_undone(h):
    a = Consumer(h, "c-1", instance_id="a")
    b = Consumer(h, "c-2", instance_id="b")
    form_group(h, [a, b])
    box = Box()
    h.coordinator.handle_join_group(Consumer(h, "c-2", instance_id="b").join_request(), box)
    h.fail_appends(Errors.REQUEST_TIMED_OUT)
    assert (box.value.error_code, box.value.member_id) == (Errors.COORDINATOR_NOT_AVAILABLE, "")
    assert h.group().static_members["b"] == b.member_id
    assert b.heartbeat() is Errors.NONE


def test_static_member_rejoining_during_completing_rebalance_restarts_it(h):
    a = Consumer(h, "c-1", instance_id="a")
    b = Consumer(h, "c-2", instance_id="b")
    boxes = [a.join(), b.join()]
    while not all(x.done for x in boxes):
        h.advance(3000)
    Consumer(h, "c-2", instance_id="b").join()
    assert h.group().state is S.PREPARING_REBALANCE


def test_unknown_static_member_id_is_fenced(h):
    a = Consumer(h, "c-1", instance_id="a")
    form_group(h, [a])
    impostor = Consumer(h, "c-1", instance_id="a")
    impostor.member_id = "a-not-the-current-id"
    box = impostor.join()
    assert box.value.error_code is Errors.FENCED_INSTANCE_ID
