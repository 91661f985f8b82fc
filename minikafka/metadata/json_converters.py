"""The JSON form of metadata records, as ``kafka-dump-log.sh --cluster-metadata-decoder`` prints it.

Theory of operation
-------------------
Kafka generates a ``<Record>JsonConverter`` per record type; the dump tool
wraps its output as ``{"type":"<MetadataRecordType>","version":<v>,"data":{...}}``
and prints it compactly (Jackson's ``toString``: no spaces).  The converter
walks the fields in the order the JSON spec lists them and:

* names each key after the spec's field name with a lower-case first letter
  (``TopicId`` -> ``topicId``);
* leaves out fields that the version does not have;
* leaves out tagged fields that hold their default (so a PartitionChangeRecord
  that only moves the leader prints ``"leader":2`` and no ``isr``);
* prints a null non-tagged field as ``null``, Uuids as their base64 text,
  int8/int16 as plain numbers and nested structs as objects.

Mirrors the generated ``*JsonConverter`` classes and ``MetadataJsonConverters``.
Simplified: writing only (the sandbox never parses this JSON back).
"""

from __future__ import annotations

import json
from typing import Any

from minikafka.common.errors import UnsupportedVersionException
from minikafka.common.uuid import Uuid
from minikafka.metadata.schema import ArrayOf, Struct, is_default


def payload_json(record: Any, version: int) -> str:
    """``{"type":...,"version":...,"data":...}`` for one record at ``version``."""
    payload = {"type": record.type_name(), "version": version, "data": write(record, version)}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def write(struct: Struct, version: int) -> dict[str, Any]:
    """The ``data`` object of one record or nested struct."""
    node: dict[str, Any] = {}
    for spec in struct.SCHEMA:
        value = getattr(struct, spec.attr)
        if not spec.present_in(version):
            if not is_default(spec, value):
                raise UnsupportedVersionException(
                    f"Attempted to write a non-default {spec.java_name} at version {version}")
            continue
        if spec.tag is not None and is_default(spec, value):
            continue
        node[spec.json_key] = _value(spec.type, value, version)
    return node


def _value(field_type: Any, value: Any, version: int) -> Any:
    if value is None:
        return None
    if isinstance(field_type, ArrayOf):
        return [_value(field_type.element, element, version) for element in value]
    if isinstance(field_type, type) and issubclass(field_type, Struct):
        return write(value, version)
    if isinstance(value, Uuid):
        return str(value)
    return value

