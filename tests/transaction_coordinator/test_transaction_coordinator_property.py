"""Random request sequences against the coordinator: the state table, epochs and fencing always hold.

Several producer instances share two transactional ids; each step is one of:
a new instance calls InitProducerId, an instance adds partitions or ends its
transaction, the markers are written, time passes and the timers run, a
``__transaction_state`` write fails, or the coordinator fails over (a fresh
one replays the log).  The cluster's transaction version is drawn once and
every client speaks it.  After every step:

* every state change any metadata made is one the table allows;
* for a producer id, the epoch never goes backwards: in the records of
  ``__transaction_state``, in the answers, and in the cache (also across
  failovers).  The cache may run one ahead of the log: a fence whose record
  failed to be written keeps its bumped epoch in memory, never handed out
  (Kafka's ``hasFailedEpochFence``), and a failover forgets it;
* an instance that a newer one replaced, or whose transaction the
  coordinator aborted on timeout, never gets NONE for AddPartitionsToTxn or
  EndTxn.

Seeded: hypothesis runs derandomized, so a failure reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_marker_channel_manager import TransactionResult
from minikafka.transaction_coordinator.transaction_log import TxnRecord, TxnTombstone, read
from minikafka.transaction_coordinator.transaction_metadata import TransactionMetadata
from minikafka.transaction_coordinator.transaction_state import TransactionState, is_valid_transition
from minikafka.transaction_coordinator.transaction_state_manager_config import TransactionStateManagerConfig
from minikafka.transaction_coordinator.transaction_version import TransactionVersion

from tests.transaction_coordinator.harness import TxnHarness

IDS = ("alpha", "beta")
COMPLETE_TRANSITION_TO = TransactionMetadata.complete_transition_to   # unpatched, whatever the examples patch
PARTITIONS = [TopicPartition("orders", p) for p in range(3)] + [TopicPartition("out", 0)]


@dataclass
class Instance:
    tid: str
    producer_id: int
    epoch: int


INIT = st.tuples(st.just("init"), st.sampled_from(IDS))
ADD = st.tuples(st.just("add"), st.integers(0, 7), st.sets(st.sampled_from(PARTITIONS), min_size=1, max_size=2))
END = st.tuples(st.just("end"), st.integers(0, 7), st.booleans())
MARKERS = st.tuples(st.just("markers"))
# the common moves drawn more often than the faults
ACTIONS = st.one_of(
    INIT, INIT, ADD, ADD, ADD, END, END, END, MARKERS, MARKERS,
    st.tuples(st.just("time"), st.integers(1, 3000)),
    st.tuples(st.just("fail"), st.sampled_from([Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_LEADER_OR_FOLLOWER])),
    st.tuples(st.just("failover")),
)


@pytest.fixture(scope="module")
def monkeypatch_module():
    """One patch for all the examples (hypothesis reruns the test body, not function-scoped fixtures)."""
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from([TransactionVersion.TV_0, TransactionVersion.TV_2]),
       steps=st.lists(ACTIONS, min_size=5, max_size=60))
def test_random_sequences_keep_the_invariants(monkeypatch_module, level, steps):
    moves: list[tuple[TransactionState, TransactionState]] = []
    def recording(self: TransactionMetadata, transit) -> None:
        before = self.state
        COMPLETE_TRANSITION_TO(self, transit)
        moves.append((before, self.state))
    monkeypatch_module.setattr(TransactionMetadata, "complete_transition_to", recording)

    config = TransactionStateManagerConfig(transactional_id_expiration_ms=20000)
    h = TxnHarness(level=level, partitions=3, config=config)
    instances: list[Instance] = []
    current: dict[str, Instance | None] = {tid: None for tid in IDS}   # the instance not fenced, per id
    now = 0
    epoch_of_coordinator = 1

    for step in steps:
        kind = step[0]
        if kind == "init":
            tid = step[1]
            before = _logged_epoch(h, tid)
            answer = h.run(h.coordinator.handle_init_producer_id(tid, 1000, now), now)
            if answer.error == Errors.NONE:
                instance = Instance(tid, answer.producer_id, answer.producer_epoch)
                instances.append(instance)
                current[tid] = instance
            elif _logged_epoch(h, tid) != before:
                current[tid] = None      # an open transaction was aborted with a fence: its producer is fenced
        elif kind == "add" and instances:
            instance = instances[step[1] % len(instances)]
            answer = h.run(h.coordinator.handle_add_partitions_to_transaction(
                instance.tid, instance.producer_id, instance.epoch, frozenset(step[2]), level, now), now)
            event(f"AddPartitionsToTxn: {answer.name}")
            if answer == Errors.NONE:
                assert current[instance.tid] is instance, f"a fenced producer added partitions: {instance}"
        elif kind == "end" and instances:
            instance = instances[step[1] % len(instances)]
            result = TransactionResult.COMMIT if step[2] else TransactionResult.ABORT
            answer = h.run(h.coordinator.handle_end_transaction(
                instance.tid, instance.producer_id, instance.epoch, result, level, now), now)
            event(f"EndTxn: {answer.error.name}")
            if answer.error == Errors.NONE:
                assert current[instance.tid] is instance, f"a fenced producer ended a transaction: {instance}"
                if level.supports_epoch_bump():
                    instance.producer_id, instance.epoch = answer.producer_id, answer.producer_epoch
        elif kind == "markers":
            h.write_markers(now)
        elif kind == "time":
            now += step[1]
            before = {tid: _logged_epoch(h, tid) for tid in IDS}
            h.run(h.coordinator.abort_timed_out_transactions(now), now)
            h.run(h.coordinator.remove_expired_transactional_ids(now), now)
            for tid in IDS:
                if _logged_epoch(h, tid) != before[tid]:
                    current[tid] = None  # the coordinator fenced the producer of a timed-out transaction
        elif kind == "fail":
            h.fail_next = [step[1]]
        elif kind == "failover":
            h.fail_next = []
            epoch_of_coordinator += 1
            h.failover(epoch_of_coordinator, now)

        logged: dict[int, int] = {}
        for records in h.log.values():
            for key, value in records:
                record = read(key, value)
                if isinstance(record, TxnRecord) and record.metadata.producer_epoch >= 0:
                    md = record.metadata
                    assert md.producer_epoch >= logged.get(md.producer_id, -1), f"the log's epoch went back: {md}"
                    logged[md.producer_id] = md.producer_epoch
        for instance in instances:
            assert instance.epoch <= logged.get(instance.producer_id, -1), f"an epoch not in the log: {instance}"
        for md in h.coordinator.txn_manager.all_metadata():
            assert md.state in TransactionState
            if md.producer_epoch >= 0:
                assert md.producer_epoch >= logged.get(md.producer_id, -1), f"the cache is behind the log: {md}"
        for before, after in moves:
            assert is_valid_transition(before, after), f"illegal move {before} -> {after}"
        moves.clear()


def _logged_epoch(h: TxnHarness, tid: str) -> tuple[int, int] | None:
    """The producer id and epoch of the id's last record in ``__transaction_state`` (a fence counts once written)."""
    last = None
    for key, value in h.log[h.coordinator.partition_for(tid)]:
        record = read(key, value)
        if isinstance(record, TxnRecord) and record.transactional_id == tid:
            last = (record.metadata.producer_id, record.metadata.producer_epoch)
        elif isinstance(record, TxnTombstone) and record.transactional_id == tid:
            last = None
    return last

