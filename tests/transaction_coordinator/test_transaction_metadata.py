"""TransactionMetadata's two-step moves, as Kafka 4.3.1's TransactionMetadata makes them."""

from __future__ import annotations

import pytest

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_metadata import TransactionMetadata
from minikafka.transaction_coordinator.transaction_state import IllegalStateException, TransactionState
from minikafka.transaction_coordinator.transaction_version import TransactionVersion

S = TransactionState
TV0, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_2
TP = TopicPartition("orders", 0)


def fresh(epoch: int = -1, state: TransactionState = S.EMPTY, tv: TransactionVersion = TV2) -> TransactionMetadata:
    return TransactionMetadata("t", 1000, -1, -1, epoch, -1, 60000, state, (), -1, 0, tv)


def move(md: TransactionMetadata, transit) -> TransactionMetadata:
    md.complete_transition_to(transit)
    return md


def test_a_new_producer_gets_epoch_0_then_each_init_bumps_it():
    md = fresh()
    transit = md.prepare_increment_producer_epoch(60000, None, 10)
    assert md.pending_state == S.EMPTY and (transit.producer_epoch, transit.last_producer_epoch) == (0, -1)
    move(md, transit)
    assert (md.producer_epoch, md.pending_state, md.txn_last_update_timestamp) == (0, None, 10)
    move(md, md.prepare_increment_producer_epoch(60000, None, 20))
    assert md.producer_epoch == 1


def test_init_with_an_expected_epoch_bumps_repeats_or_fences():
    md = fresh(epoch=5)
    md.last_producer_epoch = 4
    assert md.prepare_increment_producer_epoch(60000, 5, 1).producer_epoch == 6   # the same producer recovering
    md.abort_pending_transition()
    retry = md.prepare_increment_producer_epoch(60000, 4, 1)                       # a retry of a bump that worked
    assert (retry.producer_epoch, retry.last_producer_epoch) == (5, 4)
    md.abort_pending_transition()
    with pytest.raises(KafkaException) as raised:
        md.prepare_increment_producer_epoch(60000, 2, 1)
    assert raised.value.error == Errors.PRODUCER_FENCED


def test_a_second_prepare_while_one_is_pending_is_refused():
    md = fresh(epoch=0)
    md.prepare_add_partitions({TP}, 5, TV2)
    with pytest.raises(IllegalStateException, match="while it already a pending state ONGOING"):
        md.prepare_add_partitions({TP}, 6, TV2)


def test_tv2_end_txn_bumps_the_epoch_and_complete_keeps_it():
    md = fresh(epoch=3)
    move(md, md.prepare_add_partitions({TP}, 5, TV2))
    assert (md.state, md.txn_start_timestamp, md.topic_partitions) == (S.ONGOING, 5, frozenset({TP}))
    move(md, md.prepare_abort_or_commit(S.PREPARE_COMMIT, TV2, -1, 7, False))
    assert (md.state, md.producer_epoch, md.last_producer_epoch) == (S.PREPARE_COMMIT, 4, 3)
    move(md, md.prepare_complete(9))
    assert (md.state, md.producer_epoch, md.topic_partitions, md.txn_start_timestamp) == (
        S.COMPLETE_COMMIT, 4, frozenset(), 5)


def test_tv0_end_txn_keeps_the_epoch():
    md = fresh(epoch=3, tv=TV0)
    move(md, md.prepare_add_partitions({TP}, 5, TV0))
    move(md, md.prepare_abort_or_commit(S.PREPARE_ABORT, TV0, -1, 7, False))
    move(md, md.prepare_complete(9))
    assert (md.state, md.producer_epoch) == (S.COMPLETE_ABORT, 3)


def test_tv2_epoch_overflow_moves_to_the_next_producer_id_at_epoch_0():
    md = fresh(epoch=32766)
    move(md, md.prepare_add_partitions({TP}, 5, TV2))
    move(md, md.prepare_abort_or_commit(S.PREPARE_COMMIT, TV2, 2000, 7, False))
    assert (md.producer_epoch, md.next_producer_id) == (32767, 2000)
    move(md, md.prepare_complete(9))
    assert (md.producer_id, md.prev_producer_id, md.producer_epoch, md.last_producer_epoch) == (2000, 1000, 0, 32766)


def test_the_fence_bumps_once_and_turns_into_an_abort():
    md = fresh(epoch=2, tv=TV0)
    move(md, md.prepare_add_partitions({TP}, 5, TV0))
    fence = md.prepare_fence_producer_epoch()
    assert (fence.txn_state, fence.producer_epoch) == (S.PREPARE_EPOCH_FENCE, 3)
    md.begin_fenced_abort(fence.producer_epoch)
    move(md, md.prepare_abort_or_commit(S.PREPARE_ABORT, TV0, -1, 8, False))
    assert (md.state, md.producer_epoch, md.last_producer_epoch) == (S.PREPARE_ABORT, 3, -1)


def test_complete_refuses_a_picture_that_does_not_follow():
    md = fresh(epoch=2)
    transit = md.prepare_increment_producer_epoch(60000, None, 1)
    import dataclasses
    with pytest.raises(IllegalStateException, match="failed transition to state"):
        md.complete_transition_to(dataclasses.replace(transit, producer_epoch=7))


def test_complete_without_a_prepare_is_refused():
    md = fresh(epoch=2)
    with pytest.raises(IllegalStateException, match="does not have a pending state"):
        md.complete_transition_to(md.snapshot())


def test_dead_is_never_completed():
    md = fresh(epoch=2)
    transit = md.prepare_dead()
    with pytest.raises(IllegalStateException, match="only acceptable completion"):
        md.complete_transition_to(transit)
