"""DefaultMessageFormatter: which fields print, in which order, with which separators."""

from types import SimpleNamespace

import pytest

from minikafka.commands.default_message_formatter import DefaultMessageFormatter, SerializationException


def record(key=b"k", value=b"v", headers=(), timestamp_type=0, partition=2, offset=7):
    return SimpleNamespace(key=key, value=value, headers=list(headers), timestamp=1767225600000,
                           timestamp_type=timestamp_type, partition=partition, offset=offset)


def fmt(**props) -> DefaultMessageFormatter:
    return DefaultMessageFormatter.configure(props)


def test_only_the_value_by_default():
    assert fmt().format(record()) == b"v\n"


def test_every_field_in_kafkas_order():
    formatter = fmt(**{f"print.{n}": "true" for n in ("timestamp", "partition", "offset", "delivery", "epoch",
                                                       "headers", "key")})
    assert formatter.format(record(headers=[("h", b"1"), ("g", None)])) == (
        b"CreateTime:1767225600000\tPartition:2\tOffset:7\tDelivery:NOT_PRESENT\tEpoch:NOT_PRESENT\th:1,g:null\tk\tv\n")


def test_separators_null_literal_and_missing_timestamp_or_headers():
    formatter = fmt(**{"print.key": "true", "print.timestamp": "true", "print.headers": "true",
                       "key.separator": " | ", "line.separator": ";", "null.literal": "<none>"})
    assert formatter.format(record(key=None, value=None, timestamp_type=-1)) == \
        b"NO_TIMESTAMP | NO_HEADERS | <none> | <none>;"


def test_without_the_value_the_last_field_ends_the_line():
    assert fmt(**{"print.value": "false", "print.offset": "true"}).format(record()) == b"Offset:7\n"
    assert fmt(**{"print.value": "false"}).format(record()) == b""


def test_log_append_time_and_non_true_flags():
    assert fmt(**{"print.timestamp": "yes"}).format(record(timestamp_type=1)) == b"v\n"
    assert fmt(**{"print.timestamp": "true"}).format(record(timestamp_type=1)).startswith(b"LogAppendTime:")


def test_deserializers_turn_bytes_into_their_to_string_and_see_the_null_literal():
    formatter = fmt(**{"print.key": "true",
                       "key.deserializer": "org.apache.kafka.common.serialization.IntegerDeserializer",
                       "value.deserializer": "org.apache.kafka.common.serialization.LongDeserializer"})
    assert formatter.format(record(key=(258).to_bytes(4, "big"), value=(-1).to_bytes(8, "big", signed=True))) == \
        b"258\t-1\n"
    assert formatter.format(record(key=None, value=(5).to_bytes(8, "big"))) == b"1853189228\t5\n"   # b"null" as int
    with pytest.raises(SerializationException, match="Size of data received by LongDeserializer is not 8"):
        formatter.format(record(key=b"abcd", value=b"x"))


def test_an_unknown_deserializer_is_logged_and_the_bytes_print_as_they_are(capsys):
    formatter = fmt(**{"value.deserializer": "com.example.Nope"})
    err = capsys.readouterr().err
    assert "ERROR Unable to instantiate a deserializer from com.example.Nope " \
           "(org.apache.kafka.tools.consumer.DefaultMessageFormatter)" in err
    assert "java.lang.ClassNotFoundException: com.example.Nope" in err
    assert formatter.format(record()) == b"v\n"
