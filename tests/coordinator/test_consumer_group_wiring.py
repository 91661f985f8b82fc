"""KIP-848 consumer groups inside the group coordinator: records, timers, failover, offsets.

Driven through `GroupCoordinator` on a simulated node (virtual time, appends
committed by ``settle``), so the shard's writes, timer mapping and replay on
another coordinator are exercised end to end without sockets.
"""

import pytest

from minikafka.common.errors import ConfigException, Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_heartbeat import ConsumerGroupHeartbeatRequest
from minikafka.coordinator.consumer_group_records import ConsumerGroupMemberMetadataKey, decode_record
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.requests import (
    DeleteGroupsRequest, ListGroupsRequest, OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
    OffsetFetchRequest, OffsetFetchRequestGroup, OffsetFetchRequestTopics,
)
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage

from .harness import GROUP, Box, Harness

TOPIC_ID = Uuid(1, 2)
IMAGE = TopicsImage.of(TopicMetadata(TOPIC_ID, "orders", 6))
CONFIG = GroupCoordinatorConfig.from_configs({}, "teaching")       # session 9 s, heartbeat 1 s


def _harness(log=None, node_id=1, epoch=0) -> Harness:
    h = Harness(config=CONFIG, log=log, node_id=node_id)
    h.coordinator.topics = lambda: IMAGE
    h.elect_all(epoch)
    return h


def heartbeat(h: Harness, member_id: str, epoch: int, owned=None, **fields):
    if epoch == 0:
        fields.setdefault("rebalance_timeout_ms", 30000)
        fields.setdefault("subscribed_topic_names", ("orders",))
        owned = ()
    request = ConsumerGroupHeartbeatRequest(GROUP, member_id, epoch, topic_partitions=owned, **fields)
    box = Box()
    h.coordinator.handle_consumer_group_heartbeat(request, box, api_version=1, client_id=member_id,
                                                  client_host="/127.0.0.1")
    h.settle()
    return box.value


def owned_of(response):
    return {p for _, ps in response.assignment or () for p in ps}


def settle_two_members(h: Harness) -> dict[str, tuple[int, set[int]]]:
    """Members a and b join and heartbeat until both are stable; returns member -> (epoch, partitions)."""
    state = {}
    for name in ("a", "b"):
        r = heartbeat(h, name, 0)
        state[name] = (r.member_epoch, owned_of(r))
    for _ in range(6):
        h.advance(CONFIG.consumer_group_assignment_interval_ms)
        for name in ("a", "b"):
            epoch, owned = state[name]
            r = heartbeat(h, name, epoch, owned=((TOPIC_ID, tuple(sorted(owned))),))
            assert r.error is Errors.NONE, r
            state[name] = (r.member_epoch, owned_of(r) if r.assignment is not None else owned)
    return state


def test_heartbeats_write_consumer_group_records_and_answer_after_commit():
    h = _harness()
    request = ConsumerGroupHeartbeatRequest(GROUP, "a", 0, rebalance_timeout_ms=30000,
                                            subscribed_topic_names=("orders",), topic_partitions=())
    box = Box()
    h.coordinator.handle_consumer_group_heartbeat(request, box, api_version=1, client_id="a")
    assert not box.done                                   # the answer waits for the write
    h.settle()
    assert box.value.error is Errors.NONE and box.value.member_epoch == 2
    assert owned_of(box.value) == set(range(6))
    assert box.value.heartbeat_interval_ms == 1000        # the teaching profile's interval
    keys = [decode_record(k, v).key for k, v in h.log[h.partition]]
    assert ConsumerGroupMemberMetadataKey(GROUP, "a") in keys


def test_two_members_split_the_partitions_once_each():
    h = _harness()
    state = settle_two_members(h)
    a, b = state["a"][1], state["b"][1]
    assert a and b and not a & b and a | b == set(range(6))


def test_the_group_survives_a_coordinator_failover_and_its_members_keep_heartbeating():
    h = _harness()
    state = settle_two_members(h)
    old = h.coordinator._shards[h.partition].consumer.groups[GROUP]
    h.coordinator.on_resigned(h.partition, 1)

    successor = _harness(log=h.log, node_id=2, epoch=1)   # replays the same partition
    group = successor.coordinator._shards[successor.partition].consumer.groups[GROUP]
    assert group.group_epoch == old.group_epoch
    assert group.target_assignment_epoch == old.target_assignment_epoch
    assert {m: (x.member_epoch, x.assigned_partitions) for m, x in group.members.items()} == \
        {m: (x.member_epoch, x.assigned_partitions) for m, x in old.members.items()}
    for name, (epoch, owned) in state.items():
        r = heartbeat(successor, name, epoch, owned=((TOPIC_ID, tuple(sorted(owned))),))
        assert (r.error, r.member_epoch) == (Errors.NONE, epoch)


def test_a_silent_member_is_fenced_after_the_session_timeout_on_the_new_coordinator():
    h = _harness()
    settle_two_members(h)
    successor = _harness(log=h.log, node_id=2, epoch=1)
    successor.advance(CONFIG.consumer_group_session_timeout_ms - 1)
    group = successor.coordinator._shards[successor.partition].consumer.groups[GROUP]
    assert set(group.members) == {"a", "b"}
    successor.advance(2)                                  # the timers restarted at load: both expire
    assert group.members == {}
    assert "consumer_member_session_expired" in successor.kinds()


def _commit(h, member_id, epoch, api_version=9, partitions=(0,)):
    box = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(
        GROUP, (OffsetCommitRequestTopic("orders", tuple(OffsetCommitRequestPartition(p, 5)
                                                         for p in partitions)),),
        generation_id_or_member_epoch=epoch, member_id=member_id, api_version=api_version), box)
    h.settle()
    return box.value.topics[0].partitions[0].error_code


def _fetch(h, member_id, epoch):
    box = Box()
    h.coordinator.handle_offset_fetch(OffsetFetchRequest((OffsetFetchRequestGroup(
        GROUP, (OffsetFetchRequestTopics("orders", (0,)),), member_id, epoch),)), box)
    return box.value.groups[0]


def test_offset_commit_and_fetch_check_the_member_and_its_epoch():
    h = _harness()
    state = settle_two_members(h)
    epoch = state["a"][0]
    assert _commit(h, "nobody", epoch) is Errors.UNKNOWN_MEMBER_ID
    assert _commit(h, "a", epoch + 1) is Errors.STALE_MEMBER_EPOCH       # newer than the member's
    assert _commit(h, "a", epoch, api_version=8) is Errors.UNSUPPORTED_VERSION
    assert _commit(h, "", -1) is Errors.UNKNOWN_MEMBER_ID     # the group has members
    assert _commit(h, "a", epoch) is Errors.NONE
    assert _commit(h, "b", state["b"][0]) is Errors.NONE     # no classic group got in the way
    assert _fetch(h, "a", epoch + 1).error_code is Errors.STALE_MEMBER_EPOCH
    fetched = _fetch(h, "a", epoch)
    assert fetched.error_code is Errors.NONE
    assert fetched.topics[0].partitions[0].committed_offset == 5
    assert _fetch(h, None, -1).topics[0].partitions[0].committed_offset == 5   # admin: no checks


def test_list_groups_shows_consumer_groups_with_their_type():
    h = _harness()
    settle_two_members(h)
    box = Box()
    h.coordinator.handle_list_groups(ListGroupsRequest(), box)
    [listed] = box.value.groups
    assert (listed.group_id, listed.protocol_type, listed.group_state, listed.group_type) == \
        (GROUP, "consumer", "Stable", "consumer")
    classic_only = Box()
    h.coordinator.handle_list_groups(ListGroupsRequest(types_filter=("classic",)), classic_only)
    assert classic_only.value.groups == ()


def test_describe_groups_refuses_a_consumer_group_as_not_classic():
    from minikafka.coordinator.requests import DescribeGroupsRequest
    h = _harness()
    settle_two_members(h)
    box = Box()
    h.coordinator.handle_describe_groups(DescribeGroupsRequest((GROUP,), api_version=6), box)
    [described] = box.value.groups
    assert (described.error_code, described.error_message, described.group_state) == \
        (Errors.GROUP_ID_NOT_FOUND, f"Group {GROUP} is not a classic group.", "Dead")


def test_describe_reports_epochs_assignor_and_assignments_with_topic_names():
    h = _harness()
    state = settle_two_members(h)
    box = Box()
    h.coordinator.handle_consumer_group_describe([GROUP, "missing"], box)
    described, missing = box.value
    assert described["group_state"] == "Stable" and described["assignor_name"] == "uniform"
    assignments = {m["member_id"]: {p for _, name, ps in m["assignment"] for p in ps} for m in described["members"]}
    assert assignments == {name: owned for name, (_, owned) in state.items()}
    assert (missing["error"], missing["error_message"]) == (Errors.GROUP_ID_NOT_FOUND, "Group missing not found.")


def test_consumer_group_configs_follow_the_profile_and_are_validated():
    assert (CONFIG.consumer_group_session_timeout_ms, CONFIG.consumer_group_heartbeat_interval_ms) == (9000, 1000)
    kafka = GroupCoordinatorConfig.from_configs({}, "kafka")
    assert (kafka.consumer_group_session_timeout_ms, kafka.consumer_group_heartbeat_interval_ms) == (45000, 5000)
    assert GroupCoordinatorConfig.from_configs({"group.consumer.assignors": "range"}).consumer_group_assignors == \
        ("range",)
    with pytest.raises(ConfigException, match="must be less than"):
        GroupCoordinatorConfig.from_configs({"group.consumer.heartbeat.interval.ms": 9000})
    with pytest.raises(ConfigException, match="Class foo cannot be found"):
        GroupCoordinatorConfig.from_configs({"group.consumer.assignors": "uniform,foo"})


def test_an_older_epoch_commits_the_partitions_assigned_before_it_kip_1251():
    """4.3.1: a commit with an older member epoch is checked partition by partition against the
    epoch at which each partition was assigned; one refused partition refuses the request."""
    h = _harness()
    state = settle_two_members(h)
    (epoch_a, owned_a), (epoch_b, owned_b) = state["a"], state["b"]
    first_epoch = 2                  # a's first heartbeat: epoch 2 with every partition; a kept its share
    assert epoch_a > first_epoch and owned_a and owned_b
    kept, given = min(owned_a), min(owned_b)
    assert _commit(h, "a", first_epoch, partitions=(kept,)) is Errors.NONE
    assert _commit(h, "a", first_epoch - 1, partitions=(kept,)) is Errors.STALE_MEMBER_EPOCH  # before it
    assert _commit(h, "a", first_epoch, partitions=(given,)) is Errors.STALE_MEMBER_EPOCH     # not a's
    assert _commit(h, "a", first_epoch, partitions=(kept, given)) is Errors.STALE_MEMBER_EPOCH
    assert _commit(h, "b", epoch_b - 1, partitions=(given,)) is Errors.STALE_MEMBER_EPOCH   # b's since epoch_b
    assert _commit(h, "b", epoch_b, partitions=(given,)) is Errors.NONE


def _delete(h, group_id=GROUP):
    box = Box()
    h.coordinator.handle_delete_groups(DeleteGroupsRequest((group_id,)), box)
    h.settle()
    return box.value.results


def test_delete_groups_refuses_a_consumer_group_with_members_and_deletes_an_empty_one():
    h = _harness()
    state = settle_two_members(h)
    assert _commit(h, "a", state["a"][0]) is Errors.NONE
    [refused] = _delete(h)
    assert refused.error_code is Errors.NON_EMPTY_GROUP          # 4.3.1: "The group is not empty."
    for name in ("a", "b"):
        left = heartbeat(h, name, -1)                            # LeaveGroup: epoch -1
        assert left.error is Errors.NONE, left
    before = len(h.log[h.partition])
    [deleted] = _delete(h)
    assert deleted.error_code is Errors.NONE
    written = h.log[h.partition][before:]
    assert len(written) == 4                                     # the offset, then the group's three records
    assert all(value is None for _, value in written)
    box = Box()
    h.coordinator.handle_consumer_group_describe([GROUP], box)
    assert box.value[0]["error"] is Errors.GROUP_ID_NOT_FOUND
    assert _fetch(h, None, -1).topics[0].partitions[0].committed_offset == -1
