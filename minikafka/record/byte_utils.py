"""Zig-zag varints: the integer encoding inside Kafka's v2 records.

Theory of operation
-------------------
A v2 record spends as few bytes as possible on small numbers.  Every length,
delta and count inside a record is a *zig-zag varint*: the signed value is
first mapped to an unsigned one (0, -1, 1, -2, ... become 0, 1, 2, 3, ...) so
that small negative numbers stay small, then written 7 bits per byte, least
significant group first, with the high bit of each byte saying "more follows".
``-1`` (the "null" length of a key or value) therefore costs a single byte.

Kafka's ``varint`` holds an int32 (at most 5 bytes) and ``varlong`` an int64
(at most 10 bytes).  Reading more bytes than that is an error, as it is in
Kafka, because a corrupt buffer must never make the reader loop or produce a
number no field could hold.

Flexible protocol messages (KIP-482) and the records of ``__cluster_metadata``
count their lengths with *unsigned* varints instead: the same 7-bit groups
without the zig-zag step, also at most 5 bytes.

Mirrors ``org.apache.kafka.common.utils.ByteUtils`` (readVarint, readVarlong,
writeVarint, sizeOfVarint, readUnsignedVarint, writeUnsignedVarint).  Simplified: decoding raises ``ValueError`` and the
caller turns it into Kafka's record error, as Kafka's callers do with
``IllegalArgumentException``.
"""

from __future__ import annotations

from typing import TypeAlias

# What the decoders read from: a whole message, a slice of a segment file, or a view onto either.
Buffer: TypeAlias = bytes | bytearray | memoryview

_MAX_VARINT_BYTES = 5
_MAX_VARLONG_BYTES = 10


def read_varint(buf: Buffer, pos: int, max_bytes: int = _MAX_VARINT_BYTES) -> tuple[int, int]:
    """Decode one zig-zag varint at ``pos``; returns ``(value, next_pos)``.

    Raises ``ValueError`` when the buffer ends early or the value is longer
    than ``max_bytes`` (5 for a varint, 10 for a varlong).
    """
    if pos >= len(buf):
        raise ValueError("varint runs past the end of the buffer")
    first = buf[pos]
    if first < 0x80:                    # the common case: one byte, no loop
        return (first >> 1) ^ -(first & 1), pos + 1
    raw = first & 0x7F
    shift = 7
    pos += 1
    end = len(buf)
    while True:
        if pos >= end:
            raise ValueError("varint runs past the end of the buffer")
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7
        if shift >= 7 * max_bytes:
            raise ValueError(f"varint is longer than {max_bytes} bytes")


def read_varlong(buf: Buffer, pos: int) -> tuple[int, int]:
    """Decode one zig-zag varlong (up to 10 bytes)."""
    return read_varint(buf, pos, _MAX_VARLONG_BYTES)


def write_varint(value: int, out: bytearray) -> None:
    """Append the zig-zag varint (or varlong) encoding of ``value`` to ``out``."""
    raw = (value << 1) ^ (value >> 63)   # zig-zag, valid for any int64
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)


def size_of_varint(value: int) -> int:
    """How many bytes ``write_varint(value)`` writes."""
    raw = (value << 1) ^ (value >> 63)
    size = 1
    while raw >= 0x80:
        raw >>= 7
        size += 1
    return size


def read_unsigned_varint(buf: Buffer, pos: int) -> tuple[int, int]:
    """Decode one unsigned varint (an int32, up to 5 bytes) at ``pos``; returns ``(value, next_pos)``.

    Raises ``ValueError`` when the buffer ends early or a fifth byte still says "more follows".
    """
    value = shift = 0
    end = len(buf)
    while True:
        if pos >= end:
            raise ValueError("varint runs past the end of the buffer")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise ValueError("Varint is too long, the most significant bit in the 5th byte is set")


def write_unsigned_varint(value: int, out: bytearray) -> None:
    """Append the unsigned varint encoding of ``value`` (0 or more) to ``out``."""
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
