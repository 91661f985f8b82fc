import os
import random

import pytest
from kafka.record.memory_records import MemoryRecordsBuilder

from _storage_helpers import NOW, Events, client_batch, offsets_of, open_log, records_of, stored_batch
from minikafka.common.errors import (CorruptRecordException, InconsistentTopicIdException, InvalidRecordException,
                                     OffsetOutOfRangeException, OutOfOrderSequenceException,
                                     RecordBatchTooLargeException, RecordTooLargeException)
from minikafka.common.uuid import Uuid
from minikafka.record.record_batch import RecordBatch, iter_batches
from minikafka.record.memory_records import ControlRecordType, build_control_batch, end_txn_marker_value
from minikafka.storage.file_records import TimestampAndOffset
from minikafka.storage.producer_append_info import AppendOrigin
from minikafka.storage.log_config import LogConfig
from minikafka.storage.unified_log import UnexpectedAppendOffsetException, UnifiedLog


def test_leader_appends_assign_offsets_and_stamp_the_epoch(tmp_path):
    log = open_log(tmp_path / "orders-0")
    log.maybe_assign_epoch_start_offset(3, 0)
    first = log.append_as_leader(client_batch(count=3), leader_epoch=3, now=NOW)
    second = log.append_as_leader(client_batch(count=2), leader_epoch=3, now=NOW)
    assert (first.first_offset, first.last_offset, second.first_offset, second.last_offset) == (0, 2, 3, 4)
    assert second.max_timestamp == NOW + 1 and second.log_append_time == -1
    assert log.log_end_offset == 5 and log.latest_epoch() == 3
    data = log.read(0, 10 ** 6).records
    assert offsets_of(data) == [0, 1, 2, 3, 4]
    assert [b.partition_leader_epoch for b in iter_batches(data)] == [3, 3]


def test_reads_outside_the_log_are_out_of_range_in_kafkas_words(tmp_path):
    log = open_log(tmp_path / "orders-0")
    log.append_as_leader(client_batch(count=3), 0, NOW)
    with pytest.raises(OffsetOutOfRangeException, match="^Received request for offset 4 for partition orders-0, but "
                                                        "we only have log segments upto 3.$"):
        log.read(4, 100)
    assert log.read(3, 100).records == b""
    log.update_high_watermark(3)
    log.maybe_increment_log_start_offset(2)
    with pytest.raises(OffsetOutOfRangeException, match="^Received request for offset 1 for partition orders-0, but "
                                                        "we only have log segments starting from offset: 2.$"):
        log.read(1, 100)


def test_consumers_read_only_below_the_high_watermark(tmp_path):
    log = open_log(tmp_path / "orders-0")
    for _ in range(3):
        log.append_as_leader(client_batch(count=2), 0, NOW)
    assert log.read(0, 10 ** 6, "high_watermark").records == b""
    assert log.maybe_increment_high_watermark(4) == 0
    assert offsets_of(log.read(0, 10 ** 6, "high_watermark").records) == [0, 1, 2, 3]
    assert log.maybe_increment_high_watermark(2) is None and log.high_watermark == 4   # never backwards
    assert log.read(4, 100, "high_watermark").records == b""
    with pytest.raises(ValueError, match="exceeds current log end offset"):
        log.maybe_increment_high_watermark(7)


def test_corrupt_oversized_and_misnumbered_batches_are_refused(tmp_path):
    log = open_log(tmp_path / "orders-0", max_message_bytes=500)
    data = bytearray(client_batch())
    data[-1] ^= 1
    crc = RecordBatch.parse(data).crc
    with pytest.raises(CorruptRecordException, match=f"^Record is corrupt \\(stored crc = {crc}\\) in topic "
                                                     f"partition orders-0.$"):
        log.append_as_leader(bytes(data), 0, NOW)
    big = client_batch(count=1, value_size=600)
    with pytest.raises(RecordTooLargeException, match=f"^The record batch size in the append to orders-0 is "
                                                      f"{len(big)} bytes which exceeds the maximum configured value "
                                                      f"of 500\\).$"):
        log.append_as_leader(big, 0, NOW)
    with pytest.raises(InvalidRecordException, match="^The baseOffset of the record batch in the append to orders-0 "
                                                     "should be 0, but it is 10$"):
        log.append_as_leader(stored_batch(10, value_size=5), 0, NOW)
    assert log.log_end_offset == 0 and os.path.getsize(log.active_segment.log.path) == 0


def test_batches_larger_than_a_segment_are_refused(tmp_path):
    log = open_log(tmp_path / "orders-0", segment_bytes=300)
    with pytest.raises(RecordBatchTooLargeException, match="^Message batch size is \\d+ bytes in append to partition "
                                                           "orders-0, which exceeds the maximum configured segment "
                                                           "size of 300.$"):
        log.append_as_leader(client_batch(count=5, value_size=100), 0, NOW)


def test_roll_on_size_takes_a_producer_snapshot(tmp_path):
    events = Events()
    log = open_log(tmp_path / "orders-0", events=events, segment_bytes=1000)
    for _ in range(5):
        log.append_as_leader(client_batch(count=2, value_size=150), 0, NOW)
    assert [s["base_offset"] for s in log.describe_segments()] == [0, 4, 8]
    assert events.texts("segment_rolled") == ["orders-0: rolled new log segment at offset 4",
                                              "orders-0: rolled new log segment at offset 8"]
    assert {"00000000000000000004.snapshot", "00000000000000000008.snapshot"} <= set(os.listdir(log.dir_path))
    assert log.recovery_point == 8                         # rolling flushes the old segments
    assert os.path.getsize(log.log_segments()[0].offset_index_path) == 0       # trimmed on roll
    assert os.path.getsize(log.active_segment.offset_index_path) == 10485760   # active: preallocated


def test_roll_on_time_uses_record_timestamps(tmp_path):
    log = open_log(tmp_path / "orders-0", segment_ms=60000)
    log.append_as_leader(client_batch(count=1, timestamp=NOW), 0, NOW)
    log.append_as_leader(client_batch(count=1, timestamp=NOW + 60000), 0, NOW + 10 ** 6)
    assert log.number_of_segments == 1
    log.append_as_leader(client_batch(count=1, timestamp=NOW + 60001), 0, NOW)
    assert [s["base_offset"] for s in log.describe_segments()] == [0, 2]


def test_retention_by_bytes_deletes_whole_segments_below_the_high_watermark(tmp_path):
    events = Events()
    log = open_log(tmp_path / "orders-0", events=events, segment_bytes=1000, retention_bytes=1500,
                   file_delete_delay_ms=1000)
    for _ in range(6):
        log.append_as_leader(client_batch(count=2, value_size=150), 0, NOW)
    sizes = [s["size"] for s in log.describe_segments()]
    assert len(sizes) == 3
    assert log.delete_old_segments(NOW) == 0               # high watermark still 0
    log.update_high_watermark(log.log_end_offset)
    assert log.delete_old_segments(NOW) == 1               # 3 x 780 bytes: only the first can go and leave >= 1500
    assert log.log_start_offset == 4 and [s["base_offset"] for s in log.describe_segments()] == [4, 8]
    assert "00000000000000000000.log.deleted" in os.listdir(log.dir_path)
    assert "retention size 1500 breach" in events.texts("segments_deleted")[0]
    log.maintenance(NOW + 999)
    assert "00000000000000000000.log.deleted" in os.listdir(log.dir_path)
    log.maintenance(NOW + 1000)
    assert not [n for n in os.listdir(log.dir_path) if n.endswith(".deleted")]


def test_retention_by_time_and_the_active_segment(tmp_path):
    log = open_log(tmp_path / "orders-0", segment_bytes=1000, retention_ms=1000)
    for i in range(3):
        log.append_as_leader(client_batch(count=2, value_size=150, timestamp=NOW + i), 0, NOW)
    log.update_high_watermark(4)                           # the active segment holds 4..5, not yet replicated
    assert log.delete_old_segments(NOW + 1002) == 0        # segment 0's largest timestamp is NOW+2: not yet
    assert log.delete_old_segments(NOW + 1003) == 1        # now it is more than retention.ms old
    assert log.delete_old_segments(NOW + 10 ** 6) == 0     # segment 4 is the active one and above the HW
    log.update_high_watermark(log.log_end_offset)
    assert log.delete_old_segments(NOW + 10 ** 6) == 1     # now it goes; an empty segment replaces it
    assert [s["base_offset"] for s in log.describe_segments()] == [6] and log.log_start_offset == 6
    assert log.read(6, 100).records == b""


def test_delete_records_moves_the_log_start_offset(tmp_path):
    log = open_log(tmp_path / "orders-0")
    log.append_as_leader(client_batch(count=5), 0, NOW)
    with pytest.raises(OffsetOutOfRangeException, match="^Cannot increment the log start offset to 3 of partition "
                                                        "orders-0 since it is larger than the high watermark 0$"):
        log.maybe_increment_log_start_offset(3)
    log.update_high_watermark(5)
    assert log.maybe_increment_log_start_offset(3)
    assert offsets_of(log.read(3, 10 ** 6).records) == [0, 1, 2, 3, 4]     # whole batch from its start
    assert log.fetch_offset_by_timestamp(-2).offset == 3


def test_idempotent_retry_returns_the_original_offsets(tmp_path):
    log = open_log(tmp_path / "orders-0")
    batch = client_batch(count=3, producer=(1000, 0, 0))
    first = log.append_as_leader(batch, 0, NOW)
    log.append_as_leader(client_batch(count=1, producer=(1000, 0, 3)), 0, NOW)
    retry = log.append_as_leader(batch, 0, NOW + 5)
    assert retry.duplicate and (retry.first_offset, retry.last_offset) == (first.first_offset, first.last_offset)
    assert log.log_end_offset == 4
    with pytest.raises(OutOfOrderSequenceException, match="^Out of order sequence number for producer 1000 at "
                                                          "offset 4 in partition orders-0: 9 \\(incoming seq. "
                                                          "number\\), 3 \\(current end sequence number\\)$"):
        log.append_as_leader(client_batch(count=1, producer=(1000, 0, 9)), 0, NOW)


def test_follower_appends_keep_the_leaders_bytes(tmp_path):
    leader = open_log(tmp_path / "orders-0")
    follower = open_log(tmp_path / "f" / "orders-0")
    leader.maybe_assign_epoch_start_offset(2, 0)
    for _ in range(3):
        leader.append_as_leader(client_batch(count=2), 2, NOW)
    fetched = leader.read(0, 10 ** 6).records
    info = follower.append_as_follower(fetched, NOW)
    assert (info.first_offset, info.last_offset) == (0, 5) and follower.read(0, 10 ** 6).records == fetched
    assert follower.leader_epoch_cache.epoch_entries() == leader.leader_epoch_cache.epoch_entries()
    with pytest.raises(UnexpectedAppendOffsetException, match="^Unexpected offset in append to orders-0. First offset "
                                                              "0 is less than the next offset 6."):
        follower.append_as_follower(fetched, NOW)


def test_follower_skips_batches_from_a_newer_epoch(tmp_path):
    follower = open_log(tmp_path / "orders-0")
    data = stored_batch(0, 2, epoch=1) + stored_batch(2, 2, epoch=2)
    info = follower.append_as_follower(data, NOW, leader_epoch=1)
    assert follower.log_end_offset == 2 and info.num_batches == 1


def test_truncation_to_the_divergence_point(tmp_path):
    events = Events()
    follower = open_log(tmp_path / "orders-0", events=events, segment_bytes=700)
    for i in range(6):
        follower.append_as_follower(stored_batch(i * 3, 3, epoch=0 if i < 4 else 1), NOW)
    follower.update_high_watermark(9)
    assert follower.end_offset_for_epoch(0) == (0, 12)
    # the new leader (epoch 2) never had epoch 1: it answers epoch 0 ends at 12
    assert follower.truncate_to(12, NOW)
    assert follower.log_end_offset == 12 and follower.latest_epoch() == 0
    assert follower.end_offset_for_epoch(1) == (-1, -1)
    assert follower.high_watermark == 9
    assert events.texts("log_truncated") == ["orders-0: truncated log from log end offset 18 to offset 12"]
    assert not follower.truncate_to(20, NOW)
    follower.truncate_to(4, NOW)                    # below the HW: allowed (unclean leader election)
    assert follower.log_end_offset == 4 and follower.high_watermark == 4


def test_truncate_fully_and_start_elsewhere(tmp_path):
    log = open_log(tmp_path / "orders-0")
    log.append_as_leader(client_batch(count=3), 0, NOW)
    log.truncate_fully_and_start_at(500, NOW)
    assert (log.log_start_offset, log.log_end_offset, log.high_watermark) == (500, 500, 500)
    assert [s["base_offset"] for s in log.describe_segments()] == [500]
    assert log.append_as_follower(stored_batch(500, 2), NOW).last_offset == 501


def test_list_offsets_special_timestamps(tmp_path):
    log = open_log(tmp_path / "orders-0")
    log.maybe_assign_epoch_start_offset(4, 0)
    log.append_as_leader(client_batch(count=3, timestamp=NOW), 4, NOW)
    log.append_as_leader(client_batch(count=3, timestamp=NOW - 100), 4, NOW)
    assert log.fetch_offset_by_timestamp(-2) == TimestampAndOffset(-1, 0, 4)
    latest = log.fetch_offset_by_timestamp(-1)
    assert (latest.offset, latest.leader_epoch) == (6, 4)
    biggest = log.fetch_offset_by_timestamp(-3)
    assert (biggest.timestamp, biggest.offset) == (NOW + 2, 2)
    assert log.fetch_offset_by_timestamp(NOW - 99).offset == 0       # first record at or after, in log order
    assert log.fetch_offset_by_timestamp(NOW + 3) is None


def test_topic_id_goes_to_partition_metadata(tmp_path):
    topic_id = Uuid.from_string("gBtArbO9TfGFgNZiqwXJ3A")
    log = open_log(tmp_path / "orders-0")
    log.assign_topic_id(topic_id)
    log.close()
    assert (tmp_path / "orders-0" / "partition.metadata").read_text() == "version: 0\ntopic_id: gBtArbO9TfGFgNZiqwXJ3A"
    with pytest.raises(InconsistentTopicIdException, match="but log already contained topic ID gBtArbO9TfGFgNZiqwXJ3A"):
        UnifiedLog.load(str(tmp_path / "orders-0"), LogConfig(), NOW, topic_id=Uuid(1, 2))


def test_log_append_time_topics_report_the_append_time(tmp_path):
    log = open_log(tmp_path / "orders-0", message_timestamp_type="LogAppendTime")
    info = log.append_as_leader(client_batch(count=2), 0, NOW + 777)
    assert info.log_append_time == NOW + 777 and info.max_timestamp == NOW + 777
    assert [r.timestamp for r in records_of(log.read(0, 10 ** 6).records)] == \
        [NOW + 777] * 2


def test_a_transaction_is_closed_by_its_commit_marker(tmp_path):
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=10 ** 6)
    builder.set_producer_state(77, 0, 0, True)
    builder.append(timestamp=NOW, key=b"k", value=b"v")
    builder.close()
    log = open_log(tmp_path / "orders-0")
    log.append_as_leader(bytes(builder.buffer()), 0, NOW)
    assert log.producer_state_manager.ongoing_txns == {0: 77}
    marker = build_control_batch(ControlRecordType.COMMIT, end_txn_marker_value(0), timestamp=NOW, producer_id=77,
                                 producer_epoch=0, is_transactional=True)
    info = log.append_as_leader(marker, 0, NOW, origin=AppendOrigin.COORDINATOR)
    assert info.first_offset == 1 and log.producer_state_manager.ongoing_txns == {}
    with pytest.raises(InvalidRecordException, match="Clients are not allowed to write control records"):
        log.append_as_leader(marker, 0, NOW)


def _read_all(log):
    """Every record from the batch holding the log start offset on.

    One read never crosses a segment boundary (as in Kafka), so this loops.
    """
    records, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        batch = records_of(log.read(offset, 10 ** 7).records)
        records += [r for r in batch if not records or r.offset >= offset]
        offset = batch[-1].offset + 1
    return records


@pytest.mark.parametrize("seed", range(8))
def test_seeded_history_keeps_the_log_invariants(tmp_path, seed):
    """Random appends, high watermark moves, retention, truncation, crashes; invariants after every step.

    The high watermark and truncation points are batch boundaries, as they are in
    Kafka (replicas copy whole batches).
    """
    rng = random.Random(seed)
    config = dict(segment_bytes=600, retention_bytes=1500)
    log, now, written, boundaries = open_log(tmp_path / "orders-0", **config), NOW, {}, {0}
    for _ in range(60):
        now += rng.randrange(1, 5000)
        action = rng.random()
        candidates = sorted(b for b in boundaries if log.high_watermark <= b <= log.log_end_offset)
        if action < 0.55:
            info = log.append_as_leader(client_batch(count=rng.randrange(1, 4), value_size=rng.randrange(1, 120),
                                                     codec=rng.choice([0, 0, 1, 4])), 0, now)
            boundaries.add(info.last_offset + 1)
            for record in records_of(log.read(info.first_offset, 10 ** 6).records):
                written[record.offset] = record.value
        elif action < 0.7:
            log.maybe_increment_high_watermark(rng.choice(candidates))
        elif action < 0.8:
            log.delete_old_segments(now)
        elif action < 0.85:
            log.truncate_to(rng.choice(candidates), now)
        elif action < 0.92:
            start, hw = log.log_start_offset, log.high_watermark
            log.flush()
            log.close()
            log = UnifiedLog.load(str(tmp_path / "orders-0"), LogConfig(**config), now, log_start_offset=start,
                                  recovery_point=log.log_end_offset)
            log.update_high_watermark(hw)
        else:
            recovery_point, start = log.recovery_point, log.log_start_offset
            log.close_handlers()
            log = UnifiedLog.load(str(tmp_path / "orders-0"), LogConfig(**config), now, log_start_offset=start,
                                  recovery_point=recovery_point, had_clean_shutdown=False)
            log.update_high_watermark(log.log_end_offset)
        boundaries = {b for b in boundaries if b <= log.log_end_offset}   # offsets past a cut get reused
        assert log.log_start_offset <= log.high_watermark <= log.log_end_offset
        assert log.recovery_point <= log.log_end_offset
        if log.log_end_offset > log.log_start_offset:
            records = _read_all(log)
            offsets = [r.offset for r in records]
            assert offsets == list(range(offsets[0], log.log_end_offset)) and offsets[0] <= log.log_start_offset
            assert all(written[r.offset] == r.value for r in records)
