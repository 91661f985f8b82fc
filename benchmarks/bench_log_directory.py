"""The storage seam: the same storage workload on the file system and in memory.

Many small partitions as a simulated cluster has them: a `LogManager` creates
``PARTITIONS`` logs with small segments (so they roll and write producer
snapshots and checkpoints), appends small batches, checkpoints, shuts down
cleanly, starts again (loading every log) and reads every log back.  Run on a
`FileSystemLogDirectory` in a temporary directory and on an
`InMemoryLogDirectory`; reports the median of several runs of each and the
ratio.  No asserts.

    .venv/bin/python benchmarks/bench_log_directory.py
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time

from kafka.record.memory_records import MemoryRecordsBuilder

from minikafka.common.timing import KAFKA
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.record_batch import iter_batches
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FileSystemLogDirectory, InMemoryLogDirectory, LogDirectory
from minikafka.storage.log_manager import LogManager

NOW = 1767225600000
RUNS = 5
PARTITIONS = 30
BATCHES = 60


def client_batch(records: int = 5, record_bytes: int = 100) -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20)
    for i in range(records):
        builder.append(timestamp=NOW + i, key=b"key-%d" % i, value=b"v" * record_bytes)
    builder.close()
    return bytes(builder.buffer())


def workload(directory: LogDirectory, log_dir: str, batch: bytes) -> None:
    config = LogConfig(segment_bytes=16 * 1024)
    manager = LogManager(log_dir, config, timing=KAFKA, rng=random.Random(1), directory=directory)
    manager.startup(NOW)
    for p in range(PARTITIONS):
        log = manager.get_or_create_log(TopicPartition("bench", p), NOW)
        for _ in range(BATCHES):
            log.append_as_leader(batch, 0, NOW)
        log.update_high_watermark(log.log_end_offset)
    manager.checkpoint_high_watermarks()
    manager.shutdown(broker_epoch=1)
    again = LogManager(log_dir, config, timing=KAFKA, rng=random.Random(1), directory=directory)
    again.startup(NOW)
    for log in again.all_logs():
        offset = log.log_start_offset
        while offset < log.log_end_offset:
            batches = list(iter_batches(log.read(offset, 1 << 20).records))
            offset = batches[-1].last_offset + 1
    again.shutdown(broker_epoch=2)


def one_run(memory: bool, batch: bytes) -> float:
    start = time.perf_counter()
    if memory:
        workload(InMemoryLogDirectory(clock_ms=lambda: NOW), "/simulated/node-1", batch)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            workload(FileSystemLogDirectory(), tmp, batch)
    return time.perf_counter() - start


def main() -> None:
    batch = client_batch()
    disk = statistics.median(one_run(False, batch) for _ in range(RUNS))
    memory = statistics.median(one_run(True, batch) for _ in range(RUNS))
    print(f"{PARTITIONS} partitions x {BATCHES} batches, roll, checkpoint, restart, read back (median of {RUNS})")
    print(f"  file system : {disk * 1000:8.1f} ms")
    print(f"  in memory   : {memory * 1000:8.1f} ms   ({disk / memory:.2f}x faster)")


if __name__ == "__main__":
    main()
