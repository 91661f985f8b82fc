"""Helpers for the storage tests: stored batches, logs on disk, and what they hold."""

from tests.client_batches import NOW, client_batch  # noqa: F401 (re-exported to the storage tests)


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
