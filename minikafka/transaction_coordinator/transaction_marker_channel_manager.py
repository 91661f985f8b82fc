"""``TransactionMarkerChannelManager``: the transaction markers the coordinator still has to write.

Theory of operation
-------------------
Once ``PrepareCommit`` or ``PrepareAbort`` is in ``__transaction_state`` the
decision is made; what is left is to tell every partition of the
transaction, by writing a control record (a COMMIT or ABORT *marker*) at the
end of each one.  Kafka sends WriteTxnMarkers requests to the partitions'
leaders and, once each partition has acknowledged, writes
``CompleteCommit``/``CompleteAbort``.  Until then the transaction is
*pending completion*: its metadata holds the prepared Complete move, and
every request for the id is answered CONCURRENT_TRANSACTIONS.

This sans-IO version sends nothing.  `add_txn_markers_to_send` records the
pending completion and returns a `TxnMarkerEntry`, the intent of a
WriteTxnMarkers request (producer id and epoch, COMMIT or ABORT, the
coordinator epoch, the partitions); whoever hosts the coordinator writes the
markers and reports each acknowledged partition back
(`TransactionCoordinator.on_markers_written`).  A transaction with no
partition left (an abort of an empty TV 2 transaction, or the last marker
written) is ready to complete at once.

Mirrors ``kafka.coordinator.transaction.TransactionMarkerChannelManager``
(``addTxnMarkersToSend``, ``removeMarkersForTxnTopicPartition``, the pending
completions) and ``TxnMarkerEntry`` of WriteTxnMarkersRequest.  Simplified:
no per-broker queues, no request building, no retries: those belong to the
caller; the marker intent carries all partitions of the transaction, not one
request per leader.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_log import partition_for
from minikafka.transaction_coordinator.transaction_metadata import TransactionMetadata
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata


class TransactionResult(enum.Enum):
    """What a marker says (``org.apache.kafka.common.requests.TransactionResult``)."""

    ABORT = False
    COMMIT = True


@dataclass(frozen=True, slots=True)
class TxnMarkerEntry:
    """One WriteTxnMarkers intent: write ``result`` markers for this producer into ``partitions``."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    result: TransactionResult
    partitions: frozenset[TopicPartition]
    transaction_version: TransactionVersion   # WriteTxnMarkers v2 carries it (KIP-890)


@dataclass(frozen=True, slots=True)
class PendingCompleteTxn:
    """A transaction whose markers are being written; ``transit`` is its prepared Complete move."""

    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    transit: TxnTransitMetadata


class TransactionMarkerChannelManager:
    def __init__(self, transaction_topic_partitions: int):
        self._partitions = transaction_topic_partitions   # __transaction_state's partition count
        self._pending: dict[str, PendingCompleteTxn] = {}  # transactional id -> its completion

    def add_txn_markers_to_send(self, coordinator_epoch: int, result: TransactionResult,
                                txn_metadata: TransactionMetadata, transit: TxnTransitMetadata) -> TxnMarkerEntry:
        """Remember the completion and return the markers to write (its partitions may be none)."""
        tid = txn_metadata.transactional_id
        self._pending[tid] = PendingCompleteTxn(tid, coordinator_epoch, txn_metadata, transit)
        # TV 2 markers carry the epoch the transaction was written with plus one, i.e. the bumped epoch
        # that now fences its late writes; the metadata already holds it.
        return TxnMarkerEntry(tid, txn_metadata.producer_id, txn_metadata.producer_epoch, coordinator_epoch, result,
                              txn_metadata.topic_partitions, txn_metadata.client_transaction_version)

    def pending_complete_txn(self, transactional_id: str) -> PendingCompleteTxn | None:
        return self._pending.get(transactional_id)

    def remove_pending(self, transactional_id: str) -> PendingCompleteTxn | None:
        return self._pending.pop(transactional_id, None)

    def pending_transactional_ids(self) -> list[str]:
        return sorted(self._pending)

    def remove_markers_for_txn_topic_partition(self, txn_topic_partition: int) -> None:
        """The coordinator lost (or is reloading) a ``__transaction_state`` partition: forget its markers."""
        for tid in [t for t in self._pending if partition_for(t, self._partitions) == txn_topic_partition]:
            del self._pending[tid]


__all__ = ["PendingCompleteTxn", "TransactionMarkerChannelManager", "TransactionResult", "TxnMarkerEntry"]
