import pytest
from kafka.record.default_records import DefaultRecordBatch

from tests.client_batches import NOW, client_batch
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType
from minikafka.record.memory_records import (ControlRecordType, SimpleRecord, build_batch, build_control_batch,
                                             decode_batches, decode_records, end_txn_marker_value,
                                             parse_end_txn_marker)
from minikafka.record.record_batch import RecordBatch, TimestampType


@pytest.mark.parametrize("codec", list(CompressionType))
def test_built_batches_carry_every_header_field(codec):
    records = [SimpleRecord(b"v" * 100, b"k%d" % i, NOW + i, (("h", b"1"),)) for i in range(4)]
    data = build_batch(records, base_offset=40, partition_leader_epoch=3, compression=codec, producer_id=9,
                       producer_epoch=1, base_sequence=7)
    batch = RecordBatch.parse(data)
    assert (batch.base_offset, batch.last_offset, batch.partition_leader_epoch) == (40, 43, 3)
    assert batch.compression_type is codec and rb.is_valid(data, batch)
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence, batch.records_count) == (9, 1, 7, 4)
    assert [(r.offset, r.key, r.timestamp, r.headers) for r in decode_records(data)] == [
        (40 + i, b"k%d" % i, NOW + i, (("h", b"1"),)) for i in range(4)]
    # kafka-python's own reader agrees, byte for byte
    theirs = DefaultRecordBatch(data)
    assert theirs.validate_crc() and [r.offset for r in theirs] == [40, 41, 42, 43]


def test_log_append_time_batches():
    data = build_batch([SimpleRecord(b"a", timestamp=1)], timestamp_type=TimestampType.LOG_APPEND_TIME,
                       log_append_time=NOW)
    batch = RecordBatch.parse(data)
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME and batch.max_timestamp == NOW
    assert [r.timestamp for r in decode_records(data)] == [NOW]


def test_transaction_marker_control_batch():
    data = build_control_batch(ControlRecordType.COMMIT, end_txn_marker_value(5), timestamp=NOW, base_offset=12,
                               producer_id=3, producer_epoch=0, is_transactional=True)
    (batch, (record,)), = decode_batches(data)
    assert batch.is_control_batch and batch.is_transactional and batch.base_offset == 12
    assert record.key == b"\x00\x00\x00\x01" and record.value == b"\x00\x00\x00\x00\x00\x05"
    assert parse_end_txn_marker(record) == (ControlRecordType.COMMIT, 5)


def test_decode_client_batches_of_every_codec():
    data = b"".join(client_batch(count=3, value_size=200, codec=c) for c in range(5))
    batches = decode_batches(data)
    assert [b.compression_type.id for b, _ in batches] == [0, 1, 2, 3, 4]
    assert all(len(records) == 3 for _, records in batches)
    assert decode_records(data + data[:30]) == decode_records(data)     # torn tail ignored


def test_an_empty_batch_is_refused():
    with pytest.raises(ValueError):
        build_batch([])
