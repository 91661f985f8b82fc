"""RecordBatch v2: the 61-byte header every Kafka 4.x log is made of.

Theory of operation
-------------------
A partition's ``.log`` file, a Produce request's records and a Fetch
response's records are all the same thing: record batches laid end to end.
Each batch starts with a fixed header::

    offset  size  field
    0       8     baseOffset            first offset in the batch (0 from a producer)
    8       4     batchLength           bytes after this field
    12      4     partitionLeaderEpoch  stamped by the leader, outside the CRC
    16      1     magic                 2
    17      4     crc                   CRC32C of bytes 21..end
    21      2     attributes            codec | timestamp type | transactional | control
    23      4     lastOffsetDelta
    27      8     baseTimestamp
    35      8     maxTimestamp
    43      8     producerId
    51      2     producerEpoch
    53      4     baseSequence
    57      4     recordsCount
    61            records (compressed as a whole when the codec is not none)

The CRC starts at ``attributes``, so the two fields a broker stamps on every
append -- ``baseOffset`` and ``partitionLeaderEpoch`` -- can be written into
the client's bytes without recomputing it.  Only a change to the attributes or
``maxTimestamp`` (``message.timestamp.type=LogAppendTime``) needs a new CRC.

`iter_batches` walks a buffer *shallowly*: it reads headers and hops over
bodies, and stops quietly at a tail too short to hold a whole batch (a torn
write, or a fetch response cut at its size limit), exactly as Kafka's
``ByteBufferLogInputStream`` and ``FileLogInputStream`` do.

Mirrors ``org.apache.kafka.common.record.DefaultRecordBatch``,
``RecordBatch``, ``TimestampType`` and the batch checks of ``ProduceRequest``.
Simplified: magic v0/v1 batches are recognised (so they can be refused) but
not parsed beyond their offset, size and magic.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Iterator

from crc32c import crc32c

from minikafka.common.errors import (CorruptRecordException, InvalidRecordException,
                                     UnsupportedCompressionTypeException)
from minikafka.record.byte_utils import Buffer
from minikafka.record.compression_type import CompressionType

# Field positions inside a batch (DefaultRecordBatch's *_OFFSET constants).
BASE_OFFSET_OFFSET = 0
LENGTH_OFFSET = 8
PARTITION_LEADER_EPOCH_OFFSET = 12
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
LAST_OFFSET_DELTA_OFFSET = 23
BASE_TIMESTAMP_OFFSET = 27
MAX_TIMESTAMP_OFFSET = 35
PRODUCER_ID_OFFSET = 43
RECORDS_COUNT_OFFSET = 57
RECORDS_OFFSET = 61

LOG_OVERHEAD = 12                 # baseOffset + batchLength: what precedes the length-counted bytes
HEADER_SIZE_UP_TO_MAGIC = 17
RECORD_BATCH_OVERHEAD = RECORDS_OFFSET
LEGACY_RECORD_OVERHEAD_V0 = 14    # the smallest thing any magic could be (LegacyRecord.RECORD_OVERHEAD_V0)

MAGIC_VALUE_V0 = 0
MAGIC_VALUE_V1 = 1
MAGIC_VALUE_V2 = 2
CURRENT_MAGIC_VALUE = MAGIC_VALUE_V2

NO_TIMESTAMP = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1
MAX_INT = 2**31 - 1

COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_FLAG_MASK = 0x10
CONTROL_FLAG_MASK = 0x20
DELETE_HORIZON_FLAG_MASK = 0x40

_HEADER = struct.Struct(">qiibIhiqqqhii")
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_INT16 = struct.Struct(">h")


class TimestampType(enum.Enum):
    """What a batch's timestamps mean: the producer's clock or the broker's append time."""

    NO_TIMESTAMP_TYPE = -1
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1

    def __str__(self) -> str:
        return {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}[self.value]

    @classmethod
    def for_name(cls, name: str) -> "TimestampType":
        for member in cls:
            if str(member) == name:
                return member
        raise ValueError(f"Invalid timestamp type {name}")


@dataclass(frozen=True, slots=True)
class RecordBatch:
    """One batch header, read from ``position`` in some buffer or file.

    Field names are Kafka's (snake_case).  ``position`` is where the batch
    starts in the buffer it was read from; it is not part of the format.
    """

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int
    position: int = 0

    @classmethod
    def parse(cls, buf: Buffer, position: int = 0, file_position: int | None = None) -> "RecordBatch":
        """Read the header at ``position`` (the buffer must hold at least 61 bytes there).

        ``file_position`` records where the batch starts in its file when
        ``buf`` is only a window onto that file.
        """
        fields = (*_HEADER.unpack_from(buf, position), position if file_position is None else file_position)
        return cls(*fields)

    @classmethod
    def legacy(cls, buf: Buffer, position: int, file_position: int | None = None) -> "RecordBatch":
        """A magic v0/v1 entry: only its offset, size and magic are read."""
        offset, size = struct.unpack_from(">qi", buf, position)
        magic = buf[position + MAGIC_OFFSET]
        return cls(offset, size, NO_PARTITION_LEADER_EPOCH, magic, 0, 0, 0, NO_TIMESTAMP, NO_TIMESTAMP,
                   NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, 1,
                   position if file_position is None else file_position)

    # ------------------------------------------------------------------ derived values
    @property
    def size_in_bytes(self) -> int:
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def count(self) -> int:
        return self.records_count

    @property
    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self.attributes & COMPRESSION_CODEC_MASK)

    @property
    def is_compressed(self) -> bool:
        return (self.attributes & COMPRESSION_CODEC_MASK) != 0

    @property
    def timestamp_type(self) -> TimestampType:
        if self.magic < MAGIC_VALUE_V1:
            return TimestampType.NO_TIMESTAMP_TYPE
        return TimestampType.LOG_APPEND_TIME if self.attributes & TIMESTAMP_TYPE_MASK else TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_FLAG_MASK)

    @property
    def is_control_batch(self) -> bool:
        return bool(self.attributes & CONTROL_FLAG_MASK)

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id > NO_PRODUCER_ID

    @property
    def last_sequence(self) -> int:
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return increment_sequence(self.base_sequence, self.last_offset_delta)

    def __str__(self) -> str:
        # The shape of DefaultRecordBatch.toString(), which Kafka's logs and some errors print.
        return (f"RecordBatch(magic={self.magic}, offsets=[{self.base_offset}, {self.last_offset}], "
                f"sequence=[{self.base_sequence}, {self.last_sequence}], "
                f"isTransactional={str(self.is_transactional).lower()}, "
                f"isControlBatch={str(self.is_control_batch).lower()}, "
                f"compression={self.compression_type}, timestampType={self.timestamp_type}, crc={self.crc})")


def increment_sequence(sequence: int, increment: int) -> int:
    """Sequence arithmetic wraps from 2^31-1 back to 0, as producer sequences do."""
    if sequence > MAX_INT - increment:
        return increment - (MAX_INT - sequence) - 1
    return sequence + increment


def decrement_sequence(sequence: int, decrement: int) -> int:
    if sequence < decrement:
        return MAX_INT - (decrement - sequence) + 1
    return sequence - decrement


# ---------------------------------------------------------------------- CRC
def compute_checksum(buf: Buffer, position: int, size: int) -> int:
    """CRC32C of the bytes the batch CRC covers (attributes to the end of the batch)."""
    return crc32c(memoryview(buf)[position + ATTRIBUTES_OFFSET: position + size])


def is_valid(buf: Buffer, batch: RecordBatch, start: int | None = None) -> bool:
    """True when the batch is at least a header long and its stored CRC matches its bytes.

    The batch starts at ``start`` in ``buf`` (default ``batch.position``).
    """
    size = batch.size_in_bytes
    begin = batch.position if start is None else start
    return size >= RECORD_BATCH_OVERHEAD and batch.crc == compute_checksum(buf, begin, size)


def ensure_valid(buf: Buffer, batch: RecordBatch, start: int | None = None) -> None:
    """Raise CorruptRecordException with Kafka's text unless the batch is intact."""
    size = batch.size_in_bytes
    if size < RECORD_BATCH_OVERHEAD:
        raise CorruptRecordException(f"Record batch is corrupt (the size {size} is smaller than the minimum "
                                     f"allowed overhead {RECORD_BATCH_OVERHEAD})")
    computed = compute_checksum(buf, batch.position if start is None else start, size)
    if computed != batch.crc:
        raise CorruptRecordException(f"Record is corrupt (stored crc = {batch.crc}, computed crc = {computed})")


# ---------------------------------------------------------------------- shallow iteration
def next_batch_size(buf: Buffer, position: int, end: int) -> int | None:
    """Size of the batch at ``position`` (header included), or None if the tail is too short to tell.

    Raises CorruptRecordException for a size or magic no batch can have.
    """
    remaining = end - position
    if remaining < LOG_OVERHEAD:
        return None
    record_size: int = _INT32.unpack_from(buf, position + LENGTH_OFFSET)[0]
    if record_size < LEGACY_RECORD_OVERHEAD_V0:
        raise CorruptRecordException(f"Record size {record_size} is less than the minimum record overhead "
                                     f"({LEGACY_RECORD_OVERHEAD_V0})")
    if remaining < HEADER_SIZE_UP_TO_MAGIC:
        return None
    magic = buf[position + MAGIC_OFFSET]
    if magic > 127:
        magic -= 256
    if magic < 0 or magic > CURRENT_MAGIC_VALUE:
        raise CorruptRecordException(f"Invalid magic found in record: {magic}")
    return record_size + LOG_OVERHEAD


def iter_batches(buf: Buffer, start: int = 0, end: int | None = None) -> Iterator[RecordBatch]:
    """Yield every complete batch in ``buf[start:end]``; stop quietly at an incomplete tail."""
    end = len(buf) if end is None else end
    position = start
    while True:
        size = next_batch_size(buf, position, end)
        if size is None or end - position < size:
            return
        if buf[position + MAGIC_OFFSET] >= MAGIC_VALUE_V2:
            if size < RECORD_BATCH_OVERHEAD:
                # Too short for a v2 header: Kafka's DefaultRecordBatch.ensureValid reports exactly this.
                raise CorruptRecordException(f"Record batch is corrupt (the size {size} is smaller than the "
                                             f"minimum allowed overhead {RECORD_BATCH_OVERHEAD})")
            yield RecordBatch.parse(buf, position)
        else:
            yield RecordBatch.legacy(buf, position)
        position += size


def valid_bytes(buf: Buffer, start: int = 0, end: int | None = None) -> int:
    """How many leading bytes of ``buf`` form complete batches (the rest is a torn tail)."""
    total = 0
    for batch in iter_batches(buf, start, end):
        total = batch.position + batch.size_in_bytes - start
    return total


# ---------------------------------------------------------------------- stamping (broker side)
def set_base_offset(buf: bytearray, batch: RecordBatch, base_offset: int) -> None:
    """Write the batch's first offset; outside the CRC, so the client's bytes stay valid."""
    _INT64.pack_into(buf, batch.position + BASE_OFFSET_OFFSET, base_offset)


def set_last_offset(buf: bytearray, batch: RecordBatch, last_offset: int) -> None:
    """Kafka assigns offsets by the last one: base = last - lastOffsetDelta."""
    set_base_offset(buf, batch, last_offset - batch.last_offset_delta)


def set_partition_leader_epoch(buf: bytearray, batch: RecordBatch, epoch: int) -> None:
    _INT32.pack_into(buf, batch.position + PARTITION_LEADER_EPOCH_OFFSET, epoch)


def set_max_timestamp(buf: bytearray, batch: RecordBatch, timestamp_type: TimestampType,
                      max_timestamp: int) -> bool:
    """Set the timestamp type bit and maxTimestamp, recomputing the CRC; False if nothing changed."""
    if batch.timestamp_type is timestamp_type and batch.max_timestamp == max_timestamp:
        return False
    attributes = batch.attributes & ~TIMESTAMP_TYPE_MASK
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
    _INT16.pack_into(buf, batch.position + ATTRIBUTES_OFFSET, attributes)
    _INT64.pack_into(buf, batch.position + MAX_TIMESTAMP_OFFSET, max_timestamp)
    crc = compute_checksum(buf, batch.position, batch.size_in_bytes)
    _UINT32.pack_into(buf, batch.position + CRC_OFFSET, crc)
    return True


def compute_attributes(compression: CompressionType, timestamp_type: TimestampType,
                       is_transactional: bool, is_control: bool) -> int:
    attributes = compression.id
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_FLAG_MASK
    if is_control:
        attributes |= CONTROL_FLAG_MASK
    return attributes


# ---------------------------------------------------------------------- produce request rules
def check_produce_records(version: int, records: Buffer) -> None:
    """Kafka's ProduceRequest.validateRecords: v3+ carries exactly one magic-v2 batch per partition.

    The network handler calls this before handing records to the log, as Kafka
    does when it parses a Produce request.
    """
    if version < 3:
        return
    batches = iter_batches(records)
    first = next(batches, None)
    if first is None:
        raise InvalidRecordException(f"Produce requests with version {version} must have at least one "
                                     f"record batch per partition")
    if first.magic != MAGIC_VALUE_V2:
        raise InvalidRecordException(f"Produce requests with version {version} are only allowed to contain "
                                     f"record batches with magic version 2")
    if version < 7 and first.attributes & COMPRESSION_CODEC_MASK == CompressionType.ZSTD.id:
        raise UnsupportedCompressionTypeException(f"Produce requests with version {version} are not allowed "
                                                  f"to use ZStandard compression")
    if next(batches, None) is not None:
        raise InvalidRecordException(f"Produce requests with version {version} are only allowed to contain "
                                     f"exactly one record batch per partition")
