"""Metadata records as bytes: the value of every record in the ``__cluster_metadata`` log.

Theory of operation
-------------------
A metadata record is stored as the *value* of an ordinary Kafka record (the
key is empty) inside a RecordBatch of ``__cluster_metadata-0``.  The value is
framed as Kafka's ``AbstractApiMessageSerde`` frames it::

    unsigned varint  frame version (always 1; 0 was the 2.8 preview and is refused)
    unsigned varint  record type (the API key)
    unsigned varint  record version
    body             the record in Kafka's flexible encoding

The flexible encoding writes fields in spec order: ints big-endian, booleans
as one byte, Uuids as 16 bytes, strings and arrays "compact" (unsigned varint
length + 1, 0 for null) and, after the fields of every struct, a tagged-field
section: the number of tagged fields present, then for each (ascending tag)
the tag, the byte size and the value.  Fields are driven by each record's
``SCHEMA`` (see `schema`); nothing here knows a particular record.

Reading is strict, as Kafka's is: a wrong frame version, an unknown record
type, a version the type does not have, a truncated body or trailing bytes
raise `MetadataParseException` with Kafka's message.  Unknown tags are
skipped (Kafka keeps them as opaque "unknown tagged fields").

Mirrors ``org.apache.kafka.server.common.serialization.AbstractApiMessageSerde``
/ ``MetadataRecordSerde`` and the generated ``read``/``write`` methods.
Simplified: unknown tagged fields are dropped rather than carried along.
"""

from __future__ import annotations

import struct
from typing import Any

from minikafka.common.errors import KafkaException, UnsupportedVersionException
from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (METADATA_RECORD_TYPE_NAMES, RECORD_TYPES, ApiMessageAndVersion,
                                        MetadataRecord)
from minikafka.metadata.schema import (BOOL, INT8, INT16, INT32, INT64, INT_RANGES, STRING, UINT16, UUID,
                                       ArrayOf, FieldSpec, Struct, is_default)
from minikafka.record.byte_utils import read_unsigned_varint, write_unsigned_varint

DEFAULT_FRAME_VERSION = 1
_INT_FORMATS = {INT8: ">b", INT16: ">h", INT32: ">i", INT64: ">q", UINT16: ">H"}
_MAX_STRING = 0x7FFF                      # Kafka refuses longer strings in these messages


class MetadataParseException(KafkaException):
    """A metadata record's bytes could not be read (Kafka's ``MetadataParseException``)."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.server.common.serialization.MetadataParseException"


# ----------------------------------------------------------------------------- writing
def serialize(record: MetadataRecord | ApiMessageAndVersion, version: int | None = None) -> bytes:
    """The framed bytes Kafka stores as the record's value in ``__cluster_metadata``."""
    if isinstance(record, ApiMessageAndVersion):
        version = record.version
        record = record.message
    if version is None:
        version = record.written_version()
    if not 0 <= version <= record.HIGHEST_SUPPORTED_VERSION:
        raise UnsupportedVersionException(f"Can't write version {version} of {type(record).__name__}")
    out = bytearray()
    write_unsigned_varint(DEFAULT_FRAME_VERSION, out)
    write_unsigned_varint(record.API_KEY, out)
    write_unsigned_varint(version, out)
    _write_struct(out, record, version)
    return bytes(out)


def _write_struct(out: bytearray, value: Struct, version: int) -> None:
    tagged: list[tuple[int, FieldSpec, Any]] = []
    for spec in value.SCHEMA:
        field_value = getattr(value, spec.attr)
        if not spec.present_in(version):
            if not is_default(spec, field_value):
                raise UnsupportedVersionException(
                    f"Attempted to write a non-default {spec.java_name} at version {version}")
        elif spec.tag is not None:
            if not is_default(spec, field_value):
                tagged.append((spec.tag, spec, field_value))
        else:
            _write_value(out, spec, spec.type, field_value, version)
    tagged.sort(key=lambda entry: entry[0])   # tags go out in ascending order, not spec order
    write_unsigned_varint(len(tagged), out)
    for tag, spec, field_value in tagged:
        body = bytearray()
        _write_value(body, spec, spec.type, field_value, version)
        write_unsigned_varint(tag, out)
        write_unsigned_varint(len(body), out)
        out += body


def _write_value(out: bytearray, spec: FieldSpec, field_type: Any, value: Any, version: int) -> None:
    if value is None:
        if not spec.nullable:
            raise ValueError(f"non-nullable field {spec.java_name} was given None")
        write_unsigned_varint(0, out)
    elif isinstance(field_type, ArrayOf):
        write_unsigned_varint(len(value) + 1, out)
        for element in value:
            if isinstance(field_type.element, type):
                _write_struct(out, element, version)
            else:
                _write_primitive(out, spec, field_type.element, element)
    else:
        _write_primitive(out, spec, field_type, value)


def _write_primitive(out: bytearray, spec: FieldSpec, field_type: str, value: Any) -> None:
    if field_type in _INT_FORMATS:
        low, high = INT_RANGES[field_type]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"Field {spec.java_name} is {field_type}; {value!r} does not fit")
        out += struct.pack(_INT_FORMATS[field_type], value)
    elif field_type == BOOL:
        out.append(1 if value else 0)
    elif field_type == UUID:
        out += value.to_bytes()
    elif field_type == STRING:
        data = value.encode("utf-8")
        if len(data) > _MAX_STRING:
            raise ValueError(f"'{spec.java_name}' field is too long to be serialized")
        write_unsigned_varint(len(data) + 1, out)
        out += data
    else:
        raise TypeError(f"unknown field type {field_type!r}")


# ----------------------------------------------------------------------------- reading
class _Reader:
    """A cursor over the value bytes; every read checks what is left."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0                      # next byte to read

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def take(self, count: int) -> bytes:
        if count > self.remaining():
            raise ValueError(f"Tried to read {count} byte(s), but only {self.remaining()} remain")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def uvarint(self) -> int:
        value, self.pos = read_unsigned_varint(self.data, self.pos)
        return value


def deserialize(data: bytes) -> MetadataRecord:
    """The record stored in one ``__cluster_metadata`` record value."""
    return deserialize_with_version(data).message


def deserialize_with_version(data: bytes) -> ApiMessageAndVersion:
    """Like `deserialize`, keeping the version the record was written at."""
    reader = _Reader(bytes(data))
    frame_version = _read_header_field(reader, "frame version")
    if frame_version == 0:
        raise MetadataParseException(
            "Could not deserialize metadata record with frame version 0. Note that upgrades from the "
            "preview release of KRaft in 2.8 to newer versions are not supported.")
    if frame_version != DEFAULT_FRAME_VERSION:
        raise MetadataParseException(
            f"Could not deserialize metadata record due to unknown frame version {frame_version}"
            f"(only frame version {DEFAULT_FRAME_VERSION} is supported)")
    api_key = _read_header_field(reader, "type")
    version = _read_header_field(reader, "version")
    record_class = _record_class(api_key)
    try:
        if version > record_class.HIGHEST_SUPPORTED_VERSION:
            raise UnsupportedVersionException(f"Can't read version {version} of {record_class.__name__}")
        record = _read_struct(reader, record_class, version)
    except (ValueError, KafkaException) as exc:
        raise MetadataParseException(f"Failed to deserialize record with type {api_key}") from exc
    if reader.remaining() > 0:
        raise MetadataParseException(f"Found {reader.remaining()} byte(s) of garbage after {api_key}")
    return ApiMessageAndVersion(record, version)


def _read_header_field(reader: _Reader, entity: str) -> int:
    try:
        value = reader.uvarint()
    except ValueError as exc:
        raise MetadataParseException(f"Error while reading {entity}") from exc
    if value > 0x7FFF:
        raise MetadataParseException(f"Value for {entity} was too large.")
    return value


def _record_class(api_key: int) -> type[MetadataRecord]:
    record_class = RECORD_TYPES.get(api_key)
    if record_class is not None:
        return record_class
    if api_key in METADATA_RECORD_TYPE_NAMES:
        raise MetadataParseException(
            f"Record type {METADATA_RECORD_TYPE_NAMES[api_key]} ({api_key}) is not modelled by the sandbox")
    cause = UnsupportedVersionException(f"Unknown metadata id {api_key}")
    raise MetadataParseException(str(cause)) from cause


def _read_struct(reader: _Reader, struct_class: type[Struct], version: int) -> Any:
    values: dict[str, Any] = {}
    by_tag: dict[int, FieldSpec] = {}
    for spec in struct_class.SCHEMA:
        if not spec.present_in(version):
            continue
        if spec.tag is not None:
            by_tag[spec.tag] = spec
        else:
            values[spec.attr] = _read_value(reader, spec, spec.type, version)
    for _ in range(reader.uvarint()):
        tag, size = reader.uvarint(), reader.uvarint()
        tagged = by_tag.get(tag)
        if tagged is None:
            if any(s.tag == tag for s in struct_class.SCHEMA):
                raise ValueError(f"Tag {tag} is not valid for version {version}")
            reader.take(size)                 # a tag from a newer version: skip it
            continue
        start = reader.pos
        values[tagged.attr] = _read_value(reader, tagged, tagged.type, version)
        if reader.pos - start != size:
            raise ValueError(f"Tagged field {tagged.java_name} declared {size} byte(s) "
                             f"but held {reader.pos - start}")
    return struct_class(**values)


def _read_value(reader: _Reader, spec: FieldSpec, field_type: Any, version: int) -> Any:
    if isinstance(field_type, ArrayOf) or field_type == STRING:
        length = reader.uvarint() - 1
        if length < 0:
            if not spec.nullable:
                raise ValueError(f"non-nullable field {spec.java_name} was serialized as null")
            return None
        if field_type == STRING:
            if length > _MAX_STRING:
                raise ValueError(f"string field {spec.java_name} had invalid length {length}")
            return reader.take(length).decode("utf-8")
        if length > reader.remaining():
            raise ValueError(f"Tried to allocate a collection of size {length}, but there are only "
                             f"{reader.remaining()} bytes remaining.")
        element = field_type.element
        if isinstance(element, type):
            return tuple(_read_struct(reader, element, version) for _ in range(length))
        return tuple(_read_primitive(reader, element) for _ in range(length))
    return _read_primitive(reader, field_type)


def _read_primitive(reader: _Reader, field_type: str) -> Any:
    if field_type in _INT_FORMATS:
        fmt = _INT_FORMATS[field_type]
        return struct.unpack(fmt, reader.take(struct.calcsize(fmt)))[0]
    if field_type == BOOL:
        return reader.take(1)[0] != 0
    if field_type == UUID:
        return Uuid.from_bytes(reader.take(16))
    raise TypeError(f"unknown field type {field_type!r}")

