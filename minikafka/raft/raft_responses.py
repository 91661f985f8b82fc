"""How `KafkaRaftClient` sends KRaft requests and acts on the responses.

Theory of operation
-------------------
Requests go out through the `RequestManager` (one in flight per peer,
backoff after failures): votes and pre-votes to the voters that have not
answered yet, Fetch to the leader -- or, when the leader is unknown or keeps
failing, to a random voter, whose answer names the leader it knows.

Every response carries the responder's epoch and leader.  Before the
API-specific part runs, ``maybe_handle_common_response`` lets that news move
us: a newer epoch (to Follower if the leader is named, else Unattached), or
the leader of our own epoch when we did not know it.  Then:

* **Vote** -- record the (pre-)vote; a majority promotes Prospective to
  Candidate and Candidate to Leader.  A candidate whose election is lost
  backs off ``min(50 ms x random(2^retries), backoff.max) + random(50 ms)``
  before it becomes Prospective again.
* **BeginQuorumEpoch / EndQuorumEpoch** -- note the acknowledgement.
* **Fetch** -- truncate to the diverging epoch, or append the batches (voters
  flush first: the leader counts the next fetch offset as durable) and
  take ``min(log end offset, leader's high watermark)`` as high watermark.

Mirrors the ``handle*Response`` and ``maybeSend*`` methods of Kafka's
``KafkaRaftClient``; a mixin of `KafkaRaftClient`, split out only to keep
modules short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minikafka.common.errors import Errors, KafkaException
from minikafka.raft.epoch_state import (CandidateState, FollowerState, ProspectiveState,
                                        ResignedState)
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import (BeginQuorumEpochResponse, EndQuorumEpochResponse,
                                     EpochEndOffset, FetchRequest, FetchResponse, VoteRequest,
                                     VoteResponse)
from minikafka.runtime.node import RequestTimedOut

if TYPE_CHECKING:
    from minikafka.raft.kafka_raft_client import KafkaRaftClient

TOP_LEVEL_ERRORS = {Errors.INCONSISTENT_CLUSTER_ID}
RETRY_BACKOFF_BASE_MS = 50     # KafkaRaftClient.RETRY_BACKOFF_BASE_MS


class RaftResponseHandlers:
    def _send(self: "KafkaRaftClient", destination: int, body: Any) -> None:
        box: list[int] = []
        correlation_id = self.node.send_request(
            destination, body,
            lambda response: self._on_response(destination, box[0], body, response),
            self.request_timeout_ms)
        box.append(correlation_id)
        self.requests.on_request_sent(destination, correlation_id)

    def _send_vote_requests(self: "KafkaRaftClient",
                            state: ProspectiveState | CandidateState, now: int,
                            pre_vote: bool) -> int | None:
        if state.epoch_election.is_vote_rejected():
            return None
        waits = []
        for voter in state.epoch_election.unrecorded_voters:
            if self.requests.is_ready(voter, now):
                self._send(voter, VoteRequest(self.cluster_id, state.epoch, self.node_id,
                                              self.log.last_fetched_epoch, self.log.end_offset,
                                              pre_vote, voter))
            else:
                waits.append(self.requests.ready_time(voter))
        return _earliest(*waits)

    def _fetch_request(self: "KafkaRaftClient") -> FetchRequest:
        known = self.quorum.high_watermark
        return FetchRequest(self.cluster_id, self.node_id, self.fetch_max_wait_ms,
                            self.quorum.epoch, self.log.end_offset, self.log.last_fetched_epoch,
                            self.directory_id, -1 if known is None else known)

    def _fetch_from_leader(self: "KafkaRaftClient", state: FollowerState, now: int) -> int | None:
        leader = state.leader_id
        if any(self.requests.has_in_flight(v) for v in self.voters if v != self.node_id):
            return None
        if self.requests.is_ready(leader, now):
            self._send(leader, self._fetch_request())
            return None
        # The leader failed us: ask the other voters, one of them may know a newer leader.
        return _earliest(self._fetch_from_any_bootstrap(now, exclude=leader),
                         self.requests.ready_time(leader))

    def _fetch_from_any_bootstrap(self: "KafkaRaftClient",
                                  now: int, exclude: int | None = None) -> int | None:
        target = self.requests.find_ready_bootstrap_server(now, exclude)
        if target is not None:
            self._send(target, self._fetch_request())
            return None
        return self.requests.next_bootstrap_ready_time(exclude)

    def _on_response(self: "KafkaRaftClient",
                     source: int, correlation_id: int, request: Any, response: Any) -> None:
        if self.stopped:
            return
        now = self.node.now
        if isinstance(response, RequestTimedOut):
            self.requests.on_response(source, correlation_id, False, now)
        elif self.requests.is_expected(source, correlation_id):
            success = self._handle_response(source, request, response, now)
            self.requests.on_response(source, correlation_id, success, now)
        self._poll()

    def _handle_response(self: "KafkaRaftClient", source: int, request: Any, response: Any,
                         now: int) -> bool:
        if isinstance(response, FetchResponse):
            return self._handle_fetch_response(source, request, response, now)
        if response.error in TOP_LEVEL_ERRORS:
            return False
        if isinstance(response, VoteResponse):
            return self._handle_vote_response(source, request, response, now)
        if isinstance(response, BeginQuorumEpochResponse):
            return self._handle_begin_quorum_epoch_response(source, request, response, now)
        if isinstance(response, EndQuorumEpochResponse):
            return self._handle_end_quorum_epoch_response(source, request, response, now)
        raise ValueError(f"Received unexpected response type: {type(response).__name__}")

    def _handle_vote_response(self: "KafkaRaftClient", source: int, request: VoteRequest,
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
                self._transition_to_candidate(now)
            else:
                self._become_leader(now)
        elif isinstance(state, CandidateState) and state.epoch_election.is_vote_rejected() \
                and not state.is_backing_off:
            backoff_ms = self._binary_exponential_election_backoff_ms(state.retries)
            state.start_backing_off(now, backoff_ms)
        return True

    def _binary_exponential_election_backoff_ms(self: "KafkaRaftClient", retries: int) -> int:
        """Kafka's ``RaftUtil.binaryExponentialElectionBackoffMs`` (with the 4.0.1 jitter)."""
        if retries <= 0:
            raise ValueError(f"Retries {retries} should be larger than zero")
        exponential = RETRY_BACKOFF_BASE_MS * self.node.rng.randrange(2 << min(10, retries - 1))
        jitter = self.node.rng.randrange(RETRY_BACKOFF_BASE_MS)
        return min(exponential, self.election_backoff_max_ms) + jitter

    def _handle_begin_quorum_epoch_response(self: "KafkaRaftClient", source: int, request: Any,
                                            response: BeginQuorumEpochResponse, now: int) -> bool:
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

    def _handle_end_quorum_epoch_response(self: "KafkaRaftClient", source: int, request: Any,
                                          response: EndQuorumEpochResponse, now: int) -> bool:
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

    def _handle_fetch_response(self: "KafkaRaftClient", source: int, request: FetchRequest,
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

    def _truncate_to_diverging(self: "KafkaRaftClient", state: FollowerState,
                               diverging: EpochEndOffset, source: int) -> None:
        if state.high_watermark is not None and diverging.end_offset < state.high_watermark:
            raise KafkaException(
                f"The leader requested truncation to offset {diverging.end_offset}, which is "
                f"below the current high watermark {state.high_watermark}")
        local = self.log.end_offset_for_epoch(diverging.epoch)
        offset = min(diverging.end_offset, local.offset)
        before = self.log.end_offset
        self.log.truncate_to(offset)
        self.node.emit("log_truncated",
                       f"{self.log.topic_partition} truncated to offset {self.log.end_offset} "
                       f"(was {before}): diverging epoch {diverging.epoch} ends at "
                       f"{diverging.end_offset} on leader {source}",
                       partition=str(self.log.topic_partition), offset=self.log.end_offset,
                       previous_end_offset=before, leader=source)

    def _maybe_handle_common_response(self: "KafkaRaftClient", error: Errors, leader_id: int,
                                      epoch: int, now: int) -> bool | None:
        """React to the epoch/leader in any response; None means "go on with the API handler"."""
        leader = None if leader_id < 0 else leader_id
        if epoch < self.quorum.epoch or error is Errors.UNKNOWN_LEADER_EPOCH:
            return True      # our epoch is newer; the answer is no longer relevant
        if epoch > self.quorum.epoch or error in (Errors.FENCED_LEADER_EPOCH,
                                                  Errors.NOT_LEADER_OR_FOLLOWER):
            return self._maybe_transition(leader, epoch, now)
        if leader is not None and self.quorum.leader_id is None:
            self._transition_to_follower(epoch, leader, now)
            return None if error is Errors.NONE else True
        if error is Errors.BROKER_NOT_AVAILABLE:
            return False
        if error is Errors.INVALID_REQUEST:
            raise RuntimeError("Received unexpected invalid request error")
        return None

    def _maybe_transition(self: "KafkaRaftClient",
                          leader: int | None, epoch: int, now: int) -> bool:
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
                self._transition_to_follower(epoch, leader, now)
            else:
                self._transition_to_unattached(epoch, now)
            return True
        if leader is not None and self.quorum.leader_id is None:
            self._transition_to_follower(epoch, leader, now)
            return True
        return False

    def _has_consistent_leader(self: "KafkaRaftClient", epoch: int, leader: int | None) -> bool:
        if leader is not None and leader == self.node_id:
            return isinstance(self.quorum.state, (LeaderState, ResignedState))
        return (epoch != self.quorum.epoch or leader is None or self.quorum.leader_id is None
                or leader == self.quorum.leader_id)


def _earliest(*deadlines: int | None) -> int | None:
    present = [d for d in deadlines if d is not None]
    return min(present) if present else None
