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

How the work is divided.  Kafka's ``KafkaRaftClient`` is one class; here it
is split by RPC, each part an object built by the client and given exactly
what it uses, so its constructor is the list of its dependencies.  One
module per RPC holds the building of its request, the handling of the
request and the handling of the response (module names are the RPCs':
``vote_rpc`` for Kafka's Vote, with KIP-996's pre-vote, and so on):

* `VoteRpc` (``vote_rpc``): quorum state, log, request manager,
  transitions, the client's ``send``, the node's ``rng``;
* `BeginQuorumEpochRpc` (``begin_quorum_epoch_rpc``) and `EndQuorumEpochRpc`
  (``end_quorum_epoch_rpc``): quorum state, request manager, transitions,
  ``send``;
* `FetchRpc` (``fetch_rpc``): quorum state, log, request manager,
  transitions, ``send``, the node's ``emit``, and the leader's side,
  `LeaderFetches` (same module: quorum state, log, purgatory, the node's
  ``reply``), which owns the parked long polls;
* `DescribeQuorumRpc` (``describe_quorum_rpc``): quorum state, the voters'
  endpoints.  (No FetchSnapshot: there are no snapshots.)

Two parts are shared by every RPC: `RaftTransitions` makes every epoch-state
change with its side effects (each naming its `QuorumEvent`, checked against
`QuorumState`'s table), holds the leader's accumulator and the rule every
response goes through (quorum state, log, request manager, `LeaderFetches`
as `ParkedFetches`, the node's ``emit``); `RaftPolls` does what each epoch
state does when polled, asking the RPC objects to send what is due (quorum
state, log, transitions, `LeaderFetches`, the four RPC objects that send).

Each also takes the settings it reads (ids, cluster id, timeouts).  The
client keeps the public API, the poll loop with its one timer, two dispatch
tables -- request type to the RPC's request handler, response type to its
response handler --, ``send`` (the node's request plumbing: answers come back
to the client, which passes them on), the listeners and the shutdown.  The
parts reach the client only through the ``send`` and ``is_shutting_down``
functions it hands out.

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
from minikafka.raft.epoch_state import CandidateState, ResignedState
from minikafka.raft.errors import NotLeaderException
from minikafka.raft.begin_quorum_epoch_rpc import BeginQuorumEpochRpc
from minikafka.raft.describe_quorum_rpc import DescribeQuorumRpc
from minikafka.raft.end_quorum_epoch_rpc import EndQuorumEpochRpc
from minikafka.raft.fetch_purgatory import FetchPurgatory
from minikafka.raft.fetch_rpc import FetchRpc, LeaderFetches
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.listener_context import ListenerContext, RaftListener
from minikafka.raft.messages import (BeginQuorumEpochRequest, BeginQuorumEpochResponse,
                                     DescribeQuorumRequest, DescribeQuorumResponse,
                                     EndQuorumEpochRequest, EndQuorumEpochResponse, FetchRequest,
                                     FetchResponse, Listener, VoteRequest, VoteResponse)
from minikafka.raft.quorum_state import LeaderAndEpoch, QuorumState
from minikafka.raft.quorum_state_store import QuorumStateStore
from minikafka.raft.raft_polls import RaftPolls
from minikafka.raft.raft_transitions import RaftTransitions
from minikafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from minikafka.raft.request_manager import RequestManager, earliest
from minikafka.raft.vote_rpc import VoteRpc
from minikafka.runtime.node import Envelope, Node, RequestTimedOut
from minikafka.common.timing import TimingProfile

MAX_FETCH_WAIT_MS = 500        # KafkaRaftClient.MAX_FETCH_WAIT_MS
POLL_TIMER = ("raft", "poll")


class KafkaRaftClient:
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
        self.purgatory = FetchPurgatory()   # leader only; `LeaderFetches` parks and completes
        self._build_parts()
        self._listeners: list[ListenerContext] = []
        self._started = False          # start() ran: the quorum state is loaded
        self._shutting_down = False    # graceful shutdown requested
        self._shutdown_deadline: int | None = None   # give up waiting for a new leader then
        self._on_shutdown_complete: Callable[[bool], None] | None = None
        self.stopped = False           # no more polling or answering
        self._polling = False          # inside _poll (re-entrancy guard)
        self._repoll = False           # something changed during _poll: run it again
        self._wakeup_at: int | None = None   # deadline of the POLL_TIMER we set

    def _build_parts(self) -> None:
        """The collaborators, each given what it uses (see the module docstring)."""
        self.leader_fetches = LeaderFetches(self.quorum, self.log, self.purgatory, reply=self.node.reply,
                                     is_shutting_down=self._is_shutting_down,
                                     node_id=self.node_id, cluster_id=self.cluster_id)
        self.transitions = RaftTransitions(self.quorum, self.log, self.requests, self.leader_fetches,
                                           emit=self.node.emit, node_id=self.node_id,
                                           voters=self.voters,
                                           append_linger_ms=self.append_linger_ms)
        self.vote = VoteRpc(self.quorum, self.log, self.requests, self.transitions,
                            send=self._send, rng=self.node.rng, cluster_id=self.cluster_id,
                            election_backoff_max_ms=self.election_backoff_max_ms)
        self.begin_quorum_epoch = BeginQuorumEpochRpc(
            self.quorum, self.requests, self.transitions, send=self._send, voters=self.voters,
            cluster_id=self.cluster_id)
        self.end_quorum_epoch = EndQuorumEpochRpc(
            self.quorum, self.requests, self.transitions, send=self._send,
            cluster_id=self.cluster_id, election_backoff_max_ms=self.election_backoff_max_ms)
        self.fetch = FetchRpc(self.quorum, self.log, self.requests, self.transitions,
                              self.leader_fetches, send=self._send, emit=self.node.emit,
                              voters=self.voters, cluster_id=self.cluster_id,
                              directory_id=self.directory_id,
                              fetch_max_wait_ms=self.fetch_max_wait_ms)
        self.describe = DescribeQuorumRpc(self.quorum, voter_endpoints=self.voter_endpoints)
        self.polls = RaftPolls(self.quorum, self.log, self.transitions, self.leader_fetches, self.vote,
                               self.begin_quorum_epoch, self.end_quorum_epoch, self.fetch,
                               is_shutting_down=self._is_shutting_down, voters=self.voters)
        self._request_handlers: dict[type, Callable[[Envelope, int], Any]] = {
            VoteRequest: self.vote.handle_vote_request,
            BeginQuorumEpochRequest: self.begin_quorum_epoch.handle_begin_quorum_epoch_request,
            EndQuorumEpochRequest: self.end_quorum_epoch.handle_end_quorum_epoch_request,
            FetchRequest: self.fetch.handle_fetch_request,
            DescribeQuorumRequest: self.describe.handle_describe_quorum_request}
        self._response_handlers: dict[type, Callable[[int, Any, Any, int], bool]] = {
            VoteResponse: self.vote.handle_vote_response,
            BeginQuorumEpochResponse: self.begin_quorum_epoch.handle_begin_quorum_epoch_response,
            EndQuorumEpochResponse: self.end_quorum_epoch.handle_end_quorum_epoch_response,
            FetchResponse: self.fetch.handle_fetch_response}

    def _is_shutting_down(self) -> bool:
        return self._shutting_down

    @property
    def accumulator(self) -> BatchAccumulator | None:
        """The leader's appends in linger (None unless this replica leads)."""
        return self.transitions.accumulator

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
            self.transitions.elect_only_voter(now)
        elif isinstance(self.quorum.state, CandidateState):
            self.transitions.after_transition(None, now)
        self._poll()

    def register_listener(self, listener: RaftListener) -> None:
        self._listeners.append(ListenerContext(listener, self.log.start_offset))
        if self._started:
            self._poll()          # before start() the quorum state is not loaded yet

    def append(self, records: Sequence[Any], epoch: int) -> int:
        """Queue ``records`` for the leader epoch ``epoch`` and schedule them; returns the offset
        of the last one (``prepare_append`` then ``schedule_prepared_append``)."""
        offset = self.prepare_append(records, epoch)
        self.schedule_prepared_append()
        return offset

    def prepare_append(self, records: Sequence[Any], epoch: int) -> int:
        """Queue ``records`` for the leader epoch ``epoch`` without writing anything yet; returns
        the offset the last one will have.  The caller records what it is waiting for before
        ``schedule_prepared_append``: with a single voter a batch may commit inside that call."""
        state = self.quorum.state
        if not isinstance(state, LeaderState) or self.accumulator is None or self._shutting_down:
            raise NotLeaderException("Append failed because the replica is not the current leader")
        if epoch < state.epoch:
            raise NotLeaderException(f"Append failed because the given epoch {epoch} is stale. "
                                     f"Current leader epoch = {state.epoch}")
        if epoch > state.epoch:
            raise ValueError(f"Attempt to append from epoch {epoch} which is larger than the "
                             f"current epoch {state.epoch}")
        return self.accumulator.append(records, self.node.now)

    def schedule_prepared_append(self) -> None:
        """Let the prepared batches be written: a batch whose linger time is over is written (and,
        with a single voter, committed) now, the others when their linger ends."""
        self._poll()

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
        assert self._shutdown_deadline is not None      # set with _shutting_down
        timed_out = now >= self._shutdown_deadline
        leader = self.quorum.leader_id
        if not (timed_out or self.quorum.is_observer or self.quorum.is_only_voter()
                or (leader is not None and leader != self.node_id)):
            return False
        self.leader_fetches.refuse_all(Errors.BROKER_NOT_AVAILABLE)
        self.stopped = True
        self.node.cancel(POLL_TIMER)
        if self._on_shutdown_complete is not None:
            self._on_shutdown_complete(timed_out)
        return True

    def describe_quorum(self) -> DescribeQuorumResponse:
        """The leader's view of voters and observers (DescribeQuorum)."""
        return self.describe.describe_quorum(self.node.now)

    def handle_request(self, envelope: Envelope) -> bool:
        """Answer a Raft request; False if ``envelope.body`` is not one (the host's then)."""
        handler = self._request_handlers.get(type(envelope.body))
        if handler is None:
            return False
        if not self.stopped:
            response = handler(envelope, self.node.now)
            if response is not None:       # None: a Fetch parked until data or its wait ends
                self.node.reply(envelope, response)
            self._poll()
        return True

    # ------------------------------------------------------------------ our requests
    def _send(self, destination: int, body: Any) -> None:
        """One request to a peer; its answer (or time-out) comes back to `_on_response`."""
        box: list[int] = []
        correlation_id = self.node.send_request(
            destination, body,
            lambda response: self._on_response(destination, box[0], body, response),
            self.request_timeout_ms)
        box.append(correlation_id)
        self.requests.on_request_sent(destination, correlation_id)

    def _on_response(self, source: int, correlation_id: int, request: Any, response: Any) -> None:
        if self.stopped:
            return
        now = self.node.now
        if isinstance(response, RequestTimedOut):
            self.requests.on_response(source, correlation_id, False, now)
        elif self.requests.is_expected(source, correlation_id):
            success = self._handle_response(source, request, response, now)
            self.requests.on_response(source, correlation_id, success, now)
        self._poll()

    def _handle_response(self, source: int, request: Any, response: Any, now: int) -> bool:
        """The RPC's response handler; True if the exchange succeeded."""
        handler = self._response_handlers.get(type(response))
        if handler is None:
            raise ValueError(f"Received unexpected response type: {type(response).__name__}")
        return handler(source, request, response, now)

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
                deadline = earliest(self.polls.poll_current_state(now), self._shutdown_deadline)
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
