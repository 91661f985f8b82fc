"""Size-prefixed frames: how Kafka cuts a TCP byte stream into requests.

Theory of operation
-------------------
Every Kafka request and response travels as a *frame*: a big-endian int32
size followed by exactly that many bytes.  TCP delivers the stream in
arbitrary pieces, so the receiving side keeps a small state machine: first
collect the four size bytes, then collect the payload, then hand the payload
on and start over.  `FrameReader` is that state machine without a socket:
``feed(data)`` takes whatever bytes arrived and returns the payloads that
became complete (possibly none, possibly several).

A broker checks the size before it buffers anything: a negative size, or one
above ``socket.request.max.bytes`` (104857600 by default), makes the broker
close the connection with ``InvalidReceiveException`` ("Invalid receive (size
= -1)", "Invalid receive (size = 104857601 larger than 104857600)").  A size of
zero is accepted here, as in Kafka; the empty payload then fails header
parsing.  After such an error the reader stays failed: the connection is
over, and feeding more bytes raises the same error again.

Mirrors ``org.apache.kafka.common.network.NetworkReceive``.  Simplified: no
memory pool (a broker that is low on memory waits before allocating; this
reader always allocates).
"""

from __future__ import annotations

import struct

from minikafka.common.errors import Errors, KafkaException

SOCKET_REQUEST_MAX_BYTES_DEFAULT = 104857600
"""``socket.request.max.bytes`` default (100 MiB, ``SocketServerConfigs``)."""

_SIZE = struct.Struct(">i")


class InvalidReceiveException(KafkaException):
    """A frame size the broker will not read: the connection is closed.

    There is no error code for it: no response is sent.  Kafka maps it to
    UNKNOWN_SERVER_ERROR if it ever has to.
    """

    error = Errors.UNKNOWN_SERVER_ERROR

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.common.network.InvalidReceiveException"


def check_frame_size(size: int, max_bytes: int) -> None:
    """Raise `InvalidReceiveException` in Kafka's words if a broker would refuse ``size``."""
    if size < 0:
        raise InvalidReceiveException(f"Invalid receive (size = {size})")
    if size > max_bytes:
        raise InvalidReceiveException(f"Invalid receive (size = {size} larger than {max_bytes})")


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """``payload`` with its int32 size prefix, ready to write to a socket."""
    return _SIZE.pack(len(payload)) + bytes(payload)


class FrameReader:
    """Collects bytes until whole frames are available (sans-IO).

    >>> reader = FrameReader()
    >>> reader.feed(b"\\x00\\x00\\x00\\x03ab")
    []
    >>> reader.feed(b"c\\x00\\x00")
    [b'abc']
    """

    def __init__(self, max_bytes: int = SOCKET_REQUEST_MAX_BYTES_DEFAULT):
        if max_bytes < 1:
            raise ValueError(f"socket.request.max.bytes must be at least 1, got {max_bytes}")
        self.max_bytes = max_bytes                  # socket.request.max.bytes of the listener
        self._size_bytes = bytearray()              # the 0-3 size bytes seen so far
        self._payload: bytearray | None = None      # the payload being collected, once the size is known
        self._expected = 0                          # payload length announced by the size prefix
        self._failure: InvalidReceiveException | None = None  # set once a bad size was seen

    @property
    def buffered(self) -> int:
        """Bytes held for the frame in progress (size bytes plus payload so far)."""
        return len(self._size_bytes) + (len(self._payload) if self._payload is not None else 0)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Take newly arrived bytes; return the payloads (without size prefix) now complete."""
        if self._failure is not None:
            raise self._failure
        view = memoryview(data).cast("B")
        frames: list[bytes] = []
        pos = 0
        while pos < len(view):
            if self._payload is None:
                pos = self._read_size(view, pos)
                if self._payload is None:
                    break
            take = min(self._expected - len(self._payload), len(view) - pos)
            self._payload += view[pos:pos + take]
            pos += take
            if len(self._payload) == self._expected:  # also true at once for a zero-size frame
                frames.append(bytes(self._payload))
                self._payload = None
        return frames

    def _read_size(self, view: memoryview, pos: int) -> int:
        take = min(4 - len(self._size_bytes), len(view) - pos)
        self._size_bytes += view[pos:pos + take]
        pos += take
        if len(self._size_bytes) == 4:
            size = _SIZE.unpack(self._size_bytes)[0]
            self._size_bytes.clear()
            try:
                check_frame_size(size, self.max_bytes)
            except InvalidReceiveException as exc:
                self._failure = exc
                raise
            self._expected = size
            self._payload = bytearray()
        return pos
