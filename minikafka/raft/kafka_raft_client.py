"""`KafkaRaftClient`: KRaft (KIP-595) for ``__cluster_metadata-0``, driven by a sans-IO `Node`.

Theory of operation
-------------------
Every controller (a *voter*) and every broker (an *observer*) hosts one
client.  The client is a state machine in the style of Kafka's: after every
event -- a request, a response, a timer -- it *polls* the current epoch state,
which sends whatever requests are due and says when it next needs attention;
the client then sets one node timer, ``("raft", "poll")``, for that moment.

Elections (voters only): an Unattached or Follower voter whose timer expires
becomes Prospective and asks for pre-votes (KIP-996); with a majority it
becomes Candidate (epoch + 1, votes for itself, persisted) and asks for
votes; with a majority it becomes Leader, writes a LeaderChangeMessage and
announces itself with BeginQuorumEpoch.  A rejected candidate backs off
``min(50 ms x random(2^retries), election.backoff.max.ms) + jitter`` before
trying again.

Replication: followers and observers Fetch from the leader with their log end
offset and last epoch; the leader answers with batches, parks the request
when there is nothing new (long poll), or names a diverging epoch to
truncate to.  The leader's high watermark follows the voters' fetch offsets
(see `LeaderState`); followers learn it from fetch responses.  Committed
batches go to the registered listeners, in order, exactly once.

Liveness: a leader that hears from no majority for 1.5 x fetch timeout
resigns (check quorum); a graceful shutdown or ``resign`` sends
EndQuorumEpoch, after which the best follower campaigns first.  A shutting
down leader stays Resigned, still answering votes, until it sees the new
leader (or its shutdown timeout passes), as Kafka's does.

Mirrors ``org.apache.kafka.raft.KafkaRaftClient`` (Kafka 4.0).  Simplified:
static voters, no snapshots, no byte limits; error answers back off
``controller.quorum.retry.backoff.ms`` (Kafka retries some at once); the
long-poll wait (Kafka: 500 ms) is capped at half the fetch and request
timeouts so scaled-down timing profiles stay live.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.raft.batch_accumulator import BatchAccumulator
from minikafka.raft.epoch_state import (CandidateState, FollowerState, ProspectiveState,
                                        ResignedState, UnattachedState)
from minikafka.raft.errors import NotLeaderException
from minikafka.raft.fetch_purgatory import FetchPurgatory
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.listener_context import ListenerContext, RaftListener
from minikafka.raft.messages import (BeginQuorumEpochRequest, DescribeQuorumNode,
                                     DescribeQuorumRequest, DescribeQuorumResponse,
                                     EndQuorumEpochRequest, FetchRequest, Listener, VoteRequest)
from minikafka.raft.quorum_state import LeaderAndEpoch, QuorumState
from minikafka.raft.quorum_state_store import QuorumStateStore
from minikafka.raft.raft_requests import RaftRequestHandlers
from minikafka.raft.raft_responses import RaftResponseHandlers
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from minikafka.raft.request_manager import RequestManager
from minikafka.runtime.node import Envelope, Node
from minikafka.timing import TimingProfile

MAX_FETCH_WAIT_MS = 500        # KafkaRaftClient.MAX_FETCH_WAIT_MS
POLL_TIMER = ("raft", "poll")


class KafkaRaftClient(RaftTransitions, RaftRequestHandlers, RaftResponseHandlers):
    """One replica of the KRaft quorum; the host node calls `start` then `handle_request`."""

    def __init__(self, node: Node, voters: Mapping[int, str], log: ReplicatedLog,
                 store: QuorumStateStore, timing: TimingProfile, cluster_id: str, *,
                 directory_id: Uuid = Uuid.ZERO, fetch_max_wait_ms: int | None = None):
        self.node = node
        self.node_id = node.node_id
        self.voter_endpoints = {v: Listener.parse(e) for v, e in sorted(voters.items())}
        self.voters = frozenset(voters)
        self.log = log
        self.cluster_id = cluster_id
        self.directory_id = directory_id           # this node's metadata log directory.id
        self.election_timeout_ms = timing.ms("controller.quorum.election.timeout.ms")
        self.fetch_timeout_ms = timing.ms("controller.quorum.fetch.timeout.ms")
        self.election_backoff_max_ms = timing.ms("controller.quorum.election.backoff.max.ms")
        self.request_timeout_ms = timing.ms("controller.quorum.request.timeout.ms")
        self.append_linger_ms = timing.ms("controller.quorum.append.linger.ms")
        self.fetch_max_wait_ms = fetch_max_wait_ms if fetch_max_wait_ms is not None else \
            min(MAX_FETCH_WAIT_MS, self.fetch_timeout_ms // 2, self.request_timeout_ms // 2)
        self.quorum = QuorumState(self.node_id, self.voters, store, self.election_timeout_ms,
                                  self.fetch_timeout_ms, node.rng)
        self.requests = RequestManager(sorted(self.voters - {self.node_id}),
                                       timing.ms("controller.quorum.retry.backoff.ms"), node.rng)
        self.purgatory = FetchPurgatory()           # leader only: parked fetches
        self.accumulator: BatchAccumulator | None = None   # leader only: appends in linger
        self._listeners: list[ListenerContext] = []
        self._shutting_down = False    # graceful shutdown requested
        self._shutdown_deadline: int | None = None   # give up waiting for a new leader then
        self._on_shutdown_complete: Callable[[bool], None] | None = None
        self.stopped = False           # no more polling or answering
        self._polling = False          # inside _poll (re-entrancy guard)
        self._repoll = False           # something changed during _poll: run it again
        self._wakeup_at: int | None = None   # deadline of the POLL_TIMER we set
        self._handlers = {VoteRequest: self._handle_vote_request,
                          BeginQuorumEpochRequest: self._handle_begin_quorum_epoch_request,
                          EndQuorumEpochRequest: self._handle_end_quorum_epoch_request,
                          FetchRequest: self._handle_fetch_request,
                          DescribeQuorumRequest: self._handle_describe_quorum_request}

    # ------------------------------------------------------------------ public API
    @property
    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.quorum.leader_and_epoch

    @property
    def epoch(self) -> int:
        return self.quorum.epoch

    @property
    def high_watermark(self) -> int | None:
        return self.quorum.high_watermark

    @property
    def role(self) -> str:
        """Kafka's name of the current epoch state: Unattached, Prospective, Candidate, ..."""
        return self.quorum.name

    @property
    def is_voter(self) -> bool:
        return self.quorum.is_voter

    def __repr__(self) -> str:
        return (f"KafkaRaftClient(node {self.node_id}, {self.role}, epoch {self.epoch}, "
                f"leader {self.quorum.leader_id}, high watermark {self.high_watermark})")

    def start(self) -> None:
        """Resume from the quorum-state file and the log (Kafka's ``initialize``)."""
        now = self.node.now
        log_end = OffsetAndEpoch(self.log.last_fetched_epoch, self.log.end_offset)
        self.quorum.initialize(log_end, now)
        self._started = True
        if self.quorum.is_only_voter():
            self._elect_only_voter(now)
        elif isinstance(self.quorum.state, CandidateState):
            self._after_transition(None, now)
        self._poll()

    def register_listener(self, listener: RaftListener) -> None:
        self._listeners.append(ListenerContext(listener, self.log.start_offset))
        if getattr(self, "_started", False):
            self._poll()          # before start() the quorum state is not loaded yet

    def append(self, records: Sequence[Any], epoch: int) -> int:
        """Queue ``records`` for the leader epoch ``epoch``; returns the offset of the last one."""
        state = self.quorum.state
        if not isinstance(state, LeaderState) or self.accumulator is None or self._shutting_down:
            raise NotLeaderException("Append failed because the replica is not the current leader")
        if epoch < state.epoch:
            raise NotLeaderException(f"Append failed because the given epoch {epoch} is stale. "
                                     f"Current leader epoch = {state.epoch}")
        if epoch > state.epoch:
            raise ValueError(f"Attempt to append from epoch {epoch} which is larger than the "
                             f"current epoch {state.epoch}")
        offset = self.accumulator.append(records, self.node.now)
        self._poll()
        return offset

    def resign(self, epoch: int) -> None:
        """Step down as leader of ``epoch`` (ignored if that epoch is already over)."""
        if epoch < 0:
            raise ValueError(f"Attempt to resign from an invalid negative epoch {epoch}")
        current = self.quorum.leader_and_epoch
        if epoch > current.epoch:
            raise ValueError(f"Attempt to resign from epoch {epoch} which is larger than the "
                             f"current epoch {current.epoch}")
        if epoch < current.epoch:
            return
        state = self.quorum.state
        if not current.is_leader(self.node_id):
            raise ValueError(f"Cannot resign from epoch {epoch} since we are not the leader")
        if isinstance(state, LeaderState):
            state.resign_requested = True
            self._poll()

    def shutdown(self, timeout_ms: int = 5000,
                 on_complete: Callable[[bool], None] | None = None) -> None:
        """Graceful shutdown: a leader resigns (EndQuorumEpoch) and keeps answering until a
        new leader is known or ``timeout_ms`` passes; then the client stops and
        ``on_complete(timed_out)`` runs.  Followers and observers that know a leader stop at once.
        """
        if self.stopped or self._shutdown_deadline is not None:
            return
        self._shutting_down = True
        self._shutdown_deadline = self.node.now + timeout_ms
        self._on_shutdown_complete = on_complete
        self._poll()

    def _maybe_complete_shutdown(self, now: int) -> bool:
        if not self._shutting_down:
            return False
        timed_out = now >= self._shutdown_deadline
        leader = self.quorum.leader_id
        if not (timed_out or self.quorum.is_observer or self.quorum.is_only_voter()
                or (leader is not None and leader != self.node_id)):
            return False
        for parked in self.purgatory.take_all():
            self.node.reply(parked.envelope, self._fetch_error(Errors.BROKER_NOT_AVAILABLE))
        self.stopped = True
        self.node.cancel(POLL_TIMER)
        if self._on_shutdown_complete is not None:
            self._on_shutdown_complete(timed_out)
        return True

    def describe_quorum(self) -> DescribeQuorumResponse:
        """The leader's view of voters and observers (DescribeQuorum)."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            error = Errors.NOT_LEADER_OR_FOLLOWER
            return DescribeQuorumResponse(error.code, error.message)
        voters, observers = state.describe(self.node.now)
        nodes = tuple(DescribeQuorumNode(v, (endpoint,))
                      for v, endpoint in self.voter_endpoints.items())
        return DescribeQuorumResponse(Errors.NONE.code, None, self.node_id, state.epoch,
                                      -1 if state.high_watermark is None else state.high_watermark,
                                      voters, observers, nodes)

    def handle_request(self, envelope: Envelope) -> bool:
        """Answer a Raft request; False if ``envelope.body`` is not one (the host's then)."""
        handler = self._handlers.get(type(envelope.body))
        if handler is None:
            return False
        if not self.stopped:
            handler(envelope)
            self._poll()
        return True

    # ------------------------------------------------------------------ the poll loop
    def _poll(self) -> None:
        if self.stopped:
            return
        if self._polling:
            self._repoll = True
            return
        self._polling = True
        try:
            for _ in range(100):
                self._repoll = False
                now = self.node.now
                if self._maybe_complete_shutdown(now):
                    return
                deadline = _earliest(self._poll_current_state(now), self._shutdown_deadline)
                self._update_listeners()
                if not self._repoll and (deadline is None or deadline > now):
                    break
            else:
                raise RuntimeError(f"Raft client {self.node_id} keeps finding work in "
                                   f"{self.quorum.state}")
        finally:
            self._polling = False
        self._set_wakeup(deadline)

    def _set_wakeup(self, deadline: int | None) -> None:
        if deadline == self._wakeup_at:
            return
        self._wakeup_at = deadline
        if deadline is None:
            self.node.cancel(POLL_TIMER)
        else:
            self.node.schedule(POLL_TIMER, deadline, self._on_timer)

    def _on_timer(self) -> None:
        self._wakeup_at = None
        self._poll()

    def wakeup(self) -> None:
        """Poll now: a deadline of the epoch state was moved from outside (the stepper)."""
        self._poll()

    def _poll_current_state(self, now: int) -> int | None:
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

    def _update_listeners(self) -> None:
        state = self.quorum.state
        high_watermark = state.high_watermark
        for context in self._listeners:
            if high_watermark is not None:
                context.deliver_committed(self.log, high_watermark)
            if isinstance(state, LeaderState):
                context.maybe_fire_leader_change(self.quorum.leader_and_epoch,
                                                 state.epoch_start_offset)
            elif not isinstance(state, ResignedState):
                context.maybe_fire_leader_change(self.quorum.leader_and_epoch)

    # ------------------------------------------------------------------ per-state polls
    def _poll_leader(self, state: LeaderState, now: int) -> int | None:
        if self._shutting_down or state.resign_requested or state.check_quorum_expired(now):
            reason = ("graceful shutdown" if self._shutting_down else
                      "resignation requested" if state.resign_requested else
                      f"did not receive fetch requests from a majority of the voters within "
                      f"{state.check_quorum_timeout_ms} ms")
            self._transition_to_resigned(state, reason, now)
            return now
        self._maybe_append_batches(state, now)
        if now >= state.begin_quorum_epoch_deadline:
            for voter in sorted(self.voters - {self.node_id}):
                if self.requests.is_ready(voter, now):
                    self._send(voter, BeginQuorumEpochRequest(self.cluster_id, self.node_id,
                                                              state.epoch, voter))
            state.reset_begin_quorum_epoch_timer(now)
        for parked in self.purgatory.take_expired(now):
            self.node.reply(parked.envelope, parked.empty_response)
        return _earliest(state.check_quorum_deadline if len(self.voters) > 1 else None,
                         state.begin_quorum_epoch_deadline, self.accumulator.drain_deadline,
                         self.purgatory.next_deadline())

    def _maybe_append_batches(self, state: LeaderState, now: int) -> None:
        if self.accumulator is not None and self.accumulator.needs_drain(now):
            records = self.accumulator.drain()
            if records:
                self.log.append_as_leader(records, state.epoch, now)
            self.log.flush()
            self._on_leader_end_offset(state, now)

    # While shutting down, a replica stops campaigning on its own: it finishes what it is
    # doing and waits for a leader (or the shutdown timeout), as Kafka's does.

    def _poll_candidate(self, state: CandidateState, now: int) -> int | None:
        if self._shutting_down:
            return self._send_vote_requests(state, now, pre_vote=False)
        if state.backoff_deadline is not None:
            if now >= state.backoff_deadline:
                self._transition_to_prospective(now)
                return now
            return state.backoff_deadline
        if now >= state.election_deadline:
            self._transition_to_prospective(now)
            return now
        return _earliest(self._send_vote_requests(state, now, pre_vote=False),
                         state.election_deadline)

    def _poll_prospective(self, state: ProspectiveState, now: int) -> int | None:
        if self._shutting_down:
            return self._send_vote_requests(state, now, pre_vote=True)
        if state.epoch_election.is_vote_rejected() or now >= state.election_deadline:
            if state.leader_id is not None:
                self._transition_to_follower(state.epoch, state.leader_id, now)
            else:
                self._transition_to_unattached(state.epoch, now)
            return now
        return _earliest(self._send_vote_requests(state, now, pre_vote=True),
                         state.election_deadline)

    def _poll_follower(self, state: FollowerState, now: int) -> int | None:
        if now >= state.fetch_deadline:
            if self.quorum.is_observer:
                return self._fetch_from_any_bootstrap(now)
            if self._shutting_down:
                return None
            self._transition_to_prospective(now)
            return now
        return _earliest(self._fetch_from_leader(state, now), state.fetch_deadline)

    def _poll_unattached(self, state: UnattachedState, now: int) -> int | None:
        if state.election_deadline is None or self._shutting_down:
            return self._fetch_from_any_bootstrap(now)
        if now >= state.election_deadline:
            self._transition_to_prospective(now)
            return now
        return _earliest(self._fetch_from_any_bootstrap(now), state.election_deadline)

    def _poll_resigned(self, state: ResignedState, now: int) -> int | None:
        pending = []
        for voter in sorted(state.unacked_voters):
            if self.requests.is_ready(voter, now):
                self._send(voter, EndQuorumEpochRequest(self.cluster_id, self.node_id, state.epoch,
                                                        state.preferred_successors))
            pending.append(self.requests.ready_time(voter))
        if self._shutting_down:
            return _earliest(*pending)
        if now >= state.election_deadline:
            self._transition_to_unattached(state.epoch + 1, now)
            return now
        return _earliest(state.election_deadline, *pending)

def _earliest(*deadlines: int | None) -> int | None:
    present = [d for d in deadlines if d is not None]
    return min(present) if present else None
