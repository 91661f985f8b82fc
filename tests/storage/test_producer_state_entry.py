from minikafka.storage.producer_state_entry import BatchMetadata, ProducerStateEntry


def test_five_batches_are_kept_and_a_new_epoch_forgets_them():
    entry = ProducerStateEntry.empty(1)
    for i in range(7):
        entry.add_batch(0, i * 10 + 9, i * 10 + 9, 9, 1000 + i)
    assert [b.first_seq for b in entry.batch_metadata] == [20, 30, 40, 50, 60]
    assert (entry.first_seq, entry.last_seq, entry.last_data_offset, entry.last_timestamp) == (20, 69, 69, 1006)
    entry.add_batch(1, 0, 70, 0, 2000)
    assert list(entry.batch_metadata) == [BatchMetadata(0, 70, 0, 2000)] and entry.producer_epoch == 1


def test_batch_metadata_arithmetic_wraps_sequences():
    batch = BatchMetadata(last_seq=1, last_offset=50, offset_delta=3, timestamp=0)
    assert (batch.first_seq, batch.first_offset) == (2**31 - 2, 47)
