"""`RaftResponseHandlers`: how a replica acts on the answers to its KRaft requests.

Theory of operation
-------------------
Every response carries the responder's epoch and leader.  Before the
API-specific part runs, ``maybe_handle_common_response`` lets that news move
us (`RaftTransitions.maybe_transition`): a newer epoch (to Follower if the
leader is named, else Unattached), or the leader of our own epoch when we
did not know it.  Then:

* **Vote** -- record the (pre-)vote; a majority promotes Prospective to
  Candidate and Candidate to Leader.  A candidate whose election is lost
  backs off ``min(50 ms x random(2^retries), backoff.max) + random(50 ms)``
  before it becomes Prospective again.
* **BeginQuorumEpoch / EndQuorumEpoch** -- note the acknowledgement.
* **Fetch** -- truncate to the diverging epoch, or append the batches (voters
  flush first: the leader counts the next fetch offset as durable) and
  take ``min(log end offset, leader's high watermark)`` as high watermark.

`handle_response` says whether the exchange succeeded; the client tells the
`RequestManager`, which backs off from a peer after a failure.  Which
requests go out, and when, is `RaftPolls`' business.

Mirrors ``handleVoteResponse``, ``handleBeginQuorumEpochResponse``,
``handleEndQuorumEpochResponse``, ``handleFetchResponse`` and
``maybeHandleCommonResponse`` of Kafka's ``KafkaRaftClient``, and
``RaftUtil.binaryExponentialElectionBackoffMs``.  Simplified: no snapshots
(FetchSnapshot), and error answers back off instead of retrying at once.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from minikafka.common.errors import Errors, KafkaException
from minikafka.raft.epoch_state import CandidateState, FollowerState, ProspectiveState, \
    ResignedState
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import (BeginQuorumEpochResponse, EndQuorumEpochResponse,
                                     EpochEndOffset, FetchRequest, FetchResponse, VoteRequest,
                                     VoteResponse)
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import ReplicatedLog

TOP_LEVEL_ERRORS = {Errors.INCONSISTENT_CLUSTER_ID}
RETRY_BACKOFF_BASE_MS = 50     # KafkaRaftClient.RETRY_BACKOFF_BASE_MS


class RaftResponseHandlers:
    """Acts on Vote, Begin/EndQuorumEpoch and Fetch responses; True if the exchange succeeded."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, transitions: RaftTransitions, *,
                 rng: random.Random, emit: Callable[..., None], election_backoff_max_ms: int):
        self.quorum = quorum
        self.log = log                          # followers append and truncate here
        self.transitions = transitions
        self.rng = rng                          # the host node's seeded Random (election backoff)
        self.emit = emit                        # the host node's cluster events
        self.election_backoff_max_ms = election_backoff_max_ms

    def handle_response(self, source: int, request: Any, response: Any, now: int) -> bool:
        if isinstance(response, FetchResponse):
            return self._handle_fetch_response(source, request, response, now)
        if response.error in TOP_LEVEL_ERRORS:
            return False
        if isinstance(response, VoteResponse):
            return self._handle_vote_response(source, request, response, now)
        if isinstance(response, BeginQuorumEpochResponse):
            return self._handle_begin_quorum_epoch_response(source, response, now)
        if isinstance(response, EndQuorumEpochResponse):
            return self._handle_end_quorum_epoch_response(source, response, now)
        raise ValueError(f"Received unexpected response type: {type(response).__name__}")

    # ------------------------------------------------------------------ Vote
    def _handle_vote_response(self, source: int, request: VoteRequest,
                              response: VoteResponse, now: int) -> bool:
        handled = self._maybe_handle_common_response(response.error, response.leader_id,
                                                     response.leader_epoch, now)
        if handled is not None:
            return handled
        if response.error is not Errors.NONE:
            return False
        state = self.quorum.state
        is_pre_vote_state = isinstance(state, ProspectiveState)
        if not isinstance(state, (ProspectiveState, CandidateState)) \
                or request.pre_vote != is_pre_vote_state or request.replica_epoch != state.epoch:
            return True                 # the election this answer belongs to is over
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

    # ------------------------------------------------------------------ Begin/EndQuorumEpoch
    def _handle_begin_quorum_epoch_response(self, source: int, response: BeginQuorumEpochResponse,
                                            now: int) -> bool:
        handled = self._maybe_handle_common_response(response.error, response.leader_id,
                                                     response.leader_epoch, now)
        if handled is not None:
            return handled
        if response.error is not Errors.NONE:
            return False
        state = self.quorum.state
        if isinstance(state, LeaderState) and source in state.voter_states:
            state.add_acknowledgement_from(source)
        return True

    def _handle_end_quorum_epoch_response(self, source: int, response: EndQuorumEpochResponse,
                                          now: int) -> bool:
        handled = self._maybe_handle_common_response(response.error, response.leader_id,
                                                     response.leader_epoch, now)
        if handled is not None:
            return handled
        if response.error is not Errors.NONE:
            return False
        state = self.quorum.state
        if isinstance(state, ResignedState):
            state.acknowledge_resignation(source)
        return True

    # ------------------------------------------------------------------ Fetch
    def _handle_fetch_response(self, source: int, request: FetchRequest,
                               response: FetchResponse, now: int) -> bool:
        if response.error in TOP_LEVEL_ERRORS:
            return False
        leader = response.current_leader
        handled = self._maybe_handle_common_response(response.error, leader.leader_id,
                                                     leader.leader_epoch, now)
        if handled is not None:
            return handled
        state = self.quorum.state
        if response.error is not Errors.NONE or not isinstance(state, FollowerState) \
                or request.fetch_offset != self.log.end_offset:
            return response.error is Errors.NONE   # an answer to a question no longer asked
        if response.diverging_epoch is not None:
            self._truncate_to_diverging(state, response.diverging_epoch, source)
        else:
            if response.records:
                self.log.append_as_follower(response.records)
                if self.quorum.is_voter:
                    self.log.flush()   # the leader counts our next fetch offset as durable
            if response.high_watermark >= 0:
                high_watermark = min(self.log.end_offset, response.high_watermark)
                if state.update_high_watermark(high_watermark):
                    self.log.update_high_watermark(high_watermark)
        state.reset_fetch_timeout(now)
        return True

    def _truncate_to_diverging(self, state: FollowerState, diverging: EpochEndOffset,
                               source: int) -> None:
        if state.high_watermark is not None and diverging.end_offset < state.high_watermark:
            raise KafkaException(
                f"The leader requested truncation to offset {diverging.end_offset}, which is "
                f"below the current high watermark {state.high_watermark}")
        local = self.log.end_offset_for_epoch(diverging.epoch)
        offset = min(diverging.end_offset, local.offset)
        before = self.log.end_offset
        self.log.truncate_to(offset)
        self.emit("log_truncated",
                  f"{self.log.topic_partition} truncated to offset {self.log.end_offset} "
                  f"(was {before}): diverging epoch {diverging.epoch} ends at "
                  f"{diverging.end_offset} on leader {source}",
                  partition=str(self.log.topic_partition), offset=self.log.end_offset,
                  previous_end_offset=before, leader=source)

    # ------------------------------------------------------------------ every response
    def _maybe_handle_common_response(self, error: Errors, leader_id: int, epoch: int,
                                      now: int) -> bool | None:
        """React to the epoch/leader in any response; None means "go on with the API handler"."""
        leader = None if leader_id < 0 else leader_id
        if epoch < self.quorum.epoch or error is Errors.UNKNOWN_LEADER_EPOCH:
            return True      # our epoch is newer; the answer is no longer relevant
        if epoch > self.quorum.epoch or error in (Errors.FENCED_LEADER_EPOCH,
                                                  Errors.NOT_LEADER_OR_FOLLOWER):
            return self.transitions.maybe_transition(leader, epoch, now)
        if leader is not None and self.quorum.leader_id is None:
            self.transitions.to_follower(epoch, leader, now)
            return None if error is Errors.NONE else True
        if error is Errors.BROKER_NOT_AVAILABLE:
            return False
        if error is Errors.INVALID_REQUEST:
            raise RuntimeError("Received unexpected invalid request error")
        return None
