import pytest

from minikafka.common.errors import Errors
from minikafka.controller.requests import (AlterPartitionPartitionData, AlterPartitionReassignmentsRequest,
                                           AlterPartitionRequest, AlterPartitionTopicData, BrokerState,
                                           CreatableReplicaAssignment as Assign, CreatableTopic,
                                           CreatableTopicConfig, CreateTopicsRequest,
                                           ListPartitionReassignmentsRequest, ListPartitionReassignmentsTopics,
                                           ReassignablePartition, ReassignableTopic)

from tests.controller.harness import ControllerHarness


@pytest.fixture
def h():
    harness = ControllerHarness()
    harness.activate()
    harness.start_brokers(1, 2, 3, 4)
    topic = CreatableTopic("t", -1, -1, (Assign(0, (1, 2, 3)),))
    assert harness.request(CreateTopicsRequest((topic,))).topics[0].error_code is Errors.NONE
    return harness


def reassign(h, replicas, topic="t", index=0, allow_rf_change=True):
    request = AlterPartitionReassignmentsRequest(
        (ReassignableTopic(topic, (ReassignablePartition(index, replicas),)),),
        allow_replication_factor_change=allow_rf_change)
    result = h.request(request).responses[0].partitions[0]
    return result.error_code, result.error_message


def alter_isr(h, isr):
    p = h.controller.image.partition("t", 0)
    data = AlterPartitionPartitionData(0, p.leader_epoch, tuple(BrokerState(b) for b in isr), p.partition_epoch)
    request = AlterPartitionRequest(p.leader, h.epochs[p.leader],
                                    (AlterPartitionTopicData(h.controller.image.topic("t").topic_id, (data,)),))
    return h.request(request).topics[0].partitions[0]


def shape(h):
    p = h.partition("t", 0)
    return p.replicas, p.isr, p.adding_replicas, p.removing_replicas, p.leader


def listed(h, topics=None):
    response = h.request(ListPartitionReassignmentsRequest(topics))
    return [(t.name, p.partition_index, p.replicas, p.adding_replicas, p.removing_replicas)
            for t in response.topics for p in t.partitions]


def test_add_catch_up_switch_remove(h):
    h.events()
    assert reassign(h, (1, 2, 4)) == (Errors.NONE, None)
    assert shape(h) == ((1, 2, 4, 3), (1, 2, 3), (4,), (3,), 1)
    assert listed(h) == [("t", 0, (1, 2, 4, 3), (4,), (3,))]
    result = alter_isr(h, [1, 2, 3, 4])                  # 4 caught up: the move completes
    assert result.error_code is Errors.NONE and result.isr == (1, 2, 4)
    assert shape(h) == ((1, 2, 4), (1, 2, 4), (), (), 1)
    assert h.partition("t", 0).leader_epoch == 1         # replicas were removed: epoch bumped
    assert listed(h) == []
    kinds = [e.kind for e in h.events() if e.kind.startswith("reassignment")]
    assert kinds == ["reassignment_started", "reassignment_completed"]


def test_moving_the_leader_away_answers_new_leader_elected(h):
    reassign(h, (4, 2, 3))
    assert shape(h) == ((4, 2, 3, 1), (1, 2, 3), (4,), (1,), 1)
    result = alter_isr(h, [1, 2, 3, 4])
    assert result.error_code is Errors.NEW_LEADER_ELECTED
    assert shape(h) == ((4, 2, 3), (2, 3, 4), (), (), 4)


def test_reordering_completes_immediately(h):
    assert reassign(h, (3, 2, 1)) == (Errors.NONE, None)
    assert shape(h) == ((3, 2, 1), (1, 2, 3), (), (), 1)


def test_cancel_reverts_to_original_replicas(h):
    reassign(h, (1, 2, 4))
    assert reassign(h, None) == (Errors.NONE, None)
    assert shape(h) == ((1, 2, 3), (1, 2, 3), (), (), 1)
    assert reassign(h, None) == (Errors.NO_REASSIGNMENT_IN_PROGRESS, "No partition reassignment is in progress.")


def unclean_revert_setup(configs=()):
    """t-0 on [1,2] moving to [3,4]; 3 caught up, then 1 and 2 died: the ISR is [3]."""
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1, 2, 3, 4)
    topic = CreatableTopic("t", -1, -1, (Assign(0, (1, 2)),), tuple(CreatableTopicConfig(k, v) for k, v in configs))
    h.request(CreateTopicsRequest((topic,)))
    reassign(h, (3, 4))
    alter_isr(h, [1, 2, 3])
    for _ in range(5):
        h.tick(500)
        h.heartbeat(3)
        h.heartbeat(4)
    assert shape(h) == ((3, 4, 1, 2), (3,), (3, 4), (1, 2), 3)
    return h


def test_cancel_that_needs_an_unclean_election_is_refused():
    h = unclean_revert_setup()
    assert reassign(h, None) == (Errors.INVALID_REPLICA_ASSIGNMENT, "Unable to revert partition assignment "
                                 "for t:0 because it would require an unclean leader election.")


def test_cancel_with_unclean_election_allowed_goes_back_to_original_replicas():
    h = unclean_revert_setup([("unclean.leader.election.enable", "true")])
    assert reassign(h, None) == (Errors.NONE, None)
    replicas, isr, adding, removing, leader = shape(h)
    assert (replicas, adding, removing) == ((1, 2), (), ())
    assert leader == -1 and isr == (1,)          # 1 and 2 are fenced: offline until one returns


@pytest.mark.parametrize("replicas, allow, error, message", [
    ((1, 2, 9), True, Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes broker 9, but no such broker is registered."),
    ((1, 1, 2), True, Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes the broker 1 more than once."),
    ((), True, Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list."),
    ((1, 2), False, Errors.INVALID_REPLICATION_FACTOR, "The replication factor is changed from 3 to 2"),
])
def test_reassignment_errors(h, replicas, allow, error, message):
    assert reassign(h, replicas, allow_rf_change=allow) == (error, message)
    assert shape(h) == ((1, 2, 3), (1, 2, 3), (), (), 1)


def test_unknown_topic_and_partition(h):
    assert reassign(h, (1,), topic="nope") == (Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                               "Unable to find a topic named nope.")
    assert reassign(h, (1,), index=5) == (Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition t:5.")


def test_list_given_partitions_only(h):
    reassign(h, (1, 2, 4))
    assert listed(h, (ListPartitionReassignmentsTopics("t", (0, 1)),)) == [("t", 0, (1, 2, 4, 3), (4,), (3,))]
    assert listed(h, (ListPartitionReassignmentsTopics("x", (0,)),)) == []
