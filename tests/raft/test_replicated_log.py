"""MemoryReplicatedLog: the ReplicatedLog contract KafkaRaftClient relies on."""

import pytest

from minikafka.common.errors import KafkaException
from minikafka.raft.replicated_log import (Batch, LeaderChangeMessage, MemoryReplicatedLog,
                                           OffsetAndEpoch, ReplicatedLog,
                                           UnexpectedBaseOffsetException)


def log_with(*epochs_and_sizes):
    """A log holding one batch per (epoch, number of records)."""
    log = MemoryReplicatedLog()
    for epoch, size in epochs_and_sizes:
        log.append_as_leader([f"e{epoch}-{i}" for i in range(size)], epoch, now=1000 + epoch)
    return log


def test_satisfies_the_protocol():
    assert isinstance(MemoryReplicatedLog(), ReplicatedLog)


def test_empty_log_positions():
    log = MemoryReplicatedLog()
    assert (log.start_offset, log.end_offset, log.last_fetched_epoch, log.high_watermark) == (0, 0, 0, 0)
    assert str(log.topic_partition) == "__cluster_metadata-0"


def test_append_as_leader_assigns_consecutive_offsets():
    log = MemoryReplicatedLog()
    assert log.append_as_leader(["a", "b", "c"], 1, now=5) == (0, 2)
    assert log.append_as_leader(["d"], 2, now=6) == (3, 3)
    assert log.end_offset == 4 and log.last_fetched_epoch == 2
    assert log.batches[0] == Batch(0, 1, 5, ("a", "b", "c"))


def test_control_batch_is_flagged():
    log = MemoryReplicatedLog()
    log.append_as_leader([LeaderChangeMessage(1, (1, 2, 3), (1, 2))], 1, now=0, is_control=True)
    assert log.batches[0].is_control
    assert log.batches[0].records[0].version == 0


def test_empty_or_older_epoch_appends_are_rejected():
    log = log_with((3, 1))
    with pytest.raises(ValueError, match="empty batch"):
        log.append_as_leader([], 3, now=0)
    with pytest.raises(ValueError, match="epoch 2 after epoch 3"):
        log.append_as_leader(["x"], 2, now=0)


def test_append_as_follower_requires_contiguous_batches():
    log = log_with((1, 2))
    with pytest.raises(UnexpectedBaseOffsetException, match="Unexpected base offset 5"):
        log.append_as_follower([Batch(5, 1, 0, ("x",))])
    log.append_as_follower([Batch(2, 1, 0, ("x",)), Batch(3, 2, 0, ("y", "z"))])
    assert log.end_offset == 5


def test_read_starts_at_the_batch_containing_the_offset():
    log = log_with((1, 3), (1, 2), (2, 4))     # offsets 0-2, 3-4, 5-8
    assert [b.base_offset for b in log.read(0)] == [0, 3, 5]
    assert [b.base_offset for b in log.read(4)] == [3, 5]
    assert [b.base_offset for b in log.read(5, max_batches=1)] == [5]
    assert log.read(9) == []


def test_end_offset_for_epoch():
    log = log_with((1, 3), (1, 2), (3, 4))     # epoch 1 at 0..4, epoch 3 at 5..8
    assert log.end_offset_for_epoch(1) == OffsetAndEpoch(1, 5)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(1, 5)   # largest epoch <= 2 is 1
    assert log.end_offset_for_epoch(3) == OffsetAndEpoch(3, 9)
    assert log.end_offset_for_epoch(7) == OffsetAndEpoch(3, 9)
    assert log.end_offset_for_epoch(0) == OffsetAndEpoch(0, 0)   # before every epoch


def test_truncate_removes_the_tail_and_its_epochs():
    log = log_with((1, 3), (2, 2), (3, 1))     # 0-2 e1, 3-4 e2, 5 e3
    log.truncate_to(3)
    assert log.end_offset == 3 and log.last_fetched_epoch == 1
    assert log.end_offset_for_epoch(3) == OffsetAndEpoch(1, 3)
    log.append_as_leader(["n"], 4, now=0)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(1, 3)


def test_truncate_inside_a_batch_removes_the_whole_batch():
    log = log_with((1, 3), (2, 3))
    log.truncate_to(4)
    assert log.end_offset == 3


def test_high_watermark_rules():
    log = log_with((1, 5))
    log.update_high_watermark(3)
    with pytest.raises(ValueError, match="Non-monotonic update of high watermark from 3 to 2"):
        log.update_high_watermark(2)
    with pytest.raises(ValueError, match="beyond the log end offset"):
        log.update_high_watermark(6)
    with pytest.raises(KafkaException, match="below the current high watermark 3"):
        log.truncate_to(2)
    assert log.end_offset == 5               # nothing was lost


def test_reopen_keeps_only_flushed_batches_and_forgets_the_high_watermark():
    log = log_with((1, 2))
    log.flush()
    log.update_high_watermark(2)
    log.append_as_leader(["unflushed"], 1, now=0)
    reopened = log.reopen()
    assert reopened.end_offset == 2 and reopened.high_watermark == 0
    assert reopened.batches == log.batches[:1]
    assert reopened.flushed_end_offset == 2


def test_truncation_lowers_the_flushed_end():
    log = log_with((1, 2), (2, 2))
    log.flush()
    log.truncate_to(2)
    log.append_as_leader(["x"], 3, now=0)
    assert log.reopen().end_offset == 2
