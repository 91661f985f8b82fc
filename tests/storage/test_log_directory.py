"""The storage seam: the same files on disk and in memory, and what a crash or a power loss keeps."""

import os
import random

import pytest

from _storage_helpers import NOW, Events, client_batch
from minikafka.common.errors import KafkaException
from minikafka.common.timing import KAFKA
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FileSystemLogDirectory, InMemoryLogDirectory
from minikafka.storage.log_manager import LogManager
from minikafka.storage.meta_properties import MetaProperties

ORDERS_0, ORDERS_1 = TopicPartition("orders", 0), TopicPartition("orders", 1)
TOPIC_ID = Uuid.from_string("gBtArbO9TfGFgNZiqwXJ3A")
MEMORY_ROOT = "/nonexistent-minikafka-root/data"    # any stray disk access under it would fail


def _manager(directory, log_dir, events=None, **config):
    manager = LogManager(log_dir, LogConfig(**config), timing=KAFKA, rng=random.Random(7), emit=events,
                         directory=directory)
    manager.startup(NOW)
    return manager


def _produce(manager, tp, batches=3, now=NOW):
    log = manager.get_or_create_log(tp, now, topic_id=TOPIC_ID)
    for _ in range(batches):
        log.append_as_leader(client_batch(count=2), 0, now)
    log.update_high_watermark(log.log_end_offset)
    return log


def _files(directory, root):
    """Relative path -> bytes of every file under ``root`` (but the .lock file)."""
    found = {}
    for name in directory.list_dir(root):
        path = os.path.join(root, name)
        if directory.is_dir(path):
            found.update({os.path.join(name, k): v for k, v in _files(directory, path).items()})
        elif name != ".lock":
            found[name] = directory.read_bytes(path)
    return found


def _workload(directory, log_dir):
    directory.make_dirs(log_dir)                                # kafka-storage format
    MetaProperties(1, "MkU3OEVBNTcwNTJENDM2Qg", 1, TOPIC_ID).write(log_dir, NOW, directory)
    manager = _manager(directory, log_dir, segment_bytes=1024)
    log = _produce(manager, ORDERS_0, batches=12)                # several segments, both indexes
    log.maybe_assign_epoch_start_offset(3, log.log_end_offset)
    _produce(manager, ORDERS_1, batches=1)
    manager.checkpoint_high_watermarks()
    manager.shutdown(broker_epoch=12)


@pytest.fixture(params=["file system", "memory"])
def store(request, tmp_path):
    """(directory, log dir) on both implementations."""
    if request.param == "file system":
        return FileSystemLogDirectory(), str(tmp_path)
    return InMemoryLogDirectory(clock_ms=lambda: NOW), MEMORY_ROOT


def test_the_same_appends_give_the_same_bytes_on_disk_and_in_memory(tmp_path):
    disk, memory = FileSystemLogDirectory(), InMemoryLogDirectory()
    _workload(disk, str(tmp_path))
    _workload(memory, MEMORY_ROOT)
    on_disk, in_memory = _files(disk, str(tmp_path)), _files(memory, MEMORY_ROOT)
    assert sorted(on_disk) == sorted(in_memory)
    assert {"meta.properties", ".kafka_cleanshutdown", "recovery-point-offset-checkpoint",
            "orders-0/00000000000000000000.log", "orders-0/00000000000000000000.index",
            "orders-0/00000000000000000000.timeindex", "orders-0/leader-epoch-checkpoint",
            "orders-0/partition.metadata"} <= set(on_disk)
    assert sum(name.endswith(".log") for name in on_disk) > 2                 # segments rolled
    assert any(name.endswith(".snapshot") for name in on_disk)                # producer snapshots
    assert on_disk == in_memory


def test_a_fresh_log_dir_on_both(store):
    directory, log_dir = store
    manager = _manager(directory, log_dir)
    assert sorted(directory.list_dir(log_dir)) == [".lock", "log-start-offset-checkpoint",
                                                   "recovery-point-offset-checkpoint", "replication-offset-checkpoint"]
    log = manager.get_or_create_log(ORDERS_0, NOW, topic_id=TOPIC_ID)
    assert sorted(directory.list_dir(log.dir_path)) == [
        "00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
        "leader-epoch-checkpoint", "partition.metadata"]
    assert directory.size(os.path.join(log.dir_path, "00000000000000000000.index")) == 10485760   # preallocated


def test_clean_shutdown_and_restart_on_both(store):
    directory, log_dir = store
    manager = _manager(directory, log_dir)
    _produce(manager, ORDERS_0)
    _produce(manager, ORDERS_1, batches=1)
    manager.shutdown(broker_epoch=12)
    assert directory.read_bytes(os.path.join(log_dir, ".kafka_cleanshutdown")) == b'{"version":0,"brokerEpoch":12}'
    assert directory.read_bytes(os.path.join(log_dir, "recovery-point-offset-checkpoint")) == \
        b"0\n2\norders 0 6\norders 1 2\n"
    events = Events()
    again = _manager(directory, log_dir, events)
    assert again.had_clean_shutdown and again.get_log(ORDERS_0).log_end_offset == 6
    assert events.kinds() == []


def test_restart_after_a_crash_recovers_on_both(store):
    directory, log_dir = store
    manager = _manager(directory, log_dir)
    _produce(manager, ORDERS_0)
    manager.crash()
    events = Events()
    again = _manager(directory, log_dir, events)
    assert not again.had_clean_shutdown and again.get_log(ORDERS_0).log_end_offset == 6
    assert events.texts("recovery")[0].startswith("Recovering 1 logs from ")


def test_the_lock_keeps_a_second_instance_out_on_both(store):
    directory, log_dir = store
    manager = _manager(directory, log_dir)
    with pytest.raises(KafkaException, match="^Failed to acquire lock on file .lock"):
        _manager(directory, log_dir)
    manager.shutdown()
    _manager(directory, log_dir)


def test_deleted_partitions_are_renamed_then_removed_on_both(store):
    directory, log_dir = store
    manager = _manager(directory, log_dir)
    _produce(manager, ORDERS_0)
    deleted = manager.async_delete(ORDERS_0, NOW)
    assert deleted.dir_path.endswith("-delete") and directory.is_dir(deleted.dir_path)
    assert not directory.exists(os.path.join(log_dir, "orders-0"))
    manager.maintenance(NOW + 10 * 60_000)
    assert not directory.exists(deleted.dir_path)


# ---------------------------------------------------------------------- crash versus power loss
def test_a_process_crash_keeps_every_written_byte():
    directory = InMemoryLogDirectory(clock_ms=lambda: NOW)
    manager = _manager(directory, MEMORY_ROOT)
    _produce(manager, ORDERS_0)                  # acknowledged, never flushed (flush.messages: never)
    manager.crash()
    directory.crash_process()
    again = _manager(directory, MEMORY_ROOT)
    assert again.get_log(ORDERS_0).log_end_offset == 6


def test_a_power_loss_drops_what_was_not_flushed():
    directory = InMemoryLogDirectory(clock_ms=lambda: NOW)
    manager = _manager(directory, MEMORY_ROOT)
    _produce(manager, ORDERS_0)
    assert directory.unflushed_bytes() > 0
    manager.crash()
    directory.lose_power()
    assert directory.unflushed_bytes() == 0
    events = Events()
    again = _manager(directory, MEMORY_ROOT, events)
    log = again.get_log(ORDERS_0)
    assert log.log_end_offset == 0 and log.topic_id == TOPIC_ID      # partition.metadata was flushed
    assert not again.had_clean_shutdown


def test_flushed_data_survives_a_power_loss():
    directory = InMemoryLogDirectory(clock_ms=lambda: NOW)
    manager = _manager(directory, MEMORY_ROOT)
    log = _produce(manager, ORDERS_0)
    log.flush()                                  # fsync up to the log end offset
    log.append_as_leader(client_batch(count=2), 0, NOW)   # written after the flush
    manager.crash()
    directory.lose_power()
    again = _manager(directory, MEMORY_ROOT)
    assert again.get_log(ORDERS_0).log_end_offset == 6


def test_flush_messages_one_makes_every_append_durable():
    directory = InMemoryLogDirectory(clock_ms=lambda: NOW)
    manager = _manager(directory, MEMORY_ROOT, flush_messages=1)
    _produce(manager, ORDERS_0)
    manager.crash()
    directory.lose_power()
    assert _manager(directory, MEMORY_ROOT).get_log(ORDERS_0).log_end_offset == 6


def test_a_rolled_segment_is_flushed():
    directory = InMemoryLogDirectory(clock_ms=lambda: NOW)
    manager = _manager(directory, MEMORY_ROOT, segment_bytes=1024)
    log = _produce(manager, ORDERS_0, batches=12)
    rolled_to = log.active_segment.base_offset
    assert rolled_to > 0
    manager.crash()
    directory.lose_power()
    assert _manager(directory, MEMORY_ROOT).get_log(ORDERS_0).log_end_offset == rolled_to


def test_the_file_system_never_touched_by_the_memory_directory(tmp_path):
    directory = InMemoryLogDirectory()
    manager = _manager(directory, str(tmp_path / "data"))
    _produce(manager, ORDERS_0)
    manager.shutdown()
    assert os.listdir(tmp_path) == []
