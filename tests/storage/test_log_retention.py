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


# ---------------------------------------------------------------- LogRetention on its own
def _segments(*sizes):
    from types import SimpleNamespace
    return [SimpleNamespace(base_offset=10 * i, size=size) for i, size in enumerate(sizes)]


def test_retention_picks_oldest_first_and_stops_at_the_first_segment_that_stays():
    from minikafka.common.topic_partition import TopicPartition
    from minikafka.storage.log_retention import LogRetention
    segments = _segments(100, 100, 100, 0)
    picked = LogRetention.deletable_segments(segments, high_watermark=30, log_end_offset=30,
                                             predicate=lambda s, _next: s.base_offset != 10)
    assert picked == segments[:1]
    everything = LogRetention.deletable_segments(segments, 30, 30, lambda s, _next: True)
    assert everything == segments[:3]                  # never the empty last segment
    below_hw = LogRetention.deletable_segments(segments, 15, 30, lambda s, _next: True)
    assert below_hw == segments[:1]                    # only segments wholly below the high watermark
    rule = LogRetention(TopicPartition("orders", 0)).log_start_offset_breach(20)
    assert LogRetention.deletable_segments(segments, 30, 30, rule.predicate) == segments[:2]
    assert rule.reason(segments[:2]) == "orders-0: deleting segment(s) 0, 10 due to log start offset 20 breach"


def test_retention_rules_that_do_not_apply_are_none():
    from minikafka.common.topic_partition import TopicPartition
    from minikafka.storage.log_retention import LogRetention
    retention = LogRetention(TopicPartition("orders", 0))
    assert retention.retention_size_breach(-1, 10 ** 6) is None
    assert retention.retention_size_breach(1000, 999) is None
    assert retention.retention_ms_breach(-1, NOW) is None
    rule = retention.retention_size_breach(150, 300)
    segments = _segments(100, 100, 100)
    assert LogRetention.deletable_segments(segments, 30, 30, rule.predicate) == segments[:1]


def test_unified_log_is_composed_not_mixed(tmp_path):
    from minikafka.storage.local_log import LocalLog
    from minikafka.storage.log_retention import LogRetention
    from minikafka.storage.unified_log import UnifiedLog
    assert UnifiedLog.__bases__ == (object,)
    log = _log(tmp_path)
    assert isinstance(log.local_log, LocalLog) and isinstance(log.retention, LogRetention)
    assert log.retention.topic_partition == log.topic_partition
