"""Who may grant which vote, per epoch state (Kafka 4.x with KIP-996 pre-vote)."""

import pytest

from minikafka.raft.epoch_state import (CandidateState, EpochElection, FollowerState,
                                        ProspectiveState, ResignedState, UnattachedState)
from minikafka.raft.leader_state import LeaderState

VOTERS = frozenset({1, 2, 3})


def grants(state, up_to_date=True, pre_vote=False, candidate=2):
    return state.can_grant_vote(candidate, up_to_date, pre_vote)


def test_unattached_grants_one_binding_vote_to_an_up_to_date_candidate():
    state = UnattachedState(4, VOTERS, None, 100)
    assert grants(state)
    assert not grants(state, up_to_date=False)


def test_a_vote_is_never_moved_but_may_be_repeated():
    state = UnattachedState(4, VOTERS, None, 100, voted_id=2)
    assert grants(state, candidate=2)
    assert not grants(state, candidate=3)
    assert grants(state, pre_vote=True, candidate=3)       # pre-votes bind nothing


def test_unattached_that_knows_the_leader_refuses_binding_votes():
    state = UnattachedState(4, VOTERS, None, 100, leader_id=3)
    assert not grants(state)
    assert grants(state, pre_vote=True)


def test_follower_grants_pre_votes_only_until_it_hears_from_its_leader():
    state = FollowerState(4, 3, VOTERS, None, fetch_timeout_ms=400, now=0)
    assert grants(state, pre_vote=True)
    assert not grants(state, pre_vote=True, up_to_date=False)
    assert not grants(state)
    state.reset_fetch_timeout(now=10)
    assert not grants(state, pre_vote=True)
    assert state.fetch_deadline == 410


def test_candidate_prospective_resigned_leader():
    candidate = CandidateState(1, 5, VOTERS, None, retries=1, election_deadline=100)
    assert not grants(candidate) and grants(candidate, pre_vote=True)
    prospective = ProspectiveState(1, 5, VOTERS, None, retries=1, election_deadline=100)
    assert grants(prospective) and grants(prospective, pre_vote=True)
    resigned = ResignedState(1, 5, VOTERS, election_deadline=100, preferred_successors=(2, 3))
    assert not grants(resigned) and grants(resigned, pre_vote=True)
    leader = LeaderState(1, 5, 0, VOTERS, (1, 2), fetch_timeout_ms=400, now=0)
    assert not grants(leader) and not grants(leader, pre_vote=True)


def test_persisted_election_state_of_each_state():
    assert FollowerState(4, 3, VOTERS, None, 400, 0, voted_id=3).election().voted_id == 3
    candidate = CandidateState(1, 5, VOTERS, None, 1, 100).election()
    assert (candidate.epoch, candidate.leader_id, candidate.voted_id) == (5, None, 1)
    leader = LeaderState(1, 5, 0, VOTERS, (1, 2), 400, 0).election()
    assert (leader.leader_id, leader.voted_id) == (1, None)   # Kafka 4.x leaders drop the voted key


def test_epoch_election_majorities():
    election = EpochElection(VOTERS, local_id=1)
    assert not election.is_vote_granted() and not election.is_vote_rejected()
    assert election.unrecorded_voters == [2, 3]
    assert election.record_vote(2, False)
    assert not election.is_vote_rejected()
    assert not election.record_vote(2, True)                 # the first answer counts
    election.record_vote(3, False)
    assert election.is_vote_rejected() and election.rejecting_voters == [2, 3]
    won = EpochElection(VOTERS, local_id=1)
    won.record_vote(3, True)
    assert won.is_vote_granted() and won.granting_voters == [1, 3]
    with pytest.raises(ValueError, match="non-voter 9"):
        won.record_vote(9, True)


def test_single_voter_elects_itself():
    assert EpochElection(frozenset({7}), local_id=7).is_vote_granted()


def test_follower_high_watermark_only_moves_forward():
    state = FollowerState(4, 3, VOTERS, 10, 400, 0)
    assert not state.update_high_watermark(10)
    assert state.update_high_watermark(12)
    with pytest.raises(ValueError, match="Non-monotonic update of high watermark from 12 to 11"):
        state.update_high_watermark(11)


def test_resigned_tracks_unacknowledged_voters():
    state = ResignedState(1, 5, VOTERS, 100, (3, 2))
    state.acknowledge_resignation(3)
    assert state.unacked_voters == {2}
    assert state.leader_id == 1
