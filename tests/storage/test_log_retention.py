from _storage_helpers import NOW, Events, client_batch, open_log


def _log(tmp_path, events=None, **config):
    log = open_log(tmp_path / "orders-0", events=events, segment_bytes=500, **config)
    for _ in range(6):
        log.append_as_leader(client_batch(count=2, value_size=100), 0, NOW)
    log.update_high_watermark(log.log_end_offset)
    return log


def test_segments_wholly_below_the_log_start_offset_go(tmp_path):
    events = Events()
    log = _log(tmp_path, events)
    bases = [s["base_offset"] for s in log.describe_segments()]
    log.maybe_increment_log_start_offset(bases[2] + 1)
    assert log.delete_old_segments(NOW) == 2
    assert [s["base_offset"] for s in log.describe_segments()] == bases[2:]
    assert events.texts("segments_deleted") == [f"orders-0: deleting segment(s) {bases[0]}, {bases[1]} due to log "
                                                f"start offset {bases[2] + 1} breach"]


def test_nothing_is_deleted_by_default(tmp_path):
    log = _log(tmp_path)
    assert log.delete_old_segments(NOW + 10 ** 7) == 0           # 7 days later, still inside retention.ms


def test_compacted_topics_only_honour_the_log_start_offset(tmp_path):
    log = _log(tmp_path, cleanup_policy=("compact",), retention_ms=1, retention_bytes=1)
    assert log.delete_old_segments(NOW + 10 ** 7) == 0


def test_the_log_always_keeps_a_segment(tmp_path):
    log = _log(tmp_path, retention_ms=1)
    deleted = log.number_of_segments
    assert log.delete_old_segments(NOW + 10) == deleted
    assert log.number_of_segments == 1 and log.active_segment.size == 0
    assert log.log_start_offset == log.log_end_offset == 12
