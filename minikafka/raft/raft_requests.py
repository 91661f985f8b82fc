"""`RaftRequestHandlers`: how a replica answers Vote, BeginQuorumEpoch, EndQuorumEpoch and
DescribeQuorum.

Theory of operation
-------------------
* **Vote** -- reject a foreign cluster id (INCONSISTENT_CLUSTER_ID), malformed
  positions (INVALID_REQUEST) or an old epoch (FENCED_LEADER_EPOCH); adopt a
  newer epoch first (a pre-vote from a newer epoch moves us too); then grant
  if the epoch state allows it (see `epoch_state`) and the asker's log is at
  least as up-to-date: its last epoch is higher, or equal with an end offset
  at least ours.  A granted binding vote is persisted before the answer
  leaves.
* **BeginQuorumEpoch** -- follow the announced leader.
* **EndQuorumEpoch** -- a follower of that leader shortens its fetch timeout
  by its rank among the preferred successors: the first campaigns at once,
  the others wait ``backoff.max >> (n - 1) << (rank - 1)`` ms.
* **DescribeQuorum** -- the leader's replica table.

Fetch, the fifth request, is answered by `LeaderFetches`.  Every answer
carries the responder's epoch and leader, so the asker learns about newer
epochs from refusals too.  Each handler returns its answer; the client sends
it, after any state change the request caused.

Mirrors ``handleVoteRequest``, ``handleBeginQuorumEpochRequest``,
``handleEndQuorumEpochRequest``, ``handleDescribeQuorumRequest`` and
``strictExponentialElectionBackoffMs`` of Kafka's ``KafkaRaftClient``.
Simplified: static voters, so DescribeQuorum lists the configured endpoints.
"""

from __future__ import annotations

from typing import Mapping

from minikafka.common.errors import Errors
from minikafka.raft.epoch_state import FollowerState
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import (NO_LEADER, BeginQuorumEpochRequest, BeginQuorumEpochResponse,
                                     DescribeQuorumNode, DescribeQuorumResponse,
                                     EndQuorumEpochRequest, EndQuorumEpochResponse, Listener,
                                     VoteRequest, VoteResponse, has_valid_cluster_id, leader_id_field)
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from minikafka.runtime.node import Envelope


class RaftRequestHandlers:
    """Answers the quorum's own requests; state changes go through the transitions."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, transitions: RaftTransitions, *,
                 node_id: int, cluster_id: str, voter_endpoints: Mapping[int, Listener],
                 election_backoff_max_ms: int):
        self.quorum = quorum
        self.log = log                              # read only: our position, for votes
        self.transitions = transitions
        self.node_id = node_id
        self.cluster_id = cluster_id
        self.voter_endpoints = voter_endpoints      # for DescribeQuorum
        self.election_backoff_max_ms = election_backoff_max_ms

    def _validate_voter_only(self, remote_id: int, epoch: int) -> Errors | None:
        if epoch < self.quorum.epoch:
            return Errors.FENCED_LEADER_EPOCH
        if remote_id < 0:
            return Errors.INVALID_REQUEST
        return None

    # ------------------------------------------------------------------ Vote
    def _vote_response(self, error: Errors, granted: bool) -> VoteResponse:
        return VoteResponse(error.code, leader_id_field(self.quorum.leader_id), self.quorum.epoch, granted)

    def handle_vote_request(self, envelope: Envelope, now: int) -> VoteResponse:
        request: VoteRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            return VoteResponse(Errors.INCONSISTENT_CLUSTER_ID.code, NO_LEADER, -1, False)
        illegal_epoch = (request.last_offset_epoch > request.replica_epoch if request.pre_vote
                         else request.last_offset_epoch >= request.replica_epoch)
        if request.last_offset < 0 or request.last_offset_epoch < 0 or illegal_epoch:
            return self._vote_response(Errors.INVALID_REQUEST, False)
        error = self._validate_voter_only(request.replica_id, request.replica_epoch)
        if error is not None:
            return self._vote_response(error, False)
        if request.replica_epoch > self.quorum.epoch:
            self.transitions.to_unattached(request.replica_epoch, now)
        candidate_log = OffsetAndEpoch(request.last_offset_epoch, request.last_offset)
        our_log = OffsetAndEpoch(self.log.last_fetched_epoch, self.log.end_offset)
        up_to_date = candidate_log >= our_log
        state = self.quorum.state
        granted = state.can_grant_vote(request.replica_id, up_to_date, request.pre_vote)
        if granted and not request.pre_vote and state.voted_id is None:
            self.quorum.add_voted_state(request.replica_epoch, request.replica_id, now)
        return self._vote_response(Errors.NONE, granted)

    # ------------------------------------------------------------------ Begin/EndQuorumEpoch
    def handle_begin_quorum_epoch_request(self, envelope: Envelope,
                                          now: int) -> BeginQuorumEpochResponse:
        request: BeginQuorumEpochRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            error = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = self._validate_voter_only(request.leader_id, request.leader_epoch)
            if error is None:
                self.transitions.maybe_transition(request.leader_id, request.leader_epoch, now)
        return BeginQuorumEpochResponse((error or Errors.NONE).code, leader_id_field(self.quorum.leader_id),
                                        self.quorum.epoch)

    def handle_end_quorum_epoch_request(self, envelope: Envelope,
                                        now: int) -> EndQuorumEpochResponse:
        request: EndQuorumEpochRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            error = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = self._validate_voter_only(request.leader_id, request.leader_epoch)
        if error is None:
            self.transitions.maybe_transition(request.leader_id, request.leader_epoch, now)
            state = self.quorum.state
            if isinstance(state, FollowerState) and state.leader_id == request.leader_id:
                backoff_ms = self.end_epoch_backoff_ms(request.preferred_candidates)
                state.override_fetch_timeout(now, backoff_ms)
        return EndQuorumEpochResponse((error or Errors.NONE).code, leader_id_field(self.quorum.leader_id),
                                      self.quorum.epoch)

    def end_epoch_backoff_ms(self, successors: tuple[int, ...]) -> int:
        """Kafka's ``strictExponentialElectionBackoffMs`` for our rank among the successors."""
        position = successors.index(self.node_id) if self.node_id in successors else len(successors)
        if position == 0:
            return 0
        if position >= len(successors):
            return self.election_backoff_max_ms
        base = self.election_backoff_max_ms >> (len(successors) - 1)
        return min(self.election_backoff_max_ms, base << (position - 1))

    # ------------------------------------------------------------------ DescribeQuorum
    def handle_describe_quorum_request(self, envelope: Envelope,
                                       now: int) -> DescribeQuorumResponse:
        return self.describe_quorum(now)

    def describe_quorum(self, now: int) -> DescribeQuorumResponse:
        """The leader's view of voters and observers; NOT_LEADER_OR_FOLLOWER elsewhere."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            error = Errors.NOT_LEADER_OR_FOLLOWER
            return DescribeQuorumResponse(error.code, error.message)
        voters, observers = state.describe(now)
        nodes = tuple(DescribeQuorumNode(v, (endpoint,))
                      for v, endpoint in self.voter_endpoints.items())
        return DescribeQuorumResponse(Errors.NONE.code, None, self.node_id, state.epoch,
                                      -1 if state.high_watermark is None else state.high_watermark,
                                      voters, observers, nodes)
