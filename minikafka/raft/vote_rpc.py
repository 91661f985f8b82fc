"""`VoteRpc`: the Vote RPC (KIP-595), with KIP-996's pre-vote -- asking, answering, and acting
on the answers.

Theory of operation
-------------------
An election has two rounds with the same request.  A Prospective replica
asks every voter for a *pre-vote* (``pre_vote=True``, for the epoch it is
in): nothing is persisted and nobody moves to a new epoch for it, so a
replica cut off from the leader cannot disrupt the quorum by campaigning.
With a majority it becomes Candidate (epoch + 1) and asks for binding votes.

* **Asking** (`maybe_send_vote_requests`, while polling Prospective or
  Candidate) -- one request to each voter whose answer is not yet recorded,
  carrying our log's last epoch and end offset.
* **Answering** (`handle_vote_request`) -- reject a foreign cluster id
  (INCONSISTENT_CLUSTER_ID), malformed positions (INVALID_REQUEST) or an old
  epoch (FENCED_LEADER_EPOCH); adopt a newer epoch first (a pre-vote from a
  newer epoch moves us too); then grant if the epoch state allows it (see
  `epoch_state`) and the asker's log is at least as up-to-date: its last
  epoch is higher, or equal with an end offset at least ours.  A granted
  binding vote is persisted before the answer leaves.
* **Acting on answers** (`handle_vote_response`) -- after the checks every
  response gets (`RaftTransitions.maybe_handle_common_response`), record the
  (pre-)vote; a majority promotes Prospective to Candidate and Candidate to
  Leader.  A candidate whose election is lost backs off
  ``min(50 ms x random(2^retries), backoff.max) + random(50 ms)`` before it
  becomes Prospective again (`RaftPolls`).

Mirrors ``maybeSendVoteRequests``/``buildVoteRequest``, ``handleVoteRequest``,
``handleVoteResponse`` of Kafka's ``KafkaRaftClient`` and
``RaftUtil.binaryExponentialElectionBackoffMs`` (with the 4.0.1 jitter).
Module named after the RPC (Kafka's ``VoteRequest``/``VoteResponse``).
Simplified: static voters, so the request names no voter directory ids.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from minikafka.common.errors import Errors
from minikafka.raft.epoch_state import CandidateState, ProspectiveState
from minikafka.raft.messages import NO_LEADER, VoteRequest, VoteResponse, has_valid_cluster_id, \
    leader_id_field
from minikafka.raft.quorum_state import QuorumEvent, QuorumState
from minikafka.raft.raft_transitions import RaftTransitions, \
    validate_voter_only_request
from minikafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from minikafka.raft.request_manager import RequestManager, earliest
from minikafka.runtime.node import Envelope

RETRY_BACKOFF_BASE_MS = 50     # KafkaRaftClient.RETRY_BACKOFF_BASE_MS


class VoteRpc:
    """Vote and pre-vote: the requests a Prospective or Candidate sends, the answers to them."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, requests: RequestManager,
                 transitions: RaftTransitions, *, send: Callable[[int, Any], None],
                 rng: random.Random, cluster_id: str, election_backoff_max_ms: int):
        self.quorum = quorum
        self.log = log                          # read only: our position, in and against votes
        self.requests = requests
        self.transitions = transitions
        self.send = send                        # the client's: one request, answer to the client
        self.rng = rng                          # the host node's seeded Random (election backoff)
        self.cluster_id = cluster_id
        self.election_backoff_max_ms = election_backoff_max_ms

    # ------------------------------------------------------------------ asking
    def maybe_send_vote_requests(self, state: ProspectiveState | CandidateState, now: int,
                                 pre_vote: bool) -> int | None:
        """Ask the voters that have not answered; returns when a busy one can be asked."""
        if state.epoch_election.is_vote_rejected():
            return None
        waits = []
        for voter in state.epoch_election.unrecorded_voters:
            if self.requests.is_ready(voter, now):
                self.send(voter, self.build_vote_request(state, voter, pre_vote))
            else:
                waits.append(self.requests.ready_time(voter))
        return earliest(*waits)

    def build_vote_request(self, state: ProspectiveState | CandidateState, voter: int,
                           pre_vote: bool) -> VoteRequest:
        return VoteRequest(self.cluster_id, state.epoch, self.quorum.local_id,
                           self.log.last_fetched_epoch, self.log.end_offset, pre_vote, voter)

    # ------------------------------------------------------------------ answering
    def _vote_response(self, error: Errors, granted: bool) -> VoteResponse:
        return VoteResponse(error.code, leader_id_field(self.quorum.leader_id), self.quorum.epoch,
                            granted)

    def handle_vote_request(self, envelope: Envelope, now: int) -> VoteResponse:
        request: VoteRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            return VoteResponse(Errors.INCONSISTENT_CLUSTER_ID.code, NO_LEADER, -1, False)
        illegal_epoch = (request.last_offset_epoch > request.replica_epoch if request.pre_vote
                         else request.last_offset_epoch >= request.replica_epoch)
        if request.last_offset < 0 or request.last_offset_epoch < 0 or illegal_epoch:
            return self._vote_response(Errors.INVALID_REQUEST, False)
        error = validate_voter_only_request(self.quorum, request.replica_id, request.replica_epoch)
        if error is not None:
            return self._vote_response(error, False)
        if request.replica_epoch > self.quorum.epoch:
            self.transitions.to_unattached(QuorumEvent.HIGHER_EPOCH, request.replica_epoch, now)
        candidate_log = OffsetAndEpoch(request.last_offset_epoch, request.last_offset)
        our_log = OffsetAndEpoch(self.log.last_fetched_epoch, self.log.end_offset)
        up_to_date = candidate_log >= our_log
        state = self.quorum.state
        granted = state.can_grant_vote(request.replica_id, up_to_date, request.pre_vote)
        if granted and not request.pre_vote and state.voted_id is None:
            self.quorum.add_voted_state(request.replica_epoch, request.replica_id, now)
        return self._vote_response(Errors.NONE, granted)

    # ------------------------------------------------------------------ acting on answers
    def handle_vote_response(self, source: int, request: VoteRequest, response: VoteResponse,
                             now: int) -> bool:
        """Record the (pre-)vote; True if the exchange succeeded."""
        screened = self.transitions.screen_response(response.error, response.leader_id,
                                                    response.leader_epoch, now)
        if screened is not None:
            return screened
        state = self.quorum.state
        if not isinstance(state, (ProspectiveState, CandidateState)):
            return True                 # the election this answer belongs to is over
        is_pre_vote_state = isinstance(state, ProspectiveState)
        if request.pre_vote != is_pre_vote_state or request.replica_epoch != state.epoch:
            return True
        state.epoch_election.record_vote(source, response.vote_granted)
        if state.epoch_election.is_vote_granted():
            if is_pre_vote_state:
                self.transitions.to_candidate(now)
            else:
                self.transitions.become_leader(now)
        elif isinstance(state, CandidateState) and state.epoch_election.is_vote_rejected() \
                and not state.is_backing_off:
            backoff_ms = self.binary_exponential_election_backoff_ms(state.retries)
            state.start_backing_off(now, backoff_ms)
        return True

    def binary_exponential_election_backoff_ms(self, retries: int) -> int:
        """Kafka's ``RaftUtil.binaryExponentialElectionBackoffMs`` (with the 4.0.1 jitter)."""
        if retries <= 0:
            raise ValueError(f"Retries {retries} should be larger than zero")
        exponential = RETRY_BACKOFF_BASE_MS * self.rng.randrange(2 << min(10, retries - 1))
        jitter = self.rng.randrange(RETRY_BACKOFF_BASE_MS)
        return min(exponential, self.election_backoff_max_ms) + jitter
