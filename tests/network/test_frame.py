import struct

import pytest

from minikafka.network.frame import (SOCKET_REQUEST_MAX_BYTES_DEFAULT, FrameReader,
                                     InvalidReceiveException, check_frame_size, frame)


def sized(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def test_default_limit_is_kafkas_socket_request_max_bytes():
    assert SOCKET_REQUEST_MAX_BYTES_DEFAULT == 100 * 1024 * 1024
    assert FrameReader().max_bytes == 104857600


def test_frame_prefixes_the_size():
    assert frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert frame(b"") == b"\x00\x00\x00\x00"


def test_byte_at_a_time_yields_each_frame_once_complete():
    stream = sized(b"first") + sized(b"") + sized(b"third!")
    reader = FrameReader()
    seen = []
    for i in range(len(stream)):
        seen.extend(reader.feed(stream[i:i + 1]))
    assert seen == [b"first", b"", b"third!"]
    assert reader.buffered == 0


def test_several_frames_in_one_read_and_a_partial_tail():
    reader = FrameReader()
    out = reader.feed(sized(b"a") + sized(b"bb") + sized(b"ccc")[:5])
    assert out == [b"a", b"bb"]
    assert reader.buffered == 1          # the size is known; one payload byte is held
    assert reader.feed(b"cc") == [b"ccc"]


def test_partial_size_prefix_is_kept():
    reader = FrameReader()
    assert reader.feed(b"\x00\x00") == []
    assert reader.buffered == 2
    assert reader.feed(b"\x00\x01z") == [b"z"]


def test_accepts_memoryview_and_bytearray():
    reader = FrameReader()
    assert reader.feed(memoryview(sized(b"xy"))) == [b"xy"]
    assert reader.feed(bytearray(sized(b"q"))) == [b"q"]


def test_negative_size_closes_with_kafkas_message():
    reader = FrameReader()
    with pytest.raises(InvalidReceiveException) as info:
        reader.feed(struct.pack(">i", -1))
    assert str(info.value) == "Invalid receive (size = -1)"
    assert info.value.java_class == "org.apache.kafka.common.network.InvalidReceiveException"


def test_oversized_frame_closes_with_kafkas_message_before_buffering():
    reader = FrameReader(max_bytes=10)
    with pytest.raises(InvalidReceiveException) as info:
        reader.feed(struct.pack(">i", 11))
    assert str(info.value) == "Invalid receive (size = 11 larger than 10)"
    assert reader.buffered == 0


def test_size_equal_to_the_limit_is_accepted():
    reader = FrameReader(max_bytes=3)
    assert reader.feed(sized(b"abc")) == [b"abc"]


def test_default_limit_message():
    with pytest.raises(InvalidReceiveException,
                       match=r"^Invalid receive \(size = 104857601 larger than 104857600\)$"):
        check_frame_size(104857601, SOCKET_REQUEST_MAX_BYTES_DEFAULT)


def test_reader_stays_failed_after_a_bad_size():
    reader = FrameReader(max_bytes=4)
    with pytest.raises(InvalidReceiveException):
        reader.feed(struct.pack(">i", 5))
    with pytest.raises(InvalidReceiveException):
        reader.feed(sized(b"ok"))


def test_frames_before_a_bad_size_in_the_same_read_are_not_returned():
    # Kafka closes the connection at the bad size; what came before is moot.
    reader = FrameReader(max_bytes=4)
    with pytest.raises(InvalidReceiveException):
        reader.feed(sized(b"ok") + struct.pack(">i", -7))


def test_max_bytes_must_be_positive():
    with pytest.raises(ValueError):
        FrameReader(max_bytes=0)
