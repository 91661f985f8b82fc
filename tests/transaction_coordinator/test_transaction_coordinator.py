"""The transactional requests, as Kafka 4.3.1's TransactionCoordinator answers them (sans-IO)."""

from __future__ import annotations

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_coordinator import (
    AddPartitionsToTxnTransaction, EndTxnResult, InitProducerIdResult, ProducerIdAndEpoch,
)
from minikafka.transaction_coordinator.transaction_log import TxnRecord, read
from minikafka.transaction_coordinator.transaction_marker_channel_manager import TransactionResult
from minikafka.transaction_coordinator.transaction_state import TransactionState
from minikafka.transaction_coordinator.transaction_state_manager_config import TransactionStateManagerConfig
from minikafka.transaction_coordinator.transaction_version import TransactionVersion

from tests.transaction_coordinator.harness import TP0, TP1, TxnHarness

S = TransactionState
TV0, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_2
COMMIT, ABORT = TransactionResult.COMMIT, TransactionResult.ABORT


def init(h: TxnHarness, tid: str = "t", now: int = 0, timeout: int = 60000,
         expected: ProducerIdAndEpoch | None = None) -> InitProducerIdResult:
    return h.run(h.coordinator.handle_init_producer_id(tid, timeout, now, expected), now)


def add(h: TxnHarness, pid: int, epoch: int, *tps: TopicPartition, tid: str = "t", now: int = 0,
        tv: TransactionVersion = TV2) -> Errors:
    return h.run(h.coordinator.handle_add_partitions_to_transaction(tid, pid, epoch, frozenset(tps), tv, now), now)


def end(h: TxnHarness, pid: int, epoch: int, result: TransactionResult, tid: str = "t", now: int = 0,
        tv: TransactionVersion = TV2) -> EndTxnResult:
    return h.run(h.coordinator.handle_end_transaction(tid, pid, epoch, result, tv, now), now)


def last_record(h: TxnHarness, tid: str = "t"):
    key, value = h.log[h.coordinator.partition_for(tid)][-1]
    return read(key, value)


# ---------------------------------------------------------------------------- InitProducerId
def test_a_new_transactional_id_gets_a_producer_id_and_epoch_0():
    h = TxnHarness()
    assert init(h) == InitProducerIdResult(1000, 0, Errors.NONE)
    record = last_record(h)
    assert isinstance(record, TxnRecord) and record.metadata.state == S.EMPTY
    assert h.metadata("t").producer_epoch == 0


def test_each_init_bumps_the_epoch_and_fences_the_older_instance():
    h = TxnHarness()
    first = init(h)
    second = init(h)
    assert (second.producer_id, second.producer_epoch) == (1000, 1)
    assert add(h, first.producer_id, first.producer_epoch, TP0) == Errors.PRODUCER_FENCED
    assert init(h, expected=ProducerIdAndEpoch(999, 0)).error == Errors.PRODUCER_FENCED
    assert init(h, expected=ProducerIdAndEpoch(1000, 1)) == InitProducerIdResult(1000, 2, Errors.NONE)


def test_init_is_refused_with_kafkas_errors():
    h = TxnHarness()
    assert init(h, tid="").error == Errors.INVALID_REQUEST
    assert init(h, timeout=900001).error == Errors.INVALID_TRANSACTION_TIMEOUT
    assert init(h, timeout=0).error == Errors.INVALID_TRANSACTION_TIMEOUT
    assert h.run(h.coordinator.handle_init_producer_id("t", 1000, 0, enable_two_pc=True), 0).error == \
        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    assert h.run(h.coordinator.handle_init_producer_id(None, 1000, 0), 0) == InitProducerIdResult(1000, 0, Errors.NONE)


def test_an_open_transaction_is_aborted_first_and_the_producer_retries():
    h = TxnHarness()
    zombie = init(h)
    assert add(h, zombie.producer_id, zombie.producer_epoch, TP0, TP1) == Errors.NONE
    assert init(h).error == Errors.CONCURRENT_TRANSACTIONS          # the abort is under way
    (marker,) = h.markers
    assert (marker.result, marker.partitions, marker.coordinator_epoch) == (ABORT, frozenset({TP0, TP1}), 1)
    md = h.metadata("t")
    assert md.state == S.PREPARE_ABORT and md.pending_state == S.COMPLETE_ABORT
    assert marker.producer_epoch == md.producer_epoch > zombie.producer_epoch
    assert init(h).error == Errors.CONCURRENT_TRANSACTIONS          # markers not written yet
    # the zombie is fenced everywhere
    assert add(h, zombie.producer_id, zombie.producer_epoch, TP0) == Errors.CONCURRENT_TRANSACTIONS
    h.write_markers(1)
    assert h.metadata("t").state == S.COMPLETE_ABORT
    assert add(h, zombie.producer_id, zombie.producer_epoch, TP0) == Errors.PRODUCER_FENCED
    assert end(h, zombie.producer_id, zombie.producer_epoch, COMMIT).error == Errors.PRODUCER_FENCED
    successor = init(h, now=2)
    assert successor.error == Errors.NONE and successor.producer_epoch > marker.producer_epoch


# ---------------------------------------------------------------------------- a transaction
def test_tv2_commit_bumps_the_epoch_and_writes_markers():
    h = TxnHarness()
    p = init(h)
    assert add(h, p.producer_id, 0, TP0, now=5) == Errors.NONE
    assert add(h, p.producer_id, 0, TP0, now=6) == Errors.NONE       # already in: no record
    assert len(h.log[h.coordinator.partition_for("t")]) == 2
    answer = end(h, p.producer_id, 0, COMMIT, now=7)
    assert answer == EndTxnResult(Errors.NONE, 1000, 1)
    (marker,) = h.markers
    assert (marker.producer_id, marker.producer_epoch, marker.result, marker.partitions) == (
        1000, 1, COMMIT, frozenset({TP0}))
    assert end(h, p.producer_id, 0, COMMIT, now=8).error == Errors.CONCURRENT_TRANSACTIONS  # a retry, meanwhile
    h.write_markers(9)
    md = h.metadata("t")
    assert (md.state, md.producer_epoch, md.topic_partitions, md.pending_state) == (
        S.COMPLETE_COMMIT, 1, frozenset(), None)
    assert end(h, p.producer_id, 0, COMMIT, now=10) == EndTxnResult(Errors.NONE, 1000, 1)   # retry after the end
    assert end(h, p.producer_id, 0, ABORT, now=10).error == Errors.INVALID_TXN_STATE
    assert end(h, p.producer_id, 1, COMMIT, now=10).error == Errors.INVALID_TXN_STATE
    assert add(h, p.producer_id, 1, TP1, now=11) == Errors.NONE      # the next transaction, at the new epoch


def test_tv0_commit_keeps_the_epoch_and_answers_without_it():
    h = TxnHarness()
    p = init(h)
    assert add(h, p.producer_id, 0, TP0, tv=TV0) == Errors.NONE
    assert end(h, p.producer_id, 0, COMMIT, tv=TV0) == EndTxnResult(Errors.NONE)
    h.write_markers(1)
    assert (h.metadata("t").state, h.metadata("t").producer_epoch) == (S.COMPLETE_COMMIT, 0)
    assert end(h, p.producer_id, 0, COMMIT, tv=TV0) == EndTxnResult(Errors.NONE)     # idempotent
    assert end(h, p.producer_id, 0, ABORT, tv=TV0).error == Errors.INVALID_TXN_STATE


def test_end_txn_out_of_order():
    h = TxnHarness()
    assert end(h, 5, 0, COMMIT).error == Errors.INVALID_PRODUCER_ID_MAPPING              # unknown id
    p = init(h)
    assert end(h, p.producer_id, 0, COMMIT, tv=TV0).error == Errors.INVALID_TXN_STATE    # no transaction
    assert end(h, p.producer_id, 0, COMMIT).error == Errors.INVALID_TXN_STATE
    assert end(h, p.producer_id + 1, 0, COMMIT).error == Errors.INVALID_PRODUCER_ID_MAPPING
    assert end(h, p.producer_id, 3, ABORT).error == Errors.PRODUCER_FENCED               # an epoch from the future
    assert end(h, 0, 0, COMMIT, tid="").error == Errors.INVALID_REQUEST
    # TV 2: an abort without a transaction is allowed (the client may not know) and bumps the epoch
    assert end(h, p.producer_id, 0, ABORT) == EndTxnResult(Errors.NONE, 1000, 1)
    assert h.markers == [] and h.metadata("t").state == S.COMPLETE_ABORT


def test_add_partitions_errors():
    h = TxnHarness()
    assert add(h, 1, 0, TP0) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert add(h, 1, 0, TP0, tid="") == Errors.INVALID_REQUEST
    p = init(h)
    assert add(h, p.producer_id + 1, 0, TP0) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert add(h, p.producer_id, 1, TP0) == Errors.PRODUCER_FENCED


def test_verify_only_and_the_batch_form():
    h = TxnHarness()
    p = init(h)
    add(h, p.producer_id, 0, TP0)
    c = h.coordinator
    assert c.handle_verify_partitions_in_transaction("t", p.producer_id, 0, frozenset({TP0, TP1})) == {
        TP0: Errors.NONE, TP1: Errors.TRANSACTION_ABORTABLE}
    assert c.handle_verify_partitions_in_transaction("u", 1, 0, frozenset({TP0})) == {
        TP0: Errors.INVALID_PRODUCER_ID_MAPPING}
    txn = AddPartitionsToTxnTransaction("t", p.producer_id, 0, frozenset({TP1}))
    assert h.run(c.handle_add_partitions_to_txn(txn, 5, 1), 1) == {TP1: Errors.NONE}
    assert h.metadata("t").topic_partitions == {TP0, TP1}
    assert h.metadata("t").client_transaction_version == TV2


def test_add_offsets_adds_the_groups_offsets_partition():
    h = TxnHarness()
    p = init(h)
    assert h.run(h.coordinator.handle_add_offsets_to_transaction("t", p.producer_id, 0, "my-group", 50, 1), 1) \
        == Errors.NONE
    assert h.metadata("t").topic_partitions == {TopicPartition("__consumer_offsets", 12)}


def test_loading_and_ownership_errors():
    h = TxnHarness(partitions=2)
    c = h.coordinator
    c.on_election(c.partition_for("t"), 2)
    assert init(h).error == Errors.COORDINATOR_LOAD_IN_PROGRESS
    c.on_resignation(c.partition_for("t"))
    assert init(h).error == Errors.NOT_COORDINATOR
    assert c.handle_describe_transactions("t").error == Errors.NOT_COORDINATOR


def test_a_failed_write_is_answered_and_forgotten():
    h = TxnHarness()
    p = init(h)
    h.fail_next = [Errors.NOT_ENOUGH_REPLICAS]
    assert add(h, p.producer_id, 0, TP0) == Errors.COORDINATOR_NOT_AVAILABLE
    assert h.metadata("t").pending_state is None and h.metadata("t").state == S.EMPTY
    h.fail_next = [Errors.NOT_LEADER_OR_FOLLOWER]
    assert add(h, p.producer_id, 0, TP0) == Errors.NOT_COORDINATOR
    assert add(h, p.producer_id, 0, TP0) == Errors.NONE


def test_describe():
    h = TxnHarness()
    assert h.coordinator.handle_describe_transactions("t").error == Errors.TRANSACTIONAL_ID_NOT_FOUND
    p = init(h)
    add(h, p.producer_id, 0, TP0, now=3)
    d = h.coordinator.handle_describe_transactions("t")
    assert (d.error, d.state, d.producer_id, d.producer_epoch, d.transaction_start_time_ms, d.partitions) == (
        Errors.NONE, "Ongoing", 1000, 0, 3, frozenset({TP0}))


# ---------------------------------------------------------------------------- timers
def test_a_timed_out_transaction_is_aborted_and_its_producer_fenced():
    h = TxnHarness()
    p = init(h, timeout=1000)
    add(h, p.producer_id, 0, TP0, now=10)
    assert h.run(h.coordinator.abort_timed_out_transactions(1010), 1010) is None
    assert h.markers == []                                   # not yet: 10 + 1000 is not past
    h.run(h.coordinator.abort_timed_out_transactions(1011), 1011)
    (marker,) = h.markers
    assert marker.result == ABORT and marker.producer_epoch > 0
    h.write_markers(1012)
    assert h.metadata("t").state == S.COMPLETE_ABORT
    assert end(h, p.producer_id, 0, COMMIT, now=1013).error == Errors.PRODUCER_FENCED
    assert add(h, p.producer_id, 0, TP0, now=1013) == Errors.PRODUCER_FENCED


def test_a_tv0_cluster_fences_with_one_bump():
    h = TxnHarness(level=TV0)
    p = init(h, timeout=1000)
    add(h, p.producer_id, 0, TP0, now=10, tv=TV0)
    h.run(h.coordinator.abort_timed_out_transactions(2000), 2000)
    assert h.metadata("t").producer_epoch == 1 and h.markers[0].producer_epoch == 1


def test_an_idle_transactional_id_expires():
    config = TransactionStateManagerConfig(transactional_id_expiration_ms=5000)
    h = TxnHarness(config=config)
    init(h, now=0)
    h.run(h.coordinator.remove_expired_transactional_ids(4999), 4999)
    assert h.metadata("t") is not None
    h.run(h.coordinator.remove_expired_transactional_ids(5000), 5000)
    assert h.metadata("t") is None
    assert h.log[h.coordinator.partition_for("t")][-1][1] is None        # the tombstone
    h.failover(2)
    assert h.metadata("t") is None


# ---------------------------------------------------------------------------- failover
def fields(md):
    return (md.producer_id, md.prev_producer_id, md.next_producer_id, md.producer_epoch, md.txn_timeout_ms,
            md.state, md.topic_partitions, md.txn_start_timestamp, md.txn_last_update_timestamp,
            md.client_transaction_version)


def test_replay_gives_the_same_metadata():
    h = TxnHarness()
    p = init(h)
    add(h, p.producer_id, 0, TP0, TP1, now=4)
    before = fields(h.metadata("t"))
    h.failover(2)
    assert fields(h.metadata("t")) == before
    end(h, p.producer_id, 0, COMMIT, now=6)
    h.write_markers(7)
    before = fields(h.metadata("t"))
    h.failover(3)
    assert fields(h.metadata("t")) == before


def test_a_prepared_transaction_resumes_its_markers_after_a_failover():
    h = TxnHarness()
    p = init(h)
    add(h, p.producer_id, 0, TP0, now=4)
    end(h, p.producer_id, 0, COMMIT, now=6)
    assert h.metadata("t").state == S.PREPARE_COMMIT
    h.failover(2, now=8)                                      # the markers were never written
    (marker,) = h.markers
    assert (marker.result, marker.partitions, marker.coordinator_epoch, marker.producer_epoch) == (
        COMMIT, frozenset({TP0}), 2, 1)
    assert init(h).error == Errors.CONCURRENT_TRANSACTIONS
    h.write_markers(9)
    assert h.metadata("t").state == S.COMPLETE_COMMIT
    assert init(h, now=10, expected=ProducerIdAndEpoch(1000, 1)) == InitProducerIdResult(1000, 2, Errors.NONE)


# ---------------------------------------------------------------------------- running out of epochs
def test_tv2_end_txn_at_the_last_epoch_moves_to_a_new_producer_id():
    h = TxnHarness()
    p = init(h)
    h.metadata("t").producer_epoch = 32766          # as if 32766 transactions had ended (Kafka's test setter)
    add(h, p.producer_id, 32766, TP0, now=1)
    answer = end(h, p.producer_id, 32766, COMMIT, now=2)
    assert answer == EndTxnResult(Errors.NONE, 1000, 32767)
    assert h.metadata("t").next_producer_id == 1001
    h.write_markers(3)
    md = h.metadata("t")
    assert (md.producer_id, md.producer_epoch, md.prev_producer_id, md.state) == (1001, 0, 1000, S.COMPLETE_COMMIT)
    # a retry of the EndTxn that overflowed is recognised by the previous id and the last epoch
    assert end(h, 1000, 32766, COMMIT, now=4) == EndTxnResult(Errors.NONE, 1001, 0)


def test_init_at_the_last_epoch_rotates_the_producer_id():
    h = TxnHarness()
    init(h)
    h.metadata("t").producer_epoch = 32766
    assert init(h, now=1) == InitProducerIdResult(1001, 0, Errors.NONE)
    md = h.metadata("t")
    assert (md.prev_producer_id, md.last_producer_epoch) == (1000, -1)
