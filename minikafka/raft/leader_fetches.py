"""`LeaderFetches`: Fetch as the leader answers it, and the long polls it parks.

Theory of operation
-------------------
Only the leader of the fetcher's epoch serves a Fetch; anyone else refuses
it (FENCED_LEADER_EPOCH for an older epoch, UNKNOWN_LEADER_EPOCH for a newer
one, NOT_LEADER_OR_FOLLOWER, or BROKER_NOT_AVAILABLE while shutting down), and
every refusal names the epoch and leader we know, so the fetcher learns
from it.  The leader first checks the fetcher's log: if the fetcher's last
epoch does not end at or after its fetch offset in the leader's log, the
answer names the diverging epoch to truncate to.  Otherwise the fetch offset
counts as the fetcher's log end offset (which may move the high watermark,
see `LeaderState`) and the answer carries the batches from there.

A fetch that finds nothing new is parked in the `FetchPurgatory` (long
poll) and answered later, by whichever comes first:

* the leader's log end offset passes its fetch offset (`on_leader_end_offset`);
* the high watermark moves (KAFKA-14145: every parked fetch completes, so
  followers and brokers learn what is committed at once);
* its wait ends (`answer_expired`: the empty answer computed on arrival);
* the leader steps down or shuts down (`refuse_all`).

This object owns the purgatory: nothing else parks or completes fetches.

Mirrors ``handleFetchRequest``, ``tryCompleteFetchRequest``,
``validateLeaderOnlyRequest`` and ``updateLeaderEndOffsetAndTimestamp`` of
Kafka's ``KafkaRaftClient`` and ``ReplicatedLog.validateOffsetAndEpoch``.
Simplified: no snapshots and no byte limits (at most
``MAX_BATCHES_PER_FETCH`` batches per answer).
"""

from __future__ import annotations

from typing import Any, Callable

from minikafka.common.errors import Errors
from minikafka.raft.fetch_purgatory import FetchPurgatory, ParkedFetch
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import NO_LEADER, EpochEndOffset, FetchRequest, FetchResponse, \
    LeaderIdAndEpoch, has_valid_cluster_id, leader_id_field
from minikafka.raft.quorum_state import QuorumState
from minikafka.raft.replicated_log import ReplicatedLog
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
        state: LeaderState = self.quorum.state
        leader = LeaderIdAndEpoch(self.node_id, state.epoch)
        diverging = self._diverging_epoch(request.fetch_offset, request.last_fetched_epoch)
        records: tuple = ()
        if diverging is None:
            records = tuple(self.log.read(request.fetch_offset, MAX_BATCHES_PER_FETCH))
            if state.update_replica_state(request.replica_id, request.replica_directory_id, now,
                                          request.fetch_offset):
                self.log.update_high_watermark(state.high_watermark)
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
                Errors.NONE.code, state.high_watermark, self.log.start_offset, leader, None,
                records))

    def on_leader_end_offset(self, state: LeaderState, now: int) -> None:
        """The leader's log grew (and is flushed): count it, then answer the fetches it feeds."""
        if state.update_local_state(self.log.end_offset):
            self.log.update_high_watermark(state.high_watermark)
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
