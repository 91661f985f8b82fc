import pytest

from minikafka.common.errors import KafkaException
from minikafka.record.compression_type import CompressionType, compress, decompress, target_compression


def test_ids_and_names_are_kafkas():
    assert [(c.id, str(c)) for c in CompressionType] == [
        (0, "none"), (1, "gzip"), (2, "snappy"), (3, "lz4"), (4, "zstd")]


def test_unknown_id_fails_with_kafkas_text():
    with pytest.raises(KafkaException, match="^Unknown compression type id: 5$"):
        CompressionType.for_id(5)


@pytest.mark.parametrize("codec", list(CompressionType))
def test_round_trip(codec):
    payload = b"hello kafka " * 100
    packed = compress(codec, payload)
    if codec is not CompressionType.NONE:
        assert len(packed) < len(payload)
    assert decompress(codec, packed) == payload


def test_broker_target_compression():
    assert target_compression("producer", CompressionType.LZ4) is CompressionType.LZ4
    assert target_compression("uncompressed", CompressionType.GZIP) is CompressionType.NONE
    assert target_compression("zstd", CompressionType.NONE) is CompressionType.ZSTD


def test_garbage_stream_fails_like_kafka():
    with pytest.raises(KafkaException, match="Failed to decompress record stream"):
        decompress(CompressionType.GZIP, b"not gzip at all")
