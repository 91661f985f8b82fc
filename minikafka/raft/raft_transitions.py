"""What happens around every state change of `KafkaRaftClient` (Kafka's ``onBecome*`` methods).

Theory of operation
-------------------
`QuorumState` changes the epoch state; these methods add the side effects:
every change forgets the requests in flight (their answers no longer matter);
a leader that steps down drops its pending appends, answers its parked
fetches NOT_LEADER_OR_FOLLOWER and emits ``controller_resigned``; a new
leader writes its LeaderChangeMessage control batch first thing in its epoch
and emits ``controller_elected``; a lone voter elects itself at once.

Mirrors ``transitionTo*`` / ``onBecome*`` of Kafka's ``KafkaRaftClient``; a
mixin of `KafkaRaftClient`, split out only to keep modules short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minikafka.common.errors import Errors
from minikafka.raft.batch_accumulator import BatchAccumulator
from minikafka.raft.epoch_state import CandidateState, ResignedState
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.replicated_log import LeaderChangeMessage

if TYPE_CHECKING:
    from minikafka.raft.kafka_raft_client import KafkaRaftClient


class RaftTransitions:
    def _after_transition(self: "KafkaRaftClient",
                          previous: Any, now: int, reason: str = "") -> None:
        """Side effects of every state change (Kafka's ``onBecome*`` methods)."""
        self.requests.reset_all()
        if isinstance(previous, LeaderState):
            self.accumulator = None
            if not isinstance(self.quorum.state, ResignedState):
                self._emit_resigned(previous, reason)
            for parked in self.purgatory.take_all():
                self.node.reply(parked.envelope, self._fetch_error(Errors.NOT_LEADER_OR_FOLLOWER))
        state = self.quorum.state
        if isinstance(state, CandidateState) and state.epoch_election.is_vote_granted():
            self._become_leader(now)

    def _transition_to_unattached(self: "KafkaRaftClient",
                                  epoch: int, now: int, leader_id: int | None = None) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_unattached(epoch, now, leader_id)
        self._after_transition(previous, now, f"a newer epoch {epoch} was discovered")

    def _transition_to_follower(self: "KafkaRaftClient",
                                epoch: int, leader_id: int, now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_follower(epoch, leader_id, now)
        self._after_transition(previous, now, f"controller {leader_id} leads epoch {epoch}")

    def _transition_to_prospective(self: "KafkaRaftClient", now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_prospective(now)
        self._after_transition(previous, now)
        if self.quorum.state.epoch_election.is_vote_granted():   # a single voter needs nobody
            self._transition_to_candidate(now)

    def _transition_to_candidate(self: "KafkaRaftClient", now: int) -> None:
        previous = self.quorum.state
        self.quorum.transition_to_candidate(now)
        self._after_transition(previous, now)

    def _transition_to_resigned(self: "KafkaRaftClient",
                                state: LeaderState, reason: str, now: int) -> None:
        successors = state.non_leader_voters_by_descending_fetch_offset()
        self.quorum.transition_to_resigned(successors, now)
        self._emit_resigned(state, reason)
        self._after_transition(state, now)

    def _elect_only_voter(self: "KafkaRaftClient", now: int) -> None:
        state = self.quorum.state
        if isinstance(state, ResignedState):
            self._transition_to_unattached(state.epoch + 1, now)
        if isinstance(self.quorum.state, CandidateState):
            self._after_transition(None, now)
        elif not isinstance(self.quorum.state, LeaderState):
            self._transition_to_prospective(now)

    def _become_leader(self: "KafkaRaftClient", now: int) -> None:
        epoch_start_offset = self.log.end_offset
        state = self.quorum.transition_to_leader(epoch_start_offset, now)
        self.requests.reset_all()
        self.log.append_as_leader(
            [LeaderChangeMessage(self.node_id, tuple(sorted(self.voters)), state.granting_voters)],
            state.epoch, now, is_control=True)
        self.log.flush()
        self.accumulator = BatchAccumulator(state.epoch, self.log.end_offset, self.append_linger_ms)
        votes = ",".join(str(v) for v in state.granting_voters)
        self.node.emit("controller_elected",
                       f"controller {self.node_id} elected in epoch {state.epoch} "
                       f"with votes from {votes}",
                       epoch=state.epoch, leader=self.node_id, votes=list(state.granting_voters))
        self._on_leader_end_offset(state, now)

    def _emit_resigned(self: "KafkaRaftClient", state: LeaderState, reason: str) -> None:
        self.node.emit("controller_resigned",
                       f"controller {self.node_id} resigned in epoch {state.epoch}: {reason}",
                       epoch=state.epoch, leader=self.node_id, reason=reason)

    def _on_leader_end_offset(self: "KafkaRaftClient", state: LeaderState, now: int) -> None:
        if state.update_local_state(self.log.end_offset):
            self.log.update_high_watermark(state.high_watermark)
        for parked in self.purgatory.take_satisfied(self.log.end_offset):
            self.node.reply(parked.envelope, self._try_complete_fetch(parked.request, now))
