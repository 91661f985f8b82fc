"""How `KafkaRaftClient` answers KRaft requests (Vote, Begin/EndQuorumEpoch, Fetch, DescribeQuorum).

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
* **Fetch** -- only the leader of the fetcher's epoch serves it
  (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH / NOT_LEADER_OR_FOLLOWER
  otherwise).  If the fetcher's last epoch does not end at or after its fetch
  offset in the leader's log, the answer names the diverging epoch; otherwise
  records from the fetch offset, or a parked request when there are none.
* **DescribeQuorum** -- the leader's replica table.

Every answer carries the responder's epoch and leader, so the asker learns
about newer epochs from refusals too.

Mirrors the ``handle*Request`` methods of Kafka's ``KafkaRaftClient``; a
mixin of `KafkaRaftClient`, split out only to keep modules short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minikafka.common.errors import Errors
from minikafka.raft.epoch_state import FollowerState
from minikafka.raft.fetch_purgatory import ParkedFetch
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import (NO_LEADER, BeginQuorumEpochRequest, BeginQuorumEpochResponse,
                                     EndQuorumEpochRequest, EndQuorumEpochResponse, EpochEndOffset,
                                     FetchRequest, FetchResponse, LeaderIdAndEpoch, VoteRequest,
                                     VoteResponse)
from minikafka.raft.replicated_log import OffsetAndEpoch
from minikafka.runtime.node import Envelope

if TYPE_CHECKING:
    from minikafka.raft.kafka_raft_client import KafkaRaftClient

MAX_BATCHES_PER_FETCH = 64


class RaftRequestHandlers:
    def _leader_sentinel(self: "KafkaRaftClient") -> int:
        leader = self.quorum.leader_id
        return NO_LEADER if leader is None else leader

    def _valid_cluster_id(self: "KafkaRaftClient", cluster_id: str | None) -> bool:
        return cluster_id is None or cluster_id == self.cluster_id

    def _validate_voter_only(self: "KafkaRaftClient", remote_id: int, epoch: int) -> Errors | None:
        if epoch < self.quorum.epoch:
            return Errors.FENCED_LEADER_EPOCH
        if remote_id < 0:
            return Errors.INVALID_REQUEST
        return None

    def _validate_leader_only(self: "KafkaRaftClient", epoch: int) -> Errors | None:
        if epoch < self.quorum.epoch:
            return Errors.FENCED_LEADER_EPOCH
        if epoch > self.quorum.epoch:
            return Errors.UNKNOWN_LEADER_EPOCH
        if not isinstance(self.quorum.state, LeaderState):
            return Errors.NOT_LEADER_OR_FOLLOWER
        if self._shutting_down:
            return Errors.BROKER_NOT_AVAILABLE
        return None

    def _vote_response(self: "KafkaRaftClient", error: Errors, granted: bool) -> VoteResponse:
        return VoteResponse(error.code, self._leader_sentinel(), self.quorum.epoch, granted)

    def _handle_vote_request(self: "KafkaRaftClient", envelope: Envelope) -> None:
        self.node.reply(envelope, self._answer_vote(envelope.body))

    def _answer_vote(self: "KafkaRaftClient", request: VoteRequest) -> VoteResponse:
        if not self._valid_cluster_id(request.cluster_id):
            return VoteResponse(Errors.INCONSISTENT_CLUSTER_ID.code, NO_LEADER, -1, False)
        illegal_epoch = (request.last_offset_epoch > request.replica_epoch if request.pre_vote
                         else request.last_offset_epoch >= request.replica_epoch)
        if request.last_offset < 0 or request.last_offset_epoch < 0 or illegal_epoch:
            return self._vote_response(Errors.INVALID_REQUEST, False)
        error = self._validate_voter_only(request.replica_id, request.replica_epoch)
        if error is not None:
            return self._vote_response(error, False)
        now = self.node.now
        if request.replica_epoch > self.quorum.epoch:
            self._transition_to_unattached(request.replica_epoch, now)
        candidate_log = OffsetAndEpoch(request.last_offset_epoch, request.last_offset)
        our_log = OffsetAndEpoch(self.log.last_fetched_epoch, self.log.end_offset)
        up_to_date = candidate_log >= our_log
        state = self.quorum.state
        granted = state.can_grant_vote(request.replica_id, up_to_date, request.pre_vote)
        if granted and not request.pre_vote and state.voted_id is None:
            self.quorum.add_voted_state(request.replica_epoch, request.replica_id, now)
        return self._vote_response(Errors.NONE, granted)

    def _handle_begin_quorum_epoch_request(self: "KafkaRaftClient", envelope: Envelope) -> None:
        request: BeginQuorumEpochRequest = envelope.body
        if not self._valid_cluster_id(request.cluster_id):
            error = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = self._validate_voter_only(request.leader_id, request.leader_epoch)
            if error is None:
                self._maybe_transition(request.leader_id, request.leader_epoch, self.node.now)
        self.node.reply(envelope, BeginQuorumEpochResponse(
            (error or Errors.NONE).code, self._leader_sentinel(), self.quorum.epoch))

    def _handle_end_quorum_epoch_request(self: "KafkaRaftClient", envelope: Envelope) -> None:
        request: EndQuorumEpochRequest = envelope.body
        now = self.node.now
        if not self._valid_cluster_id(request.cluster_id):
            error = Errors.INCONSISTENT_CLUSTER_ID
        else:
            error = self._validate_voter_only(request.leader_id, request.leader_epoch)
        if error is None:
            self._maybe_transition(request.leader_id, request.leader_epoch, now)
            state = self.quorum.state
            if isinstance(state, FollowerState) and state.leader_id == request.leader_id:
                backoff_ms = self._end_epoch_backoff_ms(request.preferred_candidates)
                state.override_fetch_timeout(now, backoff_ms)
        self.node.reply(envelope, EndQuorumEpochResponse(
            (error or Errors.NONE).code, self._leader_sentinel(), self.quorum.epoch))

    def _end_epoch_backoff_ms(self: "KafkaRaftClient", successors: tuple[int, ...]) -> int:
        """Kafka's ``strictExponentialElectionBackoffMs`` for our rank among the successors."""
        position = successors.index(self.node_id) if self.node_id in successors else len(successors)
        if position == 0:
            return 0
        if position >= len(successors):
            return self.election_backoff_max_ms
        base = self.election_backoff_max_ms >> (len(successors) - 1)
        return min(self.election_backoff_max_ms, base << (position - 1))

    def _fetch_error(self: "KafkaRaftClient", error: Errors) -> FetchResponse:
        return FetchResponse(error.code, -1, self.log.start_offset,
                             LeaderIdAndEpoch(self._leader_sentinel(), self.quorum.epoch))

    def _handle_fetch_request(self: "KafkaRaftClient", envelope: Envelope) -> None:
        request: FetchRequest = envelope.body
        if not self._valid_cluster_id(request.cluster_id):
            self.node.reply(envelope, FetchResponse(Errors.INCONSISTENT_CLUSTER_ID.code, -1, -1,
                                                    LeaderIdAndEpoch(NO_LEADER, -1)))
            return
        if request.max_wait_ms < 0 or request.fetch_offset < 0 or request.last_fetched_epoch < 0 \
                or request.last_fetched_epoch > request.current_leader_epoch:
            self.node.reply(envelope, self._fetch_error(Errors.INVALID_REQUEST))
            return
        now = self.node.now
        response = self._try_complete_fetch(request, now)
        stale_high_watermark = response.high_watermark > request.high_watermark  # KAFKA-14145
        if response.error_code or response.records or request.max_wait_ms == 0 \
                or response.diverging_epoch is not None or stale_high_watermark:
            self.node.reply(envelope, response)
        else:
            self.purgatory.park(ParkedFetch(envelope, request, now + request.max_wait_ms, response))

    def _try_complete_fetch(self: "KafkaRaftClient",
                            request: FetchRequest, now: int) -> FetchResponse:
        error = self._validate_leader_only(request.current_leader_epoch)
        if error is not None:
            return self._fetch_error(error)
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

    def _complete_parked_on_high_watermark(self: "KafkaRaftClient", state: LeaderState) -> None:
        """KAFKA-14145 (Kafka 4.1): a higher high watermark completes parked fetches at once,
        so followers and observers (the brokers) learn what is committed without waiting
        out their long poll."""
        leader = LeaderIdAndEpoch(self.node_id, state.epoch)
        for parked in self.purgatory.take_all():
            request = parked.request
            if self._validate_leader_only(request.current_leader_epoch) is not None:
                self.node.reply(parked.envelope, parked.empty_response)
                continue
            records = tuple(self.log.read(request.fetch_offset, MAX_BATCHES_PER_FETCH))
            self.node.reply(parked.envelope, FetchResponse(
                Errors.NONE.code, state.high_watermark, self.log.start_offset, leader, None,
                records))

    def _diverging_epoch(self: "KafkaRaftClient", offset: int, epoch: int) -> EpochEndOffset | None:
        """Kafka's ``ReplicatedLog.validateOffsetAndEpoch`` (no snapshots): None when valid."""
        if offset == 0 and self.log.start_offset == 0:
            return None
        end = self.log.end_offset_for_epoch(epoch)
        if end.epoch != epoch or end.offset < offset:
            return EpochEndOffset(end.epoch, end.offset)
        return None

    def _handle_describe_quorum_request(self: "KafkaRaftClient", envelope: Envelope) -> None:
        self.node.reply(envelope, self.describe_quorum())
