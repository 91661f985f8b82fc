"""``TransactionStateManager``: the cache of the ``__transaction_state`` partitions this broker coordinates.

Theory of operation
-------------------
A broker coordinates the transactional ids of the ``__transaction_state``
partitions it leads.  For each it keeps a cache entry: the *coordinator
epoch* (the partition's leader epoch when it took over) and the metadata of
every id in it.  The cache answers "who is this id?" with:

* COORDINATOR_LOAD_IN_PROGRESS while the partition is being loaded;
* NOT_COORDINATOR for an id of a partition this broker does not lead;
* the metadata and the coordinator epoch, or nothing for an unknown id.

*Loading* (a failover, or a restart) replays the partition's records in
order: a record replaces the id's metadata, a tombstone removes it.  A
transaction found in ``PrepareCommit``/``PrepareAbort`` had its decision
written but maybe not all its markers: loading returns it, with its
Complete move prepared, so its markers are written again (markers are
idempotent).

*Writing*: `append_transaction_to_log` checks the id still belongs to this
coordinator at the same epoch and returns a `TxnLogAppend` (the record's
bytes); when the caller reports the write, `complete_append` translates the
log's error into the coordinator's (as Kafka does: NOT_ENOUGH_REPLICAS ->
COORDINATOR_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER -> NOT_COORDINATOR, ...) and
either completes the metadata's move, or forgets it (unless the caller
retries).

*Timers*, both driven by the caller's ``now_ms``: `timed_out_transactions`
(Ongoing for longer than their ``transaction.timeout.ms``) and
`expire_transactional_ids` (an id idle in an expirable state for
``transactional.id.expiration.ms``: its tombstone is written, then it is
dropped from the cache).

Mirrors ``kafka.coordinator.transaction.TransactionStateManager``
(getTransactionState, putTransactionStateIfNotExists, appendTransactionToLog,
loadTransactionsForTxnTopicPartition, removeTransactionsForTxnTopicPartition,
timedOutTransactions, removeExpiredTransactionalIds, validateTransactionTimeoutMs,
listTransactionStates).  Simplified: no locks or scheduler; loading is two calls
(`start_loading`, `load_transactions_for_txn_topic_partition`) with the records
handed in; one tombstone per append, not batches up to the max message size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from minikafka.common.errors import Errors
from minikafka.transaction_coordinator.transaction_log import (
    TxnRecord, TxnTombstone, key_to_bytes, partition_for, read, value_to_bytes,
)
from minikafka.transaction_coordinator.transaction_log_config import TransactionLogConfig
from minikafka.transaction_coordinator.transaction_metadata import TransactionMetadata
from minikafka.transaction_coordinator.transaction_state import TransactionState
from minikafka.transaction_coordinator.transaction_state_manager_config import TransactionStateManagerConfig
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata


@dataclass(frozen=True, slots=True)
class CoordinatorEpochAndTxnMetadata:
    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@dataclass(slots=True)
class TxnMetadataCacheEntry:
    coordinator_epoch: int
    metadata_per_transactional_id: dict[str, TransactionMetadata] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TransactionalIdAndProducerIdEpoch:
    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True, slots=True)
class TxnLogAppend:
    """One record to append to ``__transaction_state-<partition>`` (acks=all, uncompressed).

    ``value`` None is a tombstone (an expired id).  The caller appends it and
    reports the outcome with ``TransactionCoordinator.on_append_done(append, error, now_ms)``.
    """

    append_id: int
    partition: int
    transactional_id: str
    coordinator_epoch: int
    key: bytes
    value: bytes | None
    transit: TxnTransitMetadata


@dataclass(frozen=True, slots=True)
class LoadedPendingCompletion:
    """A transaction found prepared but not completed when its partition was loaded."""

    transactional_id: str
    coordinator_epoch: int
    commit: bool
    txn_metadata: TransactionMetadata
    transit: TxnTransitMetadata


# The log's errors, as the coordinator reports them (appendTransactionToLog's updateCacheCallback).
_APPEND_ERRORS = {
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_LEADER_OR_FOLLOWER: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.RECORD_LIST_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
}


def coordinator_error(append_error: Errors) -> Errors:
    """The error a client gets when ``__transaction_state`` refused a write with ``append_error``."""
    return _APPEND_ERRORS.get(append_error, append_error)


class TransactionStateManager:
    def __init__(self, config: TransactionStateManagerConfig, log_config: TransactionLogConfig,
                 transaction_version_level: Callable[[], TransactionVersion]):
        self.config = config
        self.transaction_topic_partitions = log_config.transaction_topic_partitions
        self._transaction_version_level = transaction_version_level  # the cluster's finalized transaction.version
        self._loading: dict[int, int] = {}                       # partition -> coordinator epoch being loaded
        self._cache: dict[int, TxnMetadataCacheEntry] = {}       # partition -> its ids
        self._next_append_id = 0

    # ------------------------------------------------------------------ lookups
    def transaction_version_level(self) -> TransactionVersion:
        return self._transaction_version_level()

    def partition_for(self, transactional_id: str) -> int:
        return partition_for(transactional_id, self.transaction_topic_partitions)

    def validate_transaction_timeout_ms(self, enable_two_pc: bool, txn_timeout_ms: int) -> bool:
        return enable_two_pc or 0 < txn_timeout_ms <= self.config.transaction_max_timeout_ms

    def get_transaction_state(self, transactional_id: str) -> tuple[Errors, CoordinatorEpochAndTxnMetadata | None]:
        """(NONE, the id's metadata or None when unknown), or (the error, None)."""
        partition = self.partition_for(transactional_id)
        if partition in self._loading:
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
        entry = self._cache.get(partition)
        if entry is None:
            return Errors.NOT_COORDINATOR, None
        metadata = entry.metadata_per_transactional_id.get(transactional_id)
        return Errors.NONE, (None if metadata is None else CoordinatorEpochAndTxnMetadata(entry.coordinator_epoch,
                                                                                          metadata))

    def put_transaction_state_if_not_exists(
            self, metadata: TransactionMetadata) -> tuple[Errors, CoordinatorEpochAndTxnMetadata | None]:
        error, found = self.get_transaction_state(metadata.transactional_id)
        if error != Errors.NONE or found is not None:
            return error, found
        entry = self._cache[self.partition_for(metadata.transactional_id)]
        entry.metadata_per_transactional_id[metadata.transactional_id] = metadata
        return Errors.NONE, CoordinatorEpochAndTxnMetadata(entry.coordinator_epoch, metadata)

    def owned_partitions(self) -> dict[int, int]:
        """Loaded partitions and their coordinator epochs."""
        return {p: e.coordinator_epoch for p, e in sorted(self._cache.items())}

    def all_metadata(self) -> list[TransactionMetadata]:
        return [md for _, entry in sorted(self._cache.items())
                for _, md in sorted(entry.metadata_per_transactional_id.items())]

    def list_transaction_states(self, producer_ids: set[int], states: set[str], duration_filter_ms: int,
                                now_ms: int) -> tuple[Errors, list[tuple[str, int, str]]]:
        """ListTransactions: (transactional id, producer id, state name) of the loaded ids that match."""
        if self._loading:
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, []
        found = []
        for md in self.all_metadata():
            if md.state == TransactionState.DEAD:
                continue
            if producer_ids and md.producer_id not in producer_ids:
                continue
            if states and md.state.state_name not in states:
                continue
            if duration_filter_ms >= 0 and now_ms - md.txn_start_timestamp <= duration_filter_ms:
                continue
            found.append((md.transactional_id, md.producer_id, md.state.state_name))
        return Errors.NONE, found

    # ------------------------------------------------------------------ loading
    def start_loading(self, partition: int, coordinator_epoch: int) -> None:
        """This broker leads ``partition`` now: answer COORDINATOR_LOAD_IN_PROGRESS until it is loaded."""
        self._cache.pop(partition, None)
        self._loading[partition] = coordinator_epoch

    def load_transactions_for_txn_topic_partition(
            self, partition: int, coordinator_epoch: int, records: Iterable[tuple[bytes, bytes | None]],
            now_ms: int) -> list[LoadedPendingCompletion]:
        """Replay the partition's records (key, value) in log order; return the transactions to complete."""
        if self._loading.get(partition) != coordinator_epoch:
            return []      # resigned, or a newer election, meanwhile
        loaded: dict[str, TransactionMetadata] = {}
        for key, value in records:
            result = read(key, value)
            if isinstance(result, TxnRecord):
                loaded[result.transactional_id] = result.metadata
            elif isinstance(result, TxnTombstone):
                loaded.pop(result.transactional_id, None)
        self._cache[partition] = TxnMetadataCacheEntry(coordinator_epoch, loaded)
        pending = []
        for tid, md in sorted(loaded.items()):
            if md.state in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT):
                pending.append(LoadedPendingCompletion(tid, coordinator_epoch,
                                                       md.state == TransactionState.PREPARE_COMMIT, md,
                                                       md.prepare_complete(now_ms)))
        del self._loading[partition]
        return pending

    def remove_transactions_for_txn_topic_partition(self, partition: int,
                                                    coordinator_epoch: int | None = None) -> None:
        """This broker no longer leads ``partition``: drop its ids (only at that epoch, when one is given)."""
        if coordinator_epoch is None or self._loading.get(partition, coordinator_epoch) == coordinator_epoch:
            self._loading.pop(partition, None)
        entry = self._cache.get(partition)
        if entry is not None and (coordinator_epoch is None or entry.coordinator_epoch == coordinator_epoch):
            del self._cache[partition]

    # ------------------------------------------------------------------ writing
    def append_transaction_to_log(self, transactional_id: str, coordinator_epoch: int,
                                  transit: TxnTransitMetadata) -> tuple[Errors, TxnLogAppend | None]:
        """The record of ``transit``, or the error that stops it from being written."""
        error, found = self.get_transaction_state(transactional_id)
        if error != Errors.NONE:
            return error, None
        if found is None or found.coordinator_epoch != coordinator_epoch:
            return Errors.NOT_COORDINATOR, None
        value = value_to_bytes(transit, self.transaction_version_level())
        return Errors.NONE, self._append(transactional_id, coordinator_epoch, value, transit)

    def _append(self, transactional_id: str, coordinator_epoch: int, value: bytes | None,
                transit: TxnTransitMetadata) -> TxnLogAppend:
        self._next_append_id += 1
        return TxnLogAppend(self._next_append_id, self.partition_for(transactional_id), transactional_id,
                            coordinator_epoch, key_to_bytes(transactional_id), value, transit)

    def complete_append(self, append: TxnLogAppend, append_error: Errors,
                        retry_on: frozenset[Errors] = frozenset()) -> Errors:
        """The caller wrote (or failed to write) ``append``: finish or forget the move; the client's error.

        A failure in ``retry_on`` keeps the pending move: the caller appends the same record again.
        """
        error = coordinator_error(append_error)
        lookup_error, found = self.get_transaction_state(append.transactional_id)
        if error == Errors.NONE:
            if lookup_error != Errors.NONE:
                return lookup_error
            if found is None:
                return Errors.NOT_COORDINATOR
            if found.coordinator_epoch != append.coordinator_epoch:
                return Errors.NOT_COORDINATOR
            found.transaction_metadata.complete_transition_to(append.transit)
            return Errors.NONE
        if found is not None and found.coordinator_epoch == append.coordinator_epoch and error not in retry_on:
            found.transaction_metadata.abort_pending_transition()
        return error

    # ------------------------------------------------------------------ timers
    def timed_out_transactions(self, now_ms: int) -> list[TransactionalIdAndProducerIdEpoch]:
        """Ongoing transactions open longer than their timeout (and not already moving)."""
        return [TransactionalIdAndProducerIdEpoch(md.transactional_id, md.producer_id, md.producer_epoch)
                for md in self.all_metadata()
                if not md.pending_transition_in_progress() and md.state == TransactionState.ONGOING
                and md.txn_start_timestamp + md.txn_timeout_ms < now_ms]

    def should_expire(self, md: TransactionMetadata, now_ms: int) -> bool:
        return (md.state.expiration_allowed
                and md.txn_last_update_timestamp <= now_ms - self.config.transactional_id_expiration_ms)

    def expire_transactional_ids(self, now_ms: int) -> list[TxnLogAppend]:
        """Prepare ``Dead`` for every expired id and return their tombstones to write."""
        appends = []
        for partition, entry in sorted(self._cache.items()):
            for tid, md in sorted(entry.metadata_per_transactional_id.items()):
                if md.pending_state is None and self.should_expire(md, now_ms):
                    appends.append(self._append(tid, entry.coordinator_epoch, None, md.prepare_dead()))
        return appends

    def complete_tombstone(self, append: TxnLogAppend, append_error: Errors) -> None:
        """An expired id's tombstone was written (the id leaves the cache) or was not (it stays)."""
        entry = self._cache.get(append.partition)
        if entry is None or entry.coordinator_epoch != append.coordinator_epoch:
            return
        md = entry.metadata_per_transactional_id.get(append.transactional_id)
        if md is None or md.pending_state != TransactionState.DEAD:
            return
        if append_error == Errors.NONE:
            del entry.metadata_per_transactional_id[append.transactional_id]
        else:
            md.abort_pending_transition()


__all__ = ["CoordinatorEpochAndTxnMetadata", "LoadedPendingCompletion", "TransactionStateManager",
           "TransactionalIdAndProducerIdEpoch", "TxnLogAppend", "TxnMetadataCacheEntry", "coordinator_error"]
