"""`RaftPolls`: what each epoch state does when the client polls it, and the requests it sends.

Theory of operation
-------------------
After every event the client polls the current epoch state; the poll does
whatever is due -- send requests, let a timer expire into a transition --
and returns the next moment it needs attention (None: only a message can
change anything).  Requests go out through the `RequestManager` (one in
flight per peer, backoff after failures) and the client's ``send``.

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
``pollProspective``, ``pollFollower``, ``pollUnattached``, ``pollResigned`` and
the ``maybeSend*`` methods of Kafka's ``KafkaRaftClient``.  Simplified: no
snapshots (no FetchSnapshot), static voters.
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.uuid import Uuid
from minikafka.raft.epoch_state import (CandidateState, FollowerState, ProspectiveState,
                                        ResignedState, UnattachedState)
from minikafka.raft.leader_fetches import LeaderFetches
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import (BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest,
                                     VoteRequest)
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import ReplicatedLog
from minikafka.raft.request_manager import RequestManager


class RaftPolls:
    """One poll of the current epoch state; returns when the next one is due."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, requests: RequestManager,
                 transitions: RaftTransitions, fetches: LeaderFetches, *,
                 send: Callable[[int, Any], None], is_shutting_down: Callable[[], bool],
                 node_id: int, voters: frozenset[int], cluster_id: str, directory_id: Uuid,
                 fetch_max_wait_ms: int):
        self.quorum = quorum
        self.log = log                          # our position (requests); the leader appends
        self.requests = requests
        self.transitions = transitions
        self.fetches = fetches                  # the leader's parked fetches (their waits)
        self.send = send                        # the client's: one request, answer to the client
        self.is_shutting_down = is_shutting_down
        self.node_id = node_id
        self.voters = voters
        self.cluster_id = cluster_id
        self.directory_id = directory_id        # this node's metadata log directory.id
        self.fetch_max_wait_ms = fetch_max_wait_ms

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
        return self._poll_resigned(state, now)

    # ------------------------------------------------------------------ per-state polls
    def _poll_leader(self, state: LeaderState, now: int) -> int | None:
        shutting_down = self.is_shutting_down()
        if shutting_down or state.resign_requested or state.check_quorum_expired(now):
            reason = ("graceful shutdown" if shutting_down else
                      "resignation requested" if state.resign_requested else
                      f"did not receive fetch requests from a majority of the voters within "
                      f"{state.check_quorum_timeout_ms} ms")
            self.transitions.to_resigned(state, reason, now)
            return now
        accumulator = self.transitions.accumulator
        if accumulator is not None and accumulator.needs_drain(now):
            records = accumulator.drain()
            if records:
                self.log.append_as_leader(records, state.epoch, now)
            self.log.flush()
            self.fetches.on_leader_end_offset(state, now)
        if now >= state.begin_quorum_epoch_deadline:
            for voter in sorted(self.voters - {self.node_id}):
                if self.requests.is_ready(voter, now):
                    self.send(voter, BeginQuorumEpochRequest(self.cluster_id, self.node_id,
                                                             state.epoch, voter))
            state.reset_begin_quorum_epoch_timer(now)
        self.fetches.answer_expired(now)
        return earliest(state.check_quorum_deadline if len(self.voters) > 1 else None,
                        state.begin_quorum_epoch_deadline, accumulator.drain_deadline,
                        self.fetches.next_deadline())

    def _poll_candidate(self, state: CandidateState, now: int) -> int | None:
        if self.is_shutting_down():
            return self._send_vote_requests(state, now, pre_vote=False)
        if state.backoff_deadline is not None:
            if now >= state.backoff_deadline:
                self.transitions.to_prospective(now)
                return now
            return state.backoff_deadline
        if now >= state.election_deadline:
            self.transitions.to_prospective(now)
            return now
        return earliest(self._send_vote_requests(state, now, pre_vote=False),
                        state.election_deadline)

    def _poll_prospective(self, state: ProspectiveState, now: int) -> int | None:
        if self.is_shutting_down():
            return self._send_vote_requests(state, now, pre_vote=True)
        if state.epoch_election.is_vote_rejected() or now >= state.election_deadline:
            if state.leader_id is not None:
                self.transitions.to_follower(state.epoch, state.leader_id, now)
            else:
                self.transitions.to_unattached(state.epoch, now)
            return now
        return earliest(self._send_vote_requests(state, now, pre_vote=True),
                        state.election_deadline)

    def _poll_follower(self, state: FollowerState, now: int) -> int | None:
        if now >= state.fetch_deadline:
            if self.quorum.is_observer:
                return self._fetch_from_any_bootstrap(now)
            if self.is_shutting_down():
                return None
            self.transitions.to_prospective(now)
            return now
        return earliest(self._fetch_from_leader(state, now), state.fetch_deadline)

    def _poll_unattached(self, state: UnattachedState, now: int) -> int | None:
        if state.election_deadline is None or self.is_shutting_down():
            return self._fetch_from_any_bootstrap(now)
        if now >= state.election_deadline:
            self.transitions.to_prospective(now)
            return now
        return earliest(self._fetch_from_any_bootstrap(now), state.election_deadline)

    def _poll_resigned(self, state: ResignedState, now: int) -> int | None:
        pending = []
        for voter in sorted(state.unacked_voters):
            if self.requests.is_ready(voter, now):
                self.send(voter, EndQuorumEpochRequest(self.cluster_id, self.node_id, state.epoch,
                                                       state.preferred_successors))
            pending.append(self.requests.ready_time(voter))
        if self.is_shutting_down():
            return earliest(*pending)
        if now >= state.election_deadline:
            self.transitions.to_unattached(state.epoch + 1, now)
            return now
        return earliest(state.election_deadline, *pending)

    # ------------------------------------------------------------------ requests to send
    def _send_vote_requests(self, state: ProspectiveState | CandidateState, now: int,
                            pre_vote: bool) -> int | None:
        if state.epoch_election.is_vote_rejected():
            return None
        waits = []
        for voter in state.epoch_election.unrecorded_voters:
            if self.requests.is_ready(voter, now):
                self.send(voter, VoteRequest(self.cluster_id, state.epoch, self.node_id,
                                             self.log.last_fetched_epoch, self.log.end_offset,
                                             pre_vote, voter))
            else:
                waits.append(self.requests.ready_time(voter))
        return earliest(*waits)

    def _fetch_request(self) -> FetchRequest:
        known = self.quorum.high_watermark
        return FetchRequest(self.cluster_id, self.node_id, self.fetch_max_wait_ms,
                            self.quorum.epoch, self.log.end_offset, self.log.last_fetched_epoch,
                            self.directory_id, -1 if known is None else known)

    def _fetch_from_leader(self, state: FollowerState, now: int) -> int | None:
        leader = state.leader_id
        if any(self.requests.has_in_flight(v) for v in self.voters if v != self.node_id):
            return None
        if self.requests.is_ready(leader, now):
            self.send(leader, self._fetch_request())
            return None
        # The leader failed us: ask the other voters, one of them may know a newer leader.
        return earliest(self._fetch_from_any_bootstrap(now, exclude=leader),
                        self.requests.ready_time(leader))

    def _fetch_from_any_bootstrap(self, now: int, exclude: int | None = None) -> int | None:
        target = self.requests.find_ready_bootstrap_server(now, exclude)
        if target is not None:
            self.send(target, self._fetch_request())
            return None
        return self.requests.next_bootstrap_ready_time(exclude)


def earliest(*deadlines: int | None) -> int | None:
    """The first of the deadlines that are set; None if none is."""
    present = [d for d in deadlines if d is not None]
    return min(present) if present else None
