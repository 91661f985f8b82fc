from _storage_helpers import NOW
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_segment import LogSegment
from minikafka.storage.log_segments import LogSegments


def test_floor_higher_lower_and_ranges(tmp_path):
    segments = LogSegments()
    for base in (50, 0, 100):
        segments.add(LogSegment.open(str(tmp_path), base, LogConfig(), NOW))
    assert segments.base_offsets() == [0, 50, 100] and segments.active_segment.base_offset == 100
    assert segments.floor_segment(75).base_offset == 50 and segments.floor_segment(-1) is None
    assert segments.higher_segment(50).base_offset == 100 and segments.higher_segment(100) is None
    assert segments.lower_segment(50).base_offset == 0
    assert [s.base_offset for s in segments.values_between(60, 100)] == [50]
    assert [s.base_offset for s in segments.values_between(0, 101)] == [0, 50, 100]
    assert [s.base_offset for s in segments.non_active_log_segments_from(20)] == [0, 50]
    segments.remove(50)
    assert segments.number_of_segments == 2 and not segments.contains(50)
