import os

import pytest

from minikafka.storage.abstract_index import CorruptIndexException, IndexOffsetOverflowException, InvalidOffsetException
from minikafka.storage.offset_index import OffsetIndex, OffsetPosition


def test_new_index_is_preallocated_to_whole_entries(tmp_path):
    path = tmp_path / "00000000000000000100.index"
    index = OffsetIndex(str(path), 100, 10485760)
    assert os.path.getsize(path) == 10485760 and index.max_entries == 1310720
    index = OffsetIndex(str(tmp_path / "x.index"), 0, 1001)
    assert os.path.getsize(tmp_path / "x.index") == 1000


def test_entries_are_relative_offset_and_position_golden_bytes(tmp_path):
    path = tmp_path / "00000000000000000100.index"
    index = OffsetIndex(str(path), 100, 80)
    index.append(105, 4100)
    index.append(130, 8200)
    index.trim_to_valid_size()
    assert path.read_bytes() == bytes.fromhex("00000005 00001004 0000001e 00002008".replace(" ", ""))


def test_lookup_returns_the_floor_entry(tmp_path):
    index = OffsetIndex(str(tmp_path / "i"), 100, 800)
    assert index.lookup(150) == OffsetPosition(100, 0)
    for offset, position in ((110, 10), (120, 20), (130, 30)):
        index.append(offset, position)
    assert [index.lookup(t) for t in (99, 110, 119, 125, 1000)] == [
        OffsetPosition(100, 0), OffsetPosition(110, 10), OffsetPosition(110, 10), OffsetPosition(120, 20),
        OffsetPosition(130, 30)]


def test_appends_must_increase_and_fit(tmp_path):
    index = OffsetIndex(str(tmp_path / "i"), 100, 16)
    index.append(101, 1)
    with pytest.raises(InvalidOffsetException, match="no larger than the last offset appended"):
        index.append(101, 2)
    index.append(102, 2)
    with pytest.raises(ValueError, match=r"Attempt to append to a full index \(size = 2\)."):
        index.append(103, 3)
    with pytest.raises(IndexOffsetOverflowException, match="Integer overflow for offset"):
        OffsetIndex(str(tmp_path / "j"), 0, 16).append(2**31, 1)


def test_truncate_to_drops_entries_at_and_after(tmp_path):
    index = OffsetIndex(str(tmp_path / "i"), 0, 800)
    for offset in (10, 20, 30):
        index.append(offset, offset * 10)
    index.truncate_to(20)
    assert index.entries == 1 and index.last_offset == 10
    index.truncate_to(15)
    assert index.entries == 1
    index.truncate_to(5)
    assert index.entries == 0 and index.last_offset == 0


def test_reopened_file_is_trusted_entirely(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 0, 80)
    index.append(5, 50)
    reopened = OffsetIndex(path, 0, 80)     # crash: the file is still preallocated
    assert reopened.entries == 10 and reopened.is_full()
    index.trim_to_valid_size()
    assert OffsetIndex(path, 0, 80).all_entries() == [OffsetPosition(5, 50)]


def test_sanity_check_catches_a_torn_index(tmp_path):
    path = tmp_path / "00000000000000000000.index"
    path.write_bytes(b"\x00" * 12)
    with pytest.raises(CorruptIndexException, match="is corrupt, found 12 bytes which is neither positive nor a "
                                                    "multiple of 8"):
        OffsetIndex(str(path), 0, 80).sanity_check()
