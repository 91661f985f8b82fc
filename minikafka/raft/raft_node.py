"""`RaftNode`: a process that hosts one `KafkaRaftClient` and nothing else.

Theory of operation
-------------------
A dedicated KRaft controller is a raft client plus a QuorumController on top.
To watch the quorum alone -- elections, replication of ``__cluster_metadata``,
the high watermark -- we only need the bottom half: a `Node` (so any driver
can run it) whose requests all go to the raft client, with its log and its
``quorum-state`` kept in memory (`MemoryReplicatedLog`,
`MemoryQuorumStateStore`).  A `CommittedRecords` listener keeps what the
client reported as committed, the way the QuorumController's listener
would consume it.

Two things exist for people who watch the quorum rather than run it:

* `timers()` names each deadline the raft client is waiting for, in Kafka's
  terms (election timeout, fetch timeout, check quorum, ...), and
  `describe_deadline(at)` says which one a wake-up at ``at`` is for;
* `expire_timer()` makes the election (or fetch) timer expire *now*: it moves
  the deadline the epoch state holds to the current time and lets the client
  poll, so what follows is exactly what the raft code does when that timer
  runs out on its own.  A leader has neither timer, so it refuses.

Mirrors the ``RaftNode`` of Kafka's ``RaftEventSimulationTest`` (a
``KafkaRaftClient`` over ``MockLog`` and a memory quorum-state store).
Simplified: no QuorumController; records are opaque Python objects.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from minikafka.common.uuid import Uuid
from minikafka.raft.epoch_state import (CandidateState, FollowerState, ProspectiveState,
                                        ResignedState, UnattachedState)
from minikafka.raft.kafka_raft_client import KafkaRaftClient
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.quorum_state import LeaderAndEpoch
from minikafka.raft.quorum_state_store import QuorumStateStore
from minikafka.raft.replicated_log import Batch, ReplicatedLog
from minikafka.runtime.node import Envelope, Node
from minikafka.common.timing import TimingProfile

# Timer names, each with the setting that sizes it (what the learner can look up).
ELECTION_TIMEOUT = "election timeout"            # controller.quorum.election.timeout.ms (+ random)
FETCH_TIMEOUT = "fetch timeout"                  # controller.quorum.fetch.timeout.ms
ELECTION_BACKOFF = "election backoff"            # controller.quorum.election.backoff.max.ms
CHECK_QUORUM = "check quorum"                    # 1.5 x controller.quorum.fetch.timeout.ms
BEGIN_QUORUM_EPOCH = "BeginQuorumEpoch resend"   # controller.quorum.fetch.timeout.ms / 2
APPEND_LINGER = "append linger"                  # controller.quorum.append.linger.ms
FETCH_WAIT = "Fetch long-poll wait"              # 500 ms (KafkaRaftClient.MAX_FETCH_WAIT_MS)
REQUEST_TIMEOUT = "request timeout"              # controller.quorum.request.timeout.ms
RETRY_BACKOFF = "retry backoff"                  # controller.quorum.retry.backoff.ms


class CommittedRecords:
    """A raft listener that keeps the committed batches and the leader changes it was told of."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []                 # committed batches, in offset order
        self.leader_changes: list[LeaderAndEpoch] = []

    def handle_commit(self, batch: Batch) -> None:
        self.batches.append(batch)

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leader_changes.append(leader)


class RaftNode(Node):
    """One KRaft voter (or observer) with an in-memory log and quorum-state store."""

    def __init__(self, node_id: int, rng: random.Random, voters: Mapping[int, str],
                 log: ReplicatedLog, store: QuorumStateStore, timing: TimingProfile,
                 cluster_id: str, *, directory_id: Uuid = Uuid.ZERO, listener: Any = None):
        super().__init__(node_id, rng)
        self.log = log
        self.store = store
        self.client = KafkaRaftClient(self, voters, log, store, timing, cluster_id,
                                      directory_id=directory_id)
        self.listener = listener if listener is not None else CommittedRecords()

    def on_start(self) -> None:
        self.client.start()
        self.client.register_listener(self.listener)

    def on_request(self, envelope: Envelope) -> None:
        if not self.client.handle_request(envelope):
            raise ValueError(f"controller {self.node_id} got a request that is not a KRaft "
                             f"RPC: {type(envelope.body).__name__}")

    def append(self, *records: Any) -> int:
        """Hand records to the raft client as the active controller does (leader only);
        returns the offset the last one will have."""
        return self.client.append(list(records), self.client.epoch)

    # ------------------------------------------------------------------ for people watching
    def timers(self) -> dict[str, int]:
        """The raft deadlines this replica waits for, by name (ms, the node's clock)."""
        state = self.client.quorum.state
        found: dict[str, int | None] = {}
        if isinstance(state, LeaderState):
            if len(state.voters) > 1:
                found[CHECK_QUORUM] = state.check_quorum_deadline
            found[BEGIN_QUORUM_EPOCH] = state.begin_quorum_epoch_deadline
            if self.client.accumulator is not None:
                found[APPEND_LINGER] = self.client.accumulator.drain_deadline
            found[FETCH_WAIT] = self.client.purgatory.next_deadline()
        elif isinstance(state, FollowerState):
            found[FETCH_TIMEOUT] = state.fetch_deadline
        elif isinstance(state, CandidateState) and state.backoff_deadline is not None:
            found[ELECTION_BACKOFF] = state.backoff_deadline
        elif isinstance(state, (UnattachedState, ProspectiveState, CandidateState,
                                ResignedState)):
            found[ELECTION_TIMEOUT] = state.election_deadline
        return {name: at for name, at in found.items() if at is not None}

    def describe_deadline(self, at: int) -> str:
        """Which timer a wake-up at ``at`` is for (the first that falls due then)."""
        for name, deadline in self.timers().items():
            if deadline <= at:
                return name
        for request, deadline in self.pending_requests():
            if deadline <= at:
                return f"{REQUEST_TIMEOUT} of {type(request).__name__.removesuffix('Request')}"
        return RETRY_BACKOFF

    def pending_requests(self) -> list[tuple[Any, int]]:
        """The requests this node awaits an answer to, with their time-out deadlines."""
        return [(pending.request, pending.deadline) for pending in self._pending.values()]

    def expire_timer(self) -> str:
        """Make the election or fetch timer run out now; returns which one it was."""
        state = self.client.quorum.state
        now = self.now
        if isinstance(state, FollowerState):
            state.override_fetch_timeout(now, 0)
            name = FETCH_TIMEOUT
        elif isinstance(state, CandidateState) and state.backoff_deadline is not None:
            state.backoff_deadline = now
            name = ELECTION_BACKOFF
        elif isinstance(state, (UnattachedState, ProspectiveState, CandidateState, ResignedState)) \
                and state.election_deadline is not None:
            state.election_deadline = now
            name = ELECTION_TIMEOUT
        else:
            raise ValueError(f"controller {self.node_id} is {state.name} in epoch {state.epoch}: "
                             f"it has no election or fetch timer to expire")
        self.client.wakeup()
        return name
