"""PartitionChangeBuilder with eligible leader replicas (KIP-966) on, min.insync.replicas 2.

The first three cases are the records a real Kafka 4.3.1 controller wrote in the
differential suite's failover (replicas 1,2,3, min.insync.replicas=2): broker 1
stopped cleanly, broker 2 was killed, then restarted.
"""

from minikafka.common.uuid import Uuid
from minikafka.controller.partition_change_builder import NO_LEADER, RECOVERING, Election, PartitionChangeBuilder
from minikafka.metadata.partition_registration import PartitionRegistration

TOPIC_ID = Uuid(5, 5)


def partition(isr, leader, elr=(), last_known_elr=(), replicas=(1, 2, 3)):
    return PartitionRegistration(tuple(replicas), tuple(Uuid(r, 100) for r in replicas), tuple(isr), (), (),
                                 leader, 0, 4, 7, tuple(elr), tuple(last_known_elr))


def builder(part, acceptable, min_isr=2, elr=True, election=Election.ONLINE):
    return (PartitionChangeBuilder(part, TOPIC_ID, 0, lambda r: r in acceptable, lambda r: Uuid(r, 100),
                                   min_isr=min_isr)
            .set_elr_enabled(elr).set_election(election))


def fields(record):
    """The fields a record sets, as kafka-dump-log would print them (None = not in the record)."""
    return (record.isr, record.leader, record.eligible_leader_replicas, record.last_known_elr)


def test_a_shrink_that_stays_at_min_isr_writes_no_elr():
    # Kafka 4.3.1: {"isr": [2, 3], "leader": 2} when broker 1 shut down
    record = builder(partition((1, 2, 3), 1), acceptable=(2, 3)).set_target_isr([2, 3]).build()
    assert fields(record) == ((2, 3), 2, None, None)


def test_the_replica_leaving_below_min_isr_goes_into_the_elr():
    # Kafka 4.3.1: {"isr": [3], "leader": 3, "eligibleLeaderReplicas": [2]} when broker 2 was fenced
    part = partition((2, 3), 2)
    record = builder(part, acceptable=(3,)).set_target_isr([3]).build()
    assert fields(record) == ((3,), 3, (2,), None)
    after = part.merge(record)
    assert (after.isr, after.elr, after.last_known_elr) == ((3,), (2,), ())


def test_an_unclean_restart_takes_the_replica_out_of_the_elr():
    # Kafka 4.3.1: {"eligibleLeaderReplicas": []} when the killed broker 2 registered again
    part = partition((3,), 3, elr=(2,))
    record = (builder(part, acceptable=(3,)).set_unclean_shutdown_replicas([2]).set_target_isr([3]).build())
    assert fields(record) == (None, -2, (), None)


def test_without_elr_the_same_shrink_keeps_the_elr_empty():
    record = builder(partition((2, 3), 2), acceptable=(3,), elr=False).set_target_isr([3]).build()
    assert fields(record) == ((3,), 3, None, None)


def test_the_last_isr_member_fenced_empties_the_isr_and_remembers_the_last_leader():
    part = partition((1,), 1, elr=(2,))
    record = builder(part, acceptable=(3,)).set_target_isr([]).build()
    assert fields(record) == ((), NO_LEADER, (1, 2), (1,))
    after = part.merge(record)
    assert (after.leader, after.isr, after.elr, after.last_known_elr) == (NO_LEADER, (), (1, 2), (1,))


def test_an_elr_member_that_comes_back_is_elected_cleanly():
    part = partition((), NO_LEADER, elr=(1, 2), last_known_elr=(1,))
    record = builder(part, acceptable=(2, 3)).build()
    assert fields(record) == ((2,), 2, (1,), ())
    assert record.leader_recovery_state == -1          # clean: not RECOVERING


def test_an_elr_member_is_not_a_candidate_while_the_isr_has_one():
    part = partition((3,), 3, elr=(1,))
    record = builder(part, acceptable=(1,), min_isr=3).set_target_isr([]).build()
    # 3 left the ISR: now the ISR is empty and 1 (ELR) is a valid, clean leader
    assert fields(record) == ((1,), 1, (3,), None)


def test_the_last_known_leader_back_is_elected_as_an_unclean_leader():
    part = partition((), NO_LEADER, last_known_elr=(1,))
    record = builder(part, acceptable=(1, 2)).build()
    assert fields(record) == ((1,), 1, None, ())
    assert record.leader_recovery_state == RECOVERING


def test_a_fenced_last_known_leader_is_not_elected():
    part = partition((), NO_LEADER, last_known_elr=(1,))
    assert builder(part, acceptable=(2, 3)).build() is None


def test_an_unclean_election_clears_the_elr():
    part = partition((), NO_LEADER, elr=(1,), last_known_elr=(2,))
    record = builder(part, acceptable=(3,), election=Election.UNCLEAN).build()
    assert fields(record) == ((3,), 3, (), ())         # a leader again: LastKnownElr emptied too
    assert record.leader_recovery_state == RECOVERING


def test_the_isr_back_at_min_isr_clears_the_elr():
    part = partition((3,), 3, elr=(2,))
    record = builder(part, acceptable=(1, 2, 3)).set_target_isr([3, 2]).build()
    assert fields(record) == ((3, 2), -2, (), None)


def test_the_elr_is_written_in_hash_set_order():
    part = partition((12, 3, 5), 12, replicas=(12, 3, 5, 20))
    record = builder(part, acceptable=(12,), min_isr=4).set_target_isr([12]).build()
    assert record.eligible_leader_replicas == (3, 5)
    part = partition((20, 3, 17), 20, replicas=(20, 3, 17))
    record = builder(part, acceptable=(20,), min_isr=3).set_target_isr([20]).build()
    assert record.eligible_leader_replicas == (17, 3)    # 17 hashes to bucket 1 of 16, 3 to bucket 3
