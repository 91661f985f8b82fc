"""Compression codecs of a record batch, and the broker's choice of codec.

Theory of operation
-------------------
The low three bits of a v2 batch's ``attributes`` name the codec that
compressed everything after the 61-byte header: 0 none, 1 gzip, 2 snappy,
3 lz4, 4 zstd.  A producer picks the codec; the topic's ``compression.type``
decides what the broker stores.  The default, ``producer``, keeps whatever the
producer sent, so the broker writes the client's bytes unchanged.  Any other
value (``uncompressed``, ``gzip``, ...) makes the broker re-compress a batch
whose codec differs (``BrokerCompressionType.targetCompression``).

The codecs themselves come from kafka-python's ``kafka.codec`` (a library the
sandbox depends on); they produce the same framings Java clients use (gzip
member, xerial snappy, LZ4 frame, zstd frame).

Mirrors ``org.apache.kafka.common.record.CompressionType`` and
``org.apache.kafka.server.record.BrokerCompressionType``.  Simplified:
compression levels (``compression.gzip.level`` ...) are not configurable.
"""

from __future__ import annotations

import enum
from typing import Callable

from kafka import codec as _codec

from minikafka.common.errors import KafkaException
from minikafka.record.byte_utils import Buffer


class CompressionType(enum.Enum):
    """One member per codec id, named as Kafka names it (``CompressionType.GZIP.kafka_name == "gzip"``)."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4

    @property
    def id(self) -> int:
        return self.value

    @property
    def kafka_name(self) -> str:
        """Kafka's lower-case name, as printed in configs and tools ("none", "gzip", ...)."""
        return self.name.lower()

    def __str__(self) -> str:
        return self.kafka_name

    @classmethod
    def for_id(cls, codec_id: int) -> "CompressionType":
        try:
            return cls(codec_id)
        except ValueError:
            # Kafka throws IllegalArgumentException, which a broker answers as UNKNOWN_SERVER_ERROR.
            raise KafkaException(f"Unknown compression type id: {codec_id}") from None

    @classmethod
    def for_name(cls, name: str) -> "CompressionType":
        for member in cls:
            if member.kafka_name == name:
                return member
        raise KafkaException(f"Unknown compression name: {name}")


def target_compression(topic_compression_type: str, source: CompressionType) -> CompressionType:
    """The codec the broker stores, given the topic's ``compression.type`` and the producer's codec."""
    if topic_compression_type == "producer":
        return source
    if topic_compression_type == "uncompressed":
        return CompressionType.NONE
    return CompressionType.for_name(topic_compression_type)


# kafka-python's codecs, typed (kafka-python ships no type information).
_Codec = Callable[[bytes], bytes]
_gzip_encode: _Codec = _codec.gzip_encode
_gzip_decode: _Codec = _codec.gzip_decode
_snappy_encode: _Codec = _codec.snappy_encode
_snappy_decode: _Codec = _codec.snappy_decode
_lz4_encode: _Codec = _codec.lz4_encode
_lz4_decode: _Codec = _codec.lz4_decode
_zstd_encode: _Codec = _codec.zstd_encode
_zstd_decode: _Codec = _codec.zstd_decode


def compress(compression: CompressionType, data: bytes) -> bytes:
    """Compress a batch body (the records after the header) with ``compression``."""
    if compression is CompressionType.NONE:
        return bytes(data)
    if compression is CompressionType.GZIP:
        return _gzip_encode(bytes(data))
    if compression is CompressionType.SNAPPY:
        return _snappy_encode(bytes(data))
    if compression is CompressionType.LZ4:
        return _lz4_encode(bytes(data))
    return _zstd_encode(bytes(data))


def decompress(compression: CompressionType, data: Buffer) -> bytes:
    """Inflate a batch body; a stream the codec cannot read fails as Kafka's does."""
    try:
        if compression is CompressionType.NONE:
            return bytes(data)
        if compression is CompressionType.GZIP:
            return _gzip_decode(bytes(data))
        if compression is CompressionType.SNAPPY:
            return _snappy_decode(bytes(data))
        if compression is CompressionType.LZ4:
            return _lz4_decode(bytes(data))
        return _zstd_decode(bytes(data))
    except Exception as exc:  # every codec library raises its own error type
        raise KafkaException("Failed to decompress record stream") from exc
