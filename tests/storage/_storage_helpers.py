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



def records_of(data):
    from minikafka.record.memory_records import decode_records
    return decode_records(data)


def offsets_of(data):
    return [r.offset for r in records_of(data)]


def stored_batch(base_offset, count=3, value_size=100, timestamp=NOW, epoch=0, codec=None):
    """A batch as a leader stores it: offsets and epoch stamped."""
    from minikafka.record.compression_type import CompressionType
    from minikafka.record.memory_records import SimpleRecord, build_batch
    records = [SimpleRecord(bytes([65 + i % 26]) * value_size, b"k%d" % i, timestamp + i) for i in range(count)]
    return build_batch(records, base_offset=base_offset, partition_leader_epoch=epoch,
                       compression=codec or CompressionType.NONE)


def append_stored(segment, data, now=NOW):
    from minikafka.record.record_batch import iter_batches
    batches = list(iter_batches(data))
    segment.append(batches[-1].last_offset, data, batches, now)
    return batches


class Events:
    """Collects ``emit(kind, text, **data)`` calls."""

    def __init__(self):
        self.seen = []

    def __call__(self, kind, text, **data):
        self.seen.append((kind, text, data))

    def kinds(self):
        return [kind for kind, _, _ in self.seen]

    def texts(self, kind):
        return [text for k, text, _ in self.seen if k == kind]


def open_log(path, now=NOW, events=None, **config):
    from minikafka.storage.log_config import LogConfig
    from minikafka.storage.unified_log import UnifiedLog
    return UnifiedLog.load(str(path), LogConfig(**config), now, emit=events)
