import os

import pytest

from _storage_helpers import NOW, offsets_of, stored_batch
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.record_batch import iter_batches
from minikafka.storage.fetch_data_info import LogOffsetMetadata
from minikafka.storage.local_log import LocalLog
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_segment import LogSegment
from minikafka.storage.log_segments import LogSegments


def _local_log(tmp_path, **config):
    config = LogConfig(**config)
    segments = LogSegments()
    segments.add(LogSegment.open(str(tmp_path), 0, config, NOW))
    return LocalLog(str(tmp_path), config, segments, 0, LogOffsetMetadata(0, 0, 0), TopicPartition("t", 0))


def _append(log, base, count=2):
    data = stored_batch(base, count)
    log.append(base + count - 1, data, list(iter_batches(data)), NOW)


def test_reads_cross_segments_and_stop_at_the_bound(tmp_path):
    log = _local_log(tmp_path)
    _append(log, 0)
    log.roll(None, NOW)
    _append(log, 2)
    everything = log.next_offset_metadata
    assert offsets_of(log.read(1, 10 ** 6, False, everything).records) == [0, 1]   # stops at the segment end
    assert offsets_of(log.read(2, 10 ** 6, False, everything).records) == [2, 3]
    bound = log.convert_to_offset_metadata_or_throw(2)
    assert bound == LogOffsetMetadata(2, 2, 0)
    assert log.read(2, 10 ** 6, False, bound).records == b""


def test_deleted_segments_are_renamed_then_removed_after_the_delay(tmp_path):
    log = _local_log(tmp_path, file_delete_delay_ms=100)
    _append(log, 0)
    log.roll(None, NOW)
    log.remove_and_delete_segments([log.segments.first_segment()], True, NOW)
    assert "00000000000000000000.log.deleted" in os.listdir(tmp_path)
    assert log.delete_expired_files(NOW + 99) == 0
    assert log.delete_expired_files(NOW + 100) == 1
    assert not any(name.startswith("00000000000000000000") for name in os.listdir(tmp_path))


def test_rolling_below_the_active_segment_is_an_error(tmp_path):
    config = LogConfig()
    segments = LogSegments()
    segments.add(LogSegment.open(str(tmp_path), 10, config, NOW))
    log = LocalLog(str(tmp_path), config, segments, 0, LogOffsetMetadata(5, 10, 0), TopicPartition("t", 0))
    with pytest.raises(KafkaException, match="lower than start offset of the active segment"):
        log.roll(None, NOW)


def test_an_empty_active_segment_is_replaced_when_rolled_at_its_own_offset(tmp_path):
    log = _local_log(tmp_path)
    new = log.roll(0, NOW)
    assert new.base_offset == 0 and log.segments.number_of_segments == 1
    assert "00000000000000000000.log.deleted" in os.listdir(tmp_path)
