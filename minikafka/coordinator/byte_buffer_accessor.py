"""Reading and writing Kafka's generated-message primitives (for ``__consumer_offsets``).

Theory of operation
-------------------
Kafka's message specs (the ``*.json`` files) compile to classes that write
themselves through a ``Writable`` and read through a ``Readable``; for a byte
array both are a ``ByteBufferAccessor``.  The primitives are big-endian
fixed-width integers plus length-prefixed strings, byte arrays and arrays.
Two encodings exist:

* classic: int16 string length, int32 bytes/array length, -1 meaning null;
* flexible (the versions a spec lists in ``flexibleVersions``): lengths are
  unsigned varints holding ``length + 1`` (0 meaning null), and every struct
  ends with a block of *tagged fields* (a varint count, then tag, size and
  payload for each), which lets Kafka add optional fields without a new
  version.

Mirrors ``org.apache.kafka.common.protocol.ByteBufferAccessor`` (and the
``Readable``/``Writable`` methods the generated code calls).  Simplified:
only the primitives the group coordinator's records use; a tagged-field
block is read into a tag -> payload map and written from one (the records
decode the few tags they know).
"""

from __future__ import annotations

import struct

from minikafka.record.byte_utils import read_unsigned_varint, write_unsigned_varint


class Writer:
    """Appends primitives to a growing buffer; every method returns ``self``."""

    def __init__(self, flexible: bool = False):
        self.flexible = flexible            # use the compact (varint) length encoding
        self._parts: list[bytes] = []

    def bytes(self) -> bytes:
        return b"".join(self._parts)

    def int16(self, v: int) -> "Writer":
        self._parts.append(struct.pack(">h", v))
        return self

    def int32(self, v: int) -> "Writer":
        self._parts.append(struct.pack(">i", v))
        return self

    def int64(self, v: int) -> "Writer":
        self._parts.append(struct.pack(">q", v))
        return self

    def int8(self, v: int) -> "Writer":
        self._parts.append(struct.pack(">b", v))
        return self

    def uuid(self, v: bytes) -> "Writer":
        """A 16-byte Uuid, written as its two big-endian longs."""
        if len(v) != 16:
            raise ValueError(f"A Uuid is 16 bytes, got {len(v)}")
        self._parts.append(bytes(v))
        return self

    def raw(self, v: bytes) -> "Writer":
        self._parts.append(bytes(v))
        return self

    def unsigned_varint(self, v: int) -> "Writer":
        out = bytearray()
        write_unsigned_varint(v, out)
        self._parts.append(bytes(out))
        return self

    def _length(self, n: int | None, classic_width: str) -> None:
        if self.flexible:
            self.unsigned_varint(0 if n is None else n + 1)
        else:
            self._parts.append(struct.pack(classic_width, -1 if n is None else n))

    def nullable_string(self, v: str | None) -> "Writer":
        if v is None:
            self._length(None, ">h")
            return self
        raw = v.encode("utf-8")
        if len(raw) > 0x7FFF:
            raise ValueError(f"String length {len(raw)} is larger than the maximum string length.")
        self._length(len(raw), ">h")
        self._parts.append(raw)
        return self

    def string(self, v: str) -> "Writer":
        return self.nullable_string(v)

    def bytes_field(self, v: bytes) -> "Writer":
        self._length(len(v), ">i")
        self._parts.append(bytes(v))
        return self

    def array_length(self, n: int) -> "Writer":
        self._length(n, ">i")
        return self

    def tagged_fields(self, fields: "dict[int, bytes] | None" = None) -> "Writer":
        """The tagged-field block: ``fields`` maps tag to its payload, written in tag order."""
        if self.flexible:
            fields = fields or {}
            self.unsigned_varint(len(fields))
            for tag in sorted(fields):
                self.unsigned_varint(tag).unsigned_varint(len(fields[tag])).raw(fields[tag])
        return self


class Reader:
    """Reads primitives from ``data``; raises ValueError when the bytes run out or lie."""

    def __init__(self, data: bytes, part: str, flexible: bool = False):
        self._data = memoryview(bytes(data))
        self._pos = 0                       # next byte to read
        self.part = part                    # "key" or "value", for error messages
        self.flexible = flexible

    def _take(self, n: int) -> bytes:
        if n < 0 or self._pos + n > len(self._data):
            raise ValueError(f"Error reading byte array of {n} byte(s): only "
                             f"{len(self._data) - self._pos} byte(s) available")
        chunk = bytes(self._data[self._pos:self._pos + n])
        self._pos += n
        return chunk

    def remaining(self) -> int:
        return len(self._data) - self._pos

    def int8(self) -> int:
        return struct.unpack(">b", self._take(1))[0]

    def int16(self) -> int:
        return struct.unpack(">h", self._take(2))[0]

    def uuid(self) -> bytes:
        return self._take(16)

    def int32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def int64(self) -> int:
        return struct.unpack(">q", self._take(8))[0]

    def unsigned_varint(self) -> int:
        value, self._pos = read_unsigned_varint(self._data, self._pos)
        return value

    def _length(self, classic_format: str) -> int:
        if self.flexible:
            return self.unsigned_varint() - 1
        return struct.unpack(classic_format, self._take(struct.calcsize(classic_format)))[0]

    def nullable_string(self) -> str | None:
        n = self._length(">h")
        if n < 0:
            return None
        if n > 0x7FFF:
            raise ValueError(f"string field had invalid length {n}")
        try:
            return self._take(n).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"string field is not valid UTF-8 ({exc.reason})") from None

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise ValueError("non-nullable string field was serialized as null")
        return value

    def bytes_field(self) -> bytes:
        n = self._length(">i")
        if n < 0:
            raise ValueError("non-nullable bytes field was serialized as null")
        return self._take(n)

    def nullable_bytes_field(self) -> bytes | None:
        n = self._length(">i")
        return None if n < 0 else self._take(n)

    def array_length(self) -> int:
        n = self._length(">i")
        if n < 0:
            raise ValueError("non-nullable array field was serialized as null")
        if n > len(self._data) - self._pos:
            # Every element takes at least one byte; refuse absurd counts before looping.
            raise ValueError(f"Tried to allocate a collection of size {n}, but there are only "
                             f"{len(self._data) - self._pos} bytes remaining.")
        return n

    def tagged_fields(self) -> dict[int, bytes]:
        """Read a tagged-field block; returns the payloads by tag (callers decode the ones they know)."""
        fields: dict[int, bytes] = {}
        if not self.flexible:
            return fields
        for _ in range(self.unsigned_varint()):
            tag = self.unsigned_varint()
            fields[tag] = self._take(self.unsigned_varint())
        return fields
