"""Tests for minikafka/tools/dump_log_index.py, on segments written by the sandbox's own LogSegment."""

import os
import struct

from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_segment import LogSegment
from minikafka.tools.dump_log import DumpOptions, dump_files
from minikafka.tools.dump_log_index import lookup
from tests.storage._storage_helpers import NOW, append_stored, stored_batch

INDEX, TIME_INDEX = "00000000000000000000.index", "00000000000000000000.timeindex"


def _segment(tmp_path):
    segment = LogSegment.open(str(tmp_path), 0, LogConfig(index_interval_bytes=1, segment_index_bytes=1200), NOW)
    for base in (0, 3, 6):
        append_stored(segment, stored_batch(base, timestamp=NOW + base))
    return segment


def test_active_segment_indexes_stop_at_the_preallocated_zeros(tmp_path):
    segment = _segment(tmp_path)
    assert os.path.getsize(tmp_path / INDEX) == 1200                  # preallocated while active
    out = dump_files([str(tmp_path / INDEX), str(tmp_path / TIME_INDEX)])
    assert out.text == (f"Dumping {tmp_path / INDEX}\noffset: 5 position: 394\noffset: 8 position: 788\n"
                        f"Dumping {tmp_path / TIME_INDEX}\ntimestamp: {NOW + 5} offset: 5\n"
                        f"timestamp: {NOW + 8} offset: 8\n")
    segment.close()                                                    # trimmed to the real entries
    assert dump_files([str(tmp_path / INDEX)]).text == out.text.split(f"Dumping {tmp_path / TIME_INDEX}")[0]


def test_index_options(tmp_path):
    _segment(tmp_path).close()
    assert dump_files([str(tmp_path / INDEX)], DumpOptions(verify_index_only=True)).text == f"Dumping {tmp_path / INDEX}\n"
    assert dump_files([str(tmp_path / INDEX)], DumpOptions(index_sanity_check=True)).text == (
        f"Dumping {tmp_path / INDEX}\n{tmp_path / INDEX} passed sanity check.\n")
    (tmp_path / INDEX).write_bytes(b"")
    assert dump_files([str(tmp_path / INDEX)]).stdout.endswith(f"{tmp_path / INDEX} is empty.\n")
    (tmp_path / INDEX).write_bytes(struct.pack(">ii", 5, 394) + b"\x00" * 3)
    broken = dump_files([str(tmp_path / INDEX)], DumpOptions(index_sanity_check=True))
    assert broken.stderr == ('Exception in thread "main" org.apache.kafka.storage.internals.log.CorruptIndexException: '
                             f"Index file {tmp_path / INDEX} is corrupt, found 11 bytes which is neither positive nor "
                             "a multiple of 8\n")


def test_mismatches_are_reported_on_stderr_after_the_dump(tmp_path):
    _segment(tmp_path).close()
    (tmp_path / INDEX).write_bytes(struct.pack(">iiii", 4, 394, 8, 788))        # 4 is not the batch's last offset
    (tmp_path / TIME_INDEX).write_bytes(struct.pack(">qiqi", NOW + 9, 5, NOW + 8, 7))
    out = dump_files([str(tmp_path / INDEX), str(tmp_path / TIME_INDEX)])
    assert "offset: 4 position: 394\n" in out.stdout
    assert out.stderr == (f"Mismatches in :{tmp_path / INDEX}\n  Index offset: 4, log offset: 5\n"
                          f"Found timestamp mismatch in :{tmp_path / TIME_INDEX}\n"
                          f"  Index timestamp: {NOW + 9}, log timestamp: {NOW + 5}\n"
                          f"The following indexed offsets are not found in :{tmp_path / TIME_INDEX}\n"
                          "Indexed offset: 7, found log offset: 8\n")


def test_lookup_is_kafkas_largest_lower_bound():
    entries = [(5, 394), (8, 788), (12, 1000)]
    assert lookup(entries, 0, 3) == (0, 0)
    assert lookup(entries, 0, 8) == (8, 788)
    assert lookup(entries, 0, 11) == (8, 788)
    assert lookup(entries, 0, 99) == (12, 1000)
    assert lookup([], 7, 9) == (7, 0)
