"""What a partition remembers about one idempotent or transactional producer.

Theory of operation
-------------------
An idempotent producer numbers its batches per partition: ``baseSequence`` is
the sequence of the first record, and a batch of n records covers
``baseSequence .. baseSequence + n - 1``.  For each producer id the broker
keeps the producer's epoch and the metadata of its last five batches
(`BatchMetadata`: last sequence, last offset, offset delta, timestamp).

Five is the number of requests a producer may have in flight: when a
response is lost and the producer resends, the resent batch matches one of the
cached five exactly (same epoch, same first and last sequence), and the
broker answers with the offsets it assigned the first time instead of writing
the records twice (`find_duplicate_batch`).

A new producer epoch (the producer re-initialised, or bumped its epoch after
an error) forgets the cached batches: sequences restart at 0 in a new epoch.

Mirrors ``org.apache.kafka.storage.internals.log.ProducerStateEntry`` and
``BatchMetadata``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from minikafka.record.record_batch import NO_PRODUCER_EPOCH, NO_SEQUENCE, NO_TIMESTAMP, decrement_sequence

NUM_BATCHES_TO_RETAIN = 5


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    """One appended batch of a producer: enough to recognise a retry of it."""

    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    @property
    def first_seq(self) -> int:
        return decrement_sequence(self.last_seq, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


@dataclass(slots=True)
class ProducerStateEntry:
    """The broker's state for one producer id in one partition."""

    producer_id: int
    producer_epoch: int = NO_PRODUCER_EPOCH
    coordinator_epoch: int = -1
    last_timestamp: int = NO_TIMESTAMP                 # maxTimestamp of the producer's last batch
    current_txn_first_offset: int | None = None        # first offset of its open transaction, if any
    batch_metadata: deque = field(default_factory=deque)   # the last (up to) 5 BatchMetadata, oldest first

    @classmethod
    def empty(cls, producer_id: int) -> "ProducerStateEntry":
        return cls(producer_id)

    def copy_without_batches(self, producer_id: int) -> "ProducerStateEntry":
        return ProducerStateEntry(producer_id, self.producer_epoch, self.coordinator_epoch,
                                  self.last_timestamp, self.current_txn_first_offset, deque())

    # ------------------------------------------------------------------ derived values
    def is_empty(self) -> bool:
        return not self.batch_metadata

    @property
    def first_seq(self) -> int:
        return NO_SEQUENCE if self.is_empty() else self.batch_metadata[0].first_seq

    @property
    def last_seq(self) -> int:
        return NO_SEQUENCE if self.is_empty() else self.batch_metadata[-1].last_seq

    @property
    def first_data_offset(self) -> int:
        return -1 if self.is_empty() else self.batch_metadata[0].first_offset

    @property
    def last_data_offset(self) -> int:
        return -1 if self.is_empty() else self.batch_metadata[-1].last_offset

    @property
    def last_offset_delta(self) -> int:
        return 0 if self.is_empty() else self.batch_metadata[-1].offset_delta

    # ------------------------------------------------------------------ updates
    def add_batch(self, producer_epoch: int, last_seq: int, last_offset: int, offset_delta: int,
                  timestamp: int) -> None:
        self.maybe_update_producer_epoch(producer_epoch)
        self._add_batch_metadata(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        self.last_timestamp = timestamp

    def maybe_update_producer_epoch(self, producer_epoch: int) -> bool:
        if self.producer_epoch != producer_epoch:
            self.batch_metadata.clear()      # sequences restart with a new epoch
            self.producer_epoch = producer_epoch
            return True
        return False

    def _add_batch_metadata(self, batch: BatchMetadata) -> None:
        if len(self.batch_metadata) == NUM_BATCHES_TO_RETAIN:
            self.batch_metadata.popleft()
        self.batch_metadata.append(batch)

    def update(self, next_entry: "ProducerStateEntry") -> None:
        """Fold the result of an append (a `ProducerAppendInfo`'s entry) into this one."""
        self.maybe_update_producer_epoch(next_entry.producer_epoch)
        for batch in next_entry.batch_metadata:
            self._add_batch_metadata(batch)
        self.coordinator_epoch = next_entry.coordinator_epoch
        self.current_txn_first_offset = next_entry.current_txn_first_offset
        self.last_timestamp = next_entry.last_timestamp

    def update_epoch_only(self, producer_epoch: int, coordinator_epoch: int, last_timestamp: int) -> None:
        """After a transaction marker: new epochs, no batches, no open transaction."""
        self.maybe_update_producer_epoch(producer_epoch)
        self.coordinator_epoch = coordinator_epoch
        self.current_txn_first_offset = None
        self.last_timestamp = last_timestamp

    def find_duplicate_batch(self, producer_epoch: int, base_sequence: int, last_sequence: int) -> BatchMetadata | None:
        """The cached batch with exactly this epoch and sequence range, if the producer is retrying it."""
        if producer_epoch != self.producer_epoch:
            return None
        for metadata in self.batch_metadata:
            if metadata.first_seq == base_sequence and metadata.last_seq == last_sequence:
                return metadata
        return None
