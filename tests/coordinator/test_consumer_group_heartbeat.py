"""ConsumerGroupHeartbeat: joins, heartbeats, leaves, static members, timeouts, Kafka 4.3.1's errors
and texts, and replay equivalence (the records rebuild the same state)."""

import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group import ConsumerGroupState
from minikafka.coordinator.consumer_group_heartbeat import ConsumerGroupHeartbeatRequest as Req
from minikafka.coordinator.consumer_group_member import MemberState
from minikafka.coordinator.consumer_group_records import (
    ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupMemberMetadataKey, ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue, ConsumerGroupPartitionMetadataKey, ConsumerGroupPartitionMetadataValue,
    ConsumerGroupRecord, ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMetadataKey,
    decode_record,
)
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage
from tests.coordinator.consumer_group_sim import CONFIG, GROUP, ORDERS, PAYMENTS, Client, Sim, snapshot

JOIN = dict(member_epoch=0, rebalance_timeout_ms=2000, subscribed_topic_names=("orders",), topic_partitions=())


def stable_group(*names, **client_kw):
    sim = Sim()
    for n in names:
        sim.add(Client(n, **client_kw))
    for _ in range(4):
        sim.round()
    sim.check_stable_and_complete()
    return sim


# ---------------------------------------------------------------------------- request validation
@pytest.mark.parametrize("request_,message", [
    (Req(GROUP, "", 1), "MemberId can't be empty."),
    (Req(GROUP, " ", 0, rebalance_timeout_ms=1, subscribed_topic_names=()), "MemberId can't be empty."),
    (Req("", "m", 0, rebalance_timeout_ms=1, subscribed_topic_names=()), "GroupId can't be empty."),
    (Req(GROUP, "m", 0, instance_id="", rebalance_timeout_ms=1, subscribed_topic_names=()),
     "InstanceId can't be empty."),
    (Req(GROUP, "m", 0, rack_id=" ", rebalance_timeout_ms=1, subscribed_topic_names=()), "RackId can't be empty."),
    (Req(GROUP, "m", 0, subscribed_topic_names=()), "RebalanceTimeoutMs must be provided in first request."),
    (Req(GROUP, "m", 0, rebalance_timeout_ms=1, subscribed_topic_names=(), topic_partitions=((ORDERS, (0,)),)),
     "TopicPartitions must be empty when (re-)joining."),
    (Req(GROUP, "m", 0, rebalance_timeout_ms=1, subscribed_topic_names=()),   # null: as refused as non-empty
     "TopicPartitions must be empty when (re-)joining."),
    (Req(GROUP, "m", 0, rebalance_timeout_ms=1, topic_partitions=()),
     "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."),
    (Req(GROUP, "m", -2), "InstanceId can't be null."),
    (Req(GROUP, "m", -3), "MemberEpoch is invalid."),
])
def test_invalid_requests_get_kafkas_texts_and_change_nothing(request_, message):
    sim = stable_group("a")
    before = snapshot(sim.group)
    response = sim.send(request_)
    assert (response.error, response.error_message) == (Errors.INVALID_REQUEST, message)
    assert (response.member_id, response.member_epoch) == (None, 0)
    assert snapshot(sim.group) == before


def test_v0_clients_may_let_the_coordinator_pick_the_member_id():
    sim = Sim()
    response = sim.send(Req(GROUP, "", **JOIN), api_version=0)
    assert response.error is Errors.NONE and response.member_id == "generated-1"
    assert sim.send(Req(GROUP, "", **JOIN), api_version=1).error_message == "MemberId can't be empty."


def test_unknown_assignor():
    sim = Sim()
    response = sim.send(Req(GROUP, "m", server_assignor="sticky", **JOIN))
    assert response.error is Errors.UNSUPPORTED_ASSIGNOR
    assert response.error_message == "ServerAssignor sticky is not supported. Supported assignors: uniform, range."
    assert GROUP not in sim.coordinator.groups


@pytest.mark.parametrize("regex,description", [
    ("orders(", "missing closing )"),
    ("[orders", "missing closing ]"),
    ("*orders", "missing argument to repetition operator"),
])
def test_regex_that_does_not_compile(regex, description):
    sim = stable_group("a")
    before = snapshot(sim.group)
    response = sim.send(Req(GROUP, "z", member_epoch=0, rebalance_timeout_ms=1, subscribed_topic_regex=regex,
                            topic_partitions=()))
    assert response.error is Errors.INVALID_REGULAR_EXPRESSION
    assert response.error_message == f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {description}."
    assert snapshot(sim.group) == before


def test_regex_matching_nothing_joins_with_nothing():
    sim = Sim()
    c = sim.add(Client("a", regex="nothing-.*"))
    # A new group is at epoch 1.  A regex no member used before does not bump it by itself (Kafka resolves it
    # in the background and bumps only if what it matches changes the metadata hash): 4.3.1 answers epoch 1.
    assert c.epoch == 1 and c.owned == {}
    assert sim.group.state is ConsumerGroupState.STABLE


def test_a_regex_another_member_already_uses_bumps_the_epoch():
    sim = Sim()
    sim.add(Client("a", regex="nothing-.*"))
    c = sim.add(Client("b", regex="nothing-.*"))          # REGEX_UPDATED_AND_RESOLVED: the join bumps
    assert sim.group.group_epoch == 2 and c.owned == {}


def test_regex_subscribes_to_every_matching_topic():
    sim = Sim()
    c = sim.add(Client("a", regex="(orders|payments)"))
    assert c.owned == {ORDERS: frozenset(range(12)), PAYMENTS: frozenset(range(4))}


# ---------------------------------------------------------------------------- member errors
def test_unknown_member_and_unknown_group():
    sim = stable_group("a")
    response = sim.send(Req(GROUP, "ghost", 1, topic_partitions=()))
    assert (response.error, response.error_message) == (
        Errors.UNKNOWN_MEMBER_ID, f"Member ghost is not a member of group {GROUP}.")
    response = sim.send(Req("other", "ghost", 1))
    assert (response.error, response.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Consumer group other not found.")


def test_fenced_member_epoch_texts():
    sim = stable_group("a")
    epoch = sim.clients["a"].epoch
    greater = sim.send(Req(GROUP, "a-id", epoch + 1, topic_partitions=()))
    assert greater.error is Errors.FENCED_MEMBER_EPOCH
    assert greater.error_message == (
        f"The consumer group member has a greater member epoch ({epoch + 1}) than the one known by the group "
        f"coordinator ({epoch}). The member must abandon all its partitions and rejoin.")
    for name in "bc":                                         # each join moves a to a newer epoch
        sim.add(Client(name))
        for _ in range(3):
            sim.round()
    member = sim.group.members["a-id"]
    stale = next(e for e in range(1, member.member_epoch) if e != member.previous_member_epoch)
    smaller = sim.send(Req(GROUP, "a-id", stale, topic_partitions=()))
    assert smaller.error is Errors.FENCED_MEMBER_EPOCH
    assert smaller.error_message == (
        f"The consumer group member has a smaller member epoch ({stale}) than the one known by the group "
        f"coordinator ({member.member_epoch}). The member must abandon all its partitions and rejoin.")


def test_previous_epoch_is_accepted_once_when_the_response_was_lost():
    sim = stable_group("a")
    sim.add(Client("b"))
    a = sim.clients["a"]
    sim.heartbeat(a)                                  # revocation requested
    sim.heartbeat(a)                                  # revoked: a moves to the new epoch ...
    member = sim.group.members["a-id"]
    assert member.member_epoch > member.previous_member_epoch
    owned = tuple((t, tuple(sorted(p))) for t, p in a.owned.items())
    # ... but suppose a never saw that answer: it retries with the previous epoch and a subset
    response = sim.send(Req(GROUP, "a-id", member.previous_member_epoch, topic_partitions=owned))
    assert response.error is Errors.NONE and response.member_epoch == member.member_epoch
    # with partitions it was never given, the old epoch is fenced
    bad = sim.send(Req(GROUP, "a-id", member.previous_member_epoch, topic_partitions=((PAYMENTS, (0,)),)))
    assert bad.error is Errors.FENCED_MEMBER_EPOCH


def test_rejoin_with_epoch_zero_keeps_the_member_and_resends_its_assignment():
    sim = stable_group("a", "b")
    a = sim.clients["a"]
    owned, epoch = a.owned, a.epoch
    a.epoch, a.owned = 0, {}                          # e.g. the client restarted its state machine
    response = sim.heartbeat(a)
    assert response.error is Errors.NONE and response.member_epoch == epoch
    assert a.owned == owned


def test_group_max_size():
    sim = Sim(config=GroupCoordinatorConfig(consumer_group_max_size=2))
    sim.add(Client("a"))
    sim.add(Client("b"))
    response = sim.send(Req(GROUP, "c", **JOIN))
    assert (response.error, response.error_message) == (
        Errors.GROUP_MAX_SIZE_REACHED, "The consumer group has reached its maximum capacity of 2 members.")
    assert sim.send(Req(GROUP, "a-id", sim.clients["a"].epoch, topic_partitions=())).error is Errors.NONE


# ---------------------------------------------------------------------------- join, reconcile, leave
def test_first_member_join_writes_member_epoch_target_and_current_assignment_records():
    sim = Sim()
    response = sim.send(Req(GROUP, "a", **JOIN), client_id="cli", client_host="/10.0.0.1")
    assert (response.member_id, response.member_epoch, response.heartbeat_interval_ms) == ("a", 2, 500)
    assert response.assignment == ((ORDERS, tuple(range(12))),)
    keys = [type(decode_record(k, v).key) for k, v in sim.log]
    assert keys == [ConsumerGroupMemberMetadataKey, ConsumerGroupMetadataKey,
                    ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMetadataKey,
                    ConsumerGroupCurrentMemberAssignmentKey]
    member = sim.group.members["a"]
    assert (member.client_id, member.client_host, member.rebalance_timeout_ms) == ("cli", "/10.0.0.1", 2000)
    assert sim.timers[("session", GROUP, "a")] == (sim.now + 3000, 0)


def test_target_is_recomputed_at_most_once_per_assignment_interval():
    sim = Sim()
    a = sim.add(Client("a"))
    b = sim.add(Client("b"))                  # same instant: the target (epoch 2) is not recomputed
    assert (a.epoch, b.epoch, b.owned) == (2, 2, {})
    assert (sim.group.group_epoch, sim.group.target_assignment_epoch) == (3, 2)
    assert sim.group.state is ConsumerGroupState.ASSIGNING
    sim.advance(999)
    sim.heartbeat(b)
    assert sim.group.target_assignment_epoch == 2
    sim.advance(1)                            # 1000 ms after the last assignment
    sim.heartbeat(b)
    assert sim.group.target_assignment_epoch == 3
    assert sim.group.state is ConsumerGroupState.RECONCILING


def test_group_states_through_a_join():
    sim = stable_group("a", "b")
    assert sim.group.state is ConsumerGroupState.STABLE
    sim.add(Client("c"))
    assert sim.group.state is ConsumerGroupState.RECONCILING          # a and b still own c's share
    states = {sim.group.members[m].state for m in ("a-id", "b-id")}
    assert states == {MemberState.STABLE}                            # until they heartbeat
    sim.heartbeat(sim.clients["a"])
    assert sim.group.members["a-id"].state is MemberState.UNREVOKED_PARTITIONS
    assert ("rebalance", GROUP, "a-id") in sim.timers
    for _ in range(3):
        sim.round()
    assert sim.group.state is ConsumerGroupState.STABLE
    assert ("rebalance", GROUP, "a-id") not in sim.timers


def test_fourth_member_on_twelve_partitions_only_three_move():
    sim = stable_group("a", "b", "c")
    before = {n: c.owned[ORDERS] for n, c in sim.clients.items()}
    sim.add(Client("d"))
    for _ in range(4):
        sim.round()
        sim.check_no_double_ownership()
    sim.check_stable_and_complete()
    after = {n: c.owned[ORDERS] for n, c in sim.clients.items()}
    assert all(after[n] < before[n] and len(after[n]) == 3 for n in "abc")
    assert len(after["d"]) == 3


def test_new_owner_waits_for_the_old_one_to_release():
    sim = stable_group("a")
    d = sim.add(Client("d"))
    assert d.owned == {} and sim.group.members["d-id"].state is MemberState.UNRELEASED_PARTITIONS
    sim.heartbeat(d)
    assert d.owned == {}                           # a has not heartbeated: still owns everything
    sim.heartbeat(sim.clients["a"])                # told to revoke half
    sim.heartbeat(d)
    assert d.owned == {}                           # a has not confirmed yet
    sim.heartbeat(sim.clients["a"])                # reports it no longer owns them
    sim.heartbeat(d)
    assert len(d.owned[ORDERS]) == 6
    sim.check_no_double_ownership()


def test_leave_fences_the_member_and_bumps_the_epoch():
    sim = stable_group("a", "b")
    epoch = sim.group.group_epoch
    response = sim.send(Req(GROUP, "b-id", -1))
    assert (response.error, response.member_id, response.member_epoch) == (Errors.NONE, "b-id", -1)
    sim.clients["b"].running = False
    assert "b-id" not in sim.group.members and sim.group.group_epoch == epoch + 1
    assert sim.group.state is ConsumerGroupState.ASSIGNING
    assert ("session", GROUP, "b-id") not in sim.timers
    sim.round()
    sim.round()
    sim.check_stable_and_complete()
    assert sim.clients["a"].owned[ORDERS] == frozenset(range(12))


def test_last_member_leaving_empties_the_group():
    sim = stable_group("a")
    sim.send(Req(GROUP, "a-id", -1))
    assert sim.group.state is ConsumerGroupState.EMPTY


def test_session_timeout_fences_a_silent_member():
    sim = stable_group("a", "b")
    sim.clients["b"].running = False
    for _ in range(8):                          # 4 s of heartbeats from a only; b's session is 3 s
        sim.round()
    assert "b-id" not in sim.group.members
    sim.check_stable_and_complete()


def test_rebalance_timeout_fences_a_member_that_does_not_revoke():
    sim = stable_group("a")
    sim.add(Client("b"))
    sim.heartbeat(sim.clients["a"])             # a is asked to revoke
    epoch = sim.group.members["a-id"].member_epoch
    deadline, timer_epoch = sim.timers[("rebalance", GROUP, "a-id")]
    assert (deadline, timer_epoch) == (sim.now + 2000, epoch)
    # a keeps heartbeating but never gives the partitions up
    a = sim.clients["a"]
    stubborn = dict(a.owned)
    a.owned = {ORDERS: frozenset(range(12))}
    for _ in range(5):
        sim.send(Req(GROUP, "a-id", epoch, topic_partitions=((ORDERS, tuple(range(12))),)))
        sim.advance(500)
    assert "a-id" not in sim.group.members
    assert stubborn


def test_rebalance_timer_is_ignored_when_the_member_moved_on():
    sim = stable_group("a")
    sim.add(Client("b"))
    sim.heartbeat(sim.clients["a"])
    epoch = sim.group.members["a-id"].member_epoch
    sim.round()
    result = sim.coordinator.on_rebalance_timeout(GROUP, "a-id", epoch - 1, sim.now)
    assert result.records == [] and "a-id" in sim.group.members


# ---------------------------------------------------------------------------- static membership
def test_static_member_leaves_temporarily_and_comes_back_with_its_partitions():
    sim = stable_group("a", "b", instance_id=None)
    s = sim.add(Client("s", instance_id="host-1"))
    for _ in range(4):
        sim.round()
    owned = s.owned
    epoch = sim.group.group_epoch
    response = sim.send(Req(GROUP, "s-id", -2, instance_id="host-1"))
    assert (response.member_id, response.member_epoch) == ("s-id", -2)
    s.running = False
    assert sim.group.members["s-id"].member_epoch == -2 and sim.group.group_epoch == epoch
    # nobody gets its partitions meanwhile
    sim.round()
    assert not (set(owned.get(ORDERS, ())) & set(sim.clients["a"].owned.get(ORDERS, ())))
    # it comes back as a new process (new member id), same instance id
    s2 = Client("s2", instance_id="host-1")
    sim.clients["s2"] = s2
    sim.heartbeat(s2)
    assert s2.owned == owned and "s-id" not in sim.group.members
    assert sim.group.static_members == {"host-1": "s2-id"}
    assert sim.group.group_epoch == epoch                   # no rebalance
    sim.check_no_double_ownership()
    sim.failover()


def test_unreleased_instance_id():
    sim = stable_group("a", instance_id="host-1")
    response = sim.send(Req(GROUP, "other", instance_id="host-1", **JOIN))
    assert response.error is Errors.UNRELEASED_INSTANCE_ID
    assert response.error_message == ("Static member other with instance id host-1 cannot join the group "
                                      "because the instance id is owned by a-id member.")


def test_static_member_fenced_and_unknown_instance_ids():
    sim = stable_group("a", instance_id="host-1")
    epoch = sim.clients["a"].epoch
    fenced = sim.send(Req(GROUP, "zombie", epoch, instance_id="host-1"))
    assert (fenced.error, fenced.error_message) == (
        Errors.FENCED_INSTANCE_ID, "Static member zombie with instance id host-1 was fenced by member a-id.")
    unknown = sim.send(Req(GROUP, "a-id", epoch, instance_id="host-9"))
    assert (unknown.error, unknown.error_message) == (Errors.UNKNOWN_MEMBER_ID, "Instance id host-9 is unknown.")
    leave_unknown = sim.send(Req(GROUP, "a-id", -2, instance_id="host-9"))
    assert leave_unknown.error is Errors.UNKNOWN_MEMBER_ID


def test_static_leave_for_good_with_minus_one():
    sim = stable_group("a", "b", instance_id=None)
    sim.add(Client("s", instance_id="host-1"))
    sim.round()
    sim.send(Req(GROUP, "s-id", -1, instance_id="host-1"))
    assert "s-id" not in sim.group.members and sim.group.static_members == {}


# ---------------------------------------------------------------------------- assignors, metadata
def test_members_choose_the_server_assignor():
    sim = Sim()
    sim.add(Client("a", topics=("orders", "payments"), assignor="range"))
    sim.add(Client("b", topics=("orders", "payments"), assignor="range"))
    for _ in range(4):
        sim.round()
    a, b = sim.clients["a"], sim.clients["b"]
    assert a.owned == {ORDERS: frozenset(range(6)), PAYMENTS: frozenset(range(2))}   # co-partitioned
    assert b.owned == {ORDERS: frozenset(range(6, 12)), PAYMENTS: frozenset({2, 3})}


def test_new_partitions_bump_the_group_epoch():
    sim = stable_group("a", "b")
    epoch = sim.group.group_epoch
    sim.image = TopicsImage.of(TopicMetadata(ORDERS, "orders", 16), TopicMetadata(PAYMENTS, "payments", 4))
    sim.round()
    assert sim.group.group_epoch == epoch + 1
    for _ in range(3):
        sim.round()
    sim.check_stable_and_complete()
    assert len(sim.clients["a"].owned[ORDERS]) == 8


def test_legacy_partition_metadata_record_is_tombstoned_at_the_next_bump():
    sim = Sim()
    sim.coordinator.replay(ConsumerGroupRecord(ConsumerGroupMetadataKey(GROUP), ConsumerGroupMetadataValue(3)))
    sim.coordinator.replay(ConsumerGroupRecord(ConsumerGroupPartitionMetadataKey(GROUP),
                                               ConsumerGroupPartitionMetadataValue(b"\x01\x00")))
    assert sim.group.has_subscription_metadata_record
    sim.send(Req(GROUP, "a", **JOIN))
    records = [decode_record(k, v) for k, v in sim.log]
    keys = [type(r.key) for r in records]
    assert keys.index(ConsumerGroupPartitionMetadataKey) == keys.index(ConsumerGroupMetadataKey) + 1
    tombstones = [r for r in records if isinstance(r.key, ConsumerGroupPartitionMetadataKey)]
    assert tombstones == [ConsumerGroupRecord(ConsumerGroupPartitionMetadataKey(GROUP), None)]
    assert not sim.group.has_subscription_metadata_record and sim.group.group_epoch == 4


def test_subscription_change_revokes_the_dropped_topic():
    sim = stable_group("a", topics=("orders", "payments"))
    a = sim.clients["a"]
    a.topics = ("orders",)
    response = sim.send(Req(GROUP, "a-id", a.epoch, subscribed_topic_names=("orders",),
                            topic_partitions=tuple((t, tuple(sorted(p))) for t, p in a.owned.items())))
    a.on_response(response)
    assert PAYMENTS not in a.owned
    for _ in range(3):
        sim.round()
    sim.check_stable_and_complete()


# ---------------------------------------------------------------------------- replay
def test_replaying_the_written_records_rebuilds_the_same_groups():
    sim = stable_group("a", "b", "c")
    sim.add(Client("d", instance_id="host-d"))
    sim.round()
    sim.send(Req(GROUP, "b-id", -1))
    sim.clients["b"].running = False
    sim.round()
    sim.failover()                                  # asserts the snapshots are equal
    for _ in range(3):
        sim.round()
    sim.check_stable_and_complete()
    sim.failover()


def test_replay_refuses_to_give_a_partition_to_two_members():
    sim = stable_group("a")
    a = sim.group.members["a-id"]
    key = ConsumerGroupCurrentMemberAssignmentKey(GROUP, "x")
    k, v = [(k, v) for k, v in sim.log if decode_record(k, v).key == ConsumerGroupCurrentMemberAssignmentKey(
        GROUP, "a-id")][-1]
    value = decode_record(k, v).value
    with pytest.raises(Exception, match="because the partition is still owned at epoch"):
        sim.coordinator.replay(ConsumerGroupRecord(key, value))
    assert a.assigned_partitions


def test_topic_ids_are_uuids_in_the_records():
    sim = stable_group("a")
    record = [decode_record(k, v) for k, v in sim.log
              if isinstance(decode_record(k, v).key, ConsumerGroupTargetAssignmentMemberKey)][-1]
    assert record.value.topic_partitions == ((ORDERS, tuple(range(12))),)
    assert isinstance(record.value.topic_partitions[0][0], Uuid)


def test_failover_in_the_middle_of_a_revocation_rearms_the_timers():
    sim = stable_group("a")
    sim.add(Client("b"))
    sim.advance(1000)
    sim.heartbeat(sim.clients["b"])             # the new target is computed
    sim.heartbeat(sim.clients["a"])             # a is asked to revoke
    assert sim.group.members["a-id"].state is MemberState.UNREVOKED_PARTITIONS
    sim.failover()                              # a new coordinator replays the log
    epoch = sim.group.members["a-id"].member_epoch
    assert sim.timers[("rebalance", GROUP, "a-id")] == (sim.now + 2000, epoch)
    assert sim.timers[("session", GROUP, "b-id")][0] == sim.now + CONFIG.consumer_group_session_timeout_ms
    for _ in range(3):                          # a finishes revoking on the new coordinator
        sim.round()
    sim.check_stable_and_complete()
    assert ("rebalance", GROUP, "a-id") not in sim.timers
