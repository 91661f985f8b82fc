"""QuorumState: start-up from the stored election, the transition table, what is persisted."""

import random

import pytest

from minikafka.raft.quorum_state import (OBSERVER_TRANSITIONS, TRANSITIONS, IllegalTransition,
                                        LeaderAndEpoch, QuorumEvent, QuorumState)

E = QuorumEvent
from minikafka.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore
from minikafka.raft.replicated_log import OffsetAndEpoch

VOTERS = frozenset({1, 2, 3})


def quorum(local_id=1, stored=None, log_end=OffsetAndEpoch(0, 0), now=1000, seed=0):
    store = MemoryQuorumStateStore()
    if stored is not None:
        store.write_election_state(stored)
    state = QuorumState(local_id, VOTERS, store, election_timeout_ms=200, fetch_timeout_ms=400,
                        rng=random.Random(seed))
    state.initialize(log_end, now)
    return state


def test_fresh_voter_starts_unattached_in_epoch_0_and_persists_it():
    state = quorum()
    assert (state.name, state.epoch, state.leader_id, state.voted_id) == ("Unattached", 0, None, None)
    assert state.store.history == [ElectionState(0, voters=VOTERS)]
    assert 1200 <= state.state.election_deadline < 1400


def test_random_election_timeout_range():
    state = quorum()
    samples = {state.random_election_timeout_ms() for _ in range(2000)}
    assert min(samples) == 200 and max(samples) == 399


@pytest.mark.parametrize("stored, expected", [
    (ElectionState(5, leader_id=1, voters=VOTERS), ("Resigned", 5, 1, None)),
    (ElectionState(5, voted_id=1, voters=VOTERS), ("Candidate", 5, None, 1)),
    (ElectionState(5, leader_id=2, voted_id=2, voters=VOTERS), ("Follower", 5, 2, 2)),
    (ElectionState(5, voted_id=3, voters=VOTERS), ("Unattached", 5, None, 3)),
])
def test_restart_resumes_the_stored_election(stored, expected):
    state = quorum(stored=stored)
    assert (state.name, state.epoch, state.leader_id, state.voted_id) == expected


def test_a_newer_epoch_in_the_log_wins():
    state = quorum(stored=ElectionState(2, voted_id=3, voters=VOTERS), log_end=OffsetAndEpoch(4, 10))
    assert (state.name, state.epoch, state.voted_id) == ("Unattached", 4, None)


def test_observer_starts_unattached_without_an_election_timer():
    state = quorum(local_id=101)
    assert state.is_observer and state.state.election_deadline is None
    with pytest.raises(RuntimeError, match="with a voted candidate"):
        quorum(local_id=101, stored=ElectionState(2, voted_id=1, voters=VOTERS))


def test_full_election_path_and_what_each_step_persists():
    state = quorum()
    state.transition_to_prospective(E.ELECTION_TIMEOUT, now=1300)
    assert state.name == "Prospective" and len(state.store.history) == 1   # pre-vote persists nothing
    state.transition_to_candidate(now=1310)
    assert state.store.read_election_state() == ElectionState(1, None, 1, VOTERS)
    state.state.epoch_election.record_vote(2, True)
    leader = state.transition_to_leader(epoch_start_offset=0, now=1320)
    assert leader.granting_voters == (1, 2)
    assert state.store.read_election_state() == ElectionState(1, 1, None, VOTERS)
    state.transition_to_resigned(E.SHUTDOWN, (2, 3), now=1330)
    assert state.name == "Resigned" and state.store.read_election_state().leader_id == 1


def test_voting_persists_before_anything_else():
    state = quorum()
    state.add_voted_state(0, 2, now=1100)
    assert state.store.read_election_state() == ElectionState(0, None, 2, VOTERS)
    with pytest.raises(RuntimeError, match="Cannot add voted key"):
        state.add_voted_state(0, 3, now=1100)
    state.transition_to_follower(E.LEADER_DISCOVERED, 0, 2, now=1200)
    assert state.voted_id == 2                       # the vote survives into the follower state


def test_prospective_returns_to_unattached_keeping_its_vote():
    state = quorum(stored=ElectionState(3, voted_id=2, voters=VOTERS))
    state.transition_to_prospective(E.ELECTION_TIMEOUT, now=1500)
    state.transition_to_unattached(E.PRE_VOTE_LOST, 3, now=1700)
    assert (state.name, state.epoch, state.voted_id) == ("Unattached", 3, 2)


def test_illegal_transitions_raise():
    state = quorum()
    with pytest.raises(RuntimeError, match="Cannot transition to Candidate"):
        state.transition_to_candidate(now=1000)
    with pytest.raises(RuntimeError, match="Cannot become leader|Cannot transition to Leader"):
        state.transition_to_leader(0, now=1000)
    with pytest.raises(RuntimeError, match="Invalid transition to Resigned"):
        state.transition_to_resigned(E.SHUTDOWN, (), now=1000)
    with pytest.raises(RuntimeError, match="Cannot transition to Unattached with epoch 0"):
        state.transition_to_unattached(E.HIGHER_EPOCH, 0, now=1000)
    with pytest.raises(RuntimeError, match="Cannot transition to Follower"):
        state.transition_to_follower(E.LEADER_DISCOVERED, 1, 1, now=1000)        # ourselves
    observer = quorum(local_id=101)
    with pytest.raises(RuntimeError, match="Cannot transition to Prospective"):
        observer.transition_to_prospective(E.ELECTION_TIMEOUT, now=1000)


def test_leader_cannot_become_follower_in_its_own_epoch():
    state = quorum()
    state.transition_to_prospective(E.ELECTION_TIMEOUT, 1000)
    state.transition_to_candidate(1000)
    state.state.epoch_election.record_vote(2, True)
    state.transition_to_leader(0, 1000)
    with pytest.raises(RuntimeError, match="Cannot transition to Follower with leader 2 and epoch 1"):
        state.transition_to_follower(E.LEADER_DISCOVERED, 1, 2, now=1000)
    state.transition_to_follower(E.LEADER_DISCOVERED, 2, 2, now=1000)
    assert state.leader_and_epoch == LeaderAndEpoch(2, 2)


def test_transition_tables_are_complete_and_consistent():
    states = {"Unattached", "Prospective", "Candidate", "Leader", "Follower", "Resigned"}
    assert {state for state, _ in TRANSITIONS} == states
    assert set(TRANSITIONS.values()) <= states
    assert all(isinstance(event, QuorumEvent) for _, event in TRANSITIONS)
    assert {event for _, event in TRANSITIONS} == set(QuorumEvent)    # every event is used
    observer_states = {"Unattached", "Follower"}
    assert {s for s, _ in OBSERVER_TRANSITIONS} | set(OBSERVER_TRANSITIONS.values()) == observer_states
    assert OBSERVER_TRANSITIONS.items() <= TRANSITIONS.items()
    # KIP-996: only a won pre-vote makes a Candidate, only a won vote a Leader
    assert [k for k, to in TRANSITIONS.items() if to == "Candidate"] == [("Prospective", E.PRE_VOTE_WON)]
    assert [k for k, to in TRANSITIONS.items() if to == "Leader"] == [("Candidate", E.VOTE_WON)]


def test_an_event_the_table_does_not_list_raises():
    state = quorum()
    with pytest.raises(IllegalTransition, match="Cannot handle FETCH_TIMEOUT in current state"):
        state.transition_to_prospective(E.FETCH_TIMEOUT, now=1000)     # Unattached has no fetch timer
    with pytest.raises(IllegalTransition, match="HIGHER_EPOCH leads to Unattached"):
        state.transition_to_follower(E.HIGHER_EPOCH, 1, 2, now=1000)
    assert state.next_state(E.ELECTION_TIMEOUT) == "Prospective"
    assert state.name == "Unattached"                                  # nothing moved
