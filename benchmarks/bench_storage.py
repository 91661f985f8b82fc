"""Storage throughput: leader appends and reads on a real partition directory.

Appends uncompressed batches built by kafka-python (the bytes a producer
sends) to a fresh `UnifiedLog` in a temporary directory, then reads the whole
log back in 1 MB fetches.  Reports the median of several runs; no asserts.

    .venv/bin/python benchmarks/bench_storage.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from kafka.record.memory_records import MemoryRecordsBuilder

from minikafka.storage.log_config import LogConfig
from minikafka.storage.unified_log import UnifiedLog

NOW = 1767225600000
RUNS = 5


def client_batch(batch_bytes: int, record_bytes: int = 100) -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=batch_bytes)
    i = 0
    while builder.append(timestamp=NOW + i, key=b"key-%d" % i, value=b"v" * record_bytes) is not None:
        i += 1
    builder.close()
    return bytes(builder.buffer())


def one_run(batch: bytes, total_bytes: int) -> tuple[float, float, float]:
    """(append seconds, read seconds, bytes read)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = UnifiedLog.load(str(Path(tmp) / "bench-0"), LogConfig(segment_bytes=64 * 1024 * 1024), NOW)
        count = max(1, total_bytes // len(batch))
        start = time.perf_counter()
        for _ in range(count):
            log.append_as_leader(batch, 0, NOW)
        appended = time.perf_counter() - start
        log.update_high_watermark(log.log_end_offset)
        start, offset, read_bytes = time.perf_counter(), 0, 0
        while offset < log.log_end_offset:
            info = log.read(offset, 1024 * 1024, "high_watermark")
            read_bytes += len(info.records)
            offset = _next_offset(info.records)
        read = time.perf_counter() - start
        log.close()
        return appended, read, read_bytes / count * count


def _next_offset(records: bytes) -> int:
    from minikafka.record.record_batch import iter_batches
    last = None
    for last in iter_batches(records):
        pass
    return last.next_offset


def main() -> None:
    total = 32 * 1024 * 1024
    print(f"{'batch':>8} {'append MB/s':>12} {'batches/s':>11} {'read MB/s':>10}   (median of {RUNS} runs, "
          f"{total // 2**20} MB per run)")
    for batch_bytes in (1024, 16 * 1024):
        batch = client_batch(batch_bytes)
        count = total // len(batch)
        runs = [one_run(batch, total) for _ in range(RUNS)]
        append_s = statistics.median(r[0] for r in runs)
        read_s = statistics.median(r[1] for r in runs)
        mb = count * len(batch) / 2**20
        print(f"{len(batch):>7}B {mb / append_s:>12.1f} {count / append_s:>11.0f} {mb / read_s:>10.1f}")


if __name__ == "__main__":
    main()
