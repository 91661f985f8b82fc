"""The Fetch RPC (KIP-595): `FetchRpc` asks the leader for records and acts on the answers;
`LeaderFetches` is the leader's side, which answers Fetch and parks the long polls.

Theory of operation
-------------------
Followers and observers replicate by fetching; the same request also tells
the leader how far each replica got (its high watermark follows the voters'
fetch offsets, see `LeaderState`) and, answered, tells the fetcher who leads.

* **Asking** (`FetchRpc`, while polling Follower or Unattached) -- a follower
  fetches from its leader with its log end offset and last epoch; if the
  leader failed it, it asks another voter, which may know a newer leader.  A
  replica without a leader asks any voter (a *bootstrap server*, see
  `RequestManager`).
* **Answering** (`LeaderFetches.handle_fetch_request`) -- only the leader of
  the fetcher's epoch serves a Fetch; anyone else refuses it
  (FENCED_LEADER_EPOCH for an older epoch, UNKNOWN_LEADER_EPOCH for a newer
  one, NOT_LEADER_OR_FOLLOWER, or BROKER_NOT_AVAILABLE while shutting down),
  and every refusal names the epoch and leader we know.  The leader first
  checks the fetcher's log: if the fetcher's last epoch does not end at or
  after its fetch offset in the leader's log, the answer names the diverging
  epoch to truncate to.  Otherwise the fetch offset counts as the fetcher's
  log end offset (which may move the high watermark) and the answer carries
  the batches from there.
* **Acting on answers** (`FetchRpc.handle_fetch_response`) -- after the
  checks every response gets, truncate to the diverging epoch, or append the
  batches (voters flush first: the leader counts the next fetch offset as
  durable) and take ``min(log end offset, leader's high watermark)`` as high
  watermark.

A fetch that finds nothing new is parked in the `FetchPurgatory` (long
poll) and answered later, by whichever comes first:

* the leader's log end offset passes its fetch offset (`on_leader_end_offset`);
* the high watermark moves (KAFKA-14145: every parked fetch completes, so
  followers and brokers learn what is committed at once);
* its wait ends (`answer_expired`: the empty answer computed on arrival);
* the leader steps down or shuts down (`refuse_all`).

`LeaderFetches` owns the purgatory: nothing else parks or completes fetches.
It is a collaborator of its own because the transitions use it too (a new
leader answers the fetches its first batch feeds, a leader that steps down
refuses the parked ones): `RaftTransitions` sees it as `ParkedFetches`.

Mirrors ``maybeSendFetchOrFetchSnapshot``/``buildFetchRequest``,
``handleFetchRequest``, ``tryCompleteFetchRequest``,
``validateLeaderOnlyRequest``, ``updateLeaderEndOffsetAndTimestamp`` and
``handleFetchResponse`` of Kafka's ``KafkaRaftClient`` and
``ReplicatedLog.validateOffsetAndEpoch``.  Module named after the RPC
(Kafka's ``FetchRequest``).  Simplified: no snapshots (no FetchSnapshot RPC:
a fetcher is never sent to a snapshot) and no byte limits (at most
``MAX_BATCHES_PER_FETCH`` batches per answer).
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.uuid import Uuid
from minikafka.raft.epoch_state import FollowerState
from minikafka.raft.fetch_purgatory import FetchPurgatory, ParkedFetch
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import NO_LEADER, EpochEndOffset, FetchRequest, FetchResponse, \
    LeaderIdAndEpoch, has_valid_cluster_id, leader_id_field
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.raft_transitions import TOP_LEVEL_ERRORS, RaftTransitions
from minikafka.raft.replicated_log import ReplicatedLog
from minikafka.raft.request_manager import RequestManager, earliest
from minikafka.runtime.node import Envelope

MAX_BATCHES_PER_FETCH = 64


class LeaderFetches:
    """Answers Fetch requests and owns the purgatory of the ones that wait for data."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, purgatory: FetchPurgatory, *,
                 reply: Callable[[Envelope, Any], None], is_shutting_down: Callable[[], bool],
                 node_id: int, cluster_id: str):
        self.quorum = quorum
        self.log = log
        self.purgatory = purgatory
        self.reply = reply                         # the host node's reply to a request
        self.is_shutting_down = is_shutting_down   # the client's graceful shutdown started
        self.node_id = node_id
        self.cluster_id = cluster_id

    # ------------------------------------------------------------------ a Fetch arrives
    def handle_fetch_request(self, envelope: Envelope, now: int) -> FetchResponse | None:
        """The answer to send now, or None when the request was parked (long poll)."""
        request: FetchRequest = envelope.body
        if not has_valid_cluster_id(self.cluster_id, request.cluster_id):
            return FetchResponse(Errors.INCONSISTENT_CLUSTER_ID.code, -1, -1,
                                 LeaderIdAndEpoch(NO_LEADER, -1))
        if request.max_wait_ms < 0 or request.fetch_offset < 0 or request.last_fetched_epoch < 0 \
                or request.last_fetched_epoch > request.current_leader_epoch:
            return self.fetch_error(Errors.INVALID_REQUEST)
        response = self._try_complete_fetch(request, now)
        stale_high_watermark = response.high_watermark > request.high_watermark  # KAFKA-14145
        if response.error_code or response.records or request.max_wait_ms == 0 \
                or response.diverging_epoch is not None or stale_high_watermark:
            return response
        self.purgatory.park(ParkedFetch(envelope, request, now + request.max_wait_ms, response))
        return None

    def fetch_error(self, error: Errors) -> FetchResponse:
        return FetchResponse(error.code, -1, self.log.start_offset,
                             LeaderIdAndEpoch(leader_id_field(self.quorum.leader_id), self.quorum.epoch))

    def _validate_leader_only(self, epoch: int) -> Errors | None:
        if epoch < self.quorum.epoch:
            return Errors.FENCED_LEADER_EPOCH
        if epoch > self.quorum.epoch:
            return Errors.UNKNOWN_LEADER_EPOCH
        if not isinstance(self.quorum.state, LeaderState):
            return Errors.NOT_LEADER_OR_FOLLOWER
        if self.is_shutting_down():
            return Errors.BROKER_NOT_AVAILABLE
        return None

    def _try_complete_fetch(self, request: FetchRequest, now: int) -> FetchResponse:
        error = self._validate_leader_only(request.current_leader_epoch)
        if error is not None:
            return self.fetch_error(error)
        state = self.quorum.state
        assert isinstance(state, LeaderState)       # _validate_leader_only said so
        leader = LeaderIdAndEpoch(self.node_id, state.epoch)
        diverging = self._diverging_epoch(request.fetch_offset, request.last_fetched_epoch)
        records: tuple[Any, ...] = ()
        if diverging is None:
            records = tuple(self.log.read(request.fetch_offset, MAX_BATCHES_PER_FETCH))
            if state.update_replica_state(request.replica_id, request.replica_directory_id, now,
                                          request.fetch_offset):
                self.log.update_high_watermark(_moved_high_watermark(state))
                self._complete_parked_on_high_watermark(state)
        high_watermark = -1 if state.high_watermark is None else state.high_watermark
        return FetchResponse(Errors.NONE.code, high_watermark, self.log.start_offset, leader,
                             diverging, records)

    def _diverging_epoch(self, offset: int, epoch: int) -> EpochEndOffset | None:
        """Kafka's ``ReplicatedLog.validateOffsetAndEpoch`` (no snapshots): None when valid."""
        if offset == 0 and self.log.start_offset == 0:
            return None
        end = self.log.end_offset_for_epoch(epoch)
        if end.epoch != epoch or end.offset < offset:
            return EpochEndOffset(end.epoch, end.offset)
        return None

    # ------------------------------------------------------------------ parked fetches
    def _complete_parked_on_high_watermark(self, state: LeaderState) -> None:
        """KAFKA-14145 (since Kafka 4.1, still in 4.3.1): a higher high watermark completes parked fetches at once,
        so followers and observers (the brokers) learn what is committed without waiting
        out their long poll."""
        leader = LeaderIdAndEpoch(self.node_id, state.epoch)
        for parked in self.purgatory.take_all():
            request = parked.request
            if self._validate_leader_only(request.current_leader_epoch) is not None:
                self.reply(parked.envelope, parked.empty_response)
                continue
            records = tuple(self.log.read(request.fetch_offset, MAX_BATCHES_PER_FETCH))
            self.reply(parked.envelope, FetchResponse(
                Errors.NONE.code, _moved_high_watermark(state), self.log.start_offset, leader, None,
                records))

    def on_leader_end_offset(self, state: LeaderState, now: int) -> None:
        """The leader's log grew (and is flushed): count it, then answer the fetches it feeds."""
        if state.update_local_state(self.log.end_offset):
            self.log.update_high_watermark(_moved_high_watermark(state))
        for parked in self.purgatory.take_satisfied(self.log.end_offset):
            self.reply(parked.envelope, self._try_complete_fetch(parked.request, now))

    def answer_expired(self, now: int) -> None:
        """Parked fetches whose wait ended get the empty answer computed on arrival."""
        for parked in self.purgatory.take_expired(now):
            self.reply(parked.envelope, parked.empty_response)

    def refuse_all(self, error: Errors) -> None:
        """Answer every parked fetch with ``error`` (leadership lost, or shutting down)."""
        for parked in self.purgatory.take_all():
            self.reply(parked.envelope, self.fetch_error(error))

    def next_deadline(self) -> int | None:
        return self.purgatory.next_deadline()


def _moved_high_watermark(state: LeaderState) -> int:
    """The leader's high watermark, which just moved (so it is known)."""
    high_watermark = state.high_watermark
    assert high_watermark is not None
    return high_watermark


class FetchRpc:
    """Fetch as a follower or observer sends it and acts on its answers; the leader's side is
    the `LeaderFetches` it is given."""

    def __init__(self, quorum: QuorumState, log: ReplicatedLog, requests: RequestManager,
                 transitions: RaftTransitions, leader_fetches: LeaderFetches, *,
                 send: Callable[[int, Any], None], emit: Callable[..., None],
                 voters: frozenset[int], cluster_id: str, directory_id: Uuid,
                 fetch_max_wait_ms: int):
        self.quorum = quorum
        self.log = log                          # our position; followers append and truncate
        self.requests = requests
        self.transitions = transitions
        self.leader_fetches = leader_fetches    # the leader's side: answers and parked fetches
        self.send = send                        # the client's: one request, answer to the client
        self.emit = emit                        # the host node's cluster events
        self.voters = voters
        self.cluster_id = cluster_id
        self.directory_id = directory_id        # this node's metadata log directory.id
        self.fetch_max_wait_ms = fetch_max_wait_ms

    # ------------------------------------------------------------------ asking
    def build_fetch_request(self) -> FetchRequest:
        known = self.quorum.high_watermark
        return FetchRequest(self.cluster_id, self.quorum.local_id, self.fetch_max_wait_ms,
                            self.quorum.epoch, self.log.end_offset, self.log.last_fetched_epoch,
                            self.directory_id, -1 if known is None else known)

    def maybe_send_fetch_to_leader(self, state: FollowerState, now: int) -> int | None:
        """Fetch from the leader; when it failed us, from another voter.  Returns when a peer
        can be asked again (None: a fetch is in flight)."""
        leader = state.leader_id
        assert leader is not None                # a follower always knows its leader
        if any(self.requests.has_in_flight(v) for v in self.voters if v != self.quorum.local_id):
            return None
        if self.requests.is_ready(leader, now):
            self.send(leader, self.build_fetch_request())
            return None
        # The leader failed us: ask the other voters, one of them may know a newer leader.
        return earliest(self.maybe_send_fetch_to_any_bootstrap(now, exclude=leader),
                        self.requests.ready_time(leader))

    def maybe_send_fetch_to_any_bootstrap(self, now: int,
                                          exclude: int | None = None) -> int | None:
        """Fetch from any voter that can be asked (to learn the leader)."""
        target = self.requests.find_ready_bootstrap_server(now, exclude)
        if target is not None:
            self.send(target, self.build_fetch_request())
            return None
        return self.requests.next_bootstrap_ready_time(exclude)

    # ------------------------------------------------------------------ answering
    def handle_fetch_request(self, envelope: Envelope, now: int) -> FetchResponse | None:
        """The answer to send now, or None when the request was parked (the leader's side)."""
        return self.leader_fetches.handle_fetch_request(envelope, now)

    # ------------------------------------------------------------------ acting on answers
    def handle_fetch_response(self, source: int, request: FetchRequest, response: FetchResponse,
                              now: int) -> bool:
        """Truncate or append, take the high watermark; True if the exchange succeeded."""
        if response.error in TOP_LEVEL_ERRORS:
            return False
        leader = response.current_leader
        handled = self.transitions.maybe_handle_common_response(
            response.error, leader.leader_id, leader.leader_epoch, now)
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
