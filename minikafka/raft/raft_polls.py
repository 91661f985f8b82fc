"""`RaftPolls`: what each epoch state does when the client polls it.

Theory of operation
-------------------
After every event the client polls the current epoch state; the poll does
whatever is due -- send requests, let a timer expire into a transition --
and returns the next moment it needs attention (None: only a message can
change anything).  The requests themselves are built and sent by the RPC
objects (`VoteRpc`, `BeginQuorumEpochRpc`, `EndQuorumEpochRpc`, `FetchRpc`),
through the `RequestManager` (one in flight per peer, backoff after failures)
and the client's ``send``; a timer that expires moves the state through
`RaftTransitions` with the `QuorumEvent` that names it.

* **Leader** -- resign on shutdown, on request, or when no majority fetched
  within the check-quorum timeout; otherwise write the appends that lingered
  long enough, re-send BeginQuorumEpoch to voters that have not fetched yet,
  and answer the long polls whose wait ended.
* **Candidate / Prospective** -- ask the voters that have not answered for
  their vote (pre-vote); a lost or timed-out election goes back to
  Prospective (after the backoff) or to Unattached / Follower.
* **Follower** -- fetch from the leader; if it fails, ask another voter
  (it may know a newer leader); when the fetch timeout passes, a voter
  campaigns and an observer asks any voter.
* **Unattached** -- fetch from any voter to learn the leader; a voter
  campaigns when its election timeout passes.
* **Resigned** -- send EndQuorumEpoch until every voter acknowledged; start
  over one epoch later when the election timeout passes.

While shutting down, a replica stops campaigning on its own: it finishes what
it is doing and waits for a leader (or the shutdown timeout), as Kafka's does.

Mirrors ``pollCurrentState``, ``pollLeader``, ``pollCandidate``,
``pollProspective``, ``pollFollower``, ``pollUnattached`` and ``pollResigned``
of Kafka's ``KafkaRaftClient``.  Simplified: no snapshots (no FetchSnapshot),
static voters.
"""

from __future__ import annotations

from typing import Callable

from minikafka.raft.begin_quorum_epoch_rpc import BeginQuorumEpochRpc
from minikafka.raft.end_quorum_epoch_rpc import EndQuorumEpochRpc
from minikafka.raft.epoch_state import (CandidateState, FollowerState, ProspectiveState,
                                        ResignedState, UnattachedState)
from minikafka.raft.fetch_rpc import FetchRpc, LeaderFetches
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.quorum_state import QuorumEvent, QuorumState
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import ReplicatedLog
from minikafka.raft.request_manager import earliest
from minikafka.raft.vote_rpc import VoteRpc


class RaftPolls:
    """One poll of the current epoch state; returns when the next one is due."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, transitions: RaftTransitions,
                 leader_fetches: LeaderFetches, vote: VoteRpc,
                 begin_quorum_epoch: BeginQuorumEpochRpc, end_quorum_epoch: EndQuorumEpochRpc,
                 fetch: FetchRpc, *, is_shutting_down: Callable[[], bool],
                 voters: frozenset[int]):
        self.quorum = quorum
        self.log = log                          # the leader appends its lingered batches
        self.transitions = transitions
        self.leader_fetches = leader_fetches    # the leader's parked fetches (their waits)
        self.vote = vote
        self.begin_quorum_epoch = begin_quorum_epoch
        self.end_quorum_epoch = end_quorum_epoch
        self.fetch = fetch
        self.is_shutting_down = is_shutting_down
        self.voters = voters

    def poll_current_state(self, now: int) -> int | None:
        state = self.quorum.state
        if isinstance(state, LeaderState):
            return self._poll_leader(state, now)
        if isinstance(state, CandidateState):
            return self._poll_candidate(state, now)
        if isinstance(state, ProspectiveState):
            return self._poll_prospective(state, now)
        if isinstance(state, FollowerState):
            return self._poll_follower(state, now)
        if isinstance(state, UnattachedState):
            return self._poll_unattached(state, now)
        assert isinstance(state, ResignedState)
        return self._poll_resigned(state, now)

    # ------------------------------------------------------------------ per-state polls
    def _poll_leader(self, state: LeaderState, now: int) -> int | None:
        shutting_down = self.is_shutting_down()
        if shutting_down or state.resign_requested or state.check_quorum_expired(now):
            if shutting_down:
                event, reason = QuorumEvent.SHUTDOWN, "graceful shutdown"
            elif state.resign_requested:
                event, reason = QuorumEvent.RESIGN_REQUESTED, "resignation requested"
            else:
                event = QuorumEvent.CHECK_QUORUM_FAILED
                reason = (f"did not receive fetch requests from a majority of the voters within "
                          f"{state.check_quorum_timeout_ms} ms")
            self.transitions.to_resigned(event, state, reason, now)
            return now
        accumulator = self.transitions.accumulator
        if accumulator is not None and accumulator.needs_drain(now):
            records = accumulator.drain()
            if records:
                self.log.append_as_leader(records, state.epoch, now)
            self.log.flush()
            self.leader_fetches.on_leader_end_offset(state, now)
        self.begin_quorum_epoch.maybe_send_begin_quorum_epoch(state, now)
        self.leader_fetches.answer_expired(now)
        return earliest(state.check_quorum_deadline if len(self.voters) > 1 else None,
                        state.begin_quorum_epoch_deadline,
                        None if accumulator is None else accumulator.drain_deadline,
                        self.leader_fetches.next_deadline())

    def _poll_candidate(self, state: CandidateState, now: int) -> int | None:
        if self.is_shutting_down():
            return self.vote.maybe_send_vote_requests(state, now, pre_vote=False)
        if state.backoff_deadline is not None:
            if now >= state.backoff_deadline:
                self.transitions.to_prospective(QuorumEvent.BACKOFF_EXPIRED, now)
                return now
            return state.backoff_deadline
        if now >= state.election_deadline:
            self.transitions.to_prospective(QuorumEvent.ELECTION_TIMEOUT, now)
            return now
        return earliest(self.vote.maybe_send_vote_requests(state, now, pre_vote=False),
                        state.election_deadline)

    def _poll_prospective(self, state: ProspectiveState, now: int) -> int | None:
        if self.is_shutting_down():
            return self.vote.maybe_send_vote_requests(state, now, pre_vote=True)
        if state.epoch_election.is_vote_rejected() or now >= state.election_deadline:
            if state.leader_id is not None:
                self.transitions.to_follower(QuorumEvent.PRE_VOTE_LOST_TO_LEADER, state.epoch,
                                             state.leader_id, now)
            else:
                self.transitions.to_unattached(QuorumEvent.PRE_VOTE_LOST, state.epoch, now)
            return now
        return earliest(self.vote.maybe_send_vote_requests(state, now, pre_vote=True),
                        state.election_deadline)

    def _poll_follower(self, state: FollowerState, now: int) -> int | None:
        if now >= state.fetch_deadline:
            if self.quorum.is_observer:
                return self.fetch.maybe_send_fetch_to_any_bootstrap(now)
            if self.is_shutting_down():
                return None
            self.transitions.to_prospective(QuorumEvent.FETCH_TIMEOUT, now)
            return now
        return earliest(self.fetch.maybe_send_fetch_to_leader(state, now), state.fetch_deadline)

    def _poll_unattached(self, state: UnattachedState, now: int) -> int | None:
        if state.election_deadline is None or self.is_shutting_down():
            return self.fetch.maybe_send_fetch_to_any_bootstrap(now)
        if now >= state.election_deadline:
            self.transitions.to_prospective(QuorumEvent.ELECTION_TIMEOUT, now)
            return now
        return earliest(self.fetch.maybe_send_fetch_to_any_bootstrap(now),
                        state.election_deadline)

    def _poll_resigned(self, state: ResignedState, now: int) -> int | None:
        pending = self.end_quorum_epoch.maybe_send_end_quorum_epoch(state, now)
        if self.is_shutting_down():
            return pending
        if now >= state.election_deadline:
            self.transitions.to_unattached(QuorumEvent.ELECTION_TIMEOUT, state.epoch + 1, now)
            return now
        return earliest(state.election_deadline, pending)
