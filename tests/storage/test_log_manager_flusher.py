"""The LogManager's flusher (``log.flush.scheduler.interval.ms``): it flushes each log whose
``flush.ms`` has passed since its last flush, in the broker's own time."""

from __future__ import annotations

from dataclasses import replace

from minikafka.common.topic_partition import TopicPartition
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import InMemoryLogDirectory
from minikafka.storage.log_manager import LOG_INITIAL_TASK_DELAY_MS, LogManager

TP = TopicPartition("orders", 0)


def manager(flush_ms: int, flush_check_ms: int, directory: InMemoryLogDirectory) -> LogManager:
    found = LogManager("/brokers/broker-1", replace(LogConfig(), flush_ms=flush_ms), directory=directory,
                       flush_check_ms=flush_check_ms)
    found.startup(0)
    return found


def append(log, now: int) -> None:
    log.append_as_leader(build_batch([SimpleRecord(value=b"v", key=None, timestamp=now)]), 0, now)


def test_a_log_is_flushed_once_flush_ms_has_passed_at_a_flusher_run():
    disk = InMemoryLogDirectory()
    logs = manager(flush_ms=1_000, flush_check_ms=500, directory=disk)
    log = logs.get_or_create_log(TP, 0)
    append(log, 10)
    logs.maintenance(LOG_INITIAL_TASK_DELAY_MS)          # the first run: 30 s since the log was made
    assert log.recovery_point == 1 and log.last_flush_time == LOG_INITIAL_TASK_DELAY_MS
    append(log, LOG_INITIAL_TASK_DELAY_MS + 100)
    logs.maintenance(LOG_INITIAL_TASK_DELAY_MS + 500)     # 500 ms since the flush: not yet
    assert log.recovery_point == 1
    logs.maintenance(LOG_INITIAL_TASK_DELAY_MS + 1_000)   # 1000 ms: flushed
    assert log.recovery_point == 2 and disk.unflushed_bytes() < log.size_in_bytes
    assert logs.next_deadline() <= LOG_INITIAL_TASK_DELAY_MS + 1_500


def test_the_defaults_never_flush():
    logs = manager(flush_ms=LogConfig().flush_ms, flush_check_ms=2**63 - 1, directory=InMemoryLogDirectory())
    log = logs.get_or_create_log(TP, 0)
    append(log, 10)
    logs.maintenance(LOG_INITIAL_TASK_DELAY_MS)
    logs.maintenance(10 * LOG_INITIAL_TASK_DELAY_MS)
    assert log.recovery_point == 0
