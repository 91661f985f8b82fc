"""Online conversion between classic and consumer groups (``group.consumer.migration.policy``).

Driven through `GroupCoordinator` on a simulated node (virtual time, appends
committed by ``settle``): classic consumers (`Consumer` of the harness, with
real ``ConsumerProtocol`` subscriptions and assignments) and consumer-protocol
members (ConsumerGroupHeartbeat) share one group id.
"""

import pytest

from minikafka.common.errors import ConfigException, Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator.byte_buffer_accessor import Writer
from minikafka.coordinator.classic_group import ClassicGroupState
from minikafka.coordinator.consumer_group_heartbeat import ConsumerGroupHeartbeatRequest
from minikafka.coordinator.consumer_group_migration_policy import ConsumerGroupMigrationPolicy
from minikafka.coordinator.consumer_group_records import (
    ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupMemberMetadataKey, ConsumerGroupMetadataKey,
    ConsumerGroupPartitionMetadataKey, ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMetadataKey, decode_record as decode_consumer_record,
)
from minikafka.coordinator.consumer_protocol import (
    ConsumerProtocolAssignment, deserialize_assignment, serialize_assignment,
)
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.requests import JoinGroupRequest
from minikafka.coordinator.records import GroupMetadataKey, UnknownRecordTypeException, decode_record
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage

from .harness import GROUP, Box, Consumer, Harness

TOPIC_ID = Uuid(1, 2)
IMAGE = TopicsImage.of(TopicMetadata(TOPIC_ID, "orders", 6))


def subscription(topics=("orders",), version=1) -> bytes:
    w = Writer().int16(version).array_length(len(topics))
    for t in topics:
        w.string(t)
    w.int32(-1)                                      # no user data
    if version >= 1:
        w.array_length(0)                            # owned partitions: none (an eager consumer)
    return w.bytes()


def assignment(partitions, user_data=None) -> bytes:
    return serialize_assignment(ConsumerProtocolAssignment((("orders", tuple(partitions)),), user_data), 1)


def partitions_of(data: bytes) -> set[int]:
    return {p for _, ps in deserialize_assignment(data).assigned_partitions for p in ps} if data else set()


def harness(log=None, node_id=1, **configs) -> Harness:
    config = GroupCoordinatorConfig.from_configs(configs, "teaching")
    h = Harness(config=config, log=log, node_id=node_id)
    h.coordinator.topics = lambda: IMAGE
    h.elect_all()
    return h


def classic(h: Harness, name: str) -> Consumer:
    return Consumer(h, name, session_timeout_ms=10000, rebalance_timeout_ms=30000, protocols=("range",),
                    subscription=subscription())


def form_classic_group(h: Harness, plan: dict[str, list[int]], user_data=None) -> list[Consumer]:
    consumers = [classic(h, name) for name in plan]
    boxes = [c.join() for c in consumers]
    while not all(b.done for b in boxes):
        h.advance(h.config.initial_rebalance_delay_ms)
    for c, b in zip(consumers, boxes):
        c.joined(b)
    leader = next(c for c, b in zip(consumers, boxes) if b.value.members)
    assignments = {c.member_id: assignment(plan[c.client_id], user_data) for c in consumers}
    boxes = [c.sync(None) for c in consumers if c is not leader] + [leader.sync(assignments)]
    h.settle()
    assert all(b.value.error_code is Errors.NONE for b in boxes)
    assert h.group().state is ClassicGroupState.STABLE
    return consumers


def heartbeat(h: Harness, member_id: str, epoch: int, owned=(), **fields):
    if epoch == 0:
        fields.setdefault("rebalance_timeout_ms", 30000)
        fields.setdefault("subscribed_topic_names", ("orders",))
        owned = ()
    box = Box()
    h.coordinator.handle_consumer_group_heartbeat(
        ConsumerGroupHeartbeatRequest(GROUP, member_id, epoch, topic_partitions=owned, **fields), box,
        api_version=1, client_id=member_id, client_host="/127.0.0.1")
    h.settle()
    return box.value


def consumer_group(h: Harness):
    shard, _ = h.coordinator._shard(GROUP)
    group = shard.consumer.groups.get(GROUP)
    return group if group is not None and not group.deleted else None


def keys_of(records):
    out = []
    for k, v in records:
        try:
            out.append(decode_record(k, v).key)
        except UnknownRecordTypeException:
            out.append(decode_consumer_record(k, v).key)
    return out


# ---------------------------------------------------------------------------- the config
def test_policy_config_default_case_and_words():
    assert GroupCoordinatorConfig().consumer_group_migration_policy is ConsumerGroupMigrationPolicy.BIDIRECTIONAL
    parsed = GroupCoordinatorConfig.from_configs({"group.consumer.migration.policy": "DownGrade"})
    assert parsed.consumer_group_migration_policy is ConsumerGroupMigrationPolicy.DOWNGRADE
    assert str(parsed.consumer_group_migration_policy) == "downgrade"
    with pytest.raises(ConfigException) as info:
        GroupCoordinatorConfig.from_configs({"group.consumer.migration.policy": "sideways"})
    assert str(info.value).startswith("Invalid value sideways for configuration group.consumer.migration.policy: "
                                      "String must be one of (case insensitive): ")
    assert {"DISABLED", "UPGRADE", "DOWNGRADE", "BIDIRECTIONAL"} == set(
        str(info.value).split(": ")[-1].split(", "))


# ---------------------------------------------------------------------------- upgrade
def test_upgrade_keeps_classic_members_and_their_partitions_and_writes_4_3_1_records():
    h = harness()
    c1, c2 = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    generation, order = c1.generation, [m.member_id for m in h.group().all_members()]
    before = len(h.log[h.partition])
    r = heartbeat(h, "x", 0)
    assert r.error is Errors.NONE, r
    assert h.group() is None                                    # no classic group any more
    group = consumer_group(h)
    assert set(group.members) == {c1.member_id, c2.member_id, "x"}
    converted = group.members[c1.member_id]
    assert converted.uses_classic_protocol and converted.classic_member_metadata.session_timeout_ms == 10000
    assert {p for ps in converted.assigned_partitions.values() for p in ps} == {0, 1, 2}
    assert converted.member_epoch == generation
    assert group.group_epoch == generation + 1                  # the joiner bumped it
    assert r.member_epoch == generation + 1 and r.assignment == ()   # its partitions are still owned

    keys = keys_of(h.log[h.partition][before:])
    members = order                                  # the classic group's member order (all_members)
    assert keys[0] == GroupMetadataKey(GROUP)                   # the classic group's tombstone first
    assert keys[1:9] == (
        [ConsumerGroupMemberMetadataKey(GROUP, m) for m in members] + [ConsumerGroupMetadataKey(GROUP)]
        + [ConsumerGroupTargetAssignmentMemberKey(GROUP, m) for m in members]
        + [ConsumerGroupTargetAssignmentMetadataKey(GROUP)]
        + [ConsumerGroupCurrentMemberAssignmentKey(GROUP, m) for m in members])
    assert keys[9] == ConsumerGroupMemberMetadataKey(GROUP, "x")   # then the joiner's heartbeat
    assert h.log[h.partition][before][1] is None
    assert "group_converted" in h.kinds()


@pytest.mark.parametrize("configs, setup, text", [
    ({"group.consumer.migration.policy": "disabled"}, None,
     "Cannot upgrade classic group demo to consumer group because online upgrade is disabled."),
    ({"group.consumer.migration.policy": "downgrade"}, None,
     "Cannot upgrade classic group demo to consumer group because online upgrade is disabled."),
    ({"group.consumer.max.size": "1"}, None,
     "Cannot upgrade classic group demo to consumer group because the group size exceeds the consumer "
     "group maximum size."),
    ({}, "user_data",
     "Cannot upgrade classic group demo to consumer group because an unsupported custom assignor is in "
     "use. Please refer to the documentation or switch to a default assignor before re-attempting the "
     "upgrade."),
])
def test_upgrade_refusals_leave_the_classic_group_alone(configs, setup, text):
    h = harness(**configs)
    form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]}, user_data=b"sticky" if setup else None)
    before = len(h.log[h.partition])
    r = heartbeat(h, "x", 0)
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, text)
    assert h.group().state is ClassicGroupState.STABLE and consumer_group(h) is None
    assert len(h.log[h.partition]) == before


def test_upgrade_refused_for_another_protocol_type_and_for_a_heartbeat_that_does_not_join():
    h = harness()
    c = Consumer(h, "connect", protocols=("range",), subscription=b"x")
    c.join_request = lambda: JoinGroupRequest(GROUP, 10000, c.member_id, "connect", c.protocols, 30000,
                                              api_version=7, client_id="connect")
    box = c.join()
    while not box.done:
        h.advance(h.config.initial_rebalance_delay_ms)
    r = heartbeat(h, "x", 0)
    assert (r.error, r.error_message) == (
        Errors.GROUP_ID_NOT_FOUND, "Cannot upgrade classic group demo to consumer group because the group does "
                                   "not use the consumer embedded protocol.")
    r = heartbeat(h, "x", 3)
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group demo is not a consumer group.")


def test_an_empty_classic_group_becomes_a_consumer_group_whatever_the_policy():
    h = harness(**{"group.consumer.migration.policy": "disabled"})
    c1, = form_classic_group(h, {"c1": [0, 1]})
    c1.leave()
    assert h.group().is_empty()
    r = heartbeat(h, "x", 0)
    assert r.error is Errors.NONE and h.group() is None and consumer_group(h) is not None


# ---------------------------------------------------------------------------- classic members in a consumer group
def reconcile(h: Harness, classics: list[Consumer], x_epoch: int, rounds: int = 6) -> tuple[int, set[int]]:
    """Let everybody catch up: classic members rejoin when told, x heartbeats; returns x's state."""
    owned_x: set[int] = set()
    for _ in range(rounds):
        h.advance(h.config.consumer_group_assignment_interval_ms)
        for c in classics:
            if c.heartbeat() is Errors.REBALANCE_IN_PROGRESS:
                c.assignment = set()                     # an eager consumer gives everything up
                box = c.join()
                c.joined(box)
                sync = c.sync(None)
                assert sync.value.error_code in (Errors.NONE, Errors.REBALANCE_IN_PROGRESS)
                if sync.value.error_code is Errors.NONE:
                    c.assignment = partitions_of(sync.value.assignment)
        r = heartbeat(h, "x", x_epoch, owned=((TOPIC_ID, tuple(sorted(owned_x))),))
        assert r.error is Errors.NONE, r
        x_epoch = r.member_epoch
        if r.assignment is not None:
            owned_x = {p for _, ps in r.assignment for p in ps}
    return x_epoch, owned_x


def test_classic_members_of_a_consumer_group_get_the_coordinators_assignment():
    h = harness()
    classics = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    for c in classics:
        c.assignment = set(range(3)) if c.client_id == "c1" else {3, 4, 5}
    r = heartbeat(h, "x", 0)
    assert classics[0].heartbeat() is Errors.REBALANCE_IN_PROGRESS   # the group epoch moved on
    x_epoch, owned_x = reconcile(h, classics, r.member_epoch)
    owned = [c.assignment for c in classics] + [owned_x]
    assert all(owned) and sum(len(o) for o in owned) == 6 and set().union(*owned) == set(range(6))
    group = consumer_group(h)
    assert all(m.member_epoch == group.group_epoch for m in group.members.values())
    assert all(c.heartbeat() is Errors.NONE for c in classics)
    # A classic join/sync at a stale generation is refused as the classic protocol would.
    c1 = classics[0]
    c1.generation -= 1
    assert c1.heartbeat() is Errors.ILLEGAL_GENERATION
    assert c1.sync(None).value.error_code is Errors.ILLEGAL_GENERATION


def test_a_classic_member_that_misses_its_session_is_fenced_from_the_consumer_group():
    h = harness()
    c1, c2 = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    epoch = heartbeat(h, "x", 0).member_epoch
    for _ in range(11):                                  # x and c2 keep their sessions, c1 goes silent
        h.advance(1000)
        epoch = heartbeat(h, "x", epoch).member_epoch
        c2.heartbeat()
    assert set(consumer_group(h).members) == {c2.member_id, "x"}
    assert "consumer_member_session_expired" in h.kinds()


def test_a_classic_join_to_a_consumer_group_is_refused_when_migration_is_disabled():
    h = harness(**{"group.consumer.migration.policy": "disabled"})
    heartbeat(h, "x", 0)
    box = classic(h, "c1").join()
    assert box.value.error_code is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_a_classic_member_joins_a_consumer_group_started_by_the_consumer_protocol():
    h = harness(**{"group.consumer.migration.policy": "upgrade"})
    r = heartbeat(h, "x", 0)
    c1 = classic(h, "c1")
    box = c1.join()
    c1.joined(box)
    response = box.value
    assert (response.protocol_type, response.protocol_name, response.leader, response.members) == (
        "consumer", "range", "", ())
    assert response.generation_id == consumer_group(h).members[c1.member_id].member_epoch
    c1.assignment = set()
    reconcile(h, [c1], r.member_epoch)
    assert consumer_group(h).members[c1.member_id].uses_classic_protocol
    # the policy does not allow a downgrade: x leaving keeps the consumer group
    heartbeat(h, "x", -1)
    assert consumer_group(h) is not None and h.group() is None


# ---------------------------------------------------------------------------- downgrade
def test_downgrade_when_the_last_consumer_protocol_member_leaves():
    h = harness()
    classics = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    for c in classics:
        c.assignment = set()
    r = heartbeat(h, "x", 0)
    x_epoch, _ = reconcile(h, classics, r.member_epoch)
    group_epoch = consumer_group(h).group_epoch
    before = len(h.log[h.partition])
    left = heartbeat(h, "x", -1)
    assert left.error is Errors.NONE
    assert consumer_group(h) is None
    back = h.group()
    assert back.state is ClassicGroupState.PREPARING_REBALANCE    # it rebalances at once
    assert set(back.members) == {c.member_id for c in classics} and back.generation_id == group_epoch
    keys = keys_of(h.log[h.partition][before:])
    members = [classics[0].member_id, classics[1].member_id, "x"]
    assert set(keys[:-1]) == (
        {ConsumerGroupCurrentMemberAssignmentKey(GROUP, m) for m in members}
        | {ConsumerGroupTargetAssignmentMemberKey(GROUP, m) for m in members}
        | {ConsumerGroupMemberMetadataKey(GROUP, m) for m in members}
        | {ConsumerGroupTargetAssignmentMetadataKey(GROUP), ConsumerGroupPartitionMetadataKey(GROUP),
           ConsumerGroupMetadataKey(GROUP)})
    assert keys[-2] == ConsumerGroupMetadataKey(GROUP) and keys[-1] == GroupMetadataKey(GROUP)
    assert h.log[h.partition][-1][1] is not None               # the classic group's value
    # The classic members rejoin it as a classic group and complete a rebalance.
    boxes = [c.join() for c in classics]
    while not all(b.done for b in boxes):
        h.advance(1000)
    assert all(b.value.error_code is Errors.NONE for b in boxes)
    assert h.group().generation_id == group_epoch + 1


def test_an_empty_consumer_group_becomes_classic_on_a_join_group_whatever_the_policy():
    h = harness(**{"group.consumer.migration.policy": "disabled"})
    heartbeat(h, "x", 0)
    heartbeat(h, "x", -1)
    assert consumer_group(h) is not None and not consumer_group(h).members
    box = classic(h, "c1").join()
    while not box.done:
        h.advance(h.config.initial_rebalance_delay_ms)
    assert box.value.error_code is Errors.NONE
    assert consumer_group(h) is None and h.group() is not None


# ---------------------------------------------------------------------------- failover
def test_replaying_the_records_after_a_failover_gives_the_same_groups():
    h = harness()
    classics = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    for c in classics:
        c.assignment = set()
    r = heartbeat(h, "x", 0)
    reconcile(h, classics, r.member_epoch, rounds=2)
    original = consumer_group(h)
    other = harness(log=h.log, node_id=2)
    replayed = consumer_group(other)
    assert replayed.members == original.members
    assert (replayed.group_epoch, replayed.target_assignment_epoch, replayed.target_assignment) == (
        original.group_epoch, original.target_assignment_epoch, original.target_assignment)
    assert other.group() is None
    # ... and after a downgrade, the classic group comes back from its GroupMetadata record.
    assert heartbeat(h, "x", -1).error is Errors.NONE
    third = harness(log=h.log, node_id=3)
    assert consumer_group(third) is None
    assert set(third.group().members) == {c.member_id for c in classics}


def test_a_classic_member_of_a_consumer_group_commits_with_its_generation():
    h = harness()
    c1, c2 = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    heartbeat(h, "x", 0)
    box = c1.commit({("orders", 0): 5}, api_version=8)              # v8: fine for a classic member
    assert [p.error_code for t in box.value.topics for p in t.partitions] == [Errors.NONE]
    box = c1.commit({("orders", 0): 6}, generation=c1.generation + 1, api_version=8)
    assert [p.error_code for t in box.value.topics for p in t.partitions] == [Errors.ILLEGAL_GENERATION]


def test_describe_tells_classic_members_from_consumer_protocol_ones():
    h = harness()
    c1, c2 = form_classic_group(h, {"c1": [0, 1, 2], "c2": [3, 4, 5]})
    heartbeat(h, "x", 0)
    box = Box()
    h.coordinator.handle_consumer_group_describe([GROUP], box)
    types = {m["member_id"]: m["member_type"] for m in box.value[0]["members"]}
    assert types == {c1.member_id: 0, c2.member_id: 0, "x": 1}


def test_classic_member_metadata_and_consumer_protocol_bytes_round_trip():
    from minikafka.coordinator.consumer_group_records import (
        ClassicMemberMetadata, NULL_CLASSIC_MEMBER_METADATA, decode_classic_member_metadata,
        encode_classic_member_metadata,
    )
    from minikafka.coordinator.consumer_protocol import deserialize_subscription, deserialize_version
    metadata = ClassicMemberMetadata(45000, (("range", subscription()), ("roundrobin", b"")))
    payload = encode_classic_member_metadata(metadata)
    assert payload[0] == 1                                   # the nullable struct is present
    assert decode_classic_member_metadata(payload) == metadata
    assert encode_classic_member_metadata(None) == NULL_CLASSIC_MEMBER_METADATA
    assert decode_classic_member_metadata(NULL_CLASSIC_MEMBER_METADATA) is None
    sub = deserialize_subscription(subscription(("a", "b"), version=1))
    assert (sub.topics, sub.owned_partitions, deserialize_version(subscription(version=0))) == (("a", "b"), (), 0)
    assert partitions_of(assignment([4, 2])) == {2, 4}


def test_bytes_as_4_3_1_writes_them():
    """Hex printed by 4.3.1's own classes (MessageUtil.toVersionPrefixedBytes of a
    ConsumerGroupMemberMetadataValue with ClassicMemberMetadata; ConsumerProtocol.serializeAssignment v3)."""
    from minikafka.coordinator.consumer_group_records import (
        ClassicMemberMetadata, ConsumerGroupMemberMetadataValue, encode_classic_member_metadata, encode_value,
    )
    value = ConsumerGroupMemberMetadataValue(
        None, None, "c1", "/127.0.0.1", ("orders",), "", 30000, None,
        encode_classic_member_metadata(ClassicMemberMetadata(10000, (("range", bytes([0, 1, 2])),))))
    assert encode_value(value).hex() == (
        "000000000363310b2f3132372e302e302e3102076f72646572730100007530000100120100002710020672616e67650400"
        "01020000")
    assert serialize_assignment(ConsumerProtocolAssignment((("orders", (2, 4)),)), 3).hex() == (
        "00030000000100066f7264657273000000020000000200000004ffffffff")
