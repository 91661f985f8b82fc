"""``TransactionMetadata``: what the coordinator knows of one transactional id, and its legal moves.

Theory of operation
-------------------
One object per transactional id, in the coordinator's cache: the producer id
and epoch the id currently owns, the previous ones (so that a retry after a
lost answer is recognised rather than fenced), the transaction's timeout,
state, partitions and timestamps, and the transaction version the client
last spoke.

Every change goes in two steps (see `TxnTransitMetadata`):

1. a ``prepare_*`` method computes the new picture for one kind of move and
   checks it against the state table (`transaction_state.check_transition`);
   the metadata remembers the target as its *pending state*, and any other
   request for this id meanwhile gets CONCURRENT_TRANSACTIONS;
2. once the record is in ``__transaction_state``, `complete_transition_to`
   checks the picture once more (the epoch may only stay, go up by one, or
   restart at 0 with a new producer id; partitions may only be added while
   ongoing; ...) and copies it over.  A failed write calls
   `abort_pending_transition` instead.

The moves:

* `prepare_increment_producer_epoch` (InitProducerId on an idle id): epoch + 1,
  or the same epoch for a retry that carries the last epoch; a producer that
  claims an epoch that is neither is fenced (PRODUCER_FENCED);
* `prepare_producer_id_rotation`: the epoch ran out (32766): a new producer id
  at epoch 0;
* `prepare_fence_producer_epoch`: the coordinator aborts an ongoing transaction
  by itself; the epoch goes up by one so the old producer is fenced;
* `prepare_add_partitions` (AddPartitionsToTxn, AddOffsetsToTxn): Ongoing;
* `prepare_abort_or_commit` (EndTxn): PrepareCommit/PrepareAbort; under
  transaction version 2 the epoch goes up by one at each EndTxn (KIP-890), and
  when it would run out the next producer id is chosen now, to be used from
  the next transaction on;
* `prepare_complete` (markers written): CompleteCommit/CompleteAbort;
* `prepare_dead` (transactional.id.expiration.ms): the id is removed.

Mirrors ``org.apache.kafka.coordinator.transaction.TransactionMetadata``
(Kafka 4.3.1).  Simplified: no lock (the sandbox's coordinator runs on one
thread); no two-phase-commit (KIP-939) timeouts.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_state import (
    IllegalArgumentException, IllegalStateException, TransactionState, check_transition,
)
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
SHORT_MAX = 32767


def is_epoch_exhausted(producer_epoch: int) -> bool:
    """May no more epochs be handed out?  Kafka keeps 32767 back so it can always fence once more."""
    return producer_epoch >= SHORT_MAX - 1


class TransactionMetadata:
    """The cache entry of one transactional id (fields as Kafka names them)."""

    def __init__(self, transactional_id: str, producer_id: int, prev_producer_id: int, next_producer_id: int,
                 producer_epoch: int, last_producer_epoch: int, txn_timeout_ms: int, state: TransactionState,
                 topic_partitions: Iterable[TopicPartition], txn_start_timestamp: int,
                 txn_last_update_timestamp: int, client_transaction_version: TransactionVersion):
        self.transactional_id = transactional_id
        self.producer_id = producer_id                  # the id the producer writes with
        self.prev_producer_id = prev_producer_id        # the id before the last rotation (-1: none)
        self.next_producer_id = next_producer_id        # TV 2: the id chosen for after this transaction (-1)
        self.producer_epoch = producer_epoch            # -1 until the first InitProducerId completes
        self.last_producer_epoch = last_producer_epoch  # the epoch before the last bump, for retries (-1)
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.topic_partitions: frozenset[TopicPartition] = frozenset(topic_partitions)
        self.txn_start_timestamp = txn_start_timestamp  # ms when the first partition was added; -1: none
        self.txn_last_update_timestamp = txn_last_update_timestamp  # ms; drives id expiration
        self.client_transaction_version = client_transaction_version
        self.pending_state: TransactionState | None = None   # the target of a prepared, unwritten move
        self.has_failed_epoch_fence = False   # a fence whose record was not written: do not bump again

    # ------------------------------------------------------------------ reading
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    def is_producer_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    def has_pending_transaction(self) -> bool:
        return self.state in (TransactionState.ONGOING, TransactionState.PREPARE_ABORT,
                              TransactionState.PREPARE_COMMIT)

    def snapshot(self) -> TxnTransitMetadata:
        """The current picture, unchanged (Kafka's ``prepareNoTransit``; sets no pending state)."""
        return TxnTransitMetadata(
            producer_id=self.producer_id, prev_producer_id=self.prev_producer_id,
            next_producer_id=self.next_producer_id, producer_epoch=self.producer_epoch,
            last_producer_epoch=self.last_producer_epoch, txn_timeout_ms=self.txn_timeout_ms,
            txn_state=self.state, topic_partitions=self.topic_partitions,
            txn_start_timestamp=self.txn_start_timestamp,
            txn_last_update_timestamp=self.txn_last_update_timestamp,
            client_transaction_version=self.client_transaction_version)

    # ------------------------------------------------------------------ prepare
    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        """The coordinator is about to abort the ongoing transaction itself, one epoch higher."""
        bumped = (self.producer_epoch if self.has_failed_epoch_fence or self.producer_epoch == SHORT_MAX
                  else self.producer_epoch + 1)
        return self._prepare(TransactionState.PREPARE_EPOCH_FENCE, producer_epoch=bumped)

    def prepare_increment_producer_epoch(self, new_txn_timeout_ms: int, expected_producer_epoch: int | None,
                                         update_timestamp: int) -> TxnTransitMetadata:
        """InitProducerId on an idle id: bump the epoch (or repeat it for a retry), or fence the caller."""
        if self.is_producer_epoch_exhausted():
            raise IllegalStateException(f"Cannot allocate any more producer epochs for producerId {self.producer_id}")
        bumped = self.producer_epoch + 1
        if expected_producer_epoch is None:
            epoch, last_epoch = bumped, NO_PRODUCER_EPOCH          # a new producer instance
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_producer_epoch == self.producer_epoch:
            epoch, last_epoch = bumped, self.producer_epoch        # the same producer, recovering
        elif expected_producer_epoch == self.last_producer_epoch:
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch   # a retry of a bump that worked
        else:
            raise Errors.PRODUCER_FENCED.exception()
        return self._prepare(TransactionState.EMPTY, producer_epoch=epoch, last_producer_epoch=last_epoch,
                             txn_timeout_ms=new_txn_timeout_ms, topic_partitions=frozenset(),
                             txn_start_timestamp=-1, txn_last_update_timestamp=update_timestamp)

    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int, update_timestamp: int,
                                     record_last_epoch: bool) -> TxnTransitMetadata:
        """The epoch ran out: continue with a new producer id at epoch 0."""
        if self.has_pending_transaction():
            raise IllegalStateException("Cannot rotate producer ids while a transaction is still pending")
        return self._prepare(TransactionState.EMPTY, producer_id=new_producer_id, producer_epoch=0,
                             last_producer_epoch=self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
                             txn_timeout_ms=new_txn_timeout_ms, topic_partitions=frozenset(),
                             txn_start_timestamp=-1, txn_last_update_timestamp=update_timestamp)

    def prepare_add_partitions(self, added: Iterable[TopicPartition], update_timestamp: int,
                               client_transaction_version: TransactionVersion) -> TxnTransitMetadata:
        """AddPartitionsToTxn / AddOffsetsToTxn: the transaction is (or stays) Ongoing with more partitions."""
        starts_now = self.state in (TransactionState.EMPTY, TransactionState.COMPLETE_ABORT,
                                    TransactionState.COMPLETE_COMMIT)
        return self._prepare(TransactionState.ONGOING, topic_partitions=self.topic_partitions | frozenset(added),
                             txn_start_timestamp=update_timestamp if starts_now else self.txn_start_timestamp,
                             txn_last_update_timestamp=update_timestamp,
                             client_transaction_version=client_transaction_version)

    def prepare_abort_or_commit(self, new_state: TransactionState, client_transaction_version: TransactionVersion,
                                next_producer_id: int, update_timestamp: int,
                                no_partition_added: bool) -> TxnTransitMetadata:
        """EndTxn: PrepareCommit or PrepareAbort; under TV 2 one epoch higher (KIP-890)."""
        if client_transaction_version.supports_epoch_bump():
            # At 32767 an abort still goes through (a broken state must be recoverable); it cannot bump.
            overflowing_abort = self.producer_epoch == SHORT_MAX and new_state == TransactionState.PREPARE_ABORT
            epoch = self.producer_epoch if overflowing_abort else self.producer_epoch + 1
            last_epoch = self.producer_epoch
        else:
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        return self._prepare(new_state, producer_epoch=epoch, last_producer_epoch=last_epoch,
                             txn_start_timestamp=update_timestamp if no_partition_added else self.txn_start_timestamp,
                             next_producer_id=next_producer_id, txn_last_update_timestamp=update_timestamp,
                             client_transaction_version=client_transaction_version)

    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        """The markers are written: CompleteCommit or CompleteAbort (and TV 2's next producer id takes over)."""
        self.has_failed_epoch_fence = False
        target = (TransactionState.COMPLETE_COMMIT if self.state == TransactionState.PREPARE_COMMIT
                  else TransactionState.COMPLETE_ABORT)
        if self.client_transaction_version.supports_epoch_bump() and self.next_producer_id != NO_PRODUCER_ID:
            producer_id, epoch = self.next_producer_id, 0
        else:
            producer_id, epoch = self.producer_id, self.producer_epoch
        return self._prepare(target, producer_id=producer_id, producer_epoch=epoch, next_producer_id=NO_PRODUCER_ID,
                             topic_partitions=frozenset(), txn_last_update_timestamp=update_timestamp)

    def prepare_dead(self) -> TxnTransitMetadata:
        """transactional.id.expiration.ms passed: the id is about to be removed (a tombstone)."""
        return self._prepare(TransactionState.DEAD, topic_partitions=frozenset())

    def _prepare(self, target: TransactionState, **changes: object) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise IllegalStateException(f"Preparing transaction state transition to {self.state} while it already "
                                        f"a pending state {self.pending_state}")
        transit = dataclasses.replace(self.snapshot(), txn_state=target, **changes)  # type: ignore[arg-type]
        if transit.producer_id < 0:
            raise IllegalArgumentException(f"Illegal new producer id {transit.producer_id}")
        if target != TransactionState.DEAD and transit.producer_epoch < 0:
            raise IllegalArgumentException(f"Illegal new producer epoch {transit.producer_epoch}")
        check_transition(self.state, target)
        # The id that is replaced is remembered as the previous one (Kafka passes this.producerId).
        transit = dataclasses.replace(transit, prev_producer_id=self.producer_id)
        self.pending_state = target
        return transit

    # ------------------------------------------------------------------ epoch fence
    def begin_fenced_abort(self, fenced_epoch: int) -> None:
        """The epoch fence turns into an abort: take the bumped epoch, clear the fence's pending state.

        Kafka does this by assignment in ``endTransaction`` just before preparing PrepareAbort.
        """
        if self.pending_state != TransactionState.PREPARE_EPOCH_FENCE:
            raise IllegalStateException(f"TransactionalId {self.transactional_id} is not fencing its epoch")
        self.pending_state = None
        self.producer_epoch = fenced_epoch
        self.last_producer_epoch = NO_PRODUCER_EPOCH

    def remove_partition(self, topic_partition: TopicPartition) -> None:
        """A marker was written to ``topic_partition``: it no longer waits for one."""
        if self.state not in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT):
            raise IllegalStateException(
                f"Transaction metadata's current state is {self.state}, and its pending state is "
                f"{self.pending_state} while trying to remove partitions whose txn marker has been sent, this is "
                "not expected")
        self.topic_partitions = self.topic_partitions - {topic_partition}

    def abort_pending_transition(self) -> None:
        """The record of the prepared move was not written: forget the move."""
        self.pending_state = None

    # ------------------------------------------------------------------ complete
    def complete_transition_to(self, transit: TxnTransitMetadata) -> None:
        """The record of ``transit`` is written: check it once more and make it the current metadata."""
        to_state = self.pending_state
        if to_state is None:
            raise IllegalStateException(f"TransactionalId {self.transactional_id} completing transaction state "
                                        "transition while it does not have a pending state")
        if to_state != transit.txn_state:
            self._fail(transit)
        s = TransactionState
        if to_state == s.EMPTY:
            if ((self.producer_epoch != transit.producer_epoch and not self._valid_producer_epoch_bump(transit))
                    or transit.topic_partitions or transit.txn_start_timestamp != -1):
                self._fail(transit)
        elif to_state == s.ONGOING:
            if (not self._valid_producer_epoch(transit) or not transit.topic_partitions >= self.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms):
                self._fail(transit)
        elif to_state in (s.PREPARE_ABORT, s.PREPARE_COMMIT):
            allowed_empty_abort = (to_state == s.PREPARE_ABORT
                                   and transit.client_transaction_version.supports_epoch_bump()
                                   and self.state in (s.EMPTY, s.COMPLETE_COMMIT, s.COMPLETE_ABORT))
            valid_timestamp = self.txn_start_timestamp == transit.txn_start_timestamp or allowed_empty_abort
            if (not self._valid_producer_epoch(transit) or self.topic_partitions != transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms or not valid_timestamp):
                self._fail(transit)
        elif to_state in (s.COMPLETE_ABORT, s.COMPLETE_COMMIT):
            if (not self._valid_producer_epoch(transit) or self.txn_timeout_ms != transit.txn_timeout_ms
                    or transit.txn_start_timestamp == -1):
                self._fail(transit)
        elif to_state == s.PREPARE_EPOCH_FENCE:
            self._fail(transit)   # never written: the fence turns into PrepareAbort first
        elif to_state == s.DEAD:
            raise IllegalStateException(
                f"TransactionalId {self.transactional_id} is trying to complete a transition to {to_state}. This "
                "means that the transactionalId was being expired, and the only acceptable completion of this "
                f"operation is to remove the transaction metadata from the cache, not to persist the {to_state} "
                "in the log.")
        self.producer_id = transit.producer_id
        self.prev_producer_id = transit.prev_producer_id
        self.next_producer_id = transit.next_producer_id
        self.producer_epoch = transit.producer_epoch
        self.last_producer_epoch = transit.last_producer_epoch
        self.txn_timeout_ms = transit.txn_timeout_ms
        self.topic_partitions = transit.topic_partitions
        self.txn_start_timestamp = transit.txn_start_timestamp
        self.txn_last_update_timestamp = transit.txn_last_update_timestamp
        self.client_transaction_version = transit.client_transaction_version
        self.pending_state = None
        self.state = to_state

    def _valid_producer_epoch(self, transit: TxnTransitMetadata) -> bool:
        tv2 = transit.client_transaction_version.supports_epoch_bump()
        s = TransactionState
        if tv2 and transit.txn_state in (s.COMPLETE_COMMIT, s.COMPLETE_ABORT) and transit.producer_epoch == 0:
            # the epoch overflowed: a new producer id took over at epoch 0
            return (transit.last_producer_epoch == self.last_producer_epoch
                    and transit.prev_producer_id == self.producer_id)
        if tv2 and transit.txn_state in (s.PREPARE_COMMIT, s.PREPARE_ABORT):
            return transit.last_producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id
        return transit.producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id

    def _valid_producer_epoch_bump(self, transit: TxnTransitMetadata) -> bool:
        return (transit.producer_epoch == self.producer_epoch + 1
                or (transit.producer_epoch == 0 and transit.producer_id != self.producer_id))

    def _fail(self, transit: TxnTransitMetadata) -> None:
        raise IllegalStateException(f"TransactionalId {self.transactional_id} failed transition to state {transit} "
                                    "due to unexpected metadata")

    def __repr__(self) -> str:
        return (f"TransactionMetadata(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
                f"prevProducerId={self.prev_producer_id}, nextProducerId={self.next_producer_id}, "
                f"producerEpoch={self.producer_epoch}, lastProducerEpoch={self.last_producer_epoch}, "
                f"txnTimeoutMs={self.txn_timeout_ms}, state={self.state}, pendingState={self.pending_state}, "
                f"topicPartitions={sorted(self.topic_partitions)}, txnStartTimestamp={self.txn_start_timestamp}, "
                f"txnLastUpdateTimestamp={self.txn_last_update_timestamp}, "
                f"clientTransactionVersion={self.client_transaction_version.name})")


__all__ = ["NO_PRODUCER_EPOCH", "NO_PRODUCER_ID", "SHORT_MAX", "TransactionMetadata", "is_epoch_exhausted"]
