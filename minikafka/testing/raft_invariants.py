"""`RaftInvariantChecker`: Raft's safety properties, checked over a quorum of `RaftNode` objects.

Theory of operation
-------------------
Kafka's ``RaftEventSimulationTest`` runs raft clients over a simulated
network and, after every step, checks invariants; this is that checker, for
the sandbox's raft tests, the KRaft stepper and a learner's own experiments
alike.  The vocabulary follows Kafka's:

* election safety: at most one leader per epoch (from the engine's
  ``controller_elected`` events);
* log matching: two logs holding a batch of the same base offset and epoch
  hold the same records after the same previous batch;
* committed batches never change, on any node, and a newly elected leader
  holds every committed batch;
* high watermarks never go back (within one incarnation), and a leader's is
  past its epoch's start offset once known;
* a listener is handed committed batches only, in order and once;
* a node grants one binding vote per epoch, and has persisted it before the
  answer leaves (``on_vote_answer``); its quorum-state history never names
  two candidates for one epoch.

The checker is incremental: it receives live mappings of the quorum's nodes,
logs and quorum-state stores (a restarted node appears again under its id)
and ``check(node_ids)`` looks only at the nodes that ran in the last step,
and only at what changed since (a `CheckedLog` remembers where a truncation
touched it).  `audit` checks a quorum once, as it is now, from scratch (the
stepper's ``check_invariants``): everything above except what needs the past
(events, high watermarks seen before, vote answers in flight), which it
replaces by "no two current leaders of one epoch".  A violation is an
``AssertionError`` naming the node and the offset or epoch.

Mirrors the invariants of Kafka's ``RaftEventSimulationTest``
(``MonotonicHighWatermark``, ``SingleLeader``, ``ConsistentCommittedData``,
``LogMatching``).
"""

from __future__ import annotations

from typing import Any, Mapping, cast

from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import VoteRequest, VoteResponse
from minikafka.raft.quorum_state_store import MemoryQuorumStateStore
from minikafka.raft.raft_node import CommittedRecords, RaftNode
from minikafka.raft.replicated_log import Batch, MemoryReplicatedLog
from minikafka.runtime.events import ClusterEvent


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


class RaftInvariantChecker:
    """Raft's safety properties, checked incrementally after every step (see the module doc)."""

    def __init__(self, nodes: Mapping[int, RaftNode], logs: Mapping[int, MemoryReplicatedLog],
                 stores: Mapping[int, MemoryQuorumStateStore]):
        self.nodes = nodes                                   # node id -> the running node (live view)
        self.logs = logs                                     # node id -> its log (survives restarts)
        self.stores = stores                                 # node id -> its quorum-state store
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

    @classmethod
    def audit(cls, nodes: Mapping[int, RaftNode]) -> list[str]:
        """Check a quorum once, as it is now (each node's own log and quorum-state store);
        the violation found, as one line (empty: none)."""
        # simulated quorums (the stepper, the harness) keep their logs and stores in memory
        checker = cls(nodes, {n: cast(MemoryReplicatedLog, node.log) for n, node in nodes.items()},
                      {n: cast(MemoryQuorumStateStore, node.store) for n, node in nodes.items()})
        try:
            leaders: dict[int, int] = {}
            for node_id, node in nodes.items():
                checker.on_boot(node_id)
                if node.client.role == "Leader":
                    other = leaders.setdefault(node.client.epoch, node_id)
                    assert other == node_id, \
                        f"two leaders in epoch {node.client.epoch}: {other} and {node_id}"
            checker.check(set(nodes))
            for node_id in leaders.values():
                checker._check_leader_has_committed(node_id)
        except AssertionError as violation:
            return [str(violation)]
        return []

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
        log = self.logs[leader]
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
            node = self.nodes.get(node_id)
            if node is None:
                continue
            log = self.logs[node_id]
            self._check_log_matching(node_id, log)
            self._check_committed(node_id, log)
            self._check_high_watermark(node_id, node, log)
            self._check_listener(node_id, node)
            self._check_votes(node_id)

    def _check_log_matching(self, node_id: int, log: MemoryReplicatedLog) -> None:
        start = self.log_checked[node_id]
        if isinstance(log, CheckedLog):
            batches = log.batch_list
            if log.dirty_from is not None:
                start = min(start, log.dirty_from)
                log.dirty_from = None
        else:
            batches = list(log.batches)
        for index in range(start, len(batches)):
            batch = batches[index]
            previous = (batches[index - 1].base_offset, batches[index - 1].epoch) if index else None
            content = (batch.records, previous)
            known = self.canonical.setdefault((batch.base_offset, batch.epoch), content)
            assert known == content, f"log matching violated on node {node_id} at {batch.base_offset}"
        self.log_checked[node_id] = len(batches)

    def _check_committed(self, node_id: int, log: MemoryReplicatedLog) -> None:
        offset = self.commit_checked[node_id]
        while offset < log.high_watermark:
            batch = log.read(offset, 1)[0]
            assert batch.base_offset == offset and batch.last_offset < log.high_watermark
            known = self.committed.setdefault(offset, batch)
            assert known == batch, f"committed batch at {offset} changed on node {node_id}"
            offset = batch.next_offset
        self.commit_checked[node_id] = offset
        self.committed_end = max(self.committed_end, offset)

    def _check_high_watermark(self, node_id: int, node: RaftNode, log: MemoryReplicatedLog) -> None:
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

    def _check_listener(self, node_id: int, node: RaftNode) -> None:
        if not isinstance(node.listener, CommittedRecords):
            return                               # a listener of its own: nothing recorded to check
        recorded = node.listener.batches
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
        stored = self.stores[node_id].read_election_state()
        assert stored is not None and (stored.epoch, stored.voted_id) == key[1:] + (request.replica_id,), \
            f"node {node_id} granted a vote it had not persisted: {stored}"

    def _check_votes(self, node_id: int) -> None:
        history = self.stores[node_id].history
        for state in history[self.votes_checked.get(node_id, 0):]:
            if state.voted_id is not None:
                previous = self.votes.setdefault((node_id, state.epoch), state.voted_id)
                assert previous == state.voted_id, \
                    f"node {node_id} voted for {previous} and {state.voted_id} in epoch {state.epoch}"
        self.votes_checked[node_id] = len(history)


__all__ = ["CheckedLog", "RaftInvariantChecker"]
