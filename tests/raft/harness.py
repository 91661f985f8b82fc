"""A deterministic network of KRaft replicas in virtual time, with faults and invariant checks.

Every node is a `RaftTestNode`: the package's `RaftNode` (a `Node` hosting one
`KafkaRaftClient`) with a listener that checks committed batches arrive in order.  `Simulation` owns the clock and
one event queue; messages get a seeded latency, keep their order per pair of
nodes (as TCP does), may be dropped, and do not cross a network cut.
Killing a node discards its in-memory state; its log keeps only flushed
batches (`MemoryReplicatedLog.reopen`) and its quorum state store survives,
as a disk would.  `InvariantChecker.check` runs after every step on the
nodes that ran in it (the vocabulary follows Kafka's
``RaftEventSimulationTest``): one leader per epoch, log matching, committed
batches never change or go missing from a new leader, monotonic high
watermarks, listeners fed committed batches in order and once, and every
granted vote unique per epoch and persisted before it is sent.

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
from minikafka.raft.raft_node import RaftNode
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import VoteRequest, VoteResponse
from minikafka.runtime.events import ClusterEvent
from minikafka.runtime.node import Envelope
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


class CheckedLog(MemoryReplicatedLog):
    """A memory log that remembers the lowest batch index a truncation touched."""

    dirty_from: int | None = None

    @property
    def batch_list(self) -> list[Batch]:
        """The live list (no copy), for the per-step checks."""
        return self._batches

    def truncate_to(self, offset: int) -> None:
        before = len(self.batches)
        super().truncate_to(offset)
        if len(self.batches) < before:
            index = len(self.batches)
            self.dirty_from = index if self.dirty_from is None else min(self.dirty_from, index)


class CommitRecorder:
    """A listener that insists on contiguous, once-only delivery."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.leader_changes: list[LeaderAndEpoch] = []

    @property
    def next_offset(self) -> int:
        return self.batches[-1].next_offset if self.batches else 0

    def handle_commit(self, batch: Batch) -> None:
        assert batch.base_offset == self.next_offset, \
            f"commit of {batch.base_offset} but expected {self.next_offset}"
        self.batches.append(batch)

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leader_changes.append(leader)


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
        self.checker = InvariantChecker(self)
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


class InvariantChecker:
    """Raft's safety properties, checked incrementally after every step."""

    def __init__(self, sim: Simulation):
        self.sim = sim
        self.leader_of_epoch: dict[int, int] = {}            # election safety
        self.committed: dict[int, Batch] = {}                # base offset -> batch, global
        self.committed_end = 0                               # end of the global committed prefix
        self.canonical: dict[tuple[int, int], tuple[Any, ...]] = {}   # (base, epoch) -> (records, prev key)
        self.log_checked: dict[int, int] = {}                # node -> batches checked for log matching
        self.commit_checked: dict[int, int] = {}             # node -> offset verified as committed
        self.recorded_checked: dict[int, int] = {}           # node -> listener batches verified
        self.hw_seen: dict[int, tuple[int, int]] = {}        # node -> (client hw, log hw) this incarnation
        self.votes: dict[tuple[int, int], int] = {}          # (node, epoch) -> voted id, across restarts
        self.votes_checked: dict[int, int] = {}
        self.granted: dict[tuple[int, int], int] = {}        # (node, epoch) -> candidate, from answers

    def on_boot(self, node_id: int) -> None:
        self.log_checked[node_id] = 0
        self.commit_checked[node_id] = 0
        self.recorded_checked[node_id] = 0
        self.hw_seen[node_id] = (-1, -1)

    def on_events(self, events: list[ClusterEvent]) -> None:
        for event in events:
            if event.kind == "controller_elected":
                epoch, leader = event.data["epoch"], event.data["leader"]
                previous = self.leader_of_epoch.setdefault(epoch, leader)
                assert previous == leader, f"two leaders in epoch {epoch}: {previous} and {leader}"
                self._check_leader_has_committed(leader)

    def _check_leader_has_committed(self, leader: int) -> None:
        log = self.sim.logs[leader]
        for batch in log.read(0, max_batches=1 << 30):
            if batch.base_offset >= self.committed_end:
                break
            assert self.committed[batch.base_offset] == batch, \
                f"new leader {leader} has a different committed batch at {batch.base_offset}"
        assert log.end_offset >= self.committed_end, \
            f"new leader {leader} lacks committed data: LEO {log.end_offset} < {self.committed_end}"

    def check(self, node_ids: set[int]) -> None:
        """Check the nodes that ran in the last step (only they can have changed)."""
        for node_id in node_ids:
            node = self.sim.nodes.get(node_id)
            if node is None:
                continue
            log = self.sim.logs[node_id]
            self._check_log_matching(node_id, log)
            self._check_committed(node_id, log)
            self._check_high_watermark(node_id, node, log)
            self._check_listener(node_id, node)
            self._check_votes(node_id)

    def _check_log_matching(self, node_id: int, log: CheckedLog) -> None:
        batches = log.batch_list
        start = self.log_checked[node_id]
        if log.dirty_from is not None:
            start = min(start, log.dirty_from)
            log.dirty_from = None
        for index in range(start, len(batches)):
            batch = batches[index]
            previous = (batches[index - 1].base_offset, batches[index - 1].epoch) if index else None
            content = (batch.records, previous)
            known = self.canonical.setdefault((batch.base_offset, batch.epoch), content)
            assert known == content, f"log matching violated on node {node_id} at {batch.base_offset}"
        self.log_checked[node_id] = len(batches)

    def _check_committed(self, node_id: int, log: CheckedLog) -> None:
        offset = self.commit_checked[node_id]
        while offset < log.high_watermark:
            batch = log.read(offset, 1)[0]
            assert batch.base_offset == offset and batch.last_offset < log.high_watermark
            known = self.committed.setdefault(offset, batch)
            assert known == batch, f"committed batch at {offset} changed on node {node_id}"
            offset = batch.next_offset
        self.commit_checked[node_id] = offset
        self.committed_end = max(self.committed_end, offset)

    def _check_high_watermark(self, node_id: int, node: RaftTestNode, log: CheckedLog) -> None:
        client_hw, log_hw = self.hw_seen[node_id]
        current = node.client.high_watermark
        if current is not None:
            assert current >= client_hw, f"high watermark of {node_id} fell {client_hw} -> {current}"
            client_hw = current
        assert log.high_watermark >= log_hw, f"log high watermark of {node_id} fell"
        self.hw_seen[node_id] = (client_hw, log.high_watermark)
        state = node.client.quorum.state
        if isinstance(state, LeaderState) and state.high_watermark is not None:
            assert state.high_watermark > state.epoch_start_offset

    def _check_listener(self, node_id: int, node: RaftTestNode) -> None:
        recorded = node.recorder.batches
        for index in range(self.recorded_checked[node_id], len(recorded)):
            batch = recorded[index]
            assert self.committed.get(batch.base_offset) == batch, \
                f"node {node_id} delivered an uncommitted or different batch at {batch.base_offset}"
        self.recorded_checked[node_id] = len(recorded)

    def on_vote_answer(self, node_id: int, request: VoteRequest, response: VoteResponse) -> None:
        """A granted binding vote must be unique per epoch and already on disk."""
        if request.pre_vote or not response.vote_granted:
            return
        key = (node_id, request.replica_epoch)
        previous = self.granted.setdefault(key, request.replica_id)
        assert previous == request.replica_id, \
            f"node {node_id} granted votes to {previous} and {request.replica_id} in epoch {key[1]}"
        stored = self.sim.stores[node_id].read_election_state()
        assert stored is not None and (stored.epoch, stored.voted_id) == key[1:] + (request.replica_id,), \
            f"node {node_id} granted a vote it had not persisted: {stored}"

    def _check_votes(self, node_id: int) -> None:
        history = self.sim.stores[node_id].history
        for state in history[self.votes_checked.get(node_id, 0):]:
            if state.voted_id is not None:
                previous = self.votes.setdefault((node_id, state.epoch), state.voted_id)
                assert previous == state.voted_id, \
                    f"node {node_id} voted for {previous} and {state.voted_id} in epoch {state.epoch}"
        self.votes_checked[node_id] = len(history)
