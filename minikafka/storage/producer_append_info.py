"""ProducerAppendInfo: checking one producer's batches before they are appended.

Theory of operation
-------------------
Before the leader writes a batch that carries a producer id, it checks the
batch against what it knows about that producer (`ProducerStateEntry`):

* **Epoch.**  A batch from an older producer epoch than the last one seen is
  a zombie: ``InvalidProducerEpochException``.
* **Sequence** (client appends only).  In the producer's current epoch the
  batch must continue exactly where the last one ended (``lastSeq + 1``,
  wrapping at 2^31 - 1), else ``OutOfOrderSequenceException``.  In a *new*
  epoch it must start at sequence 0 -- unless the broker knows no epoch for
  the producer at all (a producer it has never seen, or one whose records
  retention already removed): then any sequence is accepted (KIP-360), so in
  Kafka 4.x an unknown producer with a nonzero sequence is *not* an error.

Duplicates are caught before these checks (`UnifiedLog` asks the entry for
``find_duplicate_batch``), so a retried batch never reaches them.

Replicas apply the same bookkeeping without the checks (origin
``REPLICATION``): followers and log recovery trust what the leader wrote.

Transactions: the first transactional batch of a producer opens a
transaction at its offset; a COMMIT/ABORT control batch closes it and yields a
`CompletedTxn`.

Mirrors ``org.apache.kafka.storage.internals.log.ProducerAppendInfo``,
``AppendOrigin``, ``CompletedTxn``.  Simplified: no transaction-verification
state (KIP-890 verification guards).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from minikafka.common.errors import (InvalidProducerEpochException, InvalidTxnStateException,  # type: ignore
                                     OutOfOrderSequenceException, TransactionCoordinatorFencedException)
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.record_batch import MAX_INT, NO_PRODUCER_EPOCH, NO_SEQUENCE
from minikafka.storage.producer_state_entry import ProducerStateEntry


class AppendOrigin(enum.Enum):
    """Who is appending: decides how much validation an append gets."""

    REPLICATION = "replication"    # a follower copying the leader, or recovery: no checks
    COORDINATOR = "coordinator"    # group/transaction coordinator writes: epoch checks only
    CLIENT = "client"              # producers: full validation
    RAFT_LEADER = "raft_leader"    # the KRaft leader writing the metadata log: offsets pre-assigned


@dataclass(frozen=True, slots=True)
class CompletedTxn:
    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == MAX_INT)


class ProducerAppendInfo:
    """The pending state change of one producer for one append."""

    def __init__(self, topic_partition: TopicPartition, producer_id: int, current_entry: ProducerStateEntry,
                 origin: AppendOrigin):
        self.topic_partition = topic_partition
        self.producer_id = producer_id
        self.current_entry = current_entry                    # state before this append
        self.origin = origin
        self.updated_entry = current_entry.copy_without_batches(producer_id)  # state after, batches added below
        self.started_transactions: list[int] = []             # first offsets of transactions opened here

    def _check_producer_epoch(self, producer_epoch: int, offset: int) -> None:
        if producer_epoch < self.updated_entry.producer_epoch:
            message = (f"Epoch of producer {self.producer_id} at offset {offset} in {self.topic_partition} is "
                       f"{producer_epoch}, which is smaller than the last seen epoch "
                       f"{self.updated_entry.producer_epoch}")
            if self.origin is not AppendOrigin.REPLICATION:   # replicas only log it
                raise InvalidProducerEpochException(message)

    def _check_sequence(self, producer_epoch: int, first_seq: int, offset: int) -> None:
        updated = self.updated_entry
        if producer_epoch != updated.producer_epoch:
            if first_seq != 0 and updated.producer_epoch != NO_PRODUCER_EPOCH:
                raise OutOfOrderSequenceException(
                    f"Invalid sequence number for new epoch of producer {self.producer_id}at offset {offset} in "
                    f"partition {self.topic_partition}: {producer_epoch} (request epoch), {first_seq} (seq. "
                    f"number), {updated.producer_epoch} (current producer epoch)")
            return
        if not updated.is_empty():
            current_last_seq = updated.last_seq
        elif producer_epoch == self.current_entry.producer_epoch:
            current_last_seq = self.current_entry.last_seq
        else:
            current_last_seq = NO_SEQUENCE
        if not (self.current_entry.producer_epoch == NO_PRODUCER_EPOCH
                or _in_sequence(current_last_seq, first_seq)):
            raise OutOfOrderSequenceException(
                f"Out of order sequence number for producer {self.producer_id} at offset {offset} in partition "
                f"{self.topic_partition}: {first_seq} (incoming seq. number), {current_last_seq} (current end "
                f"sequence number)")

    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset: int, last_offset: int, is_transactional: bool) -> None:
        self._check_producer_epoch(epoch, first_offset)
        if self.origin is AppendOrigin.CLIENT:
            self._check_sequence(epoch, first_seq, first_offset)
        self.updated_entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)
        open_txn = self.updated_entry.current_txn_first_offset
        if open_txn is not None and not is_transactional:
            raise InvalidTxnStateException(f"Expected transactional write from producer {self.producer_id} at "
                                           f"offset {first_offset} in partition {self.topic_partition}")
        if open_txn is None and is_transactional:
            self.updated_entry.current_txn_first_offset = first_offset
            self.started_transactions.append(first_offset)

    def append_end_txn_marker(self, is_abort: bool, coordinator_epoch: int, producer_epoch: int,
                              offset: int, timestamp: int) -> CompletedTxn | None:
        self._check_producer_epoch(producer_epoch, offset)
        if self.updated_entry.coordinator_epoch > coordinator_epoch and self.origin is not AppendOrigin.REPLICATION:
            raise TransactionCoordinatorFencedException(
                f"Invalid coordinator epoch for producerId {self.producer_id} at offset {offset} in partition "
                f"{self.topic_partition}: {coordinator_epoch} (zombie), {self.updated_entry.coordinator_epoch} "
                f"(current)")
        first = self.updated_entry.current_txn_first_offset
        completed = None if first is None else CompletedTxn(self.producer_id, first, offset, is_abort)
        self.updated_entry.update_epoch_only(producer_epoch, coordinator_epoch, timestamp)
        return completed

    def to_entry(self) -> ProducerStateEntry:
        return self.updated_entry
