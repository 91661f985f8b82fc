import pytest

from minikafka.common.uuid import Uuid
from minikafka.controller.partition_change_builder import NO_LEADER, RECOVERING, Election, PartitionChangeBuilder
from minikafka.metadata.partition_registration import PartitionRegistration

TOPIC_ID = Uuid(5, 5)


def dirs(replicas):
    return tuple(Uuid(r, 100) for r in replicas)


def partition(replicas=(1, 2, 3), isr=(1, 2, 3), leader=1, leader_epoch=4, partition_epoch=7,
              adding=(), removing=(), recovery=0):
    return PartitionRegistration(tuple(replicas), dirs(replicas), tuple(isr), tuple(removing), tuple(adding),
                                 leader, recovery, leader_epoch, partition_epoch)


def builder(part, acceptable=(1, 2, 3, 4, 5), election=Election.ONLINE):
    b = PartitionChangeBuilder(part, TOPIC_ID, 0, lambda r: r in acceptable, lambda r: Uuid(r, 100))
    return b.set_election(election)


def test_nothing_changes_gives_no_record():
    assert builder(partition()).build() is None
    assert builder(partition()).set_target_isr([1, 2, 3]).build() is None


def test_isr_shrink_keeps_leader_and_does_not_bump_leader_epoch():
    part = partition()
    record = builder(part).set_target_isr([1, 2]).build()
    assert record.isr == (1, 2) and record.leader == -2
    after = part.merge(record)
    assert (after.leader, after.leader_epoch, after.partition_epoch) == (1, 4, 8)


def test_isr_expand_is_written_in_the_order_given():
    record = builder(partition(isr=(3, 1))).set_target_isr([3, 1, 2]).build()
    assert record.isr == (3, 1, 2)


def test_current_valid_leader_is_kept_even_if_not_first_replica():
    record = builder(partition(leader=2)).set_target_isr([2, 3]).build()
    assert record.leader == -2


def test_invalid_leader_is_replaced_by_first_isr_member_in_replica_order():
    part = partition(replicas=(1, 2, 3), isr=(3, 2, 1), leader=1)
    record = builder(part, acceptable=(2, 3)).set_target_isr([3, 2]).build()
    assert record.leader == 2            # replica order, not ISR order
    after = part.merge(record)
    assert (after.leader_epoch, after.partition_epoch, after.isr) == (5, 8, (3, 2))


def test_last_isr_member_fenced_leaves_isr_and_no_leader():
    part = partition(isr=(1,), leader=1)
    record = builder(part, acceptable=(2, 3)).set_target_isr([]).build()
    assert record.leader == NO_LEADER and record.isr is None
    assert part.merge(record).isr == (1,)


def test_unclean_election_picks_first_live_replica_and_marks_recovering():
    part = partition(isr=(1,), leader=NO_LEADER)
    b = builder(part, acceptable=(2, 3), election=Election.UNCLEAN)
    record = b.build()
    assert (record.leader, record.isr, record.leader_recovery_state) == (2, (2,), RECOVERING)
    assert b.unclean


def test_unclean_is_only_used_when_the_isr_has_no_candidate():
    b = builder(partition(isr=(1, 3), leader=1), acceptable=(2, 3), election=Election.UNCLEAN)
    record = b.set_target_isr([3]).build()
    assert record.leader == 3 and not b.unclean


def test_preferred_election_moves_leadership_back_to_first_replica():
    record = builder(partition(leader=2), election=Election.PREFERRED).build()
    assert record.leader == 1


def test_preferred_election_keeps_valid_leader_when_preferred_is_not_available():
    assert builder(partition(leader=2), acceptable=(2, 3), election=Election.PREFERRED).build() is None


def test_preferred_election_never_goes_unclean():
    part = partition(isr=(1,), leader=NO_LEADER)
    assert builder(part, acceptable=(2, 3), election=Election.PREFERRED).build() is None


def test_reassignment_start_sets_union_adding_removing_and_directories():
    part = partition()
    record = (builder(part).set_target_replicas([1, 2, 4, 3]).set_target_adding([4])
              .set_target_removing([3]).build())
    assert record.replicas == (1, 2, 4, 3) and record.adding_replicas == (4,)
    assert record.removing_replicas == (3,) and record.leader == -2
    assert record.directories == (Uuid(1, 100), Uuid(2, 100), Uuid(4, 100), Uuid(3, 100))


def test_reassignment_completes_when_target_replicas_are_in_isr():
    part = partition(replicas=(1, 2, 4, 3), isr=(1, 2, 3), adding=(4,), removing=(3,))
    record = builder(part).set_target_isr([1, 2, 3, 4]).build()
    assert record.replicas == (1, 2, 4) and record.isr == (1, 2, 4)
    assert record.adding_replicas == () and record.removing_replicas == ()
    # Replicas were dropped: the leader epoch is bumped although the leader stays.
    assert record.leader == 1
    after = part.merge(record)
    assert (after.leader, after.leader_epoch) == (1, 5)


def test_reassignment_removing_the_leader_elects_a_target_replica():
    part = partition(replicas=(4, 2, 1), isr=(1, 2), adding=(4,), removing=(1,), leader=1)
    record = builder(part).set_target_isr([1, 2, 4]).build()
    assert record.replicas == (4, 2) and record.leader == 4


def test_reassignment_waits_while_adding_replica_is_not_in_isr():
    part = partition(replicas=(1, 2, 4, 3), isr=(1, 2, 3), adding=(4,), removing=(3,))
    record = builder(part).set_target_isr([1, 2]).build()
    assert record.isr == (1, 2) and record.replicas is None


def test_leader_recovery_state_change_alone_is_a_change():
    part = partition(isr=(2,), leader=2, recovery=RECOVERING)
    record = builder(part).set_target_leader_recovery_state(0).build()
    assert record.leader_recovery_state == 0 and record.leader == -2


@pytest.mark.parametrize("target_isr", [[1, 2], [2], [2, 3, 1]])
def test_partition_epoch_always_bumps_by_one(target_isr):
    part = partition()
    record = builder(part, acceptable=(2, 3)).set_target_isr(target_isr).build()
    assert part.merge(record).partition_epoch == part.partition_epoch + 1
