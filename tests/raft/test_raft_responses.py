"""One KafkaRaftClient reacting to hand-made responses: fetch, truncation, votes, epochs."""

import pytest

from minikafka.common.errors import Errors, KafkaException
from minikafka.raft.messages import (EpochEndOffset, FetchRequest, FetchResponse, LeaderIdAndEpoch,
                                     VoteRequest, VoteResponse)
from minikafka.raft.quorum_state_store import ElectionState
from minikafka.raft.replicated_log import Batch
from minikafka.runtime.node import Envelope
from tests.raft.harness import START_MS, CheckedLog, single_node

VOTERS = frozenset({1, 2, 3})


def sent(node, body_type, outbox=None):
    outbox = node.initial_outbox if outbox is None else outbox
    return [e for e in outbox if isinstance(e.body, body_type)]


def respond(node, request, body, now=START_MS + 5):
    node.deliver(Envelope(request.dst, request.src, body, request.correlation_id, is_response=True), now)
    return node.drain()


def fetch_answer(epoch, leader=2, hw=-1, records=(), diverging=None, error=Errors.NONE):
    return FetchResponse(error.code, hw, 0, LeaderIdAndEpoch(leader, epoch), diverging, tuple(records))


def follower(log=None, epoch=1):
    node = single_node(stored=ElectionState(epoch, leader_id=2, voters=VOTERS), log=log)
    assert node.client.role == "Follower"
    return node


def test_follower_appends_flushes_and_learns_the_high_watermark():
    node = follower()
    request = sent(node, FetchRequest)[0]
    assert request.dst == 2 and (request.body.fetch_offset, request.body.last_fetched_epoch) == (0, 0)
    batches = [Batch(0, 1, 5, ("a", "b")), Batch(2, 1, 6, ("c",))]
    outbox, _ = respond(node, request, fetch_answer(1, hw=2, records=batches))
    log = node.client.log
    assert log.end_offset == 3 and log.flushed_end_offset == 3
    assert node.client.high_watermark == 2 and log.high_watermark == 2
    assert [b.base_offset for b in node.recorder.batches] == [0]       # batch 2 is not committed yet
    assert node.client.quorum.state.has_fetched_from_leader
    next_fetch = sent(node, FetchRequest, outbox)[0]
    assert next_fetch.body.fetch_offset == 3 and next_fetch.body.last_fetched_epoch == 1


def test_high_watermark_is_capped_by_our_log_end():
    node = follower()
    respond(node, sent(node, FetchRequest)[0], fetch_answer(1, hw=40, records=[Batch(0, 1, 5, ("a",))]))
    assert node.client.high_watermark == 1


def test_diverging_epoch_truncates_the_log():
    log = CheckedLog()
    for epoch in (1, 1, 2, 2):
        log.append_as_leader([f"e{epoch}"], epoch, now=0)
    node = follower(log=log, epoch=3)
    outbox, _ = respond(node, sent(node, FetchRequest)[0], fetch_answer(3, diverging=EpochEndOffset(1, 2)))
    assert sent(node, FetchRequest, outbox)[0].body.fetch_offset == 2
    assert log.end_offset == 2 and log.last_fetched_epoch == 1


def test_truncation_event_text():
    log = CheckedLog()
    for epoch in (1, 2, 2):
        log.append_as_leader([f"e{epoch}"], epoch, now=0)
    node = follower(log=log, epoch=3)
    request = sent(node, FetchRequest)[0]
    node.deliver(Envelope(2, 1, fetch_answer(3, diverging=EpochEndOffset(1, 1)), request.correlation_id,
                          is_response=True), START_MS + 5)
    _, events = node.drain()
    truncated = [e for e in events if e.kind == "log_truncated"][0]
    assert truncated.text == ("__cluster_metadata-0 truncated to offset 1 (was 3): diverging epoch 1 "
                              "ends at 1 on leader 2")


def test_truncation_below_the_high_watermark_is_refused():
    node = follower()
    outbox, _ = respond(node, sent(node, FetchRequest)[0],
                        fetch_answer(1, hw=2, records=[Batch(0, 1, 5, ("a",)), Batch(1, 1, 5, ("b",))]))
    with pytest.raises(KafkaException, match="The leader requested truncation to offset 1, which is "
                                             "below the current high watermark 2"):
        respond(node, sent(node, FetchRequest, outbox)[0], fetch_answer(1, diverging=EpochEndOffset(1, 1)))


def test_a_newer_epoch_in_a_response_moves_us():
    node = follower()
    respond(node, sent(node, FetchRequest)[0], fetch_answer(4, leader=3, error=Errors.FENCED_LEADER_EPOCH))
    assert (node.client.role, node.client.leader_and_epoch.leader_id, node.client.epoch) == ("Follower", 3, 4)
    node = follower()
    respond(node, sent(node, FetchRequest)[0], fetch_answer(4, leader=-1, error=Errors.FENCED_LEADER_EPOCH))
    assert (node.client.role, node.client.epoch) == ("Unattached", 4)


def test_answers_to_forgotten_requests_are_ignored():
    node = follower()
    request = sent(node, FetchRequest)[0]
    node.client.requests.reset_all()            # what every state change does
    respond(node, request, fetch_answer(1, hw=1, records=[Batch(0, 1, 5, ("a",))]))
    assert node.client.log.end_offset == 0


def test_observer_finds_the_leader_through_any_voter():
    node = single_node(local=101)
    request = sent(node, FetchRequest)[0]
    assert request.dst in VOTERS and request.body.replica_id == 101
    respond(node, request, fetch_answer(3, leader=2, error=Errors.NOT_LEADER_OR_FOLLOWER))
    assert (node.client.role, node.client.leader_and_epoch.leader_id) == ("Follower", 2)


def prospective():
    node = single_node()
    node.poll(START_MS + 1000)                 # past any election timeout
    votes = sent(node, VoteRequest, node.drain()[0])
    assert node.client.role == "Prospective" and all(v.body.pre_vote for v in votes)
    return node, votes


def test_pre_vote_majority_makes_a_candidate_then_votes_make_a_leader():
    node, pre_votes = prospective()
    outbox, _ = respond(node, pre_votes[0], VoteResponse(0, -1, 0, True), now=START_MS + 1001)
    assert node.client.role == "Candidate" and node.client.epoch == 1
    votes = sent(node, VoteRequest, outbox)
    assert votes and not any(v.body.pre_vote for v in votes)
    _, events = respond(node, votes[0], VoteResponse(0, -1, 1, True), now=START_MS + 1002)
    assert node.client.role == "Leader"
    assert [e.text for e in events if e.kind == "controller_elected"] == \
        [f"controller 1 elected in epoch 1 with votes from 1,{votes[0].dst}"]


def test_lost_pre_vote_returns_to_unattached():
    node, pre_votes = prospective()
    for request in pre_votes:
        respond(node, request, VoteResponse(0, -1, 0, False), now=START_MS + 1001)
    assert node.client.role == "Unattached" and node.client.epoch == 0


def test_lost_election_backs_off_before_trying_again():
    node, pre_votes = prospective()
    outbox, _ = respond(node, pre_votes[0], VoteResponse(0, -1, 0, True), now=START_MS + 1001)
    for request in sent(node, VoteRequest, outbox):
        respond(node, request, VoteResponse(0, -1, 1, False), now=START_MS + 1002)
    state = node.client.quorum.state
    assert state.name == "Candidate" and state.backoff_deadline is not None
    node.poll(state.backoff_deadline)
    assert node.client.role == "Prospective" and node.client.quorum.state.retries == 2


def test_binary_exponential_election_backoff_is_bounded():
    client = single_node().client
    first = {client.vote.binary_exponential_election_backoff_ms(1) for _ in range(300)}
    assert min(first) >= 0 and max(first) < 100                   # 50 * {0,1} + jitter < 50
    late = [client.vote.binary_exponential_election_backoff_ms(30) for _ in range(300)]
    assert max(late) < 200 + 50 and max(late) >= 200              # capped at backoff.max + jitter
    with pytest.raises(ValueError, match="Retries 0 should be larger than zero"):
        client.vote.binary_exponential_election_backoff_ms(0)
