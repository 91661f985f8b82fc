"""BatchAccumulator: offsets at append time, one batch per linger window."""

from minikafka.raft.batch_accumulator import BatchAccumulator


def test_offsets_are_assigned_at_append_time():
    acc = BatchAccumulator(epoch=3, base_offset=10, linger_ms=25)
    assert acc.append(["a", "b"], now=100) == 11
    assert acc.append(["c"], now=110) == 12
    assert acc.drain_deadline == 125                    # the first append starts the linger
    assert not acc.needs_drain(124) and acc.needs_drain(125)
    assert acc.drain() == ["a", "b", "c"]
    assert acc.drain_deadline is None and acc.append(["d"], now=200) == 13


def test_empty_append_changes_nothing():
    acc = BatchAccumulator(epoch=3, base_offset=10, linger_ms=25)
    assert acc.append([], now=100) == 9
    assert acc.drain_deadline is None and acc.drain() == []
