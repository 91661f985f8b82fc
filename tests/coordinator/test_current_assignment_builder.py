"""Member reconciliation: revoke before another member receives; epochs as Kafka bumps them."""

import pytest

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_member import ConsumerGroupMember, MemberState
from minikafka.coordinator.current_assignment_builder import CurrentAssignmentBuilder

T1, T2 = Uuid(0, 1), Uuid(0, 2)
S, UNREVOKED, UNRELEASED = MemberState.STABLE, MemberState.UNREVOKED_PARTITIONS, MemberState.UNRELEASED_PARTITIONS


def member(epoch=10, state=S, assigned=None, pending=None, previous=9):
    return ConsumerGroupMember("m", member_epoch=epoch, previous_member_epoch=previous, state=state,
                               subscribed_topic_names=("t1", "t2"),
                               assigned_partitions=assigned or {}, partitions_pending_revocation=pending or {})


def step(m, target_epoch, target, owned=None, taken=()):
    return (CurrentAssignmentBuilder(m)
            .with_target_assignment(target_epoch, {t: frozenset(p) for t, p in target.items()})
            .with_current_partition_epoch(lambda t, p: 5 if (t, p) in taken else -1)
            .with_owned_topic_partitions(owned)
            .build())


def test_stable_member_at_the_target_epoch_does_not_move():
    m = member(assigned={T1: {0: 10}})
    assert step(m, 10, {T1: {0, 1}}) is m


def test_new_partitions_that_are_free_are_assigned_at_the_target_epoch():
    m = member(assigned={T1: {0: 7}})
    new = step(m, 11, {T1: {0, 1}}, owned=[(T1, [0])])
    assert (new.state, new.member_epoch, new.previous_member_epoch) == (S, 11, 10)
    assert new.assigned_partitions == {T1: {0: 7, 1: 11}}          # kept ones keep their epoch


def test_partitions_to_give_up_are_revoked_first_in_the_same_epoch():
    m = member(assigned={T1: {0: 10, 1: 10}})
    new = step(m, 11, {T1: {0}, T2: {0}}, owned=[(T1, [0, 1])])
    assert (new.state, new.member_epoch, new.previous_member_epoch) == (UNREVOKED, 10, 10)
    assert new.assigned_partitions == {T1: {0: 10}}
    assert new.partitions_pending_revocation == {T1: {1: 10}}      # and T2-0 is not given yet


def test_unrevoked_member_waits_while_it_still_reports_a_revoked_partition():
    m = member(state=UNREVOKED, assigned={T1: {0: 10}}, pending={T1: {1: 10}})
    assert step(m, 11, {T1: {0}, T2: {0}}, owned=[(T1, [0, 1])]) is m
    assert step(m, 11, {T1: {0}, T2: {0}}, owned=None) is m        # no report: assume it still owns


def test_unrevoked_member_moves_on_once_it_released_the_partitions():
    m = member(state=UNREVOKED, assigned={T1: {0: 10}}, pending={T1: {1: 10}})
    new = step(m, 11, {T1: {0}, T2: {0}}, owned=[(T1, [0])])
    assert (new.state, new.member_epoch, new.previous_member_epoch) == (S, 11, 10)
    assert new.assigned_partitions == {T1: {0: 10}, T2: {0: 11}}
    assert new.partitions_pending_revocation == {}


def test_partitions_still_owned_by_another_member_are_withheld():
    m = member(assigned={T1: {0: 10}})
    new = step(m, 11, {T1: {0, 1}}, owned=[(T1, [0])], taken={(T1, 1)})
    assert (new.state, new.member_epoch) == (UNRELEASED, 11)
    assert new.assigned_partitions == {T1: {0: 10}}
    # once the other member released it, the next heartbeat hands it over
    new2 = step(new, 11, {T1: {0, 1}}, owned=[(T1, [0])])
    assert (new2.state, new2.member_epoch, new2.previous_member_epoch) == (S, 11, 11)
    assert new2.assigned_partitions == {T1: {0: 10, 1: 11}}


def test_free_partitions_are_given_even_while_others_are_unreleased():
    m = member(assigned={})
    new = step(m, 11, {T1: {0, 1}}, owned=[], taken={(T1, 1)})
    assert (new.state, new.assigned_partitions) == (UNRELEASED, {T1: {0: 11}})


def test_member_in_an_unknown_state_is_fenced_unless_it_owns_nothing():
    m = member(state=MemberState.UNKNOWN, assigned={T1: {0: 10}})
    with pytest.raises(KafkaException) as info:
        step(m, 11, {T1: {0}}, owned=[(T1, [0])])
    assert info.value.error is Errors.FENCED_MEMBER_EPOCH
    assert info.value.message == ("The consumer group member is in a unknown state. "
                                  "The member must abandon all its partitions and rejoin.")
    new = step(m, 11, {T1: {0}}, owned=[])
    assert (new.state, new.member_epoch) == (S, 11)


def test_subscription_change_revokes_the_dropped_topic_at_once():
    m = member(epoch=11, assigned={T1: {0: 11}, T2: {0: 11}})
    new = (CurrentAssignmentBuilder(m).with_target_assignment(11, {T1: frozenset({0}), T2: frozenset({0})})
           .with_owned_topic_partitions([(T1, [0]), (T2, [0])])
           .with_subscribed_topic_ids(frozenset({T1})).with_has_subscription_changed(True).build())
    assert (new.state, new.member_epoch) == (UNREVOKED, 11)
    assert new.assigned_partitions == {T1: {0: 11}} and new.partitions_pending_revocation == {T2: {0: 11}}


def test_target_partitions_of_topics_no_longer_subscribed_are_ignored():
    # e.g. a static member's new incarnation inheriting a target computed for another subscription
    m = member(epoch=0, previous=0)
    new = (CurrentAssignmentBuilder(m).with_target_assignment(11, {T1: frozenset({0}), T2: frozenset({1})})
           .with_owned_topic_partitions([]).with_subscribed_topic_ids(frozenset({T1})).build())
    assert (new.state, new.member_epoch, new.assigned_partitions) == (S, 11, {T1: {0: 11}})


def test_a_partition_given_back_while_the_member_was_revoking_it_is_free():
    m = member(state=UNREVOKED, assigned={}, pending={T1: {4: 10, 7: 10}})
    new = step(m, 12, {T1: {7}}, owned=[], taken={(T1, 4), (T1, 7)})   # both still "owned" by m itself
    assert (new.state, new.member_epoch, new.assigned_partitions) == (S, 12, {T1: {7: 12}})
