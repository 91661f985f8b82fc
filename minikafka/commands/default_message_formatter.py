"""`DefaultMessageFormatter`: how ``kafka-console-consumer.sh`` prints a record.

Theory of operation
-------------------
By default only the value is printed, followed by ``line.separator``
(``\\n``).  ``--property print.X=true`` switches on more fields, always in
this order, each followed by ``key.separator`` (a tab) when another field
follows::

    CreateTime:1767225600000  Partition:0  Offset:42  Delivery:NOT_PRESENT  Epoch:NOT_PRESENT
    h1:v1,h2:v2  key  value

``print.timestamp`` (``NO_TIMESTAMP`` when the record has none),
``print.partition``, ``print.offset``, ``print.delivery`` and ``print.epoch``
(always ``NOT_PRESENT``: the console consumer hands the formatter a copy of
the record without delivery count or leader epoch), ``print.headers``
(``NO_HEADERS`` when there are none, else ``name:value`` joined by
``headers.separator``), ``print.key``, ``print.value``.  A null key, value
or header value prints as ``null.literal`` (``null``).  The bytes are
written as they are, unless a ``key.deserializer``/``value.deserializer``/
``headers.deserializer`` turns them into an object whose ``toString`` is
printed; note that a null field reaches the deserializer as the bytes of
``null.literal``, as in Kafka.  A boolean setting is true only for the
text ``true`` (any case, surrounding spaces ignored).

Mirrors ``org.apache.kafka.tools.consumer.DefaultMessageFormatter`` (4.3.1)
and the serialization package's ``String``/``Integer``/``Long``/``Short``/
``Double``/``ByteArray`` deserializers.  Simplified: other deserializer
classes cannot be loaded; Kafka logs that and prints the raw bytes, and
so does the sandbox.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Callable, Mapping

from minikafka.commands.tools_log import log_line
from minikafka.common.config.java_values import double_to_string
from minikafka.common.errors import KafkaException

SERIALIZATION = "org.apache.kafka.common.serialization."
TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime"}
LOGGER = "org.apache.kafka.tools.consumer.DefaultMessageFormatter"


class SerializationException(KafkaException):
    @property
    def java_class(self) -> str:
        return "org.apache.kafka.common.errors.SerializationException"


def _fixed(name: str, size: int, fmt: str, show: Callable) -> Callable[[bytes], str]:
    def deserialize(data: bytes) -> str:
        if len(data) != size:
            raise SerializationException(f"Size of data received by {name} is not {size}")
        return show(struct.unpack(fmt, data)[0])
    return deserialize


DESERIALIZERS: dict[str, Callable[[bytes], str]] = {
    SERIALIZATION + "StringDeserializer": lambda data: data.decode("utf-8", errors="replace"),
    SERIALIZATION + "IntegerDeserializer": _fixed("IntegerDeserializer", 4, ">i", str),
    SERIALIZATION + "LongDeserializer": _fixed("LongDeserializer", 8, ">q", str),
    SERIALIZATION + "ShortDeserializer": _fixed("ShortDeserializer", 2, ">h", str),
    SERIALIZATION + "DoubleDeserializer": _fixed("DoubleDeserializer", 8, ">d", double_to_string),
    # byte[].toString(): the array's identity hash, which differs run to run, as in Java.
    SERIALIZATION + "ByteArrayDeserializer": lambda data: f"[B@{id(data) & 0xffffffff:x}",
}


def _flag(configs: Mapping[str, str], name: str, default: bool) -> bool:
    return configs[name].strip().lower() == "true" if name in configs else default


@dataclass(slots=True)
class DefaultMessageFormatter:
    print_timestamp: bool = False
    print_key: bool = False
    print_value: bool = True
    print_partition: bool = False
    print_offset: bool = False
    print_delivery: bool = False
    print_epoch: bool = False
    print_headers: bool = False
    key_separator: bytes = b"\t"
    line_separator: bytes = b"\n"
    headers_separator: bytes = b","
    null_literal: bytes = b"null"
    deserializers: dict[str, Callable[[bytes], str]] = field(default_factory=dict)   # "key"/"value"/"headers"

    @classmethod
    def configure(cls, configs: Mapping[str, str]) -> "DefaultMessageFormatter":
        f = cls()
        for name in ("timestamp", "key", "offset", "delivery", "epoch", "partition", "headers", "value"):
            setattr(f, f"print_{name}", _flag(configs, f"print.{name}", getattr(f, f"print_{name}")))
        for name in ("key.separator", "line.separator", "headers.separator", "null.literal"):
            if name in configs:
                setattr(f, name.replace(".", "_"), configs[name].encode("utf-8"))
        for part in ("key", "value", "headers"):
            class_name = configs.get(f"{part}.deserializer")
            if class_name is None:
                continue
            if class_name in DESERIALIZERS:
                f.deserializers[part] = DESERIALIZERS[class_name]
            else:
                log_line("ERROR", f"Unable to instantiate a deserializer from {class_name}", LOGGER,
                         f"java.lang.ClassNotFoundException: {class_name}")
        return f

    def _bytes(self, part: str, data: bytes | None) -> bytes:
        raw = self.null_literal if data is None else data
        deserialize = self.deserializers.get(part)
        return raw if deserialize is None else deserialize(raw).encode("utf-8")

    def format(self, record) -> bytes:
        """``writeTo``: the bytes printed for one kafka-python ``ConsumerRecord``."""
        fields: list[bytes] = []
        if self.print_timestamp:
            kind = TIMESTAMP_TYPES.get(record.timestamp_type)
            fields.append(b"NO_TIMESTAMP" if kind is None else f"{kind}:{record.timestamp}".encode())
        if self.print_partition:
            fields.append(f"Partition:{record.partition}".encode())
        if self.print_offset:
            fields.append(f"Offset:{record.offset}".encode())
        if self.print_delivery:
            fields.append(b"Delivery:NOT_PRESENT")
        if self.print_epoch:
            fields.append(b"Epoch:NOT_PRESENT")
        if self.print_headers:
            headers = list(record.headers or ())
            fields.append(self.headers_separator.join(name.encode("utf-8") + b":" + self._bytes("headers", value)
                                                      for name, value in headers) if headers else b"NO_HEADERS")
        if self.print_key:
            fields.append(self._bytes("key", record.key))
        text = self.key_separator.join(fields)
        if self.print_value:
            text += (self.key_separator if fields else b"") + self._bytes("value", record.value) + self.line_separator
        elif fields:
            text += self.line_separator
        return text


__all__ = ["DefaultMessageFormatter", "DESERIALIZERS", "SerializationException"]
