import pytest
from hypothesis import given, strategies as st

from minikafka.record.byte_utils import (read_unsigned_varint, read_varint, read_varlong, size_of_varint,
                                        write_unsigned_varint, write_varint)


@pytest.mark.parametrize("value, encoded", [
    (0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (-2, b"\x03"), (63, b"\x7e"), (64, b"\x80\x01"),
    (300, b"\xd8\x04"), (2**31 - 1, b"\xfe\xff\xff\xff\x0f"), (-(2**31), b"\xff\xff\xff\xff\x0f"),
])
def test_zigzag_varint_golden_bytes(value, encoded):
    out = bytearray()
    write_varint(value, out)
    assert bytes(out) == encoded
    assert read_varint(encoded, 0) == (value, len(encoded))
    assert size_of_varint(value) == len(encoded)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_varlong_round_trip(value):
    out = bytearray(b"\xaa")
    write_varint(value, out)
    assert read_varlong(out, 1) == (value, len(out))
    assert size_of_varint(value) == len(out) - 1


def test_truncated_varint_is_an_error():
    with pytest.raises(ValueError):
        read_varint(b"\x80\x80", 0)
    with pytest.raises(ValueError):
        read_varint(b"", 0)


def test_varint_longer_than_five_bytes_is_an_error():
    with pytest.raises(ValueError):
        read_varint(b"\x80\x80\x80\x80\x80\x01", 0)
    assert read_varlong(b"\x80\x80\x80\x80\x80\x01", 0)[1] == 6


@pytest.mark.parametrize("value, encoded", [
    (0, b"\x00"), (1, b"\x01"), (127, b"\x7f"), (128, b"\x80\x01"), (300, b"\xac\x02"),
    (2**31 - 1, b"\xff\xff\xff\xff\x07"), (2**32 - 1, b"\xff\xff\xff\xff\x0f"),
])
def test_unsigned_varint_golden_bytes(value, encoded):
    # the compact lengths of flexible messages: no zig-zag, so 1 is 0x01 (a varint writes 0x02)
    out = bytearray(b"\xaa")
    write_unsigned_varint(value, out)
    assert bytes(out[1:]) == encoded
    assert read_unsigned_varint(out, 1) == (value, len(out))


def test_unsigned_varint_bounds():
    with pytest.raises(ValueError, match="runs past the end"):
        read_unsigned_varint(b"\x80", 0)
    with pytest.raises(ValueError, match="Varint is too long, the most significant bit in the 5th byte is set"):
        read_unsigned_varint(b"\x80\x80\x80\x80\x80\x01", 0)
