import struct

import pytest

from tests.client_batches import NOW, client_batch
from minikafka.common.errors import CorruptRecordException, InvalidRecordException, KafkaException
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType
from minikafka.record.record_batch import RecordBatch, TimestampType


def test_header_of_a_client_batch():
    data = client_batch(count=3, producer=(7, 2, 40))
    batch = RecordBatch.parse(data)
    assert (batch.base_offset, batch.magic, batch.records_count, batch.last_offset_delta) == (0, 2, 3, 2)
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence, batch.last_sequence) == (7, 2, 40, 42)
    assert (batch.base_timestamp, batch.max_timestamp) == (NOW, NOW + 2)
    assert batch.size_in_bytes == len(data) and batch.batch_length == len(data) - 12
    assert (batch.last_offset, batch.next_offset) == (2, 3)
    assert batch.compression_type is CompressionType.NONE
    assert batch.timestamp_type is TimestampType.CREATE_TIME
    assert not batch.is_transactional and not batch.is_control_batch and batch.has_producer_id
    assert rb.is_valid(data, batch)


@pytest.mark.parametrize("codec", [1, 2, 3, 4])
def test_compressed_client_batches_are_recognised(codec):
    data = client_batch(count=5, value_size=300, codec=codec)
    batch = RecordBatch.parse(data)
    assert batch.compression_type.id == codec and batch.is_compressed
    rb.ensure_valid(data, batch)


def test_header_golden_layout():
    data = bytearray(client_batch(count=1, value_size=1))
    rb.set_base_offset(data, RecordBatch.parse(data), 0x0102030405060708)
    rb.set_partition_leader_epoch(data, RecordBatch.parse(data), 9)
    assert data[0:8] == bytes.fromhex("0102030405060708")         # baseOffset
    assert struct.unpack_from(">i", data, 8)[0] == len(data) - 12   # batchLength
    assert struct.unpack_from(">i", data, 12)[0] == 9               # partitionLeaderEpoch
    assert data[16] == 2                                            # magic
    assert struct.unpack_from(">q", data, 27)[0] == NOW             # baseTimestamp
    assert struct.unpack_from(">i", data, 57)[0] == 1               # recordsCount
    assert rb.RECORD_BATCH_OVERHEAD == 61


def test_offset_and_epoch_stamping_keeps_the_crc_valid():
    data = bytearray(client_batch())
    before = bytes(data[17:])
    batch = RecordBatch.parse(data)
    rb.set_last_offset(data, batch, 102)
    rb.set_partition_leader_epoch(data, batch, 4)
    stamped = RecordBatch.parse(data)
    assert (stamped.base_offset, stamped.last_offset, stamped.partition_leader_epoch) == (100, 102, 4)
    assert bytes(data[17:]) == before                 # crc, attributes and records untouched
    assert rb.is_valid(data, stamped)


def test_log_append_time_stamping_recomputes_the_crc():
    data = bytearray(client_batch())
    batch = RecordBatch.parse(data)
    assert rb.set_max_timestamp(data, batch, TimestampType.LOG_APPEND_TIME, NOW + 500)
    stamped = RecordBatch.parse(data)
    assert stamped.timestamp_type is TimestampType.LOG_APPEND_TIME and stamped.max_timestamp == NOW + 500
    assert stamped.crc != batch.crc and rb.is_valid(data, stamped)
    assert not rb.set_max_timestamp(data, stamped, TimestampType.LOG_APPEND_TIME, NOW + 500)


def test_flipped_byte_fails_the_crc_with_kafkas_text():
    data = bytearray(client_batch())
    data[-1] ^= 0xFF
    batch = RecordBatch.parse(data)
    assert not rb.is_valid(data, batch)
    with pytest.raises(CorruptRecordException, match=r"^Record is corrupt \(stored crc = \d+, computed crc = \d+\)$"):
        rb.ensure_valid(data, batch)


def test_iteration_stops_cleanly_at_an_incomplete_tail():
    one, two = client_batch(count=2), client_batch(count=4)
    buffer = one + two
    for cut in (len(one), len(one) + 5, len(one) + 16, len(buffer) - 1):
        assert [b.records_count for b in rb.iter_batches(buffer[:cut])] == [2]
        assert rb.valid_bytes(buffer[:cut]) == len(one)
    assert [b.position for b in rb.iter_batches(buffer)] == [0, len(one)]


def test_impossible_size_and_magic_are_corruption():
    data = bytearray(client_batch())
    struct.pack_into(">i", data, 8, 3)
    with pytest.raises(CorruptRecordException, match=r"^Record size 3 is less than the minimum record overhead \(14\)$"):
        list(rb.iter_batches(data))
    data = bytearray(client_batch())
    data[16] = 7
    with pytest.raises(CorruptRecordException, match="^Invalid magic found in record: 7$"):
        list(rb.iter_batches(data))


def test_legacy_magic_is_recognised_not_parsed():
    legacy = struct.pack(">qiIbbqi", 5, 22, 0, 1, 0, NOW, -1) + struct.pack(">i", 0)
    (batch,) = rb.iter_batches(legacy)
    assert batch.magic == 1 and batch.base_offset == 5 and batch.size_in_bytes == 34


def test_sequence_arithmetic_wraps():
    assert rb.increment_sequence(2**31 - 2, 3) == 1
    assert rb.decrement_sequence(1, 3) == 2**31 - 2


def test_to_string_matches_kafka():
    batch = RecordBatch.parse(client_batch(count=2))
    assert str(batch) == (f"RecordBatch(magic=2, offsets=[0, 1], sequence=[-1, -1], isTransactional=false, "
                          f"isControlBatch=false, compression=none, timestampType=CreateTime, crc={batch.crc})")


def test_produce_request_record_rules():
    rb.check_produce_records(9, client_batch())
    with pytest.raises(InvalidRecordException, match="^Produce requests with version 9 must have at least one "
                                                     "record batch per partition$"):
        rb.check_produce_records(9, b"")
    with pytest.raises(InvalidRecordException, match="only allowed to contain exactly one record batch"):
        rb.check_produce_records(9, client_batch() + client_batch())
    legacy = struct.pack(">qiIbbqi", 0, 22, 0, 1, 0, NOW, -1) + struct.pack(">i", 0)
    with pytest.raises(InvalidRecordException, match="^Produce requests with version 3 are only allowed to contain "
                                                     "record batches with magic version 2$"):
        rb.check_produce_records(3, legacy)
    with pytest.raises(KafkaException, match="^Produce requests with version 6 are not allowed to use ZStandard"):
        rb.check_produce_records(6, client_batch(count=5, value_size=300, codec=4))
