"""Building record batches for the broker's own logs, and decoding batches into records.

Theory of operation
-------------------
Most bytes a broker stores were built by a client.  A few logs are written
by the broker itself: the KRaft metadata log (``__cluster_metadata``), the
group coordinator's ``__consumer_offsets`` and transaction control markers.
`build_batch` makes such a batch: kafka-python's ``DefaultRecordBatchBuilder``
(the same encoder the Python client uses) writes the records, then this
module writes a complete v2 header -- base offset, partition leader epoch,
codec, timestamp type, producer fields, control flag -- and the CRC, so the
result is exactly what Kafka's ``MemoryRecordsBuilder`` would emit.

`decode_batches` goes the other way for lessons and tests: every batch in a
buffer with its records (offset, timestamp, key, value, headers),
decompressing as needed.

Control records (``isControlBatch``) carry a 4-byte key ``(version int16,
type int16)``: 0 ABORT, 1 COMMIT, 2 LEADER_CHANGE, 3 SNAPSHOT_HEADER, 4
SNAPSHOT_FOOTER, 5 KRAFT_VERSION, 6 KRAFT_VOTERS.  A transaction marker's
value is ``(version int16 = 0, coordinatorEpoch int32)``.

Mirrors ``MemoryRecordsBuilder``, ``MemoryRecords.withRecords``,
``SimpleRecord``, ``ControlRecordType`` and ``EndTransactionMarker``.
Simplified: batches are built whole in memory, without a size limit.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Iterable, Sequence

from kafka.record.default_records import DefaultRecordBatchBuilder

from minikafka.common.errors import InvalidRecordException
from minikafka.record import record_batch as rb
from minikafka.record.byte_utils import Buffer
from minikafka.record.compression_type import CompressionType, compress, decompress
from minikafka.record.default_record import Header, Record, read_records
from minikafka.record.record_batch import RecordBatch, TimestampType

_HEADER = struct.Struct(">qiibIhiqqqhii")
_BUILDER_BATCH_SIZE = 2**31 - 1      # no limit: the caller decides what belongs in one batch


@dataclass(frozen=True, slots=True)
class SimpleRecord:
    """What a writer supplies for one record (Kafka's ``SimpleRecord``)."""

    value: bytes | None
    key: bytes | None = None
    timestamp: int = rb.NO_TIMESTAMP
    headers: tuple[Header, ...] = ()


class ControlRecordType(enum.Enum):
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6

    def record_key(self) -> bytes:
        return struct.pack(">hh", 0, self.value)

    @classmethod
    def parse_type_id(cls, key: bytes) -> int:
        if len(key) < 4:
            raise InvalidRecordException(f"Invalid value size found for end control record key. Must have at "
                                         f"least 4 bytes, but found only {len(key)}")
        type_id: int = struct.unpack_from(">h", key, 2)[0]
        return type_id


def build_batch(records: Sequence[SimpleRecord], *, base_offset: int = 0,
                partition_leader_epoch: int = rb.NO_PARTITION_LEADER_EPOCH,
                compression: CompressionType = CompressionType.NONE,
                timestamp_type: TimestampType = TimestampType.CREATE_TIME,
                log_append_time: int = rb.NO_TIMESTAMP, producer_id: int = rb.NO_PRODUCER_ID,
                producer_epoch: int = rb.NO_PRODUCER_EPOCH, base_sequence: int = rb.NO_SEQUENCE,
                is_transactional: bool = False, is_control: bool = False,
                offset_deltas: Sequence[int] | None = None) -> bytes:
    """One complete v2 batch holding ``records`` (offsets base_offset + 0, 1, 2, ... unless ``offset_deltas``)."""
    if not records:
        raise ValueError("A record batch needs at least one record")
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=is_transactional,
                                        producer_id=producer_id, producer_epoch=producer_epoch,
                                        base_sequence=base_sequence, batch_size=_BUILDER_BATCH_SIZE)
    for index, record in enumerate(records):
        delta = index if offset_deltas is None else offset_deltas[index]
        builder.append(delta, record.timestamp, record.key, record.value, list(record.headers))
    encoded = builder.build()        # uncompressed: we compress ourselves so the codec is always honoured
    header = RecordBatch.parse(encoded)
    body = compress(compression, encoded[rb.RECORDS_OFFSET:])
    max_timestamp = log_append_time if timestamp_type is TimestampType.LOG_APPEND_TIME else header.max_timestamp
    attributes = rb.compute_attributes(compression, timestamp_type, is_transactional, is_control)
    out = bytearray(_HEADER.size + len(body))
    _HEADER.pack_into(out, 0, base_offset, len(out) - rb.LOG_OVERHEAD, partition_leader_epoch, 2, 0,
                      attributes, header.last_offset_delta, header.base_timestamp, max_timestamp,
                      producer_id, producer_epoch, base_sequence, len(records))
    out[rb.RECORDS_OFFSET:] = body
    struct.pack_into(">I", out, rb.CRC_OFFSET, rb.compute_checksum(out, 0, len(out)))
    return bytes(out)


def build_control_batch(control_type: ControlRecordType, value: bytes, *, timestamp: int,
                        base_offset: int = 0, partition_leader_epoch: int = rb.NO_PARTITION_LEADER_EPOCH,
                        producer_id: int = rb.NO_PRODUCER_ID, producer_epoch: int = rb.NO_PRODUCER_EPOCH,
                        is_transactional: bool = False) -> bytes:
    """A control batch with one control record (transaction marker, KRaft leader change, ...)."""
    record = SimpleRecord(value=value, key=control_type.record_key(), timestamp=timestamp)
    return build_batch([record], base_offset=base_offset, partition_leader_epoch=partition_leader_epoch,
                       producer_id=producer_id, producer_epoch=producer_epoch,
                       is_transactional=is_transactional, is_control=True)


def end_txn_marker_value(coordinator_epoch: int) -> bytes:
    """The value of a COMMIT/ABORT control record (EndTransactionMarker v0)."""
    return struct.pack(">hi", 0, coordinator_epoch)


def parse_end_txn_marker(record: Record) -> tuple[ControlRecordType, int]:
    """(ABORT|COMMIT, coordinator epoch) of a transaction marker record."""
    control_type = ControlRecordType(ControlRecordType.parse_type_id(record.key or b""))
    value = record.value or b""
    if len(value) < 6:
        raise InvalidRecordException(f"Invalid value size found for end transaction marker. Must have at "
                                     f"least 6 bytes, but found only {len(value)}")
    return control_type, struct.unpack_from(">i", value, 2)[0]


def batch_records(buf: Buffer, batch: RecordBatch, start: int | None = None) -> list[Record]:
    """Decode the records of one batch (decompressing when needed).

    The batch starts at ``start`` in ``buf`` (default: ``batch.position``, for
    a buffer that holds the whole log; pass 0 for a view of just this batch).
    """
    begin = batch.position if start is None else start
    end = begin + batch.size_in_bytes
    start = begin + rb.RECORDS_OFFSET
    log_append_time = (batch.max_timestamp if batch.timestamp_type is TimestampType.LOG_APPEND_TIME
                       else None)
    if batch.is_compressed:
        body = decompress(batch.compression_type, memoryview(buf)[start:end])
        return read_records(body, 0, len(body), batch.records_count, batch.base_offset,
                            batch.base_timestamp, batch.base_sequence, log_append_time, stream=True)
    return read_records(buf, start, end, batch.records_count, batch.base_offset, batch.base_timestamp,
                        batch.base_sequence, log_append_time)


def decode_batches(buf: Buffer) -> list[tuple[RecordBatch, list[Record]]]:
    """Every complete batch in ``buf`` with its decoded records (a torn tail is ignored)."""
    return [(batch, batch_records(buf, batch)) for batch in rb.iter_batches(buf)]


def decode_records(buf: Buffer) -> list[Record]:
    """All records of all batches in ``buf``, in order."""
    return [record for _, records in decode_batches(buf) for record in records]


def concat(batches: Iterable[bytes]) -> bytes:
    """Batches laid end to end (what a Produce request or a .log file holds)."""
    return b"".join(batches)
