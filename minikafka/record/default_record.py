"""DefaultRecord: one record inside a v2 batch, and the walk over a batch's records.

Theory of operation
-------------------
After its 61-byte header a batch holds ``recordsCount`` records (the whole
run compressed, if the batch has a codec).  Each record is::

    length          varint   bytes that follow in this record
    attributes      int8     unused, 0
    timestampDelta  varlong  timestamp - batch.baseTimestamp
    offsetDelta     varint   offset - batch.baseOffset
    keyLength       varint   -1 for a null key
    key             bytes
    valueLength     varint   -1 for a null value
    value           bytes
    headersCount    varint
    headers         (keyLength varint, key utf8, valueLength varint, value) * count

A record's absolute offset and timestamp exist only relative to its batch,
which is why the broker can assign offsets by rewriting one header field.

Two readers share one walk.  `read_records` builds `Record` objects for
lessons, tests and the broker's own readers.  `scan_records` checks the same
structure but keeps only what validation needs (deltas and key/value sizes),
so the produce path does no per-record allocation beyond a small tuple.
Both raise Kafka's ``InvalidRecordException`` texts for a malformed record and
for a batch whose declared count disagrees with its bytes.

Mirrors ``org.apache.kafka.common.record.DefaultRecord`` and the record
iterators of ``DefaultRecordBatch``.  Simplified: header keys are decoded as
UTF-8 with replacement, as Java's decoder does, and no laziness is attempted.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import InvalidRecordException, KafkaException
from minikafka.record.byte_utils import Buffer, read_varint, read_varlong
from minikafka.record.record_batch import increment_sequence

Header = tuple[str, "bytes | None"]


@dataclass(frozen=True, slots=True)
class Record:
    """A decoded record: absolute offset and timestamp, key, value and headers."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()
    sequence: int = -1
    size_in_bytes: int = 0

    def __str__(self) -> str:
        # DefaultRecord.toString(), which Kafka's record errors quote.
        key_size = 0 if self.key is None else len(self.key)
        value_size = 0 if self.value is None else len(self.value)
        return (f"DefaultRecord(offset={self.offset}, timestamp={self.timestamp}, "
                f"key={key_size} bytes, value={value_size} bytes)")


def _premature_eof() -> KafkaException:
    return InvalidRecordException("Incorrect declared batch size, premature EOF reached")


def _walk_headers(buf: Buffer, pos: int, limit: int, header_count: int) -> int:
    if header_count < 0:
        raise InvalidRecordException(f"Found invalid number of record headers {header_count}")
    if header_count > limit - pos:
        raise InvalidRecordException(f"Found invalid number of record headers. {header_count} is larger "
                                     f"than the remaining size of the buffer")
    for _ in range(header_count):
        header_key_len, pos = read_varint(buf, pos)
        if header_key_len < 0:
            raise InvalidRecordException(f"Invalid negative header key size {header_key_len}")
        pos += header_key_len
        header_value_len, pos = read_varint(buf, pos)
        if header_value_len > 0:
            pos += header_value_len
    return pos


def _walk_one(buf: Buffer, pos: int, end: int, stream: bool) -> tuple[int, tuple[int, ...]]:
    """Check one record's structure; returns (next_pos, (start, size, ts_delta, offset_delta, kpos, klen, vpos, vlen, hpos, hcount))."""
    try:
        size, pos = read_varint(buf, pos)
    except ValueError:
        raise _premature_eof() from None
    if end - pos < size or size < 0:
        if stream:
            raise InvalidRecordException(f"Invalid record size: expected {size} bytes in record payload, but the "
                                         f"record payload reached EOF.")
        raise InvalidRecordException(f"Invalid record size: expected {size} bytes in record payload, but instead "
                                     f"the buffer has only {end - pos} remaining bytes.")
    start = pos
    limit = pos + size                 # a record never reads past its own length
    try:
        pos += 1                       # attributes: unused
        ts_delta, pos = read_varlong(buf, pos)
        offset_delta, pos = read_varint(buf, pos)
        key_len, pos = read_varint(buf, pos)
        key_pos = pos
        if key_len > 0:
            pos += key_len
        value_len, pos = read_varint(buf, pos)
        value_pos = pos
        if value_len > 0:
            pos += value_len
        header_count, pos = read_varint(buf, pos)
        header_pos = pos
        pos = _walk_headers(buf, pos, limit, header_count)
    except ValueError:
        raise InvalidRecordException("Found invalid record structure") from None
    if pos - start != size:
        if pos > limit:
            raise InvalidRecordException("Found invalid record structure")
        raise InvalidRecordException(f"Invalid record size: expected to read {size} bytes in record payload, "
                                     f"but instead read {pos - start}")
    return pos, (start, size, ts_delta, offset_delta, key_pos, key_len, value_pos, value_len,
                 header_pos, header_count)


def _check_count(count: int) -> None:
    if count < 0:
        raise InvalidRecordException(f"Found invalid record count {count} in magic v2 batch")


def _fast_scan(buf: Buffer, pos: int, end: int, count: int) -> list[tuple[int, int, int, int]] | None:
    """The hot path of `scan_records`: one- and two-byte varints decoded inline.

    Produce batches are almost always small-delta, header-less records, and
    decoding their one-byte varints inline instead of calling `read_varint` is
    what keeps the leader append path fast; two-byte ones (offset deltas past
    63, kilobyte values) are inlined too, and longer ones take `read_varint`.
    Returns None at anything unusual or inconsistent; the caller then re-walks
    with `_walk_one`, which owns every error message.
    """
    out: list[tuple[int, int, int, int]] = []
    append = out.append
    try:
        for _ in range(count):
            b = buf[pos]                                    # record length
            if b < 0x80:
                size, pos = (b >> 1) ^ -(b & 1), pos + 1
            elif buf[pos + 1] < 0x80:
                b = (b & 0x7F) | (buf[pos + 1] << 7)
                size, pos = (b >> 1) ^ -(b & 1), pos + 2
            else:
                size, pos = read_varint(buf, pos)
            start = pos
            pos += 1                                        # attributes: unused
            b = buf[pos]                                    # timestamp delta (a varlong)
            if b < 0x80:
                ts, pos = (b >> 1) ^ -(b & 1), pos + 1
            elif buf[pos + 1] < 0x80:
                b = (b & 0x7F) | (buf[pos + 1] << 7)
                ts, pos = (b >> 1) ^ -(b & 1), pos + 2
            else:
                ts, pos = read_varint(buf, pos, 10)
            b = buf[pos]                                    # offset delta
            if b < 0x80:
                off, pos = (b >> 1) ^ -(b & 1), pos + 1
            elif buf[pos + 1] < 0x80:
                b = (b & 0x7F) | (buf[pos + 1] << 7)
                off, pos = (b >> 1) ^ -(b & 1), pos + 2
            else:
                off, pos = read_varint(buf, pos)
            b = buf[pos]                                    # key length, then the key
            if b < 0x80:
                key_len, pos = (b >> 1) ^ -(b & 1), pos + 1
            elif buf[pos + 1] < 0x80:
                b = (b & 0x7F) | (buf[pos + 1] << 7)
                key_len, pos = (b >> 1) ^ -(b & 1), pos + 2
            else:
                key_len, pos = read_varint(buf, pos)
            if key_len > 0:
                pos += key_len
            b = buf[pos]                                    # value length, then the value
            if b < 0x80:
                value_len, pos = (b >> 1) ^ -(b & 1), pos + 1
            elif buf[pos + 1] < 0x80:
                b = (b & 0x7F) | (buf[pos + 1] << 7)
                value_len, pos = (b >> 1) ^ -(b & 1), pos + 2
            else:
                value_len, pos = read_varint(buf, pos)
            if value_len > 0:
                pos += value_len
            if buf[pos] != 0:                               # headers present: let the general walk decide
                return None
            pos += 1
            if pos - start != size or pos > end:
                return None
            append((ts, off, key_len, value_len))
    except (IndexError, ValueError):
        return None
    return out if pos == end else None


def scan_records(buf: Buffer, pos: int, end: int, count: int, stream: bool = False) -> list[tuple[int, int, int, int]]:
    """Validate ``count`` records in ``buf[pos:end]``; returns ``(ts_delta, offset_delta, key_len, value_len)`` each.

    ``stream`` selects the wording Kafka uses for decompressed (streamed) data.
    """
    _check_count(count)
    fast = _fast_scan(buf, pos, end, count)
    if fast is not None:
        return fast
    out: list[tuple[int, int, int, int]] = []
    append = out.append
    for _ in range(count):
        if pos >= end:
            raise _premature_eof()
        pos, parts = _walk_one(buf, pos, end, stream)
        append((parts[2], parts[3], parts[5], parts[7]))
    if pos != end:
        raise InvalidRecordException("Incorrect declared batch size, records still remaining in file")
    return out


def _bytes_at(buf: Buffer, pos: int, length: int) -> bytes | None:
    return None if length < 0 else bytes(buf[pos:pos + length])


def _headers_at(buf: Buffer, pos: int, count: int) -> tuple[Header, ...]:
    headers = []
    for _ in range(count):
        key_len, pos = read_varint(buf, pos)
        key = bytes(buf[pos:pos + key_len]).decode("utf-8", errors="replace")
        pos += key_len
        value_len, pos = read_varint(buf, pos)
        headers.append((key, _bytes_at(buf, pos, value_len)))
        pos += max(value_len, 0)
    return tuple(headers)


def read_records(buf: Buffer, pos: int, end: int, count: int, base_offset: int, base_timestamp: int,
                 base_sequence: int = -1, log_append_time: int | None = None,
                 stream: bool = False) -> list[Record]:
    """Decode ``count`` records; ``log_append_time`` replaces every timestamp when the batch uses it."""
    _check_count(count)
    records = []
    for _ in range(count):
        if pos >= end:
            raise _premature_eof()
        record_start = pos
        pos, (start, size, ts_delta, offset_delta, kpos, klen, vpos, vlen, hpos, hcount) = \
            _walk_one(buf, pos, end, stream)
        timestamp = log_append_time if log_append_time is not None else base_timestamp + ts_delta
        sequence = increment_sequence(base_sequence, offset_delta) if base_sequence >= 0 else -1
        records.append(Record(base_offset + offset_delta, timestamp, _bytes_at(buf, kpos, klen),
                              _bytes_at(buf, vpos, vlen), _headers_at(buf, hpos, hcount),
                              sequence, pos - record_start))
    if pos != end:
        raise InvalidRecordException("Incorrect declared batch size, records still remaining in file")
    return records
