"""A deterministic network of KRaft replicas in virtual time, with faults and invariant checks.

Every node is a `RaftTestNode`: the package's `RaftNode` (a `Node` hosting one
`KafkaRaftClient`) with a listener that checks committed batches arrive in order.  `Simulation` owns the clock and
one event queue; messages get a seeded latency, keep their order per pair of
nodes (as TCP does), may be dropped, and do not cross a network cut.
Killing a node discards its in-memory state; its log keeps only flushed
batches (`MemoryReplicatedLog.reopen`) and its quorum state store survives,
as a disk would.  The package's `RaftInvariantChecker`
(``minikafka.testing.raft_invariants``, the checker the KRaft stepper and a
learner's experiments use too) checks after every step the nodes that ran
in it: one leader per epoch, log matching, committed batches never change or
go missing from a new leader, monotonic high watermarks, listeners fed
committed batches in order and once, and every granted vote unique per epoch
and persisted before it is sent.

`single_node`, `ask` and `answer_to` drive one client by hand for unit tests.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from minikafka.common.uuid import Uuid
from minikafka.raft import (Batch, KafkaRaftClient, LeaderAndEpoch, MemoryQuorumStateStore,
                            MemoryReplicatedLog)
from minikafka.raft.raft_node import CommittedRecords, RaftNode
from minikafka.raft.messages import VoteRequest, VoteResponse
from minikafka.runtime.events import ClusterEvent
from minikafka.runtime.node import Envelope
from minikafka.testing.raft_invariants import CheckedLog, RaftInvariantChecker
from minikafka.common.timing import KAFKA, TimingProfile

START_MS = 1767225600000
# Fixed numbers for the tests (today's teaching profile), whatever the profiles become.
TIMING = KAFKA.with_overrides({
    "controller.quorum.election.timeout.ms": 200,
    "controller.quorum.fetch.timeout.ms": 400,
    "controller.quorum.election.backoff.max.ms": 200,
    "controller.quorum.request.timeout.ms": 400,
    "controller.quorum.retry.backoff.ms": 20,
    "controller.quorum.append.linger.ms": 25,
}, name="raft-tests")
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"


class CommitRecorder(CommittedRecords):
    """A listener that insists on contiguous, once-only delivery."""

    @property
    def next_offset(self) -> int:
        return self.batches[-1].next_offset if self.batches else 0

    def handle_commit(self, batch: Batch) -> None:
        assert batch.base_offset == self.next_offset, \
            f"commit of {batch.base_offset} but expected {self.next_offset}"
        super().handle_commit(batch)


class RaftTestNode(RaftNode):
    """The package's `RaftNode` with a listener that checks contiguous, once-only delivery."""

    def __init__(self, node_id: int, rng: random.Random, voters: dict[int, str], log: CheckedLog,
                 store: MemoryQuorumStateStore, timing: TimingProfile):
        directory_id = Uuid.ZERO if node_id in voters else Uuid(0, 1000 + node_id)
        super().__init__(node_id, rng, voters, log, store, timing, CLUSTER_ID,
                         directory_id=directory_id, listener=CommitRecorder())
        self.recorder: CommitRecorder = self.listener


@dataclass
class Simulation:
    seed: int
    voters: tuple[int, ...] = (1, 2, 3)
    observers: tuple[int, ...] = ()
    timing: TimingProfile = TIMING
    latency_ms: tuple[int, int] = (1, 5)
    drop_rate: float = 0.0
    check: bool = True
    now: int = START_MS
    nodes: dict[int, RaftTestNode] = field(default_factory=dict)      # alive nodes
    logs: dict[int, CheckedLog] = field(default_factory=dict)         # survive restarts
    stores: dict[int, MemoryQuorumStateStore] = field(default_factory=dict)
    incarnation: dict[int, int] = field(default_factory=dict)
    events: list[ClusterEvent] = field(default_factory=list)
    cuts: set[frozenset[int]] = field(default_factory=set)            # pairs that cannot talk
    steps: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(f"network:{self.seed}")
        self.endpoints = {v: f"CONTROLLER://localhost:{9092 + i}" for i, v in enumerate(self.voters)}
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._pair_clock: dict[tuple[int, int], int] = {}
        self._touched: set[int] = set()          # nodes called since the last check
        self._vote_requests: dict[tuple[int, int], VoteRequest] = {}   # awaiting an answer
        self.checker = RaftInvariantChecker(self.nodes, self.logs, self.stores)
        for node_id in self.voters + self.observers:
            self.logs[node_id] = CheckedLog()
            self.stores[node_id] = MemoryQuorumStateStore()
            self.incarnation[node_id] = 0
            self._boot(node_id)

    # ------------------------------------------------------------------ node lifecycle
    def _boot(self, node_id: int) -> None:
        rng = random.Random(f"{self.seed}:{node_id}:{self.incarnation[node_id]}")
        node = RaftTestNode(node_id, rng, self.endpoints, self.logs[node_id], self.stores[node_id],
                            self.timing)
        self.nodes[node_id] = node
        self.checker.on_boot(node_id)
        node.start(self.now)
        self._after_call(node)

    def kill(self, node_id: int) -> None:
        self.nodes.pop(node_id)
        self.incarnation[node_id] += 1

    def restart(self, node_id: int) -> None:
        if node_id in self.nodes:
            self.kill(node_id)
        self.logs[node_id] = self.logs[node_id].reopen()
        self._boot(node_id)

    def isolate(self, node_id: int) -> None:
        for other in self.voters + self.observers:
            if other != node_id:
                self.cuts.add(frozenset((node_id, other)))

    def partition(self, *groups: tuple[int, ...]) -> None:
        """Only nodes in the same group can talk."""
        everyone = self.voters + self.observers
        for a in everyone:
            for b in everyone:
                if a != b and not any(a in g and b in g for g in groups):
                    self.cuts.add(frozenset((a, b)))

    def heal(self) -> None:
        self.cuts.clear()

    # ------------------------------------------------------------------ messaging
    def _at(self, time_ms: int, fn: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (time_ms, next(self._seq), fn))

    def _after_call(self, node: RaftTestNode) -> None:
        self._touched.add(node.node_id)
        outbox, events = node.drain()
        self.events.extend(events)
        self.checker.on_events(events)
        for envelope in outbox:
            if envelope.is_response and isinstance(envelope.body, VoteResponse):
                request = self._vote_requests.pop((node.node_id, envelope.correlation_id), None)
                if request is not None and self.check:
                    self.checker.on_vote_answer(node.node_id, request, envelope.body)
            self._route(envelope)
        deadline = node.next_deadline()
        if deadline is not None:
            incarnation = self.incarnation[node.node_id]
            self._at(max(deadline, self.now), lambda: self._wake(node.node_id, incarnation))

    def _wake(self, node_id: int, incarnation: int) -> None:
        node = self.nodes.get(node_id)
        if node is None or self.incarnation[node_id] != incarnation:
            return
        deadline = node.next_deadline()
        if deadline is not None and deadline <= self.now:
            node.poll(self.now)
            self._after_call(node)

    def _route(self, envelope: Envelope) -> None:
        src, dst = envelope.src, envelope.dst
        if frozenset((src, dst)) in self.cuts or self.rng.random() < self.drop_rate:
            return                      # lost: a request times out at its sender
        pair = (src, dst)
        arrival = max(self.now + self.rng.randint(*self.latency_ms), self._pair_clock.get(pair, 0))
        self._pair_clock[pair] = arrival        # TCP keeps a connection's messages in order
        incarnation = self.incarnation.get(dst)
        self._at(arrival, lambda: self._deliver(envelope, incarnation))

    def _deliver(self, envelope: Envelope, incarnation: int | None) -> None:
        node = self.nodes.get(envelope.dst)
        if node is None or self.incarnation[envelope.dst] != incarnation:
            return
        if frozenset((envelope.src, envelope.dst)) in self.cuts:
            return
        if isinstance(envelope.body, VoteRequest):
            self._vote_requests[(node.node_id, envelope.correlation_id)] = envelope.body
        node.deliver(envelope, self.now)
        self._after_call(node)

    # ------------------------------------------------------------------ running
    def step(self) -> bool:
        if not self._queue:
            return False
        self.now, _, fn = heapq.heappop(self._queue)
        fn()
        self.steps += 1
        if self.check:
            self.checker.check(self._touched)
        self._touched = set()
        return True

    def run_for(self, duration_ms: int) -> None:
        end = self.now + duration_ms
        while self._queue and self._queue[0][0] <= end:
            self.step()
        self.now = max(self.now, end)

    def run_until(self, condition: Callable[[], bool], timeout_ms: int) -> bool:
        end = self.now + timeout_ms
        while not condition():
            if not self._queue or self._queue[0][0] > end:
                return False
            self.step()
        return True

    # ------------------------------------------------------------------ observations
    def client(self, node_id: int) -> KafkaRaftClient:
        return self.nodes[node_id].client

    def leader(self) -> int | None:
        """The alive leader of the highest epoch, if any."""
        leaders = [(n.client.epoch, i) for i, n in self.nodes.items() if n.client.role == "Leader"]
        return max(leaders)[1] if leaders else None

    def has_stable_leader(self) -> bool:
        """One alive leader whose high watermark is known and whom every alive voter follows."""
        leader = self.leader()
        if leader is None or self.client(leader).high_watermark is None:
            return False
        expected = LeaderAndEpoch(leader, self.client(leader).epoch)
        return all(n.client.leader_and_epoch == expected for i, n in self.nodes.items()
                   if i in self.voters)

    def propose(self, records: list[Any]) -> int | None:
        """Append to the current leader; returns the last offset, or None if there is no leader."""
        leader = self.leader()
        if leader is None:
            return None
        node = self.nodes[leader]
        node.now = self.now
        offset = node.client.append(records, node.client.epoch)
        self._after_call(node)
        return offset

    def propose_every(self, interval_ms: int, until_ms: int, prefix: str = "r") -> None:
        counter = itertools.count()

        def tick() -> None:
            self.propose([f"{prefix}{next(counter)}"])
            if self.now + interval_ms <= until_ms:
                self._at(self.now + interval_ms, tick)
        self._at(self.now + interval_ms, tick)

    def max_high_watermark(self) -> int:
        return max((log.high_watermark for log in self.logs.values()), default=0)


_correlation = itertools.count(1000)


def single_node(local: int = 1, voters: tuple[int, ...] = (1, 2, 3), stored=None,
                log: CheckedLog | None = None) -> RaftTestNode:
    """One started node, not connected to anything: tests hand it envelopes themselves."""
    store = MemoryQuorumStateStore()
    if stored is not None:
        store.write_election_state(stored)
    endpoints = {v: f"CONTROLLER://localhost:{9092 + v}" for v in voters}
    node = RaftTestNode(local, random.Random(7), endpoints, log or CheckedLog(), store, TIMING)
    node.start(START_MS)
    node.initial_outbox, _ = node.drain()      # what it sent on start-up
    return node


def ask(node: RaftTestNode, body: Any, src: int = 2, now: int = START_MS + 1) -> Any:
    """Deliver a request to ``node``; the response to it, or None if it was parked."""
    envelope = Envelope(src, node.node_id, body, correlation_id=next(_correlation))
    node.deliver(envelope, now)
    return answer_to(node, envelope)


def answer_to(node: RaftTestNode, envelope: Envelope) -> Any:
    out, _ = node.drain()
    answers = [e.body for e in out if e.is_response and e.correlation_id == envelope.correlation_id]
    return answers[0] if answers else None
