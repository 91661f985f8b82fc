"""LineMessageReader: lines to records, with Kafka's separators, null marker and errors."""

import pytest

from minikafka.commands.line_message_reader import LineMessageReader, LineRecord, ReaderException, java_split


def read(lines, **props):
    return list(LineMessageReader.configure(props).read_records(lines))


def test_by_default_the_whole_line_is_the_value():
    assert read(["hello world", ""]) == [LineRecord(None, b"hello world"), LineRecord(None, b"")]


def test_parse_key_splits_at_the_first_separator():
    records = read(["k1:v:1", "k2:"], **{"parse.key": "true", "key.separator": ":"})
    assert records == [LineRecord(b"k1", b"v:1"), LineRecord(b"k2", b"")]


def test_the_default_key_separator_is_a_tab():
    assert read(["k\tv"], **{"parse.key": " TRUE "}) == [LineRecord(b"k", b"v")]


def test_a_line_without_the_separator_fails_with_its_line_number():
    with pytest.raises(ReaderException) as error:
        read(["a:b", "no-separator"], **{"parse.key": "true", "key.separator": ":"})
    assert error.value.message == "No key separator found on line number 2: 'no-separator'"
    assert error.value.java_class == "org.apache.kafka.common.KafkaException"


def test_ignore_error_leaves_the_key_out():
    assert read(["lonely"], **{"parse.key": "true", "ignore.error": "true"}) == [LineRecord(None, b"lonely")]


def test_headers_come_first_then_key_then_value():
    records = read(["h1:v1,h2:v2\tk\tvalue"], **{"parse.headers": "true", "parse.key": "true"})
    assert records == [LineRecord(b"k", b"value", (("h1", b"v1"), ("h2", b"v2")))]


def test_the_null_marker_makes_fields_null():
    records = read(["N\tN", "h:N\tv"], **{"parse.key": "true", "null.marker": "N"})
    assert records[0] == LineRecord(None, None)
    records = read(["h:N\tv"], **{"parse.headers": "true", "null.marker": "N"})
    assert records == [LineRecord(None, b"v", (("h", None),))]


def test_a_header_without_key_separator_fails_unless_errors_are_ignored():
    with pytest.raises(ReaderException, match="No header key separator found in pair 'bad' on line number 1"):
        read(["bad\tv"], **{"parse.headers": "true"})
    assert read(["bad\tv"], **{"parse.headers": "true", "ignore.error": "true"}) == [
        LineRecord(None, b"v", (("bad", None),))]


@pytest.mark.parametrize("props, message", [
    ({"headers.separator": "\t"}, "headers.delimiter and headers.separator may not be equal"),
    ({"headers.key.separator": "\t"}, "headers.delimiter and headers.key.separator may not be equal"),
    ({"null.marker": "\t"}, "null.marker and key.separator may not be equal")])
def test_equal_separators_are_refused_up_front(props, message):
    with pytest.raises(ReaderException) as error:
        LineMessageReader.configure(props)
    assert error.value.message == message


def test_java_split_drops_trailing_empty_strings():
    assert java_split(",", "a,b,,") == ["a", "b"]
    assert java_split(",", "") == [""]
