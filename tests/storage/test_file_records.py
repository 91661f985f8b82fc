import pytest

from _storage_helpers import NOW, stored_batch
from minikafka.common.errors import CorruptRecordException, KafkaException
from minikafka.storage.file_records import FileRecords, LogOffsetPosition, TimestampAndOffset


def _file(tmp_path, batches):
    records = FileRecords(str(tmp_path / "00000000000000000000.log"))
    for data in batches:
        records.append(data)
    return records


def test_append_read_and_walk(tmp_path):
    batches = [stored_batch(i * 3, 3, 50, NOW + i * 10) for i in range(4)]
    records = _file(tmp_path, batches)
    assert records.size_in_bytes == sum(map(len, batches)) == (tmp_path / "00000000000000000000.log").stat().st_size
    walked = list(records.batches_from(0))
    assert [b.base_offset for b, _ in walked] == [0, 3, 6, 9]
    assert [bytes(view) for _, view in walked] == batches
    assert records.read(len(batches[0]), len(batches[1])) == batches[1]
    records.close()
    assert records.read(0, 10) == batches[0][:10]       # reading works without an open descriptor


def test_walk_stops_at_a_torn_tail_but_not_at_a_bad_length(tmp_path):
    good = stored_batch(0, 3)
    records = _file(tmp_path, [good, stored_batch(3, 3)[:70]])
    assert [b.base_offset for b, _ in records.batches_from(0)] == [0]
    (tmp_path / "broken").mkdir()
    broken = _file(tmp_path / "broken", [good, good[:8] + (5).to_bytes(4, "big") + good[12:]])
    with pytest.raises(CorruptRecordException, match="^Found record size 5 smaller than minimum record overhead "
                                                     r"\(14\) in file "):
        list(broken.batches_from(0))


def test_searches(tmp_path):
    batches = [stored_batch(i * 3, 3, 50, NOW + i * 10, epoch=2) for i in range(4)]
    records = _file(tmp_path, batches)
    size = len(batches[0])
    assert records.search_for_offset_with_size(4, 0) == LogOffsetPosition(5, size, size)
    assert records.search_for_offset_with_size(12, 0) is None
    assert records.search_for_timestamp(NOW + 21, 0, 0) == TimestampAndOffset(NOW + 21, 7, 2)
    assert records.largest_timestamp_after(size) == TimestampAndOffset(NOW + 32, 11, 2)


def test_truncation(tmp_path):
    records = _file(tmp_path, [stored_batch(0, 3), stored_batch(3, 3)])
    size = records.size_in_bytes
    assert records.truncate_to(size // 2) == size - size // 2
    with pytest.raises(KafkaException, match="Attempt to truncate log segment .* to 99999 bytes failed"):
        records.truncate_to(99999)
