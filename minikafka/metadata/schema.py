"""Field specs for the KRaft metadata records, transcribed from Kafka's JSON message specs.

Theory of operation
-------------------
Kafka describes every metadata record in a JSON file under
``metadata/src/main/resources/common/metadata/``; a generator turns each file
into a Java class with a binary reader/writer and a JSON converter.  The
sandbox keeps the same information as data: each record class carries a
``SCHEMA`` tuple of `FieldSpec` (name as written in the JSON file, type, the
first version that has the field, the tag if it is a tagged field, whether it
may be null), and two generic walkers use it -- `serde` for the bytes that go
into ``__cluster_metadata`` and `json_converters` for the text that
``kafka-dump-log.sh --cluster-metadata-decoder`` prints.

Rules the walkers follow (Kafka's generator does the same):

* every metadata record is a *flexible* message at every version Kafka 4.x
  writes, so strings and arrays use the compact encoding and each struct ends
  with a tagged-fields section;
* a tagged field is written only when its value differs from its default, in
  ascending tag order (not in the order the JSON file lists the fields);
* a field whose first version is above the version being written must hold
  its default, else the write fails with Kafka's "Attempted to write a
  non-default ..." message.

Mirrors the field model of Kafka's message generator (``FieldSpec``,
``FieldType``).  Simplified: only the types metadata records use are modelled
(no bytes, records, float64, or non-flexible versions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from minikafka.common.uuid import Uuid

# Primitive type names, as spelled in Kafka's JSON specs.
INT8 = "int8"
INT16 = "int16"
INT32 = "int32"
INT64 = "int64"
UINT16 = "uint16"
BOOL = "bool"
STRING = "string"
UUID = "uuid"

PRIMITIVES = frozenset({INT8, INT16, INT32, INT64, UINT16, BOOL, STRING, UUID})

# Inclusive ranges of the integer types, used by the writer to refuse values
# that would not survive the trip (Kafka's Java types make them impossible).
INT_RANGES = {
    INT8: (-(2**7), 2**7 - 1),
    INT16: (-(2**15), 2**15 - 1),
    INT32: (-(2**31), 2**31 - 1),
    INT64: (-(2**63), 2**63 - 1),
    UINT16: (0, 2**16 - 1),
}


class _Implicit:
    """Marks a field whose spec gives no "default": the type's zero value applies."""

    def __repr__(self) -> str:
        return "IMPLICIT"


IMPLICIT = _Implicit()


@dataclass(frozen=True, slots=True)
class ArrayOf:
    """``[]int32``, ``[]uuid`` or ``[]SomeStruct`` in a JSON spec."""

    element: Any  # a primitive type name, or a Struct subclass


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a record or struct, as declared in Kafka's JSON spec."""

    json_name: str                 # e.g. "TopicId"; the JSON converter prints "topicId"
    type: Any                      # primitive name, ArrayOf(...)
    since: int = 0                 # first version that has the field ("versions": "N+")
    tag: int | None = None         # tag number for tagged fields ("taggedVersions")
    nullable: bool = False         # "nullableVersions" covers every version that has the field
    default: Any = IMPLICIT        # the spec's "default"; IMPLICIT = the type's zero value

    @property
    def attr(self) -> str:
        """The Python attribute name: snake_case of the JSON name."""
        return snake_case(self.json_name)

    @property
    def json_key(self) -> str:
        """The key Kafka's generated JSON converter uses: the name with a lower-case first letter."""
        return self.json_name[:1].lower() + self.json_name[1:]

    @property
    def java_name(self) -> str:
        """The name Kafka's generated code (and its error messages) uses: ``logDirs``."""
        return self.json_key

    def present_in(self, version: int) -> bool:
        return version >= self.since


class Struct:
    """Base of nested structures (``BrokerEndpoint``...) and of every record.

    Subclasses are frozen dataclasses that declare ``SCHEMA``; their field
    order and names must match it (a test checks this for every record).
    """

    __slots__ = ()
    SCHEMA: ClassVar[tuple[FieldSpec, ...]] = ()

    def __post_init__(self) -> None:
        # Callers may pass lists; store tuples so records stay immutable and
        # compare equal however they were built.
        for spec in self.SCHEMA:
            if isinstance(spec.type, ArrayOf):
                value = getattr(self, spec.attr)
                if value is not None and not isinstance(value, tuple):
                    object.__setattr__(self, spec.attr, tuple(value))


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_case(json_name: str) -> str:
    """``PartitionEpoch`` -> ``partition_epoch``; ``IsMigratingZkBroker`` -> ``is_migrating_zk_broker``."""
    return _CAMEL_BOUNDARY.sub("_", json_name).lower()


def implicit_default(spec: FieldSpec) -> Any:
    """The field's default: the spec's own, else the zero value Kafka's generator uses."""
    if spec.default is not IMPLICIT:
        return spec.default
    if isinstance(spec.type, ArrayOf):
        return ()
    return {BOOL: False, STRING: "", UUID: Uuid.ZERO}.get(spec.type, 0)


def is_default(spec: FieldSpec, value: Any) -> bool:
    """True if ``value`` is the field's default (so a tagged field is left out)."""
    default = implicit_default(spec)
    if isinstance(spec.type, ArrayOf) and value is not None and default is not None:
        return len(value) == len(default) and tuple(value) == tuple(default)
    return bool(value == default)
