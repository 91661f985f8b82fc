"""One KafkaRaftClient answering hand-made KRaft requests: validation, votes, fetches."""

import itertools

import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.raft.messages import (BeginQuorumEpochRequest, DescribeQuorumRequest,
                                     EndQuorumEpochRequest, EpochEndOffset, FetchRequest,
                                     VoteRequest)
from minikafka.raft.quorum_state_store import ElectionState
from minikafka.runtime.node import Envelope
from tests.raft.harness import CLUSTER_ID, START_MS, CheckedLog, answer_to, ask, single_node

CORRELATION = itertools.count(1)


def vote(epoch, candidate=2, last_epoch=0, last_offset=0, pre_vote=False, cluster_id=CLUSTER_ID):
    return VoteRequest(cluster_id, epoch, candidate, last_epoch, last_offset, pre_vote, 1)


def log_with_epochs(*epochs):
    log = CheckedLog()
    for epoch in epochs:
        log.append_as_leader([f"e{epoch}"], epoch, now=0)
    log.flush()
    return log


# ---------------------------------------------------------------------- Vote
def test_vote_is_granted_and_persisted_before_the_answer():
    node = single_node()
    response = ask(node, vote(epoch=1))
    assert response.error is Errors.NONE and response.vote_granted and response.leader_epoch == 1
    assert node.client.quorum.store.read_election_state() == ElectionState(1, None, 2, frozenset({1, 2, 3}))
    assert not ask(node, vote(epoch=1, candidate=3)).vote_granted        # one vote per epoch
    assert ask(node, vote(epoch=1, candidate=2)).vote_granted            # repeating it is fine


def test_vote_for_a_candidate_with_an_older_log_is_refused():
    node = single_node(log=log_with_epochs(1, 2))
    assert not ask(node, vote(epoch=3, last_epoch=1, last_offset=9)).vote_granted   # epoch 1 < 2
    assert ask(node, vote(epoch=4, candidate=3, last_epoch=2, last_offset=2)).vote_granted


@pytest.mark.parametrize("request_body, error", [
    (vote(epoch=1, cluster_id="another-cluster"), Errors.INCONSISTENT_CLUSTER_ID),
    (vote(epoch=1, last_offset=-5), Errors.INVALID_REQUEST),
    (vote(epoch=1, last_epoch=-1), Errors.INVALID_REQUEST),
    (vote(epoch=1, last_epoch=1), Errors.INVALID_REQUEST),            # candidate epoch must be newer
    (vote(epoch=2, last_epoch=3, pre_vote=True), Errors.INVALID_REQUEST),
])
def test_malformed_votes(request_body, error):
    assert ask(single_node(), request_body).error is error


def test_vote_from_an_older_epoch_is_fenced():
    node = single_node(stored=ElectionState(5, voters=frozenset({1, 2, 3})))
    response = ask(node, vote(epoch=4))
    assert (response.error, response.leader_epoch) == (Errors.FENCED_LEADER_EPOCH, 5)


def test_cluster_id_none_is_accepted():
    assert ask(single_node(), vote(epoch=1, cluster_id=None)).vote_granted


def test_pre_vote_binds_nothing_but_adopts_a_newer_epoch():
    node = single_node()
    assert ask(node, vote(epoch=0, pre_vote=True)).vote_granted
    assert ask(node, vote(epoch=0, candidate=3, pre_vote=True)).vote_granted
    assert node.client.quorum.voted_id is None
    ask(node, vote(epoch=2, pre_vote=True))
    assert (node.client.role, node.client.epoch, node.client.quorum.voted_id) == ("Unattached", 2, None)


def test_restarted_voter_remembers_its_vote():
    stored = ElectionState(5, voted_id=2, voters=frozenset({1, 2, 3}))
    node = single_node(stored=stored)
    assert not ask(node, vote(epoch=5, candidate=3)).vote_granted
    assert ask(node, vote(epoch=5, candidate=2)).vote_granted


# ---------------------------------------------------------------------- BeginQuorumEpoch / EndQuorumEpoch
def test_begin_quorum_epoch_makes_a_follower():
    node = single_node()
    response = ask(node, BeginQuorumEpochRequest(CLUSTER_ID, 3, 4, 1), src=3)
    assert response.error is Errors.NONE and (response.leader_id, response.leader_epoch) == (3, 4)
    assert node.client.role == "Follower"
    assert ask(node, BeginQuorumEpochRequest(CLUSTER_ID, 2, 3, 1)).error is Errors.FENCED_LEADER_EPOCH


def test_end_quorum_epoch_shortens_the_fetch_timeout_by_rank():
    node = single_node(stored=ElectionState(4, leader_id=3, voters=frozenset({1, 2, 3})))
    ask(node, EndQuorumEpochRequest(CLUSTER_ID, 3, 4, (2, 1)), src=3, now=START_MS + 10)
    state = node.client.quorum.state
    assert state.name == "Follower" and state.fetch_deadline == START_MS + 10 + 100   # 200 >> 1


@pytest.mark.parametrize("successors, delay", [((1, 2, 3), 0), ((2, 1, 3), 50), ((2, 3, 1), 100),
                                               ((2, 3), 200), ((), 0)])
def test_strict_exponential_backoff_of_successors(successors, delay):
    assert single_node().client.end_quorum_epoch.end_epoch_backoff_ms(successors) == delay


# ---------------------------------------------------------------------- Fetch
def fetch(offset, last_epoch, epoch=1, replica=101, max_wait=200):
    return FetchRequest(CLUSTER_ID, replica, max_wait, epoch, offset, last_epoch, Uuid(0, 77))


def test_fetch_to_a_non_leader():
    node = single_node(stored=ElectionState(3, leader_id=2, voters=frozenset({1, 2, 3})))
    assert ask(node, fetch(0, 0, epoch=3)).error is Errors.NOT_LEADER_OR_FOLLOWER
    assert ask(node, fetch(0, 0, epoch=4)).error is Errors.UNKNOWN_LEADER_EPOCH
    response = ask(node, fetch(0, 0, epoch=2))
    assert response.error is Errors.FENCED_LEADER_EPOCH
    assert (response.current_leader.leader_id, response.current_leader.leader_epoch) == (2, 3)


def single_voter_leader(log=None):
    node = single_node(local=1, voters=(1,), log=log)
    assert node.client.role == "Leader"
    return node


def test_fetch_validation_and_cluster_id():
    node = single_voter_leader()
    assert ask(node, fetch(0, 2, epoch=1)).error is Errors.INVALID_REQUEST     # last epoch > current
    assert ask(node, fetch(-1, 0)).error is Errors.INVALID_REQUEST
    wrong = FetchRequest("other", 101, 0, 1, 0, 0)
    assert ask(node, wrong).error is Errors.INCONSISTENT_CLUSTER_ID


def test_fetch_returns_batches_and_the_high_watermark():
    node = single_voter_leader()
    response = ask(node, fetch(0, 0))
    assert response.error is Errors.NONE and response.high_watermark == 1
    assert [b.base_offset for b in response.records] == [0]
    assert node.client.describe_quorum().observers[0].replica_directory_id == Uuid(0, 77)


def test_fetch_from_a_diverging_log_names_the_truncation_point():
    log = log_with_epochs(1, 1)         # leader restarts with epoch-1 data: new epoch 2
    node = single_voter_leader(log=log)
    assert node.client.epoch == 2
    response = ask(node, fetch(offset=5, last_epoch=1, epoch=2))      # follower has more epoch-1 data
    assert response.diverging_epoch == EpochEndOffset(1, 2) and response.records == ()


def test_caught_up_fetch_is_parked_until_new_data_or_max_wait():
    node = single_voter_leader()
    request = Envelope(101, 1, fetch(1, 1), correlation_id=next(CORRELATION))
    node.deliver(request, START_MS + 10)
    assert answer_to(node, request) is None and len(node.client.purgatory) == 1
    node.client.append(["x"], 1)          # lingers 25 ms, then the batch wakes the fetch
    assert answer_to(node, request) is None
    node.poll(START_MS + 40)
    answer = answer_to(node, request)
    assert [b.records for b in answer.records] == [("x",)]
    parked = Envelope(101, 1, fetch(2, 1), correlation_id=next(CORRELATION))
    node.deliver(parked, START_MS + 50)
    node.poll(START_MS + 250)
    assert answer_to(node, parked).records == ()


def test_describe_quorum_needs_the_leader():
    node = single_node()
    response = ask(node, DescribeQuorumRequest())
    assert response.error is Errors.NOT_LEADER_OR_FOLLOWER
    assert response.error_message == Errors.NOT_LEADER_OR_FOLLOWER.message
    leader = single_voter_leader()
    described = leader.client.describe_quorum()
    assert (described.leader_id, described.leader_epoch, described.high_watermark) == (1, 1, 1)
    assert str(described.nodes[0].listeners[0]) == "CONTROLLER://localhost:9093"


def test_other_messages_are_left_to_the_host():
    node = single_node()
    assert not node.client.handle_request(Envelope(2, 1, "not raft", correlation_id=1))
