"""The checks of `UnifiedLog`'s append path: analysing, validating and de-duplicating batches.

Theory of operation
-------------------
Every append first *analyzes* the batches it was given (shallowly: headers
and CRCs only): their offsets, sizes, codecs and epochs.  A torn trailing
batch is dropped, as Kafka does.  Then:

* leader (``CLIENT`` / ``COORDINATOR`` origin): `LogValidator` checks the
  records and assigns offsets starting at the log end offset, stamping the
  leader epoch; the ``RAFT_LEADER`` origin (the KRaft metadata log) brings
  its own offsets, whose epochs must match the leader's;
* follower (``REPLICATION``): offsets are taken as given and must not go
  back below the log end offset; batches from an epoch newer than the
  follower's current one are skipped (KAFKA-18723).

Next the leader epoch cache learns each batch's epoch, the active segment may
roll, and idempotent producers are checked: a batch the producer already
wrote (same epoch and sequence range among its last five) is not written
again -- the original offsets are returned.  Finally the bytes are written.

`UnifiedLog.append_as_leader` and ``append_as_follower`` run the pipeline
(they own the log's state); the steps that only *look* at batches are the
functions here, each given exactly the facts it reads -- the topic partition,
the log config, the log start and end offsets, the producer state manager.

Mirrors ``UnifiedLog.append``'s helpers ``analyzeAndValidateRecords``,
``analyzeAndValidateProducerState`` and ``trimInvalidBytes``.
"""

from __future__ import annotations

from minikafka.common.errors import (CorruptRecordException, InvalidRecordException, KafkaException,
                                     RecordTooLargeException)
from minikafka.common.topic_partition import TopicPartition
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType, target_compression
from minikafka.record.memory_records import decode_records
from minikafka.record.record_batch import RecordBatch, TimestampType
from minikafka.storage.log_append_info import UNKNOWN_OFFSET, LogAppendInfo
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_validator import LogValidator
from minikafka.storage.producer_append_info import AppendOrigin, CompletedTxn, ProducerAppendInfo
from minikafka.storage.producer_state_manager import ProducerStateManager


_TIMESTAMP_TYPES = {str(t): t for t in TimestampType}     # message.timestamp.type value -> TimestampType


class UnexpectedAppendOffsetException(KafkaException):
    """A follower append starting below the log end offset (the fetcher then resets the log)."""

    def __init__(self, message: str, first_offset: int, last_offset: int):
        super().__init__(message)
        self.first_offset = first_offset
        self.last_offset = last_offset

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.server.storage.log.UnexpectedAppendOffsetException"


class OffsetsOutOfOrderException(KafkaException):
    """Follower batches whose offsets do not increase."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.storage.internals.log.OffsetsOutOfOrderException"


def analyze_and_validate_records(tp: TopicPartition, config: LogConfig, log_start_offset: int, buf: bytearray,
                                 batches: list[RecordBatch], origin: AppendOrigin, ignore_record_size: bool,
                                 require_monotonic: bool,
                                 leader_epoch: int) -> tuple[LogAppendInfo, list[RecordBatch]]:
    """Shallow checks of every batch (size, CRC, origin, monotonic offsets); the batches to keep.

    A follower stops at the first batch of an epoch newer than its own."""
    first_offset, last_offset, last_epoch = UNKNOWN_OFFSET, -1, rb.NO_PARTITION_LEADER_EPOCH
    max_timestamp, valid_bytes, last_of_first = rb.NO_TIMESTAMP, 0, -1
    source, monotonic, kept = CompressionType.NONE, True, []
    for batch in batches:
        _check_batch_origin(tp, batch, origin, leader_epoch)
        if (origin is AppendOrigin.REPLICATION and batch.partition_leader_epoch != rb.NO_PARTITION_LEADER_EPOCH
                and batch.partition_leader_epoch > leader_epoch):
            break                  # written after this replica's epoch: not ours to keep yet
        if not kept:
            first_offset = batch.base_offset if batch.magic >= rb.MAGIC_VALUE_V2 else UNKNOWN_OFFSET
            last_of_first = batch.last_offset
        if last_offset >= batch.last_offset:
            monotonic = False
        last_offset, last_epoch = batch.last_offset, batch.partition_leader_epoch
        size = batch.size_in_bytes
        if not ignore_record_size and size > config.max_message_bytes:
            raise RecordTooLargeException(f"The record batch size in the append to {tp} is {size} bytes which "
                                          f"exceeds the maximum configured value of "
                                          f"{config.max_message_bytes}).")
        if not rb.is_valid(buf, batch):
            raise CorruptRecordException(f"Record is corrupt (stored crc = {batch.crc}) in topic partition {tp}.")
        max_timestamp = max(max_timestamp, batch.max_timestamp)
        valid_bytes += size
        if batch.is_compressed:
            source = batch.compression_type
        kept.append(batch)
        if require_monotonic and not monotonic:
            offsets = ",".join(str(r.offset) for r in decode_records(bytes(buf)))
            raise OffsetsOutOfOrderException(f"Out of order offsets found in append to {tp}: {offsets}")
    info = LogAppendInfo(first_offset, last_offset, last_epoch if last_epoch != -1 else None, max_timestamp,
                         rb.NO_TIMESTAMP, log_start_offset, source, valid_bytes, last_of_first, len(kept))
    return info, kept


def _check_batch_origin(tp: TopicPartition, batch: RecordBatch, origin: AppendOrigin, leader_epoch: int) -> None:
    if batch.magic != rb.MAGIC_VALUE_V2 and origin is AppendOrigin.CLIENT:
        # Kafka refuses these while parsing the Produce request (v3 is the oldest 4.x accepts).
        raise InvalidRecordException("Produce requests with version 3 are only allowed to contain record "
                                     "batches with magic version 2")
    if origin is AppendOrigin.RAFT_LEADER and batch.partition_leader_epoch != leader_epoch:
        raise InvalidRecordException(f"Append from Raft leader did not set the batch epoch correctly, "
                                     f"expected {leader_epoch} but the batch has {batch.partition_leader_epoch}")
    if origin is AppendOrigin.CLIENT and batch.base_offset != 0:
        raise InvalidRecordException(f"The baseOffset of the record batch in the append to "
                                     f"{tp} should be 0, but it is {batch.base_offset}")


def validate_and_assign(tp: TopicPartition, config: LogConfig, log_end_offset: int, buf: bytearray,
                        batches: list[RecordBatch], info: LogAppendInfo, origin: AppendOrigin, leader_epoch: int,
                        now: int, ignore_record_size: bool) -> tuple[bytearray, list[RecordBatch], LogAppendInfo]:
    """Leader appends: `LogValidator` assigns offsets from ``log_end_offset`` and stamps epoch and times."""
    timestamp_type = _TIMESTAMP_TYPES[config.message_timestamp_type]
    validator = LogValidator(tp, now, info.source_compression,
                             target_compression(config.compression_type, info.source_compression),
                             "compact" in config.cleanup_policy, timestamp_type,
                             config.message_timestamp_before_max_ms, config.message_timestamp_after_max_ms,
                             leader_epoch, origin)
    result = validator.validate_and_assign_offsets(buf, batches, log_end_offset)
    if result.message_size_maybe_changed:
        buf = result.validated_records
        batches = list(rb.iter_batches(buf))
        if not ignore_record_size:
            for batch in batches:
                if batch.size_in_bytes > config.max_message_bytes:
                    raise RecordTooLargeException(
                        f"Message batch size is {batch.size_in_bytes} bytes in append topartition "
                        f"{tp} which exceeds the maximum configured size of "
                        f"{config.max_message_bytes}.")
    else:                           # stamped in place: same positions, new header values
        batches = [RecordBatch.parse(buf, batch.position) for batch in batches]
    log_append_time = result.log_append_time if timestamp_type is TimestampType.LOG_APPEND_TIME \
        else rb.NO_TIMESTAMP
    info = LogAppendInfo(log_end_offset, result.last_offset, info.last_leader_epoch, result.max_timestamp,
                         log_append_time, info.log_start_offset, info.source_compression, len(buf),
                         result.last_offset, len(batches))
    return buf, batches, info


def unexpected_offset(tp: TopicPartition, log_start_offset: int, log_end_offset: int, buf: bytearray,
                      batches: list[RecordBatch], info: LogAppendInfo) -> UnexpectedAppendOffsetException:
    """The error for follower batches that start below the log end offset."""
    has_first = info.first_offset != UNKNOWN_OFFSET
    first_offset = info.first_offset if has_first else batches[0].base_offset
    which = "First offset" if has_first else "Last offset of the first batch"
    offsets = ", ".join(str(r.offset) for r in decode_records(bytes(buf))[:10])
    return UnexpectedAppendOffsetException(
        f"Unexpected offset in append to {tp}. {which} "
        f"{info.first_or_last_offset_of_first_batch} is less than the next offset {log_end_offset}. "
        f"First 10 offsets in append: {offsets}, last offset in append: {info.last_offset}. "
        f"Log start offset = {log_start_offset}", first_offset, info.last_offset)


def analyze_producer_state(psm: ProducerStateManager, buf: bytearray, batches: list[RecordBatch],
                           origin: AppendOrigin):
    """(updated producers, completed transactions, duplicate batch or None); the caller applies them."""
    updated: dict[int, ProducerAppendInfo] = {}
    completed: list[CompletedTxn] = []
    view = memoryview(buf)
    for batch in batches:
        if not batch.has_producer_id:
            continue
        if origin is AppendOrigin.CLIENT:
            entry = psm.last_entry(batch.producer_id)
            if entry is not None:
                duplicate = entry.find_duplicate_batch(batch.producer_epoch, batch.base_sequence,
                                                       batch.last_sequence)
                if duplicate is not None:
                    return updated, completed, duplicate
        info = updated.get(batch.producer_id)
        if info is None:
            info = updated[batch.producer_id] = psm.prepare_update(batch.producer_id, origin)
        batch_view = view[batch.position:batch.position + batch.size_in_bytes]
        txn = psm.append_batch(info, batch, batch_view)
        if txn is not None:
            completed.append(txn)
    return updated, completed, None

