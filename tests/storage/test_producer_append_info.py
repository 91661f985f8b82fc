import pytest

from minikafka.common.errors import InvalidTxnStateException, TransactionCoordinatorFencedException
from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.producer_append_info import AppendOrigin, CompletedTxn, ProducerAppendInfo
from minikafka.storage.producer_state_entry import ProducerStateEntry

TP = TopicPartition("orders", 0)


def test_a_transaction_opens_with_its_first_batch_and_closes_with_a_marker():
    info = ProducerAppendInfo(TP, 9, ProducerStateEntry.empty(9), AppendOrigin.CLIENT)
    info.append_data_batch(0, 0, 2, 100, 10, 12, True)
    assert info.started_transactions == [10] and info.to_entry().current_txn_first_offset == 10
    with pytest.raises(InvalidTxnStateException, match="^Expected transactional write from producer 9 at offset 13"):
        info.append_data_batch(0, 3, 3, 101, 13, 13, False)
    completed = info.append_end_txn_marker(True, 4, 0, 14, 102)
    assert completed == CompletedTxn(9, 10, 14, True)
    assert info.to_entry().current_txn_first_offset is None and info.to_entry().coordinator_epoch == 4


def test_a_zombie_coordinator_is_fenced():
    entry = ProducerStateEntry.empty(9)
    entry.coordinator_epoch = 5
    info = ProducerAppendInfo(TP, 9, entry, AppendOrigin.COORDINATOR)
    with pytest.raises(TransactionCoordinatorFencedException, match=r"4 \(zombie\), 5 \(current\)$"):
        info.append_end_txn_marker(False, 4, 0, 3, 1)
