import struct

import pytest

from _storage_helpers import NOW, client_batch, open_log, stored_batch
from minikafka.common.errors import InvalidRecordException
from minikafka.storage.producer_append_info import AppendOrigin
from minikafka.storage.unified_log import OffsetsOutOfOrderException


def test_a_torn_trailing_batch_is_dropped_not_written(tmp_path):
    log = open_log(tmp_path / "orders-0")
    info = log.append_as_leader(client_batch(count=2) + client_batch(count=2)[:30], 0, NOW)
    assert info.last_offset == 1 and log.log_end_offset == 2
    assert log.active_segment.size == len(client_batch(count=2))


def test_magic_v1_batches_from_producers_are_refused(tmp_path):
    log = open_log(tmp_path / "orders-0")
    legacy = struct.pack(">qiIbbqi", 0, 22, 0, 1, 0, NOW, -1) + struct.pack(">i", 0)
    with pytest.raises(InvalidRecordException, match="only allowed to contain record batches with magic version 2"):
        log.append_as_leader(legacy, 0, NOW)


def test_the_raft_leader_brings_its_own_offsets_and_epoch(tmp_path):
    log = open_log(tmp_path / "__cluster_metadata-0")
    info = log.append_as_leader(stored_batch(0, 3, epoch=5), 5, NOW, origin=AppendOrigin.RAFT_LEADER)
    assert (info.first_offset, info.last_offset, log.latest_epoch()) == (0, 2, 5)
    with pytest.raises(InvalidRecordException, match="^Append from Raft leader did not set the batch epoch correctly, "
                                                     "expected 6 but the batch has 5$"):
        log.append_as_leader(stored_batch(3, 1, epoch=5), 6, NOW, origin=AppendOrigin.RAFT_LEADER)


def test_follower_batches_must_increase(tmp_path):
    log = open_log(tmp_path / "orders-0")
    with pytest.raises(OffsetsOutOfOrderException, match="^Out of order offsets found in append to orders-0: "
                                                         "5,6,0,1$"):
        log.append_as_follower(stored_batch(5, 2) + stored_batch(0, 2), NOW)


def test_coordinator_writes_get_offsets_assigned(tmp_path):
    log = open_log(tmp_path / "__consumer_offsets-7")
    info = log.append_as_leader(client_batch(count=1), 3, NOW, origin=AppendOrigin.COORDINATOR)
    assert (info.first_offset, log.latest_epoch()) == (0, 3)
