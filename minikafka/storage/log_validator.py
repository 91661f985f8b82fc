"""LogValidator: the leader's checks on a produced batch, and offset assignment.

Theory of operation
-------------------
A producer sends one batch per partition with ``baseOffset`` 0.  Before the
leader writes it, it checks the batch's shape (offset range and record count
agree, no control records from clients, a producer id comes with a sequence),
walks its records (each record well formed, timestamps within
``message.timestamp.before/after.max.ms`` of the broker's clock for
``CreateTime`` topics, keys present on compacted topics), and then assigns
offsets by writing the log end offset into ``baseOffset``.

*Uncompressed* batches are validated and stamped in place: only
``baseOffset``, ``partitionLeaderEpoch`` and -- if the maximum timestamp or
timestamp type must change (``LogAppendTime`` topics) -- ``attributes``,
``maxTimestamp`` and the CRC are rewritten.  The stored bytes are otherwise the
client's.  Record walking here touches only varints (`scan_records`).

*Compressed* batches are decompressed and walked the same way.  If the
broker stores the producer's codec (``compression.type=producer`` or the same
codec) and the records' inner offsets are 0, 1, 2, ... the compressed bytes
are kept and only the header is stamped.  Otherwise (a different codec is
configured, or inner offsets are wrong) the broker re-encodes the batch with
the target codec -- the only case where stored bytes differ from the client's.

A failure of a single record rejects the whole batch; the exception carries
``record_errors`` (batch index, message) for the Produce response.

Mirrors ``org.apache.kafka.storage.internals.log.LogValidator`` (Kafka 4.x:
magic v2 only, so no format conversion) and ``RecordValidationException``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minikafka.common.errors import InvalidRecordException, InvalidTimestampException  # type: ignore
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType, decompress
from minikafka.record.default_record import Record, read_records, scan_records
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.record.record_batch import RecordBatch, TimestampType
from minikafka.storage.producer_append_info import AppendOrigin

_LONG_MIN, _LONG_RANGE = -(2**63), 2**64


def _java_long(value: int) -> int:
    """Wrap like Java long arithmetic (Kafka prints ``now - Long.MAX_VALUE`` as a negative number)."""
    return (value - _LONG_MIN) % _LONG_RANGE + _LONG_MIN


@dataclass(frozen=True, slots=True)
class ValidationResult:
    log_append_time: int                 # the broker clock used ("now")
    validated_records: bytearray         # the batch as it will be stored, offsets assigned
    max_timestamp: int
    shallow_offset_of_max_timestamp: int
    message_size_maybe_changed: bool     # True when the batch was re-encoded
    last_offset: int


@dataclass(slots=True)
class _RecordErrors:
    errors: list[tuple[int, str]] = field(default_factory=list)   # (batch index, message)
    timestamp_error: bool = False


class LogValidator:
    """Validates one produce append for one partition and assigns its offsets."""

    def __init__(self, topic_partition: TopicPartition, now: int, source: CompressionType,
                 target: CompressionType, compacted: bool, timestamp_type: TimestampType,
                 timestamp_before_max_ms: int, timestamp_after_max_ms: int, partition_leader_epoch: int,
                 origin: AppendOrigin):
        self.tp = topic_partition
        self.now = now
        self.source = source
        self.target = target
        self.compacted = compacted
        self.timestamp_type = timestamp_type
        self.before_max_ms = timestamp_before_max_ms
        self.after_max_ms = timestamp_after_max_ms
        self.leader_epoch = partition_leader_epoch
        self.origin = origin

    def validate_and_assign_offsets(self, records: bytearray, batches: list[RecordBatch],
                                    offset_counter: int) -> ValidationResult:
        batch = self._only_batch(batches)
        self._validate_batch(batch)
        if self.source is CompressionType.NONE and self.target is CompressionType.NONE:
            return self._assign_in_place_uncompressed(records, batch, offset_counter)
        return self._assign_compressed(records, batch, offset_counter)

    # ------------------------------------------------------------------ batch-level checks
    def _only_batch(self, batches: list[RecordBatch]) -> RecordBatch:
        if not batches:
            raise InvalidRecordException("Record batch has no batches at all")
        if len(batches) > 1:
            raise InvalidRecordException("Compressed outer record has more than one batch")
        return batches[0]

    def _validate_batch(self, batch: RecordBatch) -> None:
        tp = self.tp
        if self.origin is not AppendOrigin.CLIENT:
            return
        count_from_offsets = batch.last_offset - batch.base_offset + 1
        if count_from_offsets <= 0:
            raise InvalidRecordException(f"Batch has an invalid offset range: [{batch.base_offset}, "
                                         f"{batch.last_offset}] in topic partition {tp}")
        count = batch.records_count
        if count <= 0:
            raise InvalidRecordException(f"Invalid reported count for record batch: {count} in topic partition {tp}")
        if count_from_offsets != count:
            raise InvalidRecordException(f"Inconsistent batch offset range [{batch.base_offset}, "
                                         f"{batch.last_offset}] and count of records {count} in topic partition {tp}")
        if batch.is_control_batch:
            raise InvalidRecordException(f"Clients are not allowed to write control records in topic partition {tp}")
        if batch.has_producer_id and batch.base_sequence < 0:
            raise InvalidRecordException(f"Invalid sequence number {batch.base_sequence} in record batch with "
                                         f"producerId {batch.producer_id} in topic partition {tp}")

    # ------------------------------------------------------------------ record-level checks
    def _timestamp_bounds(self) -> tuple[int, int]:
        return _java_long(self.now - self.before_max_ms), _java_long(self.now + self.after_max_ms)

    def _check_records(self, batch: RecordBatch, summaries: list[tuple[int, int, int, int]],
                       log_append_batch: bool) -> _RecordErrors:
        """Kafka's validateKey + validateTimestamp for every record; errors are collected, not raised."""
        errors = _RecordErrors()
        if not summaries:
            return errors
        create_time = self.timestamp_type is TimestampType.CREATE_TIME
        if create_time and not log_append_batch and not self.compacted:
            lo, hi = self._timestamp_bounds()
            deltas = [s[0] for s in summaries]
            if lo <= batch.base_timestamp + min(deltas) and batch.base_timestamp + max(deltas) <= hi:
                return errors            # the common case: every timestamp in range, no per-record work
        for index, (ts_delta, offset_delta, key_len, value_len) in enumerate(summaries):
            timestamp = batch.max_timestamp if log_append_batch else batch.base_timestamp + ts_delta
            self._check_record(index, batch.base_offset + offset_delta, timestamp, key_len, value_len,
                               log_append_batch, errors)
        return errors

    def _check_record(self, index: int, offset: int, timestamp: int, key_len: int, value_len: int,
                      log_append_batch: bool, errors: _RecordErrors) -> None:
        if self.compacted and key_len < 0:
            errors.errors.append((index, f"Compacted topic cannot accept message without key in topic partition "
                                         f"{self.tp}"))
            return
        if self.timestamp_type is TimestampType.CREATE_TIME and timestamp != rb.NO_TIMESTAMP:
            diff = _java_long(self.now - timestamp)
            if diff > self.before_max_ms or _java_long(-diff) > self.after_max_ms:
                lo, hi = self._timestamp_bounds()
                errors.errors.append((index, f"Timestamp {timestamp} of message with offset {offset} is out of "
                                             f"range. The timestamp should be within [{lo}, {hi}]"))
                errors.timestamp_error = True
        elif log_append_batch:
            # DefaultRecord.toString(), as Kafka quotes it
            record = (f"DefaultRecord(offset={offset}, timestamp={timestamp}, key={max(key_len, 0)} bytes, "
                      f"value={max(value_len, 0)} bytes)")
            errors.errors.append((index, f"Invalid timestamp type in message {record}. Producer should not set "
                                         f"timestamp type to LogAppendTime."))
            errors.timestamp_error = True

    @staticmethod
    def _raise_record_errors(errors: _RecordErrors) -> None:
        if not errors.errors:
            return
        if errors.timestamp_error:
            exc: KafkaException = InvalidTimestampException(
                "One or more records have been rejected due to invalid timestamp")
        else:
            shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in errors.errors[:3])
            exc = InvalidRecordException(f"One or more records have been rejected due to {len(errors.errors)} "
                                         f"record errors in total, and only showing the first three errors at "
                                         f"most: [{shown}]")
        exc.record_errors = list(errors.errors)
        raise exc

    # ------------------------------------------------------------------ offset assignment
    def _stamp(self, records: bytearray, batch: RecordBatch, last_offset: int, max_timestamp: int) -> int:
        rb.set_last_offset(records, batch, last_offset)
        rb.set_partition_leader_epoch(records, batch, self.leader_epoch)
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            max_timestamp = self.now
        rb.set_max_timestamp(records, batch, self.timestamp_type, max_timestamp)
        return max_timestamp

    def _assign_in_place_uncompressed(self, records: bytearray, batch: RecordBatch,
                                      offset_counter: int) -> ValidationResult:
        start = batch.position + rb.RECORDS_OFFSET
        summaries = scan_records(records, start, batch.position + batch.size_in_bytes, batch.records_count)
        log_append_batch = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
        self._raise_record_errors(self._check_records(batch, summaries, log_append_batch))
        max_timestamp = rb.NO_TIMESTAMP
        if summaries:
            max_timestamp = max(max_timestamp, batch.base_timestamp + max(s[0] for s in summaries))
        last_offset = offset_counter + len(summaries) - 1
        max_timestamp = self._stamp(records, batch, last_offset, max_timestamp)
        return ValidationResult(self.now, records, max_timestamp, last_offset, False, last_offset)

    def _assign_compressed(self, records: bytearray, batch: RecordBatch, offset_counter: int) -> ValidationResult:
        in_place = self.source is self.target
        if self.source is CompressionType.NONE and batch.is_control_batch:
            in_place = True              # control records are never compressed by the broker
        start, end = batch.position + rb.RECORDS_OFFSET, batch.position + batch.size_in_bytes
        stream = batch.is_compressed
        body = decompress(batch.compression_type, memoryview(records)[start:end]) if stream else records
        body_start, body_end = (0, len(body)) if stream else (start, end)
        summaries = scan_records(body, body_start, body_end, batch.records_count, stream=stream)
        log_append_batch = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
        self._raise_record_errors(self._check_records(batch, summaries, log_append_batch))
        if any(batch.base_offset + s[1] != i for i, s in enumerate(summaries)):
            in_place = False             # bad inner offsets are repaired by re-encoding, not rejected
        if not in_place:
            full = read_records(body, body_start, body_end, batch.records_count, 0, batch.base_timestamp,
                                stream=stream)
            return self._rebuild(batch, full, offset_counter)
        max_timestamp = rb.NO_TIMESTAMP
        if summaries:
            max_timestamp = max(max_timestamp, batch.base_timestamp + max(s[0] for s in summaries))
        last_offset = offset_counter + len(summaries) - 1
        max_timestamp = self._stamp(records, batch, last_offset, max_timestamp)
        return ValidationResult(self.now, records, max_timestamp, last_offset, False, last_offset)

    def _rebuild(self, batch: RecordBatch, records: list[Record], offset_counter: int) -> ValidationResult:
        rebuilt = build_batch([SimpleRecord(r.value, r.key, r.timestamp, r.headers) for r in records],
                              base_offset=offset_counter, partition_leader_epoch=self.leader_epoch,
                              compression=self.target, timestamp_type=self.timestamp_type,
                              log_append_time=self.now, producer_id=batch.producer_id,
                              producer_epoch=batch.producer_epoch, base_sequence=batch.base_sequence,
                              is_transactional=batch.is_transactional)
        header = RecordBatch.parse(rebuilt)
        return ValidationResult(self.now, bytearray(rebuilt), header.max_timestamp, header.last_offset, True,
                                header.last_offset)
