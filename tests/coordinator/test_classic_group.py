"""ClassicGroup: the state machine table, protocol vote, leader succession."""

import random

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator import java_hash
from minikafka.coordinator.classic_group import (
    VALID_PREVIOUS_STATES, ClassicGroup, ClassicGroupState, IllegalStateException,
)
from minikafka.coordinator.classic_group_member import ClassicGroupMember
from minikafka.coordinator.requests import JoinGroupRequestProtocol

S = ClassicGroupState


def _member(member_id: str, protocols=("range",), instance=None) -> ClassicGroupMember:
    return ClassicGroupMember(member_id, instance, "client", "/127.0.0.1", 30000, 10000, "consumer",
                              tuple(JoinGroupRequestProtocol(p, b"m") for p in protocols))


@pytest.mark.parametrize("source", list(S))
@pytest.mark.parametrize("target", list(S))
def test_transitions_follow_the_table(source, target):
    group = ClassicGroup("g", 0, state=source)
    if source in VALID_PREVIOUS_STATES[target]:
        group.transition_to(target, 5)
        assert (group.state, group.previous_state, group.current_state_timestamp) == (target, source, 5)
    else:
        with pytest.raises(IllegalStateException, match=f"Instead it is in {source} state"):
            group.transition_to(target, 5)


def test_state_names_are_kafkas():
    assert [str(s) for s in S] == ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"]


def test_first_member_leads_and_a_leaving_leader_is_replaced_in_hash_map_order():
    group = ClassicGroup("g", 0)
    ids = [f"m-{i}" for i in (4, 3, 2, 1, 0)]
    for member_id in ids:
        group.add(_member(member_id))
    assert group.leader_id == "m-4"
    group.remove("m-4")
    assert group.leader_id == java_hash.hash_map_order(ids[1:])[0] == "m-1"  # not "m-3", the next to join


def test_protocol_vote_counts_first_choices_among_common_protocols():
    group = ClassicGroup("g", 0)
    group.add(_member("a", ("sticky", "range", "roundrobin")))
    group.add(_member("b", ("roundrobin", "range")))
    group.add(_member("c", ("roundrobin", "range")))
    # "sticky" is not common; a votes range, b and c vote roundrobin.
    assert group.select_protocol() == "roundrobin"


def test_awaiting_join_counter_tracks_parked_members():
    group = ClassicGroup("g", 0)
    answers = []
    group.add(_member("a"), answers.append)
    group.add(_member("b"))
    assert group.num_members_awaiting_join == 1 and not group.has_all_members_joined()
    group.update_member(group.member("b"), group.member("b").supported_protocols, 1, 2, answers.append)
    assert group.has_all_members_joined()
    group.remove("a")
    assert group.num_members_awaiting_join == 1


def test_validate_member_distinguishes_unknown_and_fenced():
    group = ClassicGroup("g", 0)
    group.add(_member("a-1", instance="a"))
    assert group.validate_member("a-1", "a") is Errors.NONE
    assert group.validate_member("a-0", "a") is Errors.FENCED_INSTANCE_ID
    assert group.validate_member("a-1", "zzz") is Errors.UNKNOWN_MEMBER_ID
    assert group.validate_member("nobody", None) is Errors.UNKNOWN_MEMBER_ID


def test_replacing_a_static_member_fences_its_parked_requests():
    group = ClassicGroup("g", 0)
    answers = []
    group.add(_member("a-1", instance="a"), answers.append)
    new = group.replace_static_member("a", "a-1", "a-2")
    assert answers[0].error_code is Errors.FENCED_INSTANCE_ID
    assert group.static_members == {"a": "a-2"} and group.leader_id == "a-2" and new.member_id == "a-2"


def test_duplicate_static_member_is_a_bug():
    group = ClassicGroup("g", 0)
    group.add(_member("a-1", instance="a"))
    with pytest.raises(IllegalStateException, match="cannot be added to group g"):
        group.add(_member("a-2", instance="a"))


def test_member_order_is_stable_for_a_given_set_of_ids():
    ids = [f"consumer-{i}-{random.Random(i).getrandbits(64):x}" for i in range(20)]
    group = ClassicGroup("g", 0)
    for member_id in ids:
        group.add(_member(member_id))
    assert [m.member_id for m in group.all_members()] == java_hash.hash_map_order(ids, 32)
