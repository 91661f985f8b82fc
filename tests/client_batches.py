"""Batches exactly as kafka-python's producer builds them (the bytes real clients send)."""

from kafka.record.memory_records import MemoryRecordsBuilder

NOW = 1767225600000     # the simulated driver's epoch: 2026-01-01T00:00:00Z


def client_batch(count=3, value_size=10, codec=0, timestamp=NOW, producer=None, keys=True, headers=()):
    """One batch built by kafka-python (codec: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)."""
    builder = MemoryRecordsBuilder(magic=2, compression_type=codec, batch_size=10**8)
    if producer is not None:
        producer_id, epoch, sequence = producer
        builder.set_producer_state(producer_id, epoch, sequence, False)
    for i in range(count):
        key = b"key-%d" % i if keys else None
        builder.append(timestamp=timestamp + i, key=key, value=bytes([65 + i % 26]) * value_size,
                       headers=list(headers))
    builder.close()
    return bytes(builder.buffer())

