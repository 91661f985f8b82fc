import pytest
from hypothesis import given, strategies as st

from minikafka.coordinator.byte_buffer_accessor import Reader, Writer


@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_unsigned_varint_round_trip(value):
    assert Reader(Writer().unsigned_varint(value).bytes(), "value").unsigned_varint() == value


def test_varint_golden_bytes():
    assert Writer().unsigned_varint(300).bytes() == bytes([0xAC, 0x02])


@given(st.one_of(st.none(), st.text(max_size=50)), st.binary(max_size=50), st.booleans())
def test_strings_and_bytes_round_trip_in_both_encodings(text, blob, flexible):
    data = Writer(flexible).nullable_string(text).bytes_field(blob).tagged_fields().bytes()
    reader = Reader(data, "value", flexible)
    assert (reader.nullable_string(), reader.bytes_field()) == (text, blob)
    reader.tagged_fields()
    assert reader.remaining() == 0


def test_compact_null_string_is_a_single_zero():
    assert Writer(flexible=True).nullable_string(None).bytes() == b"\x00"
    assert Writer().nullable_string(None).bytes() == b"\xff\xff"


def test_overlong_varint_is_refused():
    with pytest.raises(ValueError, match="Varint is too long"):
        Reader(b"\xff\xff\xff\xff\xff\x01", "value").unsigned_varint()


def test_non_nullable_null_string_is_refused():
    with pytest.raises(ValueError, match="serialized as null"):
        Reader(b"\xff\xff", "key").string()


@given(st.binary(max_size=40))
def test_random_bytes_only_ever_raise_value_error(data):
    reader = Reader(data, "value", flexible=bool(data and data[0] & 1))
    try:
        reader.string()
        reader.array_length()
        reader.bytes_field()
        reader.tagged_fields()
    except ValueError:
        pass
