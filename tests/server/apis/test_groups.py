"""FindCoordinator, JoinGroup, SyncGroup, Heartbeat and LeaveGroup through the broker's codec."""

import pytest

from minikafka.coordinator.group_coordinator import partition_for
from minikafka.server.apis.groups import valid_share_key
from tests.server.apis.admin_harness import (FindCoordinator, Heartbeat, JoinGroup, LeaveGroup, SyncGroup,
                                                  broker_node, coordinator_of, join, join_as_only_member,
                                                  not_coordinator_of, send, start_cluster, versions)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=21)
    yield c
    c.stop()


# ---------------------------------------------------------------------------- FindCoordinator
def test_first_lookup_creates_consumer_offsets_and_answers_coordinator_not_available():
    c = start_cluster(seed=22)
    try:
        first = send(c, 1, FindCoordinator[4](key_type=0, coordinator_keys=["orders-app"]))
        [entry] = first.coordinators
        assert (entry.key, entry.error_code, entry.node_id, entry.host, entry.port) == ("orders-app", 15, -1, "", -1)
        assert entry.error_message == ""              # KafkaApis leaves the v4+ message at its default
        assert c.wait_until(lambda: "__consumer_offsets" in c.topics(include_internal=True), 10_000)
        assert coordinator_of(c, "orders-app") == c.leader("__consumer_offsets", partition_for("orders-app", 50))
    finally:
        c.stop()


def test_find_coordinator_answers_in_each_version_shape(cluster):
    leader = coordinator_of(cluster, "shapes")
    v0 = send(cluster, 2, FindCoordinator[0](key="shapes"))
    assert (v0.error_code, v0.node_id) == (0, leader)
    v1 = send(cluster, 2, FindCoordinator[1](key="shapes", key_type=0))
    assert (v1.error_code, v1.error_message, v1.node_id) == (0, "NONE", leader)
    port = broker_node(cluster, leader).config.broker_endpoint.port
    assert (v1.host, v1.port) == ("127.0.0.1", port)
    v4 = send(cluster, 3, FindCoordinator[4](key_type=0, coordinator_keys=["shapes", "other"]))
    assert [(k.key, k.error_code, k.error_message) for k in v4.coordinators] == [("shapes", 0, ""), ("other", 0, "")]
    assert v4.coordinators[0].node_id == leader


def test_transaction_keys_have_no_coordinator_in_the_sandbox(cluster):
    v1 = send(cluster, 1, FindCoordinator[1](key="txn-1", key_type=1))
    assert (v1.error_code, v1.error_message, v1.node_id) == (15, "The coordinator is not available.", -1)
    assert "__transaction_state" not in cluster.topics(include_internal=True)


def test_share_keys_need_v6_and_a_well_formed_key(cluster):
    key = "grp:MkU3OEVBNTcwNTJENDM2Qg:0"
    v5 = send(cluster, 1, FindCoordinator[5](key_type=2, coordinator_keys=[key]))
    assert v5.coordinators[0].error_code == 42
    v6 = send(cluster, 1, FindCoordinator[6](key_type=2, coordinator_keys=[key, "grp:nope:0"]))
    assert [k.error_code for k in v6.coordinators] == [15, 42]


@pytest.mark.parametrize("key, valid", [("g:MkU3OEVBNTcwNTJENDM2Qg:3", True), ("g:MkU3OEVBNTcwNTJENDM2Qg:", False),
                                        (" :MkU3OEVBNTcwNTJENDM2Qg:1", False), ("g:x:1", False),
                                        ("g:MkU3OEVBNTcwNTJENDM2Qg:one", False), ("", False)])
def test_share_key_validation_follows_share_partition_key(key, valid):
    assert valid_share_key(key) is valid


def test_unknown_key_type_is_an_invalid_request(cluster):
    v2 = send(cluster, 1, FindCoordinator[2](key="g", key_type=7))
    assert (v2.error_code, v2.node_id) == (42, -1)


# ---------------------------------------------------------------------------- JoinGroup / SyncGroup
def test_a_member_joins_syncs_and_heartbeats(cluster):
    coordinator, member_id, generation = join_as_only_member(cluster, "solo")
    assert member_id.startswith("minikafka-inprocess-")          # clientId-UUID, from the request header
    beat = send(cluster, coordinator, Heartbeat[4](group_id="solo", generation_id=generation, member_id=member_id))
    assert beat.error_code == 0
    stale = send(cluster, coordinator, Heartbeat[2](group_id="solo", generation_id=generation + 5,
                                                    member_id=member_id))
    assert stale.error_code == 22                                   # ILLEGAL_GENERATION


def test_the_joined_member_records_client_id_and_host(cluster):
    coordinator, member_id, _ = join_as_only_member(cluster, "hosts")
    group = broker_node(cluster, coordinator).groups.coordinator.group("hosts")
    member = group.members[member_id]
    assert (member.client_id, member.client_host) == ("minikafka-inprocess", "/127.0.0.1")


@pytest.mark.parametrize("version, protocol_name", [(0, ""), (5, ""), (6, ""), (7, None)])
def test_join_errors_fold_the_protocol_name_by_version(cluster, version, protocol_name):
    wrong = not_coordinator_of(cluster, "folding")
    answer = join(cluster, wrong, "folding", version=version)
    assert (answer.error_code, answer.generation_id, answer.protocol_name) == (16, -1, protocol_name)


def test_join_v0_uses_the_session_timeout_as_rebalance_timeout(cluster):
    coordinator = coordinator_of(cluster, "old-client")
    answer = join(cluster, coordinator, "old-client", version=0, session_timeout_ms=7000)
    assert answer.error_code == 0 and answer.protocol_name == "range"   # v0 joins without MEMBER_ID_REQUIRED
    group = broker_node(cluster, coordinator).groups.coordinator.group("old-client")
    assert group.members[answer.member_id].rebalance_timeout_ms == 7000


def test_session_timeout_outside_the_broker_bounds_is_refused(cluster):
    coordinator = coordinator_of(cluster, "too-short")
    assert join(cluster, coordinator, "too-short", session_timeout_ms=100).error_code == 26


def test_sync_v5_without_protocol_is_inconsistent(cluster):
    coordinator = coordinator_of(cluster, "no-proto")
    answer = send(cluster, coordinator, SyncGroup[5](group_id="no-proto", generation_id=1, member_id="m",
                                                     protocol_type=None, protocol_name=None, assignments=[]))
    assert (answer.error_code, answer.assignment) == (23, b"")


def test_sync_to_a_non_coordinator(cluster):
    wrong = not_coordinator_of(cluster, "sync-wrong")
    answer = send(cluster, wrong, SyncGroup[3](group_id="sync-wrong", generation_id=1, member_id="m",
                                               group_instance_id=None, assignments=[]))
    assert answer.error_code == 16


# ---------------------------------------------------------------------------- LeaveGroup
def test_leave_v5_answers_per_member(cluster):
    coordinator, member_id, _ = join_as_only_member(cluster, "leavers")
    answer = send(cluster, coordinator, LeaveGroup[5](group_id="leavers", members=[
        LeaveGroup.MemberIdentity(member_id=member_id, group_instance_id=None, reason="closing"),
        LeaveGroup.MemberIdentity(member_id="ghost", group_instance_id=None, reason=None)]))
    assert answer.error_code == 0
    assert [(m.member_id, m.error_code) for m in answer.members] == [(member_id, 0), ("ghost", 25)]
    assert broker_node(cluster, coordinator).groups.coordinator.group("leavers").members == {}


@pytest.mark.parametrize("version", [0, 1, 2])
def test_leave_before_v3_carries_the_member_error_at_the_top(cluster, version):
    coordinator, _, _ = join_as_only_member(cluster, f"legacy-leave-{version}")
    answer = send(cluster, coordinator, LeaveGroup[version](group_id=f"legacy-leave-{version}", member_id="ghost"))
    assert answer.error_code == 25                                  # UNKNOWN_MEMBER_ID


def test_leave_at_a_non_coordinator_is_a_top_level_error(cluster):
    wrong = not_coordinator_of(cluster, "leave-wrong")
    answer = send(cluster, wrong, LeaveGroup[4](group_id="leave-wrong", members=[
        LeaveGroup.MemberIdentity(member_id="m", group_instance_id=None)]))
    assert (answer.error_code, answer.members) == (16, [])


# ---------------------------------------------------------------------------- every advertised version
@pytest.mark.parametrize("version", versions(10))
def test_find_coordinator_every_version(cluster, version):
    leader = coordinator_of(cluster, "every")
    answer = send(cluster, 1, FindCoordinator[version](key="every", key_type=0, coordinator_keys=["every"]))
    node = answer.coordinators[0].node_id if version >= 4 else answer.node_id
    assert node == leader


@pytest.mark.parametrize("api_key, build", [
    (11, lambda v: JoinGroup[v](group_id="vs", session_timeout_ms=10_000, rebalance_timeout_ms=10_000, member_id="",
                                group_instance_id=None, protocol_type="consumer", reason="r", protocols=[])),
    (14, lambda v: SyncGroup[v](group_id="vs", generation_id=1, member_id="m", group_instance_id=None,
                                protocol_type="consumer", protocol_name="range", assignments=[])),
    (12, lambda v: Heartbeat[v](group_id="vs", generation_id=1, member_id="m", group_instance_id=None)),
    (13, lambda v: LeaveGroup[v](group_id="vs", member_id="m", members=[
        LeaveGroup.MemberIdentity(member_id="m", group_instance_id=None, reason=None)])),
])
def test_every_version_answers_not_coordinator_at_the_wrong_broker(cluster, api_key, build):
    wrong = not_coordinator_of(cluster, "vs")
    for version in versions(api_key):
        assert send(cluster, wrong, build(version)).error_code == 16, version


@pytest.mark.parametrize("version", [4, 8, 9])
def test_newer_join_versions_form_a_group(cluster, version):
    coordinator = coordinator_of(cluster, f"join-v{version}")
    first = join(cluster, coordinator, f"join-v{version}", version=version)
    assert first.error_code == 79
    joined = join(cluster, coordinator, f"join-v{version}", first.member_id, version=version)
    assert (joined.error_code, joined.leader, joined.protocol_name) == (0, first.member_id, "range")
    assert [m.member_id for m in joined.members] == [first.member_id]
    if version >= 9:
        assert joined.skip_assignment is False
