"""ListGroups, DescribeGroups and DeleteGroups through the broker's codec."""

import pytest

from minikafka.server.apis.group_admin import GROUP_OPERATIONS, bit_positions, operations_field
from tests.server.apis.admin_harness import (DeleteGroups, DescribeGroups, ListGroups, commit,
                                                  coordinator_of, join_as_only_member, not_coordinator_of,
                                                  send, start_cluster, versions)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=41)
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


def listed(cluster, version=4, **fields):
    groups = []
    for broker in cluster.broker_ids:
        answer = send(cluster, broker, ListGroups[version](**fields))
        assert answer.error_code == 0
        groups += answer.groups
    return groups


def test_operations_field_is_kafkas_bit_field():
    assert operations_field(GROUP_OPERATIONS) == 3400            # READ|DELETE|DESCRIBE|DESCRIBE_CONFIGS|ALTER_CONFIGS
    assert bit_positions(3400) == {3, 6, 8, 10, 11}
    assert bit_positions(-2147483648) is None                    # "omitted"


def test_list_groups_across_brokers_with_state_and_type(cluster):
    join_as_only_member(cluster, "active")
    commit(cluster, coordinator_of(cluster, "offsets-only"), "offsets-only", {("orders", 0): 1})
    by_id = {g.group_id: g for g in listed(cluster, version=5, states_filter=[], types_filter=[])}
    assert (by_id["active"].protocol_type, by_id["active"].group_state, by_id["active"].group_type) == \
        ("consumer", "Stable", "classic")
    assert (by_id["offsets-only"].protocol_type, by_id["offsets-only"].group_state) == ("", "Empty")
    v0 = {g.group_id for g in listed(cluster, version=0)}
    assert {"active", "offsets-only"} <= v0


def test_list_groups_filters_by_state_case_insensitively(cluster):
    join_as_only_member(cluster, "filtered")
    stable = {g.group_id for g in listed(cluster, version=4, states_filter=["stable"])}
    empty = {g.group_id for g in listed(cluster, version=4, states_filter=["Empty"])}
    assert "filtered" in stable and "filtered" not in empty


def test_describe_a_stable_group_with_its_member(cluster):
    coordinator, member_id, _ = join_as_only_member(cluster, "described")
    answer = send(cluster, coordinator, DescribeGroups[5](groups=["described"], include_authorized_operations=False))
    [group] = answer.groups
    assert (group.error_code, group.group_state, group.protocol_type, group.protocol_data) == \
        (0, "Stable", "consumer", "range")
    [member] = group.members
    assert (member.member_id, member.client_id, member.client_host) == \
        (member_id, "minikafka-inprocess", "/127.0.0.1")
    assert (member.member_metadata, member.member_assignment) == (b"subscription", b"plan")
    assert group.authorized_operations is None                   # not asked: Kafka's INT_MIN


def test_authorized_operations_without_an_authorizer(cluster):
    coordinator, _, _ = join_as_only_member(cluster, "ops")
    answer = send(cluster, coordinator, DescribeGroups[3](groups=["ops"], include_authorized_operations=True))
    assert answer.groups[0].authorized_operations == {3, 6, 8, 10, 11}


def test_unknown_group_is_dead_before_v6_and_not_found_from_v6(cluster):
    coordinator = coordinator_of(cluster, "never-seen")
    old = send(cluster, coordinator, DescribeGroups[5](groups=["never-seen"], include_authorized_operations=True))
    assert (old.groups[0].error_code, old.groups[0].group_state) == (0, "Dead")
    assert old.groups[0].authorized_operations == {3, 6, 8, 10, 11}
    new = send(cluster, coordinator, DescribeGroups[6](groups=["never-seen"], include_authorized_operations=False))
    assert (new.groups[0].error_code, new.groups[0].error_message) == (69, "Group never-seen not found.")


def test_describe_at_a_non_coordinator(cluster):
    wrong = not_coordinator_of(cluster, "elsewhere")
    answer = send(cluster, wrong, DescribeGroups[0](groups=["elsewhere"]))
    assert (answer.groups[0].group_id, answer.groups[0].error_code) == ("elsewhere", 16)


def test_delete_groups_once_each(cluster):
    coordinator = coordinator_of(cluster, "to-delete")
    commit(cluster, coordinator, "to-delete", {("orders", 1): 8})
    join_as_only_member(cluster, "busy")
    busy_coordinator = coordinator_of(cluster, "busy")
    answer = send(cluster, coordinator, DeleteGroups[2](groups_names=["to-delete", "to-delete"]))
    assert [(r.group_id, r.error_code) for r in answer.results] == [("to-delete", 0)]
    busy = send(cluster, busy_coordinator, DeleteGroups[0](groups_names=["busy"]))
    assert [(r.group_id, r.error_code) for r in busy.results] == [("busy", 68)]   # NON_EMPTY_GROUP
    again = send(cluster, coordinator, DeleteGroups[1](groups_names=["to-delete"]))
    assert [(r.group_id, r.error_code) for r in again.results] == [("to-delete", 69)]   # GROUP_ID_NOT_FOUND


def test_every_advertised_version(cluster):
    coordinator, _, _ = join_as_only_member(cluster, "versions")
    for version in versions(16):
        answer = send(cluster, coordinator, ListGroups[version](states_filter=[], types_filter=[]))
        assert "versions" in {g.group_id for g in answer.groups}, version
    for version in versions(15):
        answer = send(cluster, coordinator, DescribeGroups[version](groups=["versions"],
                                                                   include_authorized_operations=True))
        assert (answer.groups[0].group_id, answer.groups[0].group_state) == ("versions", "Stable"), version
    for version in versions(42):
        answer = send(cluster, coordinator, DeleteGroups[version](groups_names=["versions"]))
        assert [(r.group_id, r.error_code) for r in answer.results] == [("versions", 68)], version
