"""LeaderState: high watermark from a majority, the own-epoch rule, check quorum, lag bookkeeping."""

import pytest

from minikafka.common.uuid import Uuid
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import ReplicaState

VOTERS = frozenset({1, 2, 3})
DIR = Uuid.from_string("Hw2L-tv6Xs9Ho7qENmW71g")


def leader(epoch_start_offset=10, voters=VOTERS, now=0):
    return LeaderState(1, 4, epoch_start_offset, voters, (1, 2), fetch_timeout_ms=400, now=now)


def test_high_watermark_is_the_majority_fetch_offset():
    state = leader()
    assert not state.update_local_state(15)
    assert state.high_watermark is None                   # only the leader has it
    assert state.update_replica_state(2, Uuid.ZERO, now=5, fetch_offset=13)
    assert state.high_watermark == 13                     # {15, 13, ?}: middle is 13
    assert state.update_replica_state(3, Uuid.ZERO, now=6, fetch_offset=15)
    assert state.high_watermark == 15


def test_nothing_is_committed_before_a_record_of_the_own_epoch():
    state = leader(epoch_start_offset=10)
    state.update_local_state(11)
    assert not state.update_replica_state(2, Uuid.ZERO, now=5, fetch_offset=10)
    assert state.high_watermark is None                   # offset 10 is not past the epoch start
    assert state.update_replica_state(2, Uuid.ZERO, now=6, fetch_offset=11)
    assert state.high_watermark == 11


def test_high_watermark_never_moves_back():
    state = leader(epoch_start_offset=0)
    state.update_local_state(8)
    state.update_replica_state(2, Uuid.ZERO, 1, 8)
    state.update_replica_state(2, Uuid.ZERO, 2, 5)        # a follower that lost data
    assert state.high_watermark == 8


def test_observers_do_not_count_for_the_high_watermark():
    state = leader(epoch_start_offset=0)
    state.update_local_state(8)
    assert not state.update_replica_state(101, DIR, now=1, fetch_offset=8)
    assert state.high_watermark is None


def test_local_end_offset_must_not_shrink():
    state = leader()
    state.update_local_state(12)
    with pytest.raises(RuntimeError, match="non-monotonic update of local end offset: 12 -> 11"):
        state.update_local_state(11)
    with pytest.raises(RuntimeError, match="matches the local leader ID"):
        state.update_replica_state(1, Uuid.ZERO, 0, 5)


def test_check_quorum_needs_a_majority_of_voters_within_one_and_a_half_fetch_timeouts():
    state = leader(now=1000)
    assert state.check_quorum_timeout_ms == 600 and state.check_quorum_deadline == 1600
    state.update_local_state(10)
    state.update_replica_state(101, DIR, 1200, 10)        # observers do not count
    assert state.check_quorum_deadline == 1600
    state.update_replica_state(2, Uuid.ZERO, 1300, 10)    # one follower + the leader = 2 of 3
    assert state.check_quorum_deadline == 1900
    assert not state.check_quorum_expired(1899) and state.check_quorum_expired(1900)


def test_single_voter_never_fails_check_quorum():
    assert not leader(voters=frozenset({1})).check_quorum_expired(10**9)


def test_begin_quorum_epoch_timer_and_acknowledgements():
    state = leader(now=1000)
    assert state.begin_quorum_epoch_deadline == 1000
    state.reset_begin_quorum_epoch_timer(1000)
    assert state.begin_quorum_epoch_deadline == 1200       # fetch timeout / 2
    assert state.non_acknowledging_voters() == [2, 3]
    state.add_acknowledgement_from(3)
    state.update_replica_state(2, Uuid.ZERO, 1001, 0)      # fetching acknowledges too
    assert state.non_acknowledging_voters() == []
    with pytest.raises(ValueError, match="non-voter 101"):
        state.add_acknowledgement_from(101)


def test_preferred_successors_are_the_most_caught_up_followers():
    state = leader(epoch_start_offset=0, voters=frozenset({1, 2, 3, 4, 5}))
    state.update_local_state(20)
    state.update_replica_state(4, Uuid.ZERO, 1, 20)
    state.update_replica_state(2, Uuid.ZERO, 1, 12)
    state.update_replica_state(5, Uuid.ZERO, 1, 20)
    assert state.non_leader_voters_by_descending_fetch_offset() == (4, 5, 2, 3)


def test_describe_reports_lag_timestamps_and_forgets_silent_observers():
    state = leader(epoch_start_offset=0)
    state.update_local_state(10)
    state.update_replica_state(2, Uuid.ZERO, now=100, fetch_offset=10)   # caught up now
    state.update_replica_state(3, Uuid.ZERO, now=100, fetch_offset=4)
    state.update_local_state(12)
    state.update_replica_state(3, Uuid.ZERO, now=200, fetch_offset=10)   # reached where we were at 100
    state.update_replica_state(101, DIR, now=150, fetch_offset=12)
    voters, observers = state.describe(now=300)
    assert voters == (ReplicaState(1, Uuid.ZERO, 12, 300, 300),
                      ReplicaState(2, Uuid.ZERO, 10, 100, 100),
                      ReplicaState(3, Uuid.ZERO, 10, 200, 100))
    assert observers == (ReplicaState(101, DIR, 12, 150, 150),)
    assert state.describe(now=150 + 300_000)[1] == ()
