"""``TransactionCoordinator``: the transactional requests of Kafka 4.3.1, answered sans-IO.

Theory of operation
-------------------
A transactional producer talks to the coordinator of its ``transactional.id``
(the leader of the id's ``__transaction_state`` partition):

1. **InitProducerId** with the id: a new id gets a producer id from the
   injected `ProducerIdManager` and epoch 0; a known idle id gets its epoch
   bumped, which *fences* every older instance of the producer (their
   requests now carry a stale epoch: PRODUCER_FENCED).  If the id still has
   a transaction open, the coordinator first aborts it itself (an epoch
   fence: ``PrepareEpochFence`` -> ``PrepareAbort`` one epoch higher) and
   answers CONCURRENT_TRANSACTIONS; the producer retries and gets the next
   epoch once the abort is complete.
2. **AddPartitionsToTxn** / **AddOffsetsToTxn** (the group's
   ``__consumer_offsets`` partition): the transaction becomes ``Ongoing`` and
   remembers each partition it will have to mark.  Under transaction version
   2 the partition leaders add the partitions on the producer's behalf
   (the v4+ batch form); a *verify-only* request just asks whether the
   partitions are in the transaction (TRANSACTION_ABORTABLE if not).
3. **EndTxn** commit or abort: ``PrepareCommit``/``PrepareAbort`` is written
   (the decision), the answer goes back, and the markers are to be written
   into every partition; when all are written, ``CompleteCommit`` or
   ``CompleteAbort``.  Under transaction version 2 each EndTxn bumps the
   epoch (KIP-890) and the answer carries the new one; a retried EndTxn is
   recognised by its epoch being one behind.

Two timers, driven by the caller: `abort_timed_out_transactions` aborts
every transaction ``Ongoing`` for longer than its ``transaction.timeout.ms``
with an epoch fence (the producer is fenced: its next request fails), and
`remove_expired_transactional_ids` removes ids idle for
``transactional.id.expiration.ms``.

Sans-IO: every method takes ``now_ms`` and returns a `CoordinatorResult`: the
answer when it is already known, the records to append to
``__transaction_state`` (`TxnLogAppend`) and the markers to write
(`TxnMarkerEntry`, a WriteTxnMarkers intent).  An answer that waits for a
record comes from `on_append_done` once the caller reports the append;
markers are reported with `on_markers_written`.  A ``__transaction_state``
partition is taken over with `on_election` then `load_partition` (its
records), which resumes the markers of every prepared transaction, and given
up with `on_resignation`.

Mirrors ``kafka.coordinator.transaction.TransactionCoordinator`` (Kafka 4.3.1:
handleInitProducerId, prepareInitProducerIdTransit, handleAddPartitionsToTransaction,
handleVerifyPartitionsInTransaction, handleEndTransaction with its TV 1 and
TV 2 paths, handleDescribeTransactions, handleListTransactions,
abortTimedOutTransactions, onElection, onResignation) and the AddOffsetsToTxn
and AddPartitionsToTxn parts of ``KafkaApis``.  Simplified: no two-phase
commit (KIP-939: ``enable2Pc`` is refused as when
``transaction.two.phase.commit.enable`` is false, ``keepPreparedTxn`` with
UNSUPPORTED_VERSION); no authorization; no logging.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Protocol, TypeVar

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.java_hashing import string_hash_code, utils_abs
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager, TransactionResult, TxnMarkerEntry,
)
from minikafka.transaction_coordinator.transaction_metadata import (
    NO_PRODUCER_EPOCH, NO_PRODUCER_ID, SHORT_MAX, TransactionMetadata, is_epoch_exhausted,
)
from minikafka.transaction_coordinator.transaction_state import IllegalStateException, TransactionState
from minikafka.transaction_coordinator.transaction_state_manager import TransactionStateManager, TxnLogAppend
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
INT_MAX = 2**31 - 1
S = TransactionState

R = TypeVar("R")
T = TypeVar("T")


class ProducerIdManager(Protocol):
    """Hands out producer ids (the broker's ``RPCProducerIdManager``, blocks from the controller)."""

    def generate_producer_id(self) -> int: ...


@dataclass(frozen=True, slots=True)
class ProducerIdAndEpoch:
    producer_id: int
    epoch: int


@dataclass(frozen=True, slots=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


@dataclass(frozen=True, slots=True)
class EndTxnResult:
    error: Errors
    producer_id: int = NO_PRODUCER_ID       # TV 2: the id and epoch the producer continues with
    producer_epoch: int = NO_PRODUCER_EPOCH


@dataclass(frozen=True, slots=True)
class AddPartitionsToTxnTransaction:
    """One transaction of an AddPartitionsToTxn request (the only one before v4)."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    partitions: frozenset[TopicPartition]
    verify_only: bool = False


@dataclass(frozen=True, slots=True)
class DescribedTransaction:
    """One transaction of a DescribeTransactions response."""

    transactional_id: str
    error: Errors
    state: str = ""
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    transaction_timeout_ms: int = 0
    transaction_start_time_ms: int = -1
    partitions: frozenset[TopicPartition] = frozenset()


@dataclass(frozen=True, slots=True)
class CoordinatorResult(Generic[R]):
    """What a call decided: the answer (None: not yet, or nobody to answer), records, markers."""

    response: R | None = None
    appends: tuple[TxnLogAppend, ...] = ()
    markers: tuple[TxnMarkerEntry, ...] = ()

    def plus(self, other: "CoordinatorResult[Any]") -> "CoordinatorResult[R]":
        """This result with the records and markers of ``other`` after its own (its answer is dropped)."""
        return CoordinatorResult(self.response, self.appends + other.appends, self.markers + other.markers)


def _answer(response: R) -> CoordinatorResult[R]:
    return CoordinatorResult(response)


Continuation = Callable[[Errors, int], CoordinatorResult[Any]]


class TransactionCoordinator:
    def __init__(self, txn_manager: TransactionStateManager, txn_marker_channel_manager: TransactionMarkerChannelManager,
                 producer_id_manager: ProducerIdManager):
        self.txn_manager = txn_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.producer_id_manager = producer_id_manager
        # append id -> (what to do once it is written, the errors that keep the move for a retry,
        # does it answer the request that wrote it?)
        self._waiting: dict[int, tuple[Continuation, frozenset[Errors], bool]] = {}

    # ================================================================== InitProducerId
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int, now_ms: int,
                                expected: ProducerIdAndEpoch | None = None, enable_two_pc: bool = False,
                                keep_prepared_txn: bool = False) -> CoordinatorResult[InitProducerIdResult]:
        def error(e: Errors) -> CoordinatorResult[InitProducerIdResult]:
            return _answer(InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, e))

        if transactional_id is None:   # an idempotent producer: any broker, a fresh id, epoch 0
            try:
                return _answer(InitProducerIdResult(self.producer_id_manager.generate_producer_id(), 0, Errors.NONE))
            except KafkaException as exc:
                return error(exc.error)
        if transactional_id == "":
            return error(Errors.INVALID_REQUEST)
        if enable_two_pc and not self.txn_manager.config.transaction_2pc_enabled:
            return error(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        if keep_prepared_txn:
            return error(Errors.UNSUPPORTED_VERSION)
        if not self.txn_manager.validate_transaction_timeout_ms(enable_two_pc, transaction_timeout_ms):
            return error(Errors.INVALID_TRANSACTION_TIMEOUT)
        timeout = INT_MAX if enable_two_pc else transaction_timeout_ms

        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error == Errors.NONE and found is None:
            try:
                producer_id = self.producer_id_manager.generate_producer_id()
            except KafkaException as exc:
                return error(exc.error)
            created = TransactionMetadata(transactional_id, producer_id, NO_PRODUCER_ID, NO_PRODUCER_ID,
                                          NO_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, timeout, S.EMPTY, (), -1, now_ms,
                                          TransactionVersion.TV_0)
            lookup_error, found = self.txn_manager.put_transaction_state_if_not_exists(created)
        if lookup_error != Errors.NONE or found is None:
            return error(lookup_error)
        coordinator_epoch, md = found.coordinator_epoch, found.transaction_metadata

        prepared = self._prepare_init_producer_id_transit(md, timeout, expected, now_ms)
        if isinstance(prepared, Errors):
            return error(prepared)
        transit = prepared
        if transit.txn_state == S.PREPARE_EPOCH_FENCE:
            # abort the open transaction first; the producer retries after CONCURRENT_TRANSACTIONS
            aborting = self._end_transaction(transactional_id, transit.producer_id, transit.producer_epoch,
                                             TransactionResult.ABORT, False,
                                             self.txn_manager.transaction_version_level(), now_ms)
            return self._map(aborting, lambda r: InitProducerIdResult(
                NO_PRODUCER_ID, NO_PRODUCER_EPOCH, r.error if r.error != Errors.NONE else Errors.CONCURRENT_TRANSACTIONS))

        def written(e: Errors, now: int) -> CoordinatorResult[InitProducerIdResult]:
            if e != Errors.NONE:
                return error(e)
            return _answer(InitProducerIdResult(transit.producer_id, transit.producer_epoch, Errors.NONE))
        return self._append_then(transactional_id, coordinator_epoch, transit, written, now_ms)

    def _prepare_init_producer_id_transit(self, md: TransactionMetadata, timeout: int,
                                          expected: ProducerIdAndEpoch | None,
                                          now_ms: int) -> TxnTransitMetadata | Errors:
        def valid_producer_id(e: ProducerIdAndEpoch) -> bool:
            # a just-created id, the current producer id, or a retry of a rotation after the epoch ran out
            return (md.producer_epoch == NO_PRODUCER_EPOCH or e.producer_id == md.producer_id
                    or (e.producer_id == md.prev_producer_id and is_epoch_exhausted(e.epoch)))

        if md.pending_transition_in_progress():
            return Errors.CONCURRENT_TRANSACTIONS
        if expected is not None and not valid_producer_id(expected):
            return Errors.PRODUCER_FENCED
        if md.state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):
            return Errors.CONCURRENT_TRANSACTIONS
        if md.state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT, S.EMPTY):
            if md.is_producer_epoch_exhausted() and (expected is None or expected.epoch == md.producer_epoch):
                try:
                    new_producer_id = self.producer_id_manager.generate_producer_id()
                except KafkaException as exc:
                    return exc.error
                return md.prepare_producer_id_rotation(new_producer_id, timeout, now_ms, expected is not None)
            try:
                return md.prepare_increment_producer_epoch(timeout, None if expected is None else expected.epoch,
                                                           now_ms)
            except KafkaException as exc:
                return exc.error
        if md.state == S.ONGOING:
            return md.prepare_fence_producer_epoch()
        raise IllegalStateException(f"Found transactionalId {md.transactional_id} with state {md.state}. This is "
                                    "illegal as we should never have transitioned to this state.")

    # ================================================================== AddPartitionsToTxn, AddOffsetsToTxn
    def handle_add_partitions_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                             partitions: frozenset[TopicPartition],
                                             client_transaction_version: TransactionVersion,
                                             now_ms: int) -> CoordinatorResult[Errors]:
        if not transactional_id:
            return _answer(Errors.INVALID_REQUEST)
        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error != Errors.NONE:
            return _answer(lookup_error)
        if found is None:
            return _answer(Errors.INVALID_PRODUCER_ID_MAPPING)
        md = found.transaction_metadata
        if md.pending_transition_in_progress():
            return _answer(Errors.CONCURRENT_TRANSACTIONS)
        if md.producer_id != producer_id:
            return _answer(Errors.INVALID_PRODUCER_ID_MAPPING)
        if md.producer_epoch != producer_epoch:
            return _answer(Errors.PRODUCER_FENCED)
        if md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            return _answer(Errors.CONCURRENT_TRANSACTIONS)
        if md.state == S.ONGOING and partitions <= md.topic_partitions:
            return _answer(Errors.NONE)          # already in: no record needed
        transit = md.prepare_add_partitions(partitions, now_ms, client_transaction_version)
        return self._append_then(transactional_id, found.coordinator_epoch, transit,
                                 lambda e, now: _answer(e), now_ms)

    def handle_verify_partitions_in_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                                partitions: frozenset[TopicPartition]) -> dict[TopicPartition, Errors]:
        """A partition leader asks (verify-only) whether the partitions are in the ongoing transaction."""
        def all_(e: Errors) -> dict[TopicPartition, Errors]:
            return {tp: e for tp in partitions}
        if not transactional_id:
            return all_(Errors.INVALID_REQUEST)
        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error != Errors.NONE:
            return all_(lookup_error)
        if found is None:
            return all_(Errors.INVALID_PRODUCER_ID_MAPPING)
        md = found.transaction_metadata
        if md.producer_id != producer_id:
            return all_(Errors.INVALID_PRODUCER_ID_MAPPING)
        if md.producer_epoch != producer_epoch:
            return all_(Errors.PRODUCER_FENCED)
        if md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            return all_(Errors.CONCURRENT_TRANSACTIONS)
        return {tp: Errors.NONE if tp in md.topic_partitions else Errors.TRANSACTION_ABORTABLE for tp in partitions}

    def handle_add_partitions_to_txn(self, transaction: AddPartitionsToTxnTransaction, request_version: int,
                                     now_ms: int) -> CoordinatorResult[dict[TopicPartition, Errors]]:
        """One transaction of an AddPartitionsToTxn request of ``request_version`` (each partition's error)."""
        if transaction.verify_only:
            return _answer(self.handle_verify_partitions_in_transaction(
                transaction.transactional_id, transaction.producer_id, transaction.producer_epoch,
                transaction.partitions))
        added = self.handle_add_partitions_to_transaction(
            transaction.transactional_id, transaction.producer_id, transaction.producer_epoch,
            transaction.partitions, TransactionVersion.for_add_partitions_to_txn(request_version), now_ms)
        return self._map(added, lambda e: {tp: e for tp in transaction.partitions})

    def handle_add_offsets_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                          group_id: str, offsets_topic_partitions: int,
                                          now_ms: int) -> CoordinatorResult[Errors]:
        """AddOffsetsToTxn: the group's ``__consumer_offsets`` partition joins the transaction (as TV 0)."""
        partition = utils_abs(string_hash_code(group_id)) % offsets_topic_partitions
        return self.handle_add_partitions_to_transaction(
            transactional_id, producer_id, producer_epoch,
            frozenset({TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)}), TransactionVersion.TV_0, now_ms)

    # ================================================================== EndTxn
    def handle_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               result: TransactionResult, client_transaction_version: TransactionVersion,
                               now_ms: int) -> CoordinatorResult[EndTxnResult]:
        return self._end_transaction(transactional_id, producer_id, producer_epoch, result, True,
                                     client_transaction_version, now_ms)

    def _end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                         result: TransactionResult, is_from_client: bool, tv: TransactionVersion,
                         now_ms: int) -> CoordinatorResult[EndTxnResult]:
        def error(e: Errors) -> CoordinatorResult[EndTxnResult]:
            return _answer(EndTxnResult(e))

        if not transactional_id:
            return error(Errors.INVALID_REQUEST)
        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error != Errors.NONE:
            return error(lookup_error)
        if found is None:
            return error(Errors.INVALID_PRODUCER_ID_MAPPING)
        md, coordinator_epoch = found.transaction_metadata, found.coordinator_epoch
        commit = result == TransactionResult.COMMIT
        is_epoch_fence = md.pending_state == S.PREPARE_EPOCH_FENCE

        def invalid_state() -> CoordinatorResult[EndTxnResult]:
            return error(Errors.INVALID_TXN_STATE)

        def never() -> CoordinatorResult[EndTxnResult]:
            raise IllegalStateException(f"Found transactionalId {transactional_id} with state {md.state}. This is "
                                        "illegal as we should never have transitioned to this state.")

        def completion(next_state: TransactionState, no_partition_added: bool) -> TxnTransitMetadata | Errors:
            next_producer_id = NO_PRODUCER_ID
            if tv.supports_epoch_bump() and not is_epoch_fence and md.is_producer_epoch_exhausted():
                try:
                    next_producer_id = self.producer_id_manager.generate_producer_id()
                except KafkaException as exc:
                    return exc.error
            if next_state == S.PREPARE_ABORT and is_epoch_fence:
                md.begin_fenced_abort(producer_epoch)
            return md.prepare_abort_or_commit(next_state, tv, next_producer_id, now_ms, no_partition_added)

        decided: TxnTransitMetadata | Errors | CoordinatorResult[EndTxnResult]
        if not tv.supports_epoch_bump():
            # --- transaction version 0/1: the epoch never moves at EndTxn
            if md.producer_id != producer_id:
                return error(Errors.INVALID_PRODUCER_ID_MAPPING)
            if (is_from_client and producer_epoch != md.producer_epoch) or producer_epoch < md.producer_epoch:
                return error(Errors.PRODUCER_FENCED)
            if md.pending_transition_in_progress() and md.pending_state != S.PREPARE_EPOCH_FENCE:
                return error(Errors.CONCURRENT_TRANSACTIONS)
            if md.state == S.ONGOING:
                decided = completion(S.PREPARE_COMMIT if commit else S.PREPARE_ABORT, False)
            elif md.state == S.COMPLETE_COMMIT:
                decided = error(Errors.NONE) if commit else invalid_state()
            elif md.state == S.COMPLETE_ABORT:
                decided = error(Errors.NONE) if not commit else invalid_state()
            elif md.state == S.PREPARE_COMMIT:
                decided = error(Errors.CONCURRENT_TRANSACTIONS) if commit else invalid_state()
            elif md.state == S.PREPARE_ABORT:
                decided = error(Errors.CONCURRENT_TRANSACTIONS) if not commit else invalid_state()
            elif md.state == S.EMPTY:
                decided = invalid_state()
            else:
                decided = never()
        else:
            # --- transaction version 2: every EndTxn bumps the epoch; a retry carries the epoch before it
            current_pid, current_epoch = md.producer_id, md.producer_epoch
            retry_on_overflow = (not is_epoch_fence and md.prev_producer_id == producer_id
                                 and producer_epoch == SHORT_MAX - 1 and md.producer_epoch == 0)
            retry_on_epoch_bump = not is_epoch_fence and md.producer_epoch == producer_epoch + 1
            if not is_epoch_fence:
                if md.state in (S.ONGOING, S.EMPTY, S.DEAD, S.PREPARE_EPOCH_FENCE):
                    valid_epoch = producer_epoch == md.producer_epoch
                elif md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                    valid_epoch = retry_on_epoch_bump
                else:
                    valid_epoch = retry_on_epoch_bump or retry_on_overflow or producer_epoch == md.producer_epoch
            else:
                valid_epoch = (not is_from_client or producer_epoch == md.producer_epoch) \
                    and producer_epoch >= md.producer_epoch
            is_retry = retry_on_epoch_bump or retry_on_overflow
            if md.producer_id != producer_id and not retry_on_overflow:
                return error(Errors.INVALID_PRODUCER_ID_MAPPING)
            if not valid_epoch:
                return error(Errors.PRODUCER_FENCED)
            if md.pending_transition_in_progress() and md.pending_state != S.PREPARE_EPOCH_FENCE:
                return error(Errors.CONCURRENT_TRANSACTIONS)
            retried_ok = _answer(EndTxnResult(Errors.NONE, current_pid, current_epoch))
            if md.state == S.ONGOING:
                decided = completion(S.PREPARE_COMMIT if commit else S.PREPARE_ABORT, False)
            elif md.state == S.COMPLETE_COMMIT:
                if commit:
                    decided = retried_ok if is_retry else invalid_state()
                else:
                    decided = invalid_state() if is_retry else completion(S.PREPARE_ABORT, True)
            elif md.state == S.COMPLETE_ABORT:
                if commit:
                    decided = invalid_state()
                else:
                    decided = retried_ok if is_retry else completion(S.PREPARE_ABORT, True)
            elif md.state == S.PREPARE_COMMIT:
                decided = error(Errors.CONCURRENT_TRANSACTIONS) if commit else invalid_state()
            elif md.state == S.PREPARE_ABORT:
                decided = error(Errors.CONCURRENT_TRANSACTIONS) if not commit else invalid_state()
            elif md.state == S.EMPTY:
                decided = completion(S.PREPARE_ABORT, True) if not commit else invalid_state()
            else:
                decided = never()

        if isinstance(decided, Errors):
            return error(decided)
        if isinstance(decided, CoordinatorResult):
            return decided
        transit = decided

        def written(e: Errors, now: int) -> CoordinatorResult[EndTxnResult]:
            if e != Errors.NONE:
                if is_epoch_fence:
                    _, still = self.txn_manager.get_transaction_state(transactional_id)
                    if still is not None and still.coordinator_epoch == coordinator_epoch:
                        still.transaction_metadata.has_failed_epoch_fence = True
                return error(e)
            return self._send_txn_markers(transactional_id, producer_id, producer_epoch, result, tv,
                                          coordinator_epoch, now)
        return self._append_then(transactional_id, coordinator_epoch, transit, written, now_ms)

    def _send_txn_markers(self, transactional_id: str, producer_id: int, producer_epoch: int,
                          result: TransactionResult, tv: TransactionVersion, coordinator_epoch: int,
                          now_ms: int) -> CoordinatorResult[EndTxnResult]:
        """The decision is written: check once more, prepare the Complete move, answer, emit the markers."""
        commit = result == TransactionResult.COMMIT
        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error != Errors.NONE:
            return _answer(EndTxnResult(lookup_error))
        if found is None:
            raise IllegalStateException(f"The coordinator still owns the transaction partition for "
                                        f"{transactional_id}, but there is no metadata in the cache; this is not "
                                        "expected")
        if found.coordinator_epoch != coordinator_epoch:
            return _answer(EndTxnResult(Errors.NOT_COORDINATOR))
        md = found.transaction_metadata
        if md.producer_id != producer_id:
            return _answer(EndTxnResult(Errors.INVALID_PRODUCER_ID_MAPPING))
        epoch_ok = (md.producer_epoch == producer_epoch if not tv.supports_epoch_bump()
                    else md.producer_epoch in (producer_epoch, producer_epoch + 1))
        if not epoch_ok:
            return _answer(EndTxnResult(Errors.PRODUCER_FENCED))
        if md.pending_transition_in_progress():
            return _answer(EndTxnResult(Errors.CONCURRENT_TRANSACTIONS))
        if md.state in (S.DEAD, S.PREPARE_EPOCH_FENCE):
            raise IllegalStateException(f"Found transactionalId {transactional_id} with state {md.state}. This is "
                                        "illegal as we should never have transitioned to this state.")
        if md.state != (S.PREPARE_COMMIT if commit else S.PREPARE_ABORT):
            return _answer(EndTxnResult(Errors.INVALID_TXN_STATE))
        transit = md.prepare_complete(now_ms)
        answer = (EndTxnResult(Errors.NONE, md.producer_id, md.producer_epoch) if tv.supports_epoch_bump()
                  else EndTxnResult(Errors.NONE))
        return CoordinatorResult(answer).plus(self._add_txn_markers_to_send(coordinator_epoch, result, md, transit,
                                                                            now_ms))

    def _add_txn_markers_to_send(self, coordinator_epoch: int, result: TransactionResult, md: TransactionMetadata,
                                 transit: TxnTransitMetadata, now_ms: int) -> CoordinatorResult[None]:
        marker = self.txn_marker_channel_manager.add_txn_markers_to_send(coordinator_epoch, result, md, transit)
        if not marker.partitions:
            return self._complete_txn(md.transactional_id, now_ms)   # nothing to mark: complete at once
        return CoordinatorResult(markers=(marker,))

    # ================================================================== markers written
    def on_markers_written(self, transactional_id: str, partitions: frozenset[TopicPartition],
                           now_ms: int) -> CoordinatorResult[None]:
        """The markers of ``transactional_id`` are in ``partitions``; once all are, write the Complete record."""
        pending = self.txn_marker_channel_manager.pending_complete_txn(transactional_id)
        if pending is None:
            return CoordinatorResult()
        md = pending.txn_metadata
        for tp in sorted(partitions & md.topic_partitions):
            md.remove_partition(tp)
        if md.topic_partitions:
            return CoordinatorResult()
        return self._complete_txn(transactional_id, now_ms)

    def _complete_txn(self, transactional_id: str, now_ms: int) -> CoordinatorResult[None]:
        pending = self.txn_marker_channel_manager.pending_complete_txn(transactional_id)
        if pending is None:
            return CoordinatorResult()
        append_error, append = self.txn_manager.append_transaction_to_log(
            transactional_id, pending.coordinator_epoch, pending.transit)
        if append is None:
            # the partition moved (or is loading): its next coordinator resumes the markers
            self.txn_marker_channel_manager.remove_pending(transactional_id)
            return CoordinatorResult()

        def written(e: Errors, now: int) -> CoordinatorResult[None]:
            if e == Errors.COORDINATOR_NOT_AVAILABLE:
                return self._complete_txn(transactional_id, now)   # the move is kept: write it again
            self.txn_marker_channel_manager.remove_pending(transactional_id)
            return CoordinatorResult()
        self._waiting[append.append_id] = (written, frozenset({Errors.COORDINATOR_NOT_AVAILABLE}), False)
        return CoordinatorResult(appends=(append,))

    # ================================================================== appends
    def _append_then(self, transactional_id: str, coordinator_epoch: int, transit: TxnTransitMetadata,
                     then: Callable[[Errors, int], CoordinatorResult[T]], now_ms: int) -> CoordinatorResult[T]:
        append_error, append = self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch,
                                                                          transit)
        if append is None:
            return then(append_error, now_ms)
        self._waiting[append.append_id] = (then, frozenset(), True)
        return CoordinatorResult(appends=(append,))

    def on_append_done(self, append: TxnLogAppend, append_error: Errors, now_ms: int) -> CoordinatorResult[Any]:
        """``append`` was written (``append_error`` NONE) or refused: the answer it waited for, and what follows."""
        if append.value is None:
            self.txn_manager.complete_tombstone(append, append_error)
            return CoordinatorResult()
        then, retry_on, _ = self._waiting.pop(append.append_id)
        return then(self.txn_manager.complete_append(append, append_error, retry_on), now_ms)

    def waiting_appends(self) -> int:
        return len(self._waiting)

    def _map(self, result: CoordinatorResult[T], fn: Callable[[T], R]) -> CoordinatorResult[R]:
        """``result`` with its answer, now or once its records are written, passed through ``fn``."""
        for append in result.appends:
            entry = self._waiting.get(append.append_id)
            if entry is not None and entry[2]:
                inner = entry[0]
                self._waiting[append.append_id] = (
                    lambda e, now, inner=inner: self._map(inner(e, now), fn), entry[1], True)  # type: ignore[misc]
        mapped = None if result.response is None else fn(result.response)
        return CoordinatorResult(mapped, result.appends, result.markers)

    # ================================================================== timers
    def abort_timed_out_transactions(self, now_ms: int) -> CoordinatorResult[None]:
        """Abort (with an epoch fence) every transaction open longer than its transaction.timeout.ms."""
        out: CoordinatorResult[None] = CoordinatorResult()
        for entry in self.txn_manager.timed_out_transactions(now_ms):
            _, found = self.txn_manager.get_transaction_state(entry.transactional_id)
            if found is None:
                continue
            md = found.transaction_metadata
            if md.producer_id != entry.producer_id or md.pending_transition_in_progress():
                continue
            fence = md.prepare_fence_producer_epoch()
            aborting = self._end_transaction(md.transactional_id, fence.producer_id, fence.producer_epoch,
                                             TransactionResult.ABORT, False,
                                             self.txn_manager.transaction_version_level(), now_ms)
            out = out.plus(self._map(aborting, lambda r: None))
        return out

    def remove_expired_transactional_ids(self, now_ms: int) -> CoordinatorResult[None]:
        """Tombstones for the ids idle longer than transactional.id.expiration.ms."""
        return CoordinatorResult(appends=tuple(self.txn_manager.expire_transactional_ids(now_ms)))

    # ================================================================== partitions of __transaction_state
    def on_election(self, txn_topic_partition: int, coordinator_epoch: int) -> None:
        """This broker now leads ``txn_topic_partition``: requests for its ids wait for `load_partition`."""
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition)
        self.txn_manager.start_loading(txn_topic_partition, coordinator_epoch)

    def load_partition(self, txn_topic_partition: int, coordinator_epoch: int,
                       records: list[tuple[bytes, bytes | None]], now_ms: int) -> CoordinatorResult[None]:
        """Replay the partition's records; resume the markers of the transactions found prepared."""
        out: CoordinatorResult[None] = CoordinatorResult()
        for pending in self.txn_manager.load_transactions_for_txn_topic_partition(
                txn_topic_partition, coordinator_epoch, records, now_ms):
            result = TransactionResult.COMMIT if pending.commit else TransactionResult.ABORT
            out = out.plus(self._add_txn_markers_to_send(pending.coordinator_epoch, result, pending.txn_metadata,
                                                         pending.transit, now_ms))
        return out

    def on_resignation(self, txn_topic_partition: int, coordinator_epoch: int | None = None) -> None:
        self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition, coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition)

    def partition_for(self, transactional_id: str) -> int:
        return self.txn_manager.partition_for(transactional_id)

    # ================================================================== DescribeTransactions, ListTransactions
    def handle_describe_transactions(self, transactional_id: str) -> DescribedTransaction:
        if not transactional_id:
            return DescribedTransaction(transactional_id, Errors.INVALID_REQUEST)
        lookup_error, found = self.txn_manager.get_transaction_state(transactional_id)
        if lookup_error != Errors.NONE:
            return DescribedTransaction(transactional_id, lookup_error)
        if found is None or found.transaction_metadata.state == S.DEAD:
            return DescribedTransaction(transactional_id, Errors.TRANSACTIONAL_ID_NOT_FOUND)
        md = found.transaction_metadata
        return DescribedTransaction(transactional_id, Errors.NONE, md.state.state_name, md.producer_id,
                                    md.producer_epoch, md.txn_timeout_ms, md.txn_start_timestamp,
                                    md.topic_partitions)

    def handle_list_transactions(self, producer_ids: set[int], states: set[str], duration_filter_ms: int,
                                 now_ms: int) -> tuple[Errors, list[tuple[str, int, str]]]:
        return self.txn_manager.list_transaction_states(producer_ids, states, duration_filter_ms, now_ms)


__all__ = ["AddPartitionsToTxnTransaction", "CoordinatorResult", "DescribedTransaction", "EndTxnResult",
           "InitProducerIdResult", "ProducerIdAndEpoch", "ProducerIdManager", "TransactionCoordinator"]
