import pytest

from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.checkpoint_file import LeaderEpochCheckpointFile
from minikafka.storage.leader_epoch_file_cache import EpochEntry, LeaderEpochFileCache

TP = TopicPartition("orders", 0)


def _cache(tmp_path, entries=()):
    cache = LeaderEpochFileCache(TP, LeaderEpochCheckpointFile.in_dir(str(tmp_path)))
    for epoch, offset in entries:
        cache.assign(epoch, offset)
    return cache


def test_assign_writes_the_checkpoint(tmp_path):
    cache = _cache(tmp_path, [(0, 0), (1, 120), (1, 130), (3, 455)])
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n3\n0 0\n1 120\n3 455\n"
    assert _cache(tmp_path).epoch_entries() == cache.epoch_entries()


def test_a_conflicting_entry_replaces_later_ones(tmp_path):
    cache = _cache(tmp_path, [(0, 0), (2, 100), (3, 200)])
    cache.assign(4, 150)               # a new leader that started writing at 150
    assert cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(2, 100), EpochEntry(4, 150)]
    cache.assign(1, 50)                # epochs must increase too
    assert cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(1, 50)]


@pytest.mark.parametrize("requested, expected", [
    (-1, (-1, -1)),        # undefined epoch
    (0, (0, 120)),         # ends where epoch 1 starts
    (1, (1, 455)),
    (2, (1, 455)),         # unknown epoch in a gap: the epoch below it and the next start
    (3, (3, 600)),         # the latest epoch ends at the log end offset
    (4, (-1, -1)),         # newer than anything known
])
def test_end_offset_for_epoch(tmp_path, requested, expected):
    cache = _cache(tmp_path, [(0, 0), (1, 120), (3, 455)])
    assert cache.end_offset_for(requested, 600) == expected


def test_requested_epoch_older_than_all_kept(tmp_path):
    cache = _cache(tmp_path, [(5, 100), (6, 200)])
    assert cache.end_offset_for(2, 300) == (2, 100)
    (tmp_path / "empty").mkdir()
    assert _cache(tmp_path / "empty").end_offset_for(0, 0) == (-1, -1)


def test_truncation_from_both_ends(tmp_path):
    cache = _cache(tmp_path, [(0, 0), (1, 120), (3, 455)])
    cache.truncate_from_end(455)
    assert cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(1, 120)]
    cache.truncate_from_start(130)
    assert cache.epoch_entries() == [EpochEntry(1, 130)]
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n1\n1 130\n"
    assert cache.epoch_for_offset(500) == 1 and cache.epoch_for_offset(10) is None


def test_invalid_entries_are_refused(tmp_path):
    with pytest.raises(ValueError, match="Received invalid partition leader epoch entry"):
        _cache(tmp_path).assign(-1, 0)
