import os

import pytest

from minikafka.storage.abstract_index import CorruptIndexException
from minikafka.storage.time_index import TimeIndex, TimestampOffset

T = 1767225600000


def test_preallocated_size_and_reserved_last_slot(tmp_path):
    path = tmp_path / "00000000000000000000.timeindex"
    index = TimeIndex(str(path), 0, 10485760)
    assert os.path.getsize(path) == 10485756 and index.max_entries == 873813
    small = TimeIndex(str(tmp_path / "s"), 0, 36)
    small.maybe_append(T, 1)
    small.maybe_append(T + 1, 2)
    assert small.is_full()                       # one slot stays free for the roll/close entry
    small.maybe_append(T + 2, 3, skip_full_check=True)
    assert small.entries == 3


def test_golden_entry_bytes(tmp_path):
    path = tmp_path / "00000000000000000010.timeindex"
    index = TimeIndex(str(path), 10, 120)
    index.maybe_append(T, 15)
    index.trim_to_valid_size()
    assert path.read_bytes() == (T).to_bytes(8, "big") + (5).to_bytes(4, "big")


def test_only_growing_timestamps_are_indexed(tmp_path):
    index = TimeIndex(str(tmp_path / "t"), 0, 120)
    index.maybe_append(T + 5, 3)
    index.maybe_append(T + 5, 7)          # same timestamp: ignored
    index.maybe_append(T + 9, 9)
    assert index.all_entries() == [TimestampOffset(T + 5, 3), TimestampOffset(T + 9, 9)]
    assert index.lookup(T) == TimestampOffset(-1, 0)
    assert index.lookup(T + 6) == TimestampOffset(T + 5, 3)
    index.truncate_to(9)
    assert index.last_entry() == TimestampOffset(T + 5, 3)


def test_sanity_check(tmp_path):
    path = tmp_path / "00000000000000000000.timeindex"
    path.write_bytes(b"\x00" * 13)
    with pytest.raises(CorruptIndexException, match="found 13 bytes which is neither positive nor a multiple of 12"):
        TimeIndex(str(path), 0, 120).sanity_check()
