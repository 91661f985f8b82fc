"""Restart and crash-recovery scenarios on real files."""

import os

from _storage_helpers import NOW, Events, client_batch, offsets_of, open_log
from minikafka.storage.log_config import LogConfig
from minikafka.storage.unified_log import UnifiedLog

CONFIG = dict(segment_bytes=1000)


def _filled_log(path, batches=9, producer=None):
    log = open_log(path, **CONFIG)
    log.maybe_assign_epoch_start_offset(0, 0)
    for i in range(batches):
        prod = None if producer is None else (producer, 0, i * 2)
        log.append_as_leader(client_batch(count=2, value_size=150, producer=prod), 0, NOW)
    return log


def _crash_and_reload(log, recovery_point=None, events=None):
    path, recovery = log.dir_path, log.recovery_point if recovery_point is None else recovery_point
    log.close_handlers()                        # the process dies: nothing is written
    return UnifiedLog.load(path, LogConfig(**CONFIG), NOW, recovery_point=recovery, had_clean_shutdown=False,
                           emit=events)


def test_clean_restart_needs_no_recovery(tmp_path):
    log = _filled_log(tmp_path / "orders-0")
    before = log.read(0, 10 ** 6).records
    log.flush()
    log.close()
    events = Events()
    reloaded = UnifiedLog.load(str(tmp_path / "orders-0"), LogConfig(**CONFIG), NOW, recovery_point=18, emit=events)
    assert reloaded.log_end_offset == 18 and reloaded.read(0, 10 ** 6).records == before
    assert events.seen == []


def test_crash_with_a_torn_tail(tmp_path):
    log = _filled_log(tmp_path / "orders-0")
    active = log.active_segment.log.path
    with open(active, "ab") as handle:
        handle.write(client_batch()[:40])          # a write the crash cut short
    events = Events()
    recovered = _crash_and_reload(log, events=events)
    assert recovered.log_end_offset == 18
    assert offsets_of(recovered.read(16, 10 ** 6).records) == [16, 17]
    assert os.path.getsize(active) == recovered.active_segment.size
    assert any(t.startswith("Recovering unflushed segment 16. 0 recovered for ") for t in events.texts("recovery"))
    assert any("corruption found in segment 16, truncating to offset 18 (40 bytes removed" in t
               for t in events.texts("recovery"))


def test_crash_with_a_flipped_byte_in_a_middle_batch(tmp_path):
    log = _filled_log(tmp_path / "orders-0")
    first = log.log_segments()[0]
    batch_size = first.size // 2
    with open(first.log.path, "r+b") as handle:     # corrupt the 2nd batch of the 1st segment
        handle.seek(batch_size + 100)
        byte = handle.read(1)
        handle.seek(batch_size + 100)
        handle.write(bytes([byte[0] ^ 0x80]))
    recovered = _crash_and_reload(log, recovery_point=0)
    assert recovered.log_end_offset == 2                      # everything from the bad batch on is gone
    assert [s["base_offset"] for s in recovered.describe_segments()] == [0]
    assert recovered.leader_epoch_cache.epoch_entries()[-1].start_offset == 0


def test_deleted_index_is_rebuilt(tmp_path):
    log = _filled_log(tmp_path / "orders-0", batches=30)
    first = log.log_segments()[0]
    entries = first.offset_index.all_entries()
    log.close()
    os.remove(first.offset_index_path)
    events = Events()
    reloaded = UnifiedLog.load(log.dir_path, LogConfig(**CONFIG), NOW, recovery_point=60, emit=events)
    assert reloaded.log_segments()[0].offset_index.all_entries() == entries
    assert any("could not find offset index file" in t for t in events.texts("recovery"))


def test_preallocated_index_after_a_crash_is_rebuilt(tmp_path):
    log = open_log(tmp_path / "orders-0")                   # one big segment
    for _ in range(40):
        log.append_as_leader(client_batch(count=2, value_size=150), 0, NOW)
    entries = log.active_segment.offset_index.all_entries()
    assert os.path.getsize(log.active_segment.offset_index_path) == 10485760
    recovered = _crash_and_reload(log, recovery_point=0)
    assert recovered.active_segment.offset_index.all_entries() == entries
    assert offsets_of(recovered.read(41, 400).records) == [40, 41]


def test_epoch_entries_beyond_the_recovered_end_are_dropped(tmp_path):
    log = _filled_log(tmp_path / "orders-0")
    log.maybe_assign_epoch_start_offset(5, 18)              # written to the checkpoint, no data yet
    recovered = _crash_and_reload(log)
    assert recovered.latest_epoch() == 0


def test_producer_state_survives_a_clean_restart_via_the_snapshot(tmp_path):
    log = _filled_log(tmp_path / "orders-0", producer=4242)
    log.close()
    assert "00000000000000000018.snapshot" in os.listdir(log.dir_path)
    reloaded = UnifiedLog.load(log.dir_path, LogConfig(**CONFIG), NOW, recovery_point=18)
    retry = reloaded.append_as_leader(client_batch(count=2, value_size=150, producer=(4242, 0, 16)), 0, NOW)
    assert retry.duplicate and (retry.first_offset, retry.last_offset) == (16, 17)


def test_producer_state_is_rebuilt_after_a_crash(tmp_path):
    log = _filled_log(tmp_path / "orders-0", producer=4242)
    recovered = _crash_and_reload(log, recovery_point=0)
    assert recovered.producer_state_manager.last_entry(4242).last_seq == 17


def test_corrupt_index_below_the_recovery_point_is_rebuilt(tmp_path):
    log = _filled_log(tmp_path / "orders-0", batches=30)
    first = log.log_segments()[0]
    entries = first.offset_index.all_entries()
    log.flush()
    log.close()
    with open(first.offset_index_path, "ab") as handle:
        handle.write(b"\x00\x00\x00")                   # no longer a whole number of 8-byte entries
    events = Events()
    reloaded = UnifiedLog.load(log.dir_path, LogConfig(**CONFIG), NOW, recovery_point=60, emit=events)
    assert reloaded.log_segments()[0].offset_index.all_entries() == entries
    assert any("found a corrupted index file" in t and "neither positive nor a multiple of 8" in t
               for t in events.texts("recovery"))


def test_stray_deleted_files_are_removed_on_load(tmp_path):
    log = _filled_log(tmp_path / "orders-0")
    log.close()
    (tmp_path / "orders-0" / "00000000000000000000.log.deleted").write_bytes(b"old")
    UnifiedLog.load(log.dir_path, LogConfig(**CONFIG), NOW, recovery_point=18)
    assert not (tmp_path / "orders-0" / "00000000000000000000.log.deleted").exists()
