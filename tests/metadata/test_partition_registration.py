"""PartitionRegistration: building from a PartitionRecord and merging PartitionChangeRecords."""

from __future__ import annotations

import pytest

from minikafka.common.uuid import Uuid
from minikafka.metadata.partition_registration import DirectoryId, LeaderRecoveryState, PartitionRegistration
from minikafka.metadata.records import PartitionChangeRecord, PartitionRecord

TOPIC = Uuid(7, 7)
D1, D2, D3, D4 = (Uuid(1, 1000 + i) for i in range(4))


def registration(**changes) -> PartitionRegistration:
    record = PartitionRecord(partition_id=0, topic_id=TOPIC, replicas=(1, 2, 3), isr=(1, 2, 3), leader=1,
                             leader_epoch=0, partition_epoch=0, directories=(D1, D2, D3))
    return PartitionRegistration.from_record(record).merge(PartitionChangeRecord(0, TOPIC, **changes)) \
        if changes else PartitionRegistration.from_record(record)


def change(**fields) -> PartitionChangeRecord:
    return PartitionChangeRecord(partition_id=0, topic_id=TOPIC, **fields)


def test_from_record_copies_every_field():
    p = registration()
    assert (p.replicas, p.isr, p.leader, p.leader_epoch, p.partition_epoch) == ((1, 2, 3), (1, 2, 3), 1, 0, 0)
    assert p.directories == (D1, D2, D3) and p.elr == () and p.last_known_elr == ()
    assert p.leader_recovery_state == LeaderRecoveryState.RECOVERED


def test_missing_directories_default_to_migrating():
    p = PartitionRegistration.from_record(PartitionRecord(0, TOPIC, (1, 2), (1, 2), leader=1))
    assert p.directories == (DirectoryId.MIGRATING, DirectoryId.MIGRATING)
    assert DirectoryId.MIGRATING == Uuid.ZERO and str(DirectoryId.UNASSIGNED) == "AAAAAAAAAAAAAAAAAAAAAQ"


def test_directories_must_match_replicas():
    with pytest.raises(ValueError, match="The lengths for replicas and directories do not match"):
        PartitionRegistration.from_record(PartitionRecord(0, TOPIC, (1, 2), (1, 2), directories=(D1,)))


def test_an_empty_change_only_bumps_the_partition_epoch():
    before = registration()
    after = before.merge(change())
    assert after.partition_epoch == 1 and after.leader_epoch == 0
    assert (after.replicas, after.isr, after.leader, after.directories) == \
        (before.replicas, before.isr, before.leader, before.directories)


def test_isr_shrink_keeps_the_leader_epoch():
    after = registration().merge(change(isr=(1, 2)))
    assert after.isr == (1, 2) and after.leader == 1
    assert (after.leader_epoch, after.partition_epoch) == (0, 1)


def test_new_leader_bumps_both_epochs():
    after = registration().merge(change(leader=2, isr=(2, 3)))
    assert (after.leader, after.isr, after.leader_epoch, after.partition_epoch) == (2, (2, 3), 1, 1)


def test_same_leader_still_bumps_the_leader_epoch():
    after = registration().merge(change(leader=1))
    assert (after.leader, after.leader_epoch) == (1, 1)


def test_leader_minus_one_means_no_leader():
    after = registration().merge(change(leader=-1, isr=(1,)))
    assert not after.has_leader() and after.leader_epoch == 1


def test_replica_change_keeps_known_directories():
    after = registration().merge(change(replicas=(3, 4, 1), adding_replicas=(4,)))
    assert after.directories == (D3, DirectoryId.UNASSIGNED, D1)
    assert after.adding_replicas == (4,) and after.is_reassigning()


def test_given_directories_win():
    after = registration().merge(change(replicas=(1, 4), directories=(D1, D4)))
    assert after.directories == (D1, D4) and after.directory(4) == D4


def test_change_with_mismatched_directories_is_refused():
    with pytest.raises(ValueError, match="The lengths for replicas and directories do not match"):
        registration().merge(change(replicas=(1, 4), directories=(D1,)))


def test_leader_recovery_state_changes_only_when_given():
    unclean = registration().merge(change(leader=3, isr=(3,), leader_recovery_state=1))
    assert unclean.leader_recovery_state == LeaderRecoveryState.RECOVERING
    assert unclean.merge(change(isr=(3, 1))).leader_recovery_state == LeaderRecoveryState.RECOVERING
    assert unclean.merge(change(leader_recovery_state=0)).leader_recovery_state == 0
    with pytest.raises(ValueError, match="Value 5 is not a valid leader recovery state"):
        unclean.merge(change(leader_recovery_state=5))


def test_elr_fields_merge_like_the_others():
    with_elr = registration().merge(change(eligible_leader_replicas=(2,), last_known_elr=(3,)))
    assert (with_elr.elr, with_elr.last_known_elr) == ((2,), (3,))
    assert with_elr.merge(change(isr=(1,))).elr == (2,)
    assert with_elr.merge(change(eligible_leader_replicas=())).elr == ()


def test_queries():
    p = registration(leader=2)
    assert p.preferred_replica() == 1 and not p.has_preferred_leader()
    assert p.is_replica(3) and not p.is_replica(4)
    with pytest.raises(ValueError, match="Replica 4 is not assigned to this partition."):
        p.directory(4)


def test_to_record_recreates_the_registration():
    p = registration(leader=2, isr=(2, 3)).merge(change(eligible_leader_replicas=(1,)))
    assert PartitionRegistration.from_record(p.to_record(TOPIC, 0)) == p
    assert registration().to_record(TOPIC, 0).eligible_leader_replicas is None
