"""`LineMessageReader`: how ``kafka-console-producer.sh`` turns a line of input into a record.

Theory of operation
-------------------
Each line (without its line break) is one record.  By default the whole
line is the value.  With ``parse.key=true`` the text before the first
``key.separator`` (a tab by default) is the key and the rest the value;
with ``parse.headers=true`` the line starts with headers, ended by
``headers.delimiter`` (tab), as pairs split by the ``headers.separator``
regular expression (``,``), each ``name`` + ``headers.key.separator``
(``:``) + ``value``.  Headers come first, then the key, then the value.  A
field equal to ``null.marker`` becomes null (a header name may not be).

A line without the separator it needs stops the producer with ``No key
separator found on line number 3: 'abc'`` unless ``ignore.error=true``, in
which case the field is simply absent.  Configuring two separators that
are equal is refused up front (``headers.delimiter and headers.separator
may not be equal``).  Line numbers count from 1.

Mirrors ``org.apache.kafka.tools.LineMessageReader`` (4.3.1).  Simplified:
``headers.separator`` is a regular expression run by Python's ``re``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from minikafka.common.errors import KafkaException


class ReaderException(KafkaException):
    """``org.apache.kafka.common.KafkaException`` thrown by the reader."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.common.KafkaException"


@dataclass(frozen=True, slots=True)
class LineRecord:
    """A ``ProducerRecord<byte[], byte[]>`` made from one line."""

    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


def java_split(pattern: str, text: str) -> list[str]:
    """``String.split(regex)``: like ``re.split``, but trailing empty strings are dropped."""
    parts = re.split(pattern, text)
    if len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _flag(props: Mapping[str, str], name: str) -> bool:
    return props.get(name, "false").strip().lower() == "true"


@dataclass(slots=True)
class LineMessageReader:
    parse_key: bool = False
    key_separator: str = "\t"
    parse_headers: bool = False
    headers_delimiter: str = "\t"
    headers_separator: str = ","
    headers_key_separator: str = ":"
    ignore_error: bool = False
    null_marker: str | None = None
    line_number: int = field(default=0)          # lines read so far

    @classmethod
    def configure(cls, props: Mapping[str, str]) -> "LineMessageReader":
        reader = cls(_flag(props, "parse.key"), props.get("key.separator", "\t"), _flag(props, "parse.headers"),
                     props.get("headers.delimiter", "\t"), props.get("headers.separator", ","),
                     props.get("headers.key.separator", ":"), _flag(props, "ignore.error"),
                     props.get("null.marker"))
        pairs = (("headers.delimiter", reader.headers_delimiter, "headers.separator", reader.headers_separator),
                 ("headers.delimiter", reader.headers_delimiter, "headers.key.separator",
                  reader.headers_key_separator),
                 ("headers.separator", reader.headers_separator, "headers.key.separator",
                  reader.headers_key_separator))
        for a, a_value, b, b_value in pairs:
            if a_value == b_value:
                raise ReaderException(f"{a} and {b} may not be equal")
        for name, value in (("key.separator", reader.key_separator), ("headers.separator", reader.headers_separator),
                            ("headers.delimiter", reader.headers_delimiter),
                            ("headers.key.separator", reader.headers_key_separator)):
            if value == reader.null_marker:
                raise ReaderException(f"null.marker and {name} may not be equal")
        return reader

    def read_records(self, lines: Iterable[str]) -> Iterator[LineRecord]:
        for line in lines:
            self.line_number += 1
            yield self.parse_line(line)

    def _field(self, enabled: bool, line: str, start: int, demarcation: str, name: str) -> str | None:
        if not enabled:
            return None
        index = line.find(demarcation, start)
        if index == -1:
            if self.ignore_error:
                return None
            raise ReaderException(f"No {name} found on line number {self.line_number}: '{line}'")
        return line[start:index]

    def _bytes(self, text: str | None) -> bytes | None:
        return None if text is None or text == self.null_marker else text.encode("utf-8")

    def parse_line(self, line: str) -> LineRecord:
        headers = self._field(self.parse_headers, line, 0, self.headers_delimiter, "headers delimiter")
        header_offset = 0 if headers is None else len(headers) + len(self.headers_delimiter)
        key = self._field(self.parse_key, line, header_offset, self.key_separator, "key separator")
        key_offset = 0 if key is None else len(key) + len(self.key_separator)
        value = line[header_offset + key_offset:]
        parsed = () if headers is None or headers == self.null_marker else self._split_headers(headers)
        return LineRecord(self._bytes(key), self._bytes(value), parsed)

    def _split_headers(self, headers: str) -> tuple[tuple[str, bytes | None], ...]:
        result: list[tuple[str, bytes | None]] = []
        for pair in java_split(self.headers_separator, headers):
            index = pair.find(self.headers_key_separator)
            if index == -1:
                if self.ignore_error:
                    result.append((pair, None))
                    continue
                raise ReaderException(f"No header key separator found in pair '{pair}' on line number "
                                      f"{self.line_number}")
            name = pair[:index]
            if name == self.null_marker:
                raise ReaderException(f"Header keys should not be equal to the null marker '{self.null_marker}' "
                                      "as they can't be null")
            value = pair[index + len(self.headers_key_separator):]
            result.append((name, None if value == self.null_marker else value.encode("utf-8")))
        return tuple(result)


__all__ = ["LineMessageReader", "LineRecord", "ReaderException", "java_split"]
