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


def test_reads_of_the_latest_appends_are_the_files_bytes_without_a_system_call(tmp_path, monkeypatch):
    import minikafka.storage.file_records as file_records
    monkeypatch.setattr(file_records, "TAIL_BYTES", 250)
    batches = [stored_batch(i * 3, 3, 50, NOW + i * 10) for i in range(6)]
    records = _file(tmp_path, batches)
    on_disk = (tmp_path / "00000000000000000000.log").read_bytes()
    tail_start = records._tail_start
    assert 0 < tail_start < len(on_disk) - 250            # older appends were let go
    import minikafka.storage.log_directory as log_directory   # the file system's reads go through here
    calls, real_pread = [], log_directory.os.pread
    monkeypatch.setattr(log_directory.os, "pread", lambda *a: calls.append(a) or real_pread(*a))
    for position, size in ((tail_start, 10_000), (len(on_disk) - 7, 7), (tail_start + 5, 90)):
        assert records.read(position, size) == on_disk[position:position + size]
    assert calls == []                                     # the tail came from memory
    assert records.read(0, 10_000) == on_disk and len(calls) == 1   # older bytes from the file
    cut = len(on_disk) - len(batches[-1]) - 3              # mid-batch: the memory copy is cut too
    records.truncate_to(cut)
    assert records.read(tail_start, 10_000) == (tmp_path / "00000000000000000000.log").read_bytes()[tail_start:]
    records.append(batches[0])
    assert records.read(cut, 10_000) == batches[0]
    records.truncate_to(10)                                # below everything kept in memory
    records.append(batches[1])
    assert records._tail_start == 10 and records.read(10, 10_000) == batches[1]
    records.close()                                        # on roll: reads go to the file again
    assert not records._tail and records.read(10, 10_000) == batches[1]


def test_the_modification_time_is_the_nodes_clock_and_reaches_the_file_when_it_closes(tmp_path):
    path = tmp_path / "00000000000000000000.log"
    records = _file(tmp_path, [stored_batch(0, 3)])
    records.set_last_modified(1_600_000_000_000)          # the node's clock, not the machine's
    assert records.last_modified() == 1_600_000_000_000
    assert path.stat().st_mtime_ns // 1_000_000 != 1_600_000_000_000   # not yet: no system call per append
    records.close()
    assert path.stat().st_mtime_ns // 1_000_000 == 1_600_000_000_000
    records.set_last_modified(1_600_000_000_500)          # without an open descriptor: at once
    assert path.stat().st_mtime_ns // 1_000_000 == 1_600_000_000_500 == records.last_modified()
