import struct

import pytest

from _storage_helpers import NOW, client_batch, offsets_of, records_of
from minikafka.common.errors import InvalidRecordException, InvalidTimestampException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType
from minikafka.record.record_batch import RecordBatch, TimestampType
from minikafka.storage.log_validator import LogValidator
from minikafka.storage.producer_append_info import AppendOrigin

TP = TopicPartition("orders", 0)
HOUR = 3600000


def _validate(data, source=CompressionType.NONE, target=None, compacted=False,
              timestamp_type=TimestampType.CREATE_TIME, now=NOW, offset=100, before=2**63 - 1):
    validator = LogValidator(TP, now, source, target or source, compacted, timestamp_type, before, HOUR, 7,
                             AppendOrigin.CLIENT)
    buf = bytearray(data)
    return validator.validate_and_assign_offsets(buf, list(rb.iter_batches(buf)), offset)


def test_uncompressed_batches_are_stamped_in_place():
    data = client_batch(count=3)
    result = _validate(data)
    stored = bytes(result.validated_records)
    batch = RecordBatch.parse(stored)
    assert (batch.base_offset, batch.last_offset, batch.partition_leader_epoch) == (100, 102, 7)
    assert stored[17:] == data[17:]                      # CRC and everything after it untouched
    assert (result.max_timestamp, result.last_offset, result.message_size_maybe_changed) == (NOW + 2, 102, False)


@pytest.mark.parametrize("codec", [1, 2, 3, 4])
def test_compressed_batches_keep_the_clients_bytes(codec):
    data = client_batch(count=4, value_size=300, codec=codec)
    source = CompressionType(codec)
    result = _validate(data, source)
    assert bytes(result.validated_records)[17:] == data[17:]
    assert offsets_of(bytes(result.validated_records)) == [100, 101, 102, 103]


def test_broker_side_recompression_re_encodes():
    data = client_batch(count=4, value_size=300, codec=1)
    result = _validate(data, CompressionType.GZIP, CompressionType.ZSTD)
    batch = RecordBatch.parse(bytes(result.validated_records))
    assert batch.compression_type is CompressionType.ZSTD and result.message_size_maybe_changed
    assert [r.value for r in records_of(bytes(result.validated_records))] == [r.value for r in records_of(data)]


def test_log_append_time_topics_stamp_the_broker_clock():
    result = _validate(client_batch(), timestamp_type=TimestampType.LOG_APPEND_TIME, now=NOW + 5000)
    stored = bytes(result.validated_records)
    batch = RecordBatch.parse(stored)
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME and batch.max_timestamp == NOW + 5000
    assert rb.is_valid(stored, batch) and result.max_timestamp == NOW + 5000
    assert [r.timestamp for r in records_of(stored)] == [NOW + 5000] * 3


def test_timestamps_too_far_in_the_future_are_rejected():
    with pytest.raises(InvalidTimestampException,
                       match="^One or more records have been rejected due to invalid timestamp$") as caught:
        _validate(client_batch(count=2, timestamp=NOW + HOUR), now=NOW)
    assert caught.value.record_errors == [
        (1, f"Timestamp {NOW + HOUR + 1} of message with offset 1 is out of range. The timestamp should be "
            f"within [{NOW - (2**63 - 1)}, {NOW + HOUR}]")]


def test_compacted_topics_need_keys():
    with pytest.raises(InvalidRecordException, match=r"^One or more records have been rejected due to 2 record "
                                                     r"errors in total, and only showing the first three errors at "
                                                     r"most: \[RecordError\(batchIndex=0, message='Compacted topic "
                                                     r"cannot accept message without key in topic partition "
                                                     r"orders-0'\), RecordError\(batchIndex=1"):
        _validate(client_batch(count=2, keys=False), compacted=True)


def _tamper(data, offset, fmt, value):
    buf = bytearray(data)
    struct.pack_into(fmt, buf, offset, value)
    return bytes(buf)


@pytest.mark.parametrize("field, fmt, value, message", [
    (57, ">i", 2, "Inconsistent batch offset range [0, 2] and count of records 2 in topic partition orders-0"),
    (57, ">i", 0, "Invalid reported count for record batch: 0 in topic partition orders-0"),
    (23, ">i", -1, "Batch has an invalid offset range: [0, -1] in topic partition orders-0"),
    (21, ">h", 0x20, "Clients are not allowed to write control records in topic partition orders-0"),
])
def test_batch_shape_errors(field, fmt, value, message):
    with pytest.raises(InvalidRecordException, match="^" + message.replace("[", r"\[").replace("]", r"\]") + "$"):
        _validate(_tamper(client_batch(count=3), field, fmt, value))


def test_a_producer_id_needs_a_sequence():
    data = _tamper(client_batch(producer=(5, 0, 0)), 53, ">i", -1)
    with pytest.raises(InvalidRecordException, match="^Invalid sequence number -1 in record batch with producerId 5 "
                                                     "in topic partition orders-0$"):
        _validate(data)


def test_one_batch_per_append():
    with pytest.raises(InvalidRecordException, match="^Compressed outer record has more than one batch$"):
        _validate(client_batch() + client_batch())
