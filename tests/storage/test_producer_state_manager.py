import struct

import pytest
from crc32c import crc32c

from _storage_helpers import NOW
from minikafka.common.errors import InvalidProducerEpochException, OutOfOrderSequenceException
from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.producer_append_info import AppendOrigin
from minikafka.storage.producer_state_manager import ProducerStateManager, read_snapshot

TP = TopicPartition("orders", 0)


def _append(psm, producer_id, epoch, first_seq, last_seq, first_offset, origin=AppendOrigin.CLIENT):
    info = psm.prepare_update(producer_id, origin)
    info.append_data_batch(epoch, first_seq, last_seq, NOW, first_offset, first_offset + last_seq - first_seq,
                           False)
    psm.update(info)
    psm.update_map_end_offset(first_offset + last_seq - first_seq + 1)


def test_sequences_must_follow_on(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    _append(psm, 7, 0, 0, 4, 0)
    _append(psm, 7, 0, 5, 9, 5)
    with pytest.raises(OutOfOrderSequenceException,
                       match=r"^Out of order sequence number for producer 7 at offset 10 in partition orders-0: "
                             r"12 \(incoming seq. number\), 9 \(current end sequence number\)$"):
        _append(psm, 7, 0, 12, 13, 10)


def test_a_new_epoch_must_start_at_zero_but_an_unknown_producer_may_start_anywhere(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    _append(psm, 8, 3, 42, 43, 0)             # never seen: accepted (KIP-360)
    with pytest.raises(OutOfOrderSequenceException, match="^Invalid sequence number for new epoch of producer 8"):
        _append(psm, 8, 4, 5, 6, 2)
    _append(psm, 8, 4, 0, 1, 2)
    with pytest.raises(InvalidProducerEpochException,
                       match="^Epoch of producer 8 at offset 4 in orders-0 is 3, which is smaller than the last "
                             "seen epoch 4$"):
        _append(psm, 8, 3, 44, 45, 4)


def test_followers_apply_without_checks(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    _append(psm, 7, 5, 0, 0, 0)
    _append(psm, 7, 2, 90, 91, 1, origin=AppendOrigin.REPLICATION)
    assert psm.last_entry(7).last_seq == 91


def test_the_last_five_batches_are_remembered_for_duplicates(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    for i in range(7):
        _append(psm, 7, 0, i * 2, i * 2 + 1, i * 2)
    entry = psm.last_entry(7)
    assert entry.find_duplicate_batch(0, 4, 5).first_offset == 4
    assert entry.find_duplicate_batch(0, 2, 3) is None           # fell out of the five
    assert entry.find_duplicate_batch(1, 4, 5) is None           # other epoch


def test_snapshot_golden_format_and_reload(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    _append(psm, 7, 1, 0, 4, 10)
    path = psm.take_snapshot()
    assert path.endswith("00000000000000000015.snapshot")
    raw = open(path, "rb").read()
    body = struct.pack(">i", 1) + struct.pack(">qhiqiqiq", 7, 1, 4, 14, 4, NOW, -1, -1)
    assert raw == struct.pack(">hI", 1, crc32c(body)) + body
    assert psm.take_snapshot() is None                         # nothing new since
    reloaded = ProducerStateManager(TP, str(tmp_path))
    reloaded.truncate_and_reload(0, 15, NOW)
    assert reloaded.last_entry(7).last_seq == 4 and reloaded.map_end_offset == 15


def test_corrupt_snapshot_is_skipped(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    _append(psm, 7, 1, 0, 4, 0)
    path = psm.take_snapshot()
    data = bytearray(open(path, "rb").read())
    data[-1] ^= 1
    open(path, "wb").write(bytes(data))
    with pytest.raises(Exception, match=r"Snapshot is corrupt \(CRC is no longer valid\)"):
        read_snapshot(path)
    reloaded = ProducerStateManager(TP, str(tmp_path))
    reloaded.truncate_and_reload(0, 5, NOW)
    assert reloaded.is_empty() and not (tmp_path / "00000000000000000005.snapshot").exists()


def test_expired_producers_are_forgotten(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path), producer_id_expiration_ms=1000)
    _append(psm, 7, 1, 0, 0, 0)
    psm.remove_expired_producers(NOW + 999)
    assert psm.last_entry(7) is not None
    psm.remove_expired_producers(NOW + 1000)
    assert psm.last_entry(7) is None
