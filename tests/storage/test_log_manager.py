import os
import random

import pytest

from _storage_helpers import NOW, Events, client_batch
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_manager import LogManager
from minikafka.common.timing import KAFKA

ORDERS_0, ORDERS_1 = TopicPartition("orders", 0), TopicPartition("orders", 1)


def _manager(path, events=None, **config):
    manager = LogManager(str(path), LogConfig(**config), timing=KAFKA, rng=random.Random(7), emit=events)
    manager.startup(NOW)
    return manager


def _produce(manager, tp, batches=3, now=NOW):
    log = manager.get_or_create_log(tp, now)
    for _ in range(batches):
        log.append_as_leader(client_batch(count=2), 0, now)
    log.update_high_watermark(log.log_end_offset)
    return log


def test_a_fresh_log_dir(tmp_path):
    manager = _manager(tmp_path)
    assert sorted(os.listdir(tmp_path)) == [".lock", "log-start-offset-checkpoint",
                                            "recovery-point-offset-checkpoint", "replication-offset-checkpoint"]
    log = manager.get_or_create_log(ORDERS_0, NOW, topic_id=Uuid.from_string("gBtArbO9TfGFgNZiqwXJ3A"))
    assert sorted(os.listdir(log.dir_path)) == ["00000000000000000000.index", "00000000000000000000.log",
                                                "00000000000000000000.timeindex", "leader-epoch-checkpoint",
                                                "partition.metadata"]
    assert manager.get_or_create_log(ORDERS_0, NOW) is log


def test_clean_shutdown_writes_checkpoints_then_the_marker(tmp_path):
    manager = _manager(tmp_path)
    _produce(manager, ORDERS_0)
    _produce(manager, ORDERS_1, batches=1)
    manager.shutdown(broker_epoch=12)
    assert (tmp_path / ".kafka_cleanshutdown").read_text() == '{"version":0,"brokerEpoch":12}'
    assert (tmp_path / "recovery-point-offset-checkpoint").read_text() == "0\n2\norders 0 6\norders 1 2\n"
    assert (tmp_path / "replication-offset-checkpoint").read_text() == "0\n2\norders 0 6\norders 1 2\n"
    assert (tmp_path / "log-start-offset-checkpoint").read_text() == "0\n0\n"
    events = Events()
    again = _manager(tmp_path, events)
    assert again.had_clean_shutdown and not (tmp_path / ".kafka_cleanshutdown").exists()
    assert again.get_log(ORDERS_0).log_end_offset == 6 and again.get_log(ORDERS_0).high_watermark == 6
    assert events.kinds() == []


def test_restart_after_a_crash_recovers(tmp_path):
    manager = _manager(tmp_path)
    _produce(manager, ORDERS_0)
    manager.crash()
    events = Events()
    again = _manager(tmp_path, events)
    assert not again.had_clean_shutdown and again.get_log(ORDERS_0).log_end_offset == 6
    assert events.texts("recovery")[0].startswith("Recovering 1 logs from ")


def test_the_lock_keeps_a_second_instance_out(tmp_path):
    manager = _manager(tmp_path)
    with pytest.raises(KafkaException, match="^Failed to acquire lock on file .lock in .* A Kafka instance in another "
                                             "process or thread is using this directory.$"):
        _manager(tmp_path)
    manager.shutdown()
    _manager(tmp_path)


def test_periodic_work_runs_only_when_due(tmp_path):
    manager = _manager(tmp_path, segment_bytes=200, retention_bytes=1)
    log = _produce(manager, ORDERS_0, batches=4)
    assert manager.next_deadline() == NOW + 30000          # log.initial.task.delay.ms
    manager.maintenance(NOW + 29999)
    assert (tmp_path / "recovery-point-offset-checkpoint").read_text() == ""
    manager.maintenance(NOW + 30000)
    assert (tmp_path / "recovery-point-offset-checkpoint").read_text() == "0\n1\norders 0 6\n"
    assert log.log_start_offset == 6                        # retention.bytes=1: all but the empty active segment
    # the log now starts where its first segment does, so there is nothing to remember
    assert (tmp_path / "log-start-offset-checkpoint").read_text() == "0\n0\n"
    assert manager.next_deadline() == NOW + 35000           # replica.high.watermark.checkpoint.interval.ms
    manager.maintenance(NOW + 89999)
    assert [n for n in os.listdir(log.dir_path) if n.endswith(".deleted")]
    manager.maintenance(NOW + 90000)                        # file.delete.delay.ms after the deletion
    assert not [n for n in os.listdir(log.dir_path) if n.endswith(".deleted")]


def test_deleted_partitions_are_renamed_then_removed(tmp_path):
    manager = _manager(tmp_path)
    _produce(manager, ORDERS_0)
    manager.async_delete(ORDERS_0, NOW)
    (renamed,) = [n for n in os.listdir(tmp_path) if n.endswith("-delete")]
    assert renamed.startswith("orders-0.") and len(renamed) == len("orders-0.") + 32 + len("-delete")
    assert manager.get_log(ORDERS_0) is None
    manager.maintenance(NOW + 59999)
    assert os.path.isdir(tmp_path / renamed)
    manager.maintenance(NOW + 60000)
    assert not os.path.exists(tmp_path / renamed)


def test_an_interrupted_deletion_is_finished_after_restart(tmp_path):
    manager = _manager(tmp_path)
    _produce(manager, ORDERS_0)
    manager.async_delete(ORDERS_0, NOW)
    manager.crash()
    again = _manager(tmp_path)
    assert again.get_log(ORDERS_0) is None
    again.maintenance(NOW + 60000)
    assert not [n for n in os.listdir(tmp_path) if n.endswith("-delete")]


def test_the_metadata_log_is_not_loaded(tmp_path):
    os.makedirs(tmp_path / "__cluster_metadata-0")
    manager = _manager(tmp_path)
    assert manager.all_logs() == []


def test_about_one_file_descriptor_per_partition(tmp_path):
    before = len(os.listdir("/proc/self/fd"))
    manager = _manager(tmp_path, segment_bytes=300)
    for p in range(40):
        log = _produce(manager, TopicPartition("wide", p), batches=4)     # several segments each
        log.read(0, 10 ** 6)
    opened = len(os.listdir("/proc/self/fd")) - before
    assert opened <= 40 + 2                    # the active .log of each partition, plus .lock
    manager.shutdown()
    assert len(os.listdir("/proc/self/fd")) - before <= 0
