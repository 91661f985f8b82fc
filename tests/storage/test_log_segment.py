import os

import pytest

from _storage_helpers import NOW, append_stored, offsets_of, stored_batch
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_segment import LogSegment, LogSegmentOffsetOverflowException, RollParams
from minikafka.storage.offset_index import OffsetPosition
from minikafka.storage.time_index import TimestampOffset


def _segment(tmp_path, base=0, **config):
    return LogSegment.open(str(tmp_path), base, LogConfig(**config), NOW)


def _fill(segment, batches=10, count=3, value_size=500, start=None, ts_step=10):
    offset = segment.base_offset if start is None else start
    for i in range(batches):
        append_stored(segment, stored_batch(offset, count, value_size, NOW + i * ts_step))
        offset += count
    return offset


def test_files_are_named_after_the_base_offset(tmp_path):
    segment = _segment(tmp_path, 1234)
    assert sorted(os.listdir(tmp_path)) == ["00000000000000001234.index", "00000000000000001234.log",
                                            "00000000000000001234.timeindex"]


def test_an_index_entry_after_each_index_interval(tmp_path):
    segment = _segment(tmp_path)
    end = _fill(segment, batches=10)                  # ~1.6 KB per batch
    entries = segment.offset_index.all_entries()
    batch_size = segment.size // 10
    # more than 4096 bytes (3 batches) precede batch 3, so it is indexed (by its last offset); the
    # indexed batch counts towards the next interval, so batches 6 and 9 follow
    assert entries == [OffsetPosition(11, 3 * batch_size), OffsetPosition(20, 6 * batch_size),
                       OffsetPosition(29, 9 * batch_size)]
    assert segment.read_next_offset() == end == 30


def test_read_returns_whole_batches_from_the_one_holding_the_offset(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=10)
    batch_size = segment.size // 10
    info = segment.read(7, 2 * batch_size + 10, max_position=segment.size)
    assert offsets_of(info.records) == list(range(6, 12))
    assert info.fetch_offset_metadata.relative_position_in_segment == 2 * batch_size
    assert segment.read(7, 10, segment.size).records == b""
    assert segment.read(7, 10, segment.size).first_entry_incomplete
    assert offsets_of(segment.read(7, 10, segment.size, min_one_message=True).records) == [6, 7, 8]
    assert segment.read(7, 10 ** 6, max_position=4 * batch_size).records == segment.log.read(2 * batch_size,
                                                                                             2 * batch_size)
    assert segment.read(30, 100, segment.size) is None


def test_roll_conditions(tmp_path):
    segment = _segment(tmp_path, segment_bytes=5000, segment_ms=1000)
    empty = RollParams(1000, 5000, NOW, 0, 100, NOW + 10 ** 9)
    assert not segment.should_roll(empty)          # an empty segment never rolls on time
    _fill(segment, batches=1)
    size = segment.size
    assert segment.should_roll(RollParams(1000, 5000, NOW, 3, 5001 - size, NOW))       # would exceed segment.bytes
    first = NOW + 2                                    # the first batch's maxTimestamp
    assert not segment.should_roll(RollParams(1000, 5000, first + 1000, 3, 100, NOW))  # exactly segment.ms: no
    assert segment.should_roll(RollParams(1000, 5000, first + 1001, 3, 100, NOW))      # batch time, not clock
    assert not segment.should_roll(RollParams(1000, 5000, NOW + 5, 3, 100, NOW + 10 ** 9))
    assert segment.should_roll(RollParams(1000, 5000, NOW, 2**31, 100, NOW))             # offset overflow


def test_time_based_roll_falls_back_to_the_clock_without_timestamps(tmp_path):
    segment = _segment(tmp_path)
    append_stored(segment, stored_batch(0, 1, timestamp=-1))
    assert segment.time_waited_for_roll(NOW + 500, -1) == 500


def test_recover_rebuilds_indexes_and_cuts_a_torn_tail(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=10)
    good_index = segment.offset_index.all_entries()
    good_size = segment.size
    with open(segment.log.path, "ab") as handle:
        handle.write(stored_batch(30)[:50])        # half-written batch after a crash
    reopened = LogSegment(str(tmp_path), 0, LogConfig(), NOW)
    assert reopened.recover() == 50
    assert reopened.size == good_size == os.path.getsize(reopened.log.path)
    assert reopened.offset_index.all_entries() == good_index
    assert reopened.time_index.last_entry() == TimestampOffset(NOW + 92, 29)


def test_recover_cuts_at_a_corrupt_batch_in_the_middle(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=10)
    batch_size = segment.size // 10
    with open(segment.log.path, "r+b") as handle:
        handle.seek(4 * batch_size + 200)
        byte = handle.read(1)
        handle.seek(4 * batch_size + 200)
        handle.write(bytes([byte[0] ^ 0x01]))
    reopened = LogSegment(str(tmp_path), 0, LogConfig(), NOW)
    assert reopened.recover() == 6 * batch_size
    assert reopened.read_next_offset() == 12


def test_truncate_to_an_offset(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=10)
    batch_size = segment.size // 10
    assert segment.truncate_to(13, NOW) == 6 * batch_size        # the batch holding 13 (12..14) goes too
    assert segment.read_next_offset() == 12 and segment.size == 4 * batch_size
    assert all(e.offset < 12 for e in segment.offset_index.all_entries())
    assert segment.max_timestamp_so_far == NOW + 32
    assert segment.truncate_to(100, NOW) == 0


def test_find_offset_by_timestamp(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=10, ts_step=10)      # batch i holds timestamps NOW+10i .. NOW+10i+2
    found = segment.find_offset_by_timestamp(NOW + 51, 0)
    assert (found.offset, found.timestamp, found.leader_epoch) == (16, NOW + 51, 0)
    assert segment.find_offset_by_timestamp(NOW + 53, 0).offset == 18
    assert segment.find_offset_by_timestamp(NOW + 51, 20).offset == 20
    assert segment.find_offset_by_timestamp(NOW + 1000, 0) is None


def test_close_leaves_trimmed_indexes_and_the_final_timestamp(tmp_path):
    segment = _segment(tmp_path)
    _fill(segment, batches=8)                   # indexed batches: 3 and 6; the last (7) is not
    assert segment.offset_index.entries == 2
    segment.close()
    assert os.path.getsize(segment.offset_index_path) == 16
    assert os.path.getsize(segment.time_index_path) == 36    # plus the segment's final largest timestamp
    reopened = LogSegment(str(tmp_path), 0, LogConfig(), NOW)
    assert reopened.time_index.last_entry() == TimestampOffset(NOW + 72, 23)


def test_offsets_beyond_an_int_from_the_base_do_not_fit(tmp_path):
    segment = _segment(tmp_path)
    with pytest.raises(LogSegmentOffsetOverflowException):
        append_stored(segment, stored_batch(2**31, 1))
