"""`RaftTransitions`: every change of the epoch state, with what must happen around it, and
the rules every RPC shares (news from a peer, voter-only requests).

Theory of operation
-------------------
`QuorumState` changes the epoch state (and persists it); this object adds the
side effects, so that every path to a new state -- a timer, a request, a
response -- has the same ones:

* every change forgets the requests in flight (`RequestManager.reset_all`):
  their answers no longer matter;
* a leader that steps down drops its pending appends (the accumulator),
  answers its parked fetches NOT_LEADER_OR_FOLLOWER (`LeaderFetches`) and
  emits ``controller_resigned``;
* a new leader writes its LeaderChangeMessage control batch first thing in
  its epoch, opens an accumulator for appends and emits ``controller_elected``;
* a lone voter elects itself at once.

Every transition names the `QuorumEvent` that causes it, and `QuorumState`
checks the pair (state, event) against its transition table.

`maybe_transition` is the rule shared by requests and responses: adopt a
newer epoch (following its leader if it names one), or the leader of our
own epoch when we did not know it; a message contradicting the leader we
know is a bug and raises.  Every response carries the responder's epoch and
leader: `maybe_handle_common_response` runs before the API-specific part of
each RPC's response handler (see the ``*_rpc`` modules), and
`validate_voter_only_request` is the check of the requests only voters send
(Vote, Begin/EndQuorumEpoch).

The leader's `BatchAccumulator` lives here because only transitions open and
close it: `accumulator` is None unless this replica leads.

The parked fetches the leader drops or answers are reached through the
small `ParkedFetches` interface (`fetch_rpc.LeaderFetches` implements it), so
this module needs no RPC module.

Mirrors the ``transitionTo*``, ``onBecome*``, ``maybeTransition``,
``hasConsistentLeader``, ``maybeHandleCommonResponse`` and
``validateVoterOnlyRequest`` methods of Kafka's ``KafkaRaftClient``.
"""

from __future__ import annotations

from typing import Callable, Protocol

from minikafka.common.errors import Errors
from minikafka.raft.batch_accumulator import BatchAccumulator
from minikafka.raft.epoch_state import CandidateState, EpochState, ProspectiveState, ResignedState
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.quorum_state import QuorumEvent, QuorumState
from minikafka.raft.replicated_log import LeaderChangeMessage, ReplicatedLog
from minikafka.raft.request_manager import RequestManager


TOP_LEVEL_ERRORS = {Errors.INCONSISTENT_CLUSTER_ID}
"""Errors that concern the whole exchange: the response's epoch and leader mean nothing."""


class ParkedFetches(Protocol):
    """What a transition does to the leader's parked fetches (`fetch_rpc.LeaderFetches`)."""

    def refuse_all(self, error: Errors) -> None: ...

    def on_leader_end_offset(self, state: LeaderState, now: int) -> None: ...


def validate_voter_only_request(quorum: QuorumState, remote_id: int, epoch: int) -> Errors | None:
    """Kafka's ``validateVoterOnlyRequest``: None if a voter's request may be handled."""
    if epoch < quorum.epoch:
        return Errors.FENCED_LEADER_EPOCH
    if remote_id < 0:
        return Errors.INVALID_REQUEST
    return None


class RaftTransitions:
    """Moves the quorum state and applies the side effects of each move."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, requests: RequestManager,
                 fetches: ParkedFetches, *, emit: Callable[..., None], node_id: int,
                 voters: frozenset[int], append_linger_ms: int):
        self.quorum = quorum
        self.log = log
        self.requests = requests
        self.fetches = fetches
        self.emit = emit                       # the host node's cluster events
        self.node_id = node_id
        self.voters = voters
        self.append_linger_ms = append_linger_ms
        self.accumulator: BatchAccumulator | None = None   # leader only: appends in linger

    # ------------------------------------------------------------------ the transitions
    def to_unattached(self, event: QuorumEvent, epoch: int, now: int,
                      leader_id: int | None = None) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_unattached(event, epoch, now, leader_id)
        self.after_transition(previous, now, f"a newer epoch {epoch} was discovered")

    def to_follower(self, event: QuorumEvent, epoch: int, leader_id: int, now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_follower(event, epoch, leader_id, now)
        self.after_transition(previous, now, f"controller {leader_id} leads epoch {epoch}")

    def to_prospective(self, event: QuorumEvent, now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_prospective(event, now)
        self.after_transition(previous, now)
        state = self.quorum.state
        assert isinstance(state, ProspectiveState)
        if state.epoch_election.is_vote_granted():   # a single voter needs nobody
            self.to_candidate(now)

    def to_candidate(self, now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_candidate(now)
        self.after_transition(previous, now)

    def to_resigned(self, event: QuorumEvent, state: LeaderState, reason: str, now: int) -> None:
        successors = state.non_leader_voters_by_descending_fetch_offset()
        self.quorum.transition_to_resigned(event, successors, now)
        self._emit_resigned(state, reason)
        self.after_transition(state, now)

    def elect_only_voter(self, now: int) -> None:
        state = self.quorum.state
        if isinstance(state, ResignedState):
            self.to_unattached(QuorumEvent.ONLY_VOTER, state.epoch + 1, now)
        if isinstance(self.quorum.state, CandidateState):
            self.after_transition(None, now)
        elif not isinstance(self.quorum.state, LeaderState):
            self.to_prospective(QuorumEvent.ONLY_VOTER, now)

    def become_leader(self, now: int) -> None:
        epoch_start_offset = self.log.end_offset
        state = self.quorum.transition_to_leader(epoch_start_offset, now)
        self.requests.reset_all()
        self.log.append_as_leader(
            [LeaderChangeMessage(self.node_id, tuple(sorted(self.voters)), state.granting_voters)],
            state.epoch, now, is_control=True)
        self.log.flush()
        self.accumulator = BatchAccumulator(state.epoch, self.log.end_offset, self.append_linger_ms)
        votes = ",".join(str(v) for v in state.granting_voters)
        self.emit("controller_elected",
                  f"controller {self.node_id} elected in epoch {state.epoch} "
                  f"with votes from {votes}",
                  epoch=state.epoch, leader=self.node_id, votes=list(state.granting_voters))
        self.fetches.on_leader_end_offset(state, now)

    # ------------------------------------------------------------------ side effects
    def after_transition(self, previous: EpochState | None, now: int, reason: str = "") -> None:
        """Side effects of every state change (Kafka's ``onBecome*`` methods)."""
        self.requests.reset_all()
        if isinstance(previous, LeaderState):
            self.accumulator = None
            if not isinstance(self.quorum.state, ResignedState):
                self._emit_resigned(previous, reason)
            self.fetches.refuse_all(Errors.NOT_LEADER_OR_FOLLOWER)
        state = self.quorum.state
        if isinstance(state, CandidateState) and state.epoch_election.is_vote_granted():
            self.become_leader(now)

    def _emit_resigned(self, state: LeaderState, reason: str) -> None:
        self.emit("controller_resigned",
                  f"controller {self.node_id} resigned in epoch {state.epoch}: {reason}",
                  epoch=state.epoch, leader=self.node_id, reason=reason)

    # ------------------------------------------------------------------ news from a peer
    def maybe_transition(self, leader: int | None, epoch: int, now: int) -> bool:
        """Adopt a newer epoch, or the leader of ours; True if the state changed."""
        if leader is not None and leader < 0:
            leader = None
        if not self._has_consistent_leader(epoch, leader):
            raise RuntimeError(f"Received request or response with leader {leader} and epoch "
                               f"{epoch} "
                               f"which is inconsistent with current leader {self.quorum.leader_id} "
                               f"and epoch {self.quorum.epoch}")
        if epoch > self.quorum.epoch:
            if leader is not None:
                self.to_follower(QuorumEvent.LEADER_DISCOVERED, epoch, leader, now)
            else:
                self.to_unattached(QuorumEvent.HIGHER_EPOCH, epoch, now)
            return True
        if leader is not None and self.quorum.leader_id is None:
            self.to_follower(QuorumEvent.LEADER_DISCOVERED, epoch, leader, now)
            return True
        return False

    def maybe_handle_common_response(self, error: Errors, leader_id: int, epoch: int,
                                     now: int) -> bool | None:
        """React to the epoch/leader in any response; None means "go on with the API handler",
        otherwise whether the exchange succeeded."""
        leader = None if leader_id < 0 else leader_id
        if epoch < self.quorum.epoch or error is Errors.UNKNOWN_LEADER_EPOCH:
            return True      # our epoch is newer; the answer is no longer relevant
        if epoch > self.quorum.epoch or error in (Errors.FENCED_LEADER_EPOCH,
                                                  Errors.NOT_LEADER_OR_FOLLOWER):
            return self.maybe_transition(leader, epoch, now)
        if leader is not None and self.quorum.leader_id is None:
            self.to_follower(QuorumEvent.LEADER_DISCOVERED, epoch, leader, now)
            return None if error is Errors.NONE else True
        if error is Errors.BROKER_NOT_AVAILABLE:
            return False
        if error is Errors.INVALID_REQUEST:
            raise RuntimeError("Received unexpected invalid request error")
        return None

    def screen_response(self, error: Errors, leader_id: int, epoch: int, now: int) -> bool | None:
        """The checks every answer but Fetch's goes through first: a top-level error, then the
        common epoch/leader handling, then any other error.  None means "a successful answer
        for the API handler to act on", otherwise whether the exchange succeeded."""
        if error in TOP_LEVEL_ERRORS:
            return False
        handled = self.maybe_handle_common_response(error, leader_id, epoch, now)
        if handled is not None:
            return handled
        return None if error is Errors.NONE else False

    def _has_consistent_leader(self, epoch: int, leader: int | None) -> bool:
        if leader is not None and leader == self.node_id:
            return isinstance(self.quorum.state, (LeaderState, ResignedState))
        return (epoch != self.quorum.epoch or leader is None or self.quorum.leader_id is None
                or leader == self.quorum.leader_id)
