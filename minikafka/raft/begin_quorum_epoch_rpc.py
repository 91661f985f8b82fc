"""`BeginQuorumEpochRpc`: the BeginQuorumEpoch RPC (KIP-595) -- a new leader announcing itself.

Theory of operation
-------------------
A leader sends BeginQuorumEpoch to every other voter at the start of its
epoch, and again every ``begin_quorum_epoch`` period to the voters that have
not fetched from it yet (`LeaderState`): a voter that missed the election
learns its leader without waiting for its fetch timeout.

* **Sending** (`maybe_send_begin_quorum_epoch`, while polling Leader).
* **Answering** (`handle_begin_quorum_epoch_request`) -- reject a foreign
  cluster id or an old epoch; otherwise follow the announced leader
  (`RaftTransitions.maybe_transition`).
* **Acting on answers** (`handle_begin_quorum_epoch_response`) -- after the
  checks every response gets, note the voter's acknowledgement.

Every answer carries the responder's epoch and leader, so the leader learns
of a newer epoch from a refusal too.

Mirrors ``maybeSendBeginQuorumEpochRequest``/``buildBeginQuorumEpochRequest``,
``handleBeginQuorumEpochRequest`` and ``handleBeginQuorumEpochResponse`` of
Kafka's ``KafkaRaftClient``.  Module named after the RPC (Kafka's
``BeginQuorumEpochRequest``).  Simplified: static voters, no leader endpoints
in the request.
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.errors import Errors
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import BeginQuorumEpochRequest, BeginQuorumEpochResponse, \
    has_valid_cluster_id, leader_id_field
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import RaftTransitions, \
    validate_voter_only_request
from minikafka.raft.request_manager import RequestManager
from minikafka.runtime.node import Envelope


class BeginQuorumEpochRpc:
    """The leader's announcement: sent while polling Leader, answered by every voter."""

    def __init__(self, quorum: QuorumState, requests: RequestManager,
                 transitions: RaftTransitions, *, send: Callable[[int, Any], None],
                 voters: frozenset[int], cluster_id: str):
        self.quorum = quorum
        self.requests = requests
        self.transitions = transitions
        self.send = send                        # the client's: one request, answer to the client
        self.voters = voters
        self.cluster_id = cluster_id

    def maybe_send_begin_quorum_epoch(self, state: LeaderState, now: int) -> None:
        """When the period is over, announce the epoch to every voter that can be asked."""
        if now < state.begin_quorum_epoch_deadline:
            return
        for voter in sorted(self.voters - {state.local_id}):
            if self.requests.is_ready(voter, now):
                self.send(voter, BeginQuorumEpochRequest(self.cluster_id, state.local_id,
                                                         state.epoch, voter))
        state.reset_begin_quorum_epoch_timer(now)

    def handle_begin_quorum_epoch_request(self, envelope: Envelope,
                                          now: int) -> BeginQuorumEpochResponse:
        request: BeginQuorumEpochRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            error: Errors | None = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = validate_voter_only_request(self.quorum, request.leader_id,
                                                request.leader_epoch)
            if error is None:
                self.transitions.maybe_transition(request.leader_id, request.leader_epoch, now)
        return BeginQuorumEpochResponse((error or Errors.NONE).code,
                                        leader_id_field(self.quorum.leader_id), self.quorum.epoch)

    def handle_begin_quorum_epoch_response(self, source: int, request: BeginQuorumEpochRequest,
                                           response: BeginQuorumEpochResponse, now: int) -> bool:
        """Note the acknowledgement; True if the exchange succeeded."""
        screened = self.transitions.screen_response(response.error, response.leader_id,
                                                    response.leader_epoch, now)
        if screened is not None:
            return screened
        state = self.quorum.state
        if isinstance(state, LeaderState) and source in state.voter_states:
            state.add_acknowledgement_from(source)
        return True
