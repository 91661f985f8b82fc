"""`EndQuorumEpochRpc`: the EndQuorumEpoch RPC (KIP-595) -- a leader stepping down gracefully.

Theory of operation
-------------------
A leader that resigns (graceful shutdown, a resign request, a failed check
quorum) becomes Resigned and tells every other voter, naming its preferred
successors, most caught-up first, so that the best of them campaigns first
instead of everyone waiting out a fetch timeout.

* **Sending** (`maybe_send_end_quorum_epoch`, while polling Resigned) -- to
  every voter that has not acknowledged yet, as often as the request manager
  allows.
* **Answering** (`handle_end_quorum_epoch_request`) -- reject a foreign
  cluster id or an old epoch; otherwise adopt the news; a follower of that
  leader shortens its fetch timeout by its rank among the successors: the
  first campaigns at once, the others wait
  ``backoff.max >> (n - 1) << (rank - 1)`` ms (`end_epoch_backoff_ms`).
* **Acting on answers** (`handle_end_quorum_epoch_response`) -- after the
  checks every response gets, note the acknowledgement.

Mirrors ``maybeSendEndQuorumEpochRequest``/``buildEndQuorumEpochRequest``,
``handleEndQuorumEpochRequest``, ``strictExponentialElectionBackoffMs`` and
``handleEndQuorumEpochResponse`` of Kafka's ``KafkaRaftClient``.  Module
named after the RPC (Kafka's ``EndQuorumEpochRequest``).  Simplified: static
voters, successors named by id only.
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.errors import Errors
from minikafka.raft.epoch_state import FollowerState, ResignedState
from minikafka.raft.messages import EndQuorumEpochRequest, EndQuorumEpochResponse, \
    has_valid_cluster_id, leader_id_field
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import RaftTransitions, \
    validate_voter_only_request
from minikafka.raft.request_manager import RequestManager, earliest
from minikafka.runtime.node import Envelope


class EndQuorumEpochRpc:
    """The resignation: sent while polling Resigned, answered by every voter."""

    def __init__(self, quorum: QuorumState, requests: RequestManager,
                 transitions: RaftTransitions, *, send: Callable[[int, Any], None],
                 cluster_id: str, election_backoff_max_ms: int):
        self.quorum = quorum
        self.requests = requests
        self.transitions = transitions
        self.send = send                        # the client's: one request, answer to the client
        self.cluster_id = cluster_id
        self.election_backoff_max_ms = election_backoff_max_ms

    def maybe_send_end_quorum_epoch(self, state: ResignedState, now: int) -> int | None:
        """Tell the voters that have not acknowledged; returns when one can be asked again."""
        pending = []
        for voter in sorted(state.unacked_voters):
            if self.requests.is_ready(voter, now):
                self.send(voter, EndQuorumEpochRequest(self.cluster_id, state.local_id,
                                                       state.epoch, state.preferred_successors))
            pending.append(self.requests.ready_time(voter))
        return earliest(*pending)

    def handle_end_quorum_epoch_request(self, envelope: Envelope,
                                        now: int) -> EndQuorumEpochResponse:
        request: EndQuorumEpochRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            error: Errors | None = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = validate_voter_only_request(self.quorum, request.leader_id,
                                                request.leader_epoch)
        if error is None:
            self.transitions.maybe_transition(request.leader_id, request.leader_epoch, now)
            state = self.quorum.state
            if isinstance(state, FollowerState) and state.leader_id == request.leader_id:
                backoff_ms = self.end_epoch_backoff_ms(request.preferred_candidates)
                state.override_fetch_timeout(now, backoff_ms)
        return EndQuorumEpochResponse((error or Errors.NONE).code,
                                      leader_id_field(self.quorum.leader_id), self.quorum.epoch)

    def end_epoch_backoff_ms(self, successors: tuple[int, ...]) -> int:
        """Kafka's ``strictExponentialElectionBackoffMs`` for our rank among the successors."""
        local_id = self.quorum.local_id
        position = successors.index(local_id) if local_id in successors else len(successors)
        if position == 0:
            return 0
        if position >= len(successors):
            return self.election_backoff_max_ms
        base = self.election_backoff_max_ms >> (len(successors) - 1)
        return min(self.election_backoff_max_ms, base << (position - 1))

    def handle_end_quorum_epoch_response(self, source: int, request: EndQuorumEpochRequest,
                                         response: EndQuorumEpochResponse, now: int) -> bool:
        """Note the acknowledgement; True if the exchange succeeded."""
        screened = self.transitions.screen_response(response.error, response.leader_id,
                                                    response.leader_epoch, now)
        if screened is not None:
            return screened
        state = self.quorum.state
        if isinstance(state, ResignedState):
            state.acknowledge_resignation(source)
        return True
