import pytest

from minikafka.storage.fetch_data_info import FetchDataInfo, FetchIsolation, LogOffsetMetadata


def test_offset_metadata():
    assert LogOffsetMetadata(5).message_offset_only()
    assert LogOffsetMetadata(5, 0, 10).on_older_segment(LogOffsetMetadata(5, 3, 0))
    with pytest.raises(ValueError):
        LogOffsetMetadata(5).on_older_segment(LogOffsetMetadata(5, 3, 0))
    assert str(LogOffsetMetadata(5, 0, 10)) == "(offset=5segment=[0:10])"


def test_isolation_names_and_sizes():
    assert FetchIsolation("high_watermark") is FetchIsolation.HIGH_WATERMARK
    assert FetchDataInfo(LogOffsetMetadata(0), b"abc").size_in_bytes == 3
