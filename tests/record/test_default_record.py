
import pytest

from tests.client_batches import NOW, client_batch
from minikafka.common.errors import InvalidRecordException
from minikafka.record import record_batch as rb
from minikafka.record.byte_utils import write_varint
from minikafka.record.default_record import Record, read_records, scan_records
from minikafka.record.memory_records import SimpleRecord, build_batch


def _records_region(data):
    batch = rb.RecordBatch.parse(data)
    return batch, rb.RECORDS_OFFSET, batch.size_in_bytes


def test_read_records_of_a_client_batch():
    data = client_batch(count=3, value_size=4, headers=[("trace", b"x"), ("none", None)])
    batch, start, end = _records_region(data)
    records = read_records(data, start, end, batch.records_count, 100, batch.base_timestamp)
    assert [(r.offset, r.timestamp, r.key, r.value) for r in records] == [
        (100, NOW, b"key-0", b"AAAA"), (101, NOW + 1, b"key-1", b"BBBB"), (102, NOW + 2, b"key-2", b"CCCC")]
    assert records[0].headers == (("trace", b"x"), ("none", None))
    assert sum(r.size_in_bytes for r in records) == end - start


def test_scan_returns_deltas_and_sizes():
    data = client_batch(count=2, value_size=7, keys=False)
    batch, start, end = _records_region(data)
    assert scan_records(data, start, end, 2) == [(0, 0, -1, 7), (1, 1, -1, 7)]


def test_log_append_time_replaces_every_timestamp():
    data = client_batch(count=2)
    batch, start, end = _records_region(data)
    records = read_records(data, start, end, 2, 0, batch.base_timestamp, log_append_time=5)
    assert [r.timestamp for r in records] == [5, 5]


def test_declared_count_must_match_the_bytes():
    data = client_batch(count=3)
    batch, start, end = _records_region(data)
    with pytest.raises(InvalidRecordException, match="^Incorrect declared batch size, records still remaining in file$"):
        scan_records(data, start, end, 2)
    with pytest.raises(InvalidRecordException, match="^Incorrect declared batch size, premature EOF reached$"):
        scan_records(data, start, end, 4)
    with pytest.raises(InvalidRecordException, match="^Found invalid record count -1 in magic v2 batch$"):
        scan_records(data, start, end, -1)


def test_record_length_that_overruns_the_buffer():
    body = bytearray()
    write_varint(50, body)
    body += b"\x00" * 10
    with pytest.raises(InvalidRecordException, match="^Invalid record size: expected 50 bytes in record payload, "
                                                     "but instead the buffer has only 10 remaining bytes.$"):
        scan_records(body, 0, len(body), 1)
    with pytest.raises(InvalidRecordException, match="but the record payload reached EOF"):
        scan_records(body, 0, len(body), 1, stream=True)


def test_record_whose_fields_do_not_fill_its_length():
    body = bytearray()
    fields = bytearray(b"\x00")
    for value in (0, 0, -1, -1, 0):        # ts delta, offset delta, null key, null value, no headers
        write_varint(value, fields)
    write_varint(len(fields) + 1, body)
    body += fields + b"\x00"
    with pytest.raises(InvalidRecordException, match="^Invalid record size: expected to read 7 bytes in record "
                                                     "payload, but instead read 6$"):
        scan_records(body, 0, len(body), 1)


def test_negative_header_count():
    fields = bytearray(b"\x00")
    for value in (0, 0, -1, -1, -3):
        write_varint(value, fields)
    body = bytearray()
    write_varint(len(fields), body)
    body += fields
    with pytest.raises(InvalidRecordException, match="^Found invalid number of record headers -3$"):
        scan_records(body, 0, len(body), 1)


def test_record_to_string_is_kafkas():
    assert str(Record(5, NOW, b"k", b"value")) == f"DefaultRecord(offset=5, timestamp={NOW}, key=1 bytes, value=5 bytes)"


def test_the_fast_scan_agrees_with_the_general_walk_on_long_varints():
    # 300 records: offset deltas past 63, kilobyte values, keys, and timestamps far from the base
    from minikafka.record import default_record
    records = [SimpleRecord(value=b"v" * (i * 7 % 1500), key=(b"k%d" % i) if i % 3 else None,
                            timestamp=1_000_000 + i * 977) for i in range(300)]
    data = build_batch(records)
    count = len(records)
    start, end = 61, len(data)
    fast = default_record._fast_scan(data, start, end, count)
    slow = [(r[2], r[3], r[5], r[7]) for r in _walk_all(data, start, end, count)]
    assert fast is not None and fast == slow
    assert scan_records(data, start, end, count) == slow


def _walk_all(data, pos, end, count):
    from minikafka.record.default_record import _walk_one
    out = []
    for _ in range(count):
        pos, parts = _walk_one(data, pos, end, False)
        out.append(parts)
    return out
