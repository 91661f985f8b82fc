"""Tests for minikafka/tools/dump_log.py (segments, metadata logs) and the index files it hands on."""

import os
import struct

from minikafka.common.uuid import Uuid
from minikafka.metadata.records import NoOpRecord, TopicRecord
from minikafka.raft.kafka_metadata_log import encode_batch
from minikafka.raft.replicated_log import Batch, LeaderChangeMessage
from minikafka.record import record_batch as rb
from minikafka.record.memory_records import (ControlRecordType, SimpleRecord, build_batch, build_control_batch,
                                             end_txn_marker_value)
from minikafka.tools.dump_log import DumpOptions, dump_files

DEEP_DATA = DumpOptions(print_data_log=True)
SEGMENT = "00000000000000000000.log"


def _write(tmp_path, data: bytes, name: str = SEGMENT) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_golden_batch_and_record_lines(tmp_path):
    # Observed with Kafka's kafka-dump-log.sh --deep-iteration --print-data-log (fvaleri/strimzi-debugging,
    # sessions/001/README.md): one record, key "1", value "hello". Our bytes give the same size and CRC.
    batch = build_batch([SimpleRecord(b"hello", b"1", 1720108310684)], producer_id=0, producer_epoch=0,
                        base_sequence=0, partition_leader_epoch=0)
    path = _write(tmp_path, batch)
    out = dump_files([path], DEEP_DATA)
    assert out.text == (
        f"Dumping {path}\n"
        "Log starting offset: 0\n"
        "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: 0 producerEpoch: 0 "
        "partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty "
        "position: 0 CreateTime: 1720108310684 size: 74 magic: 2 compresscodec: none crc: 990125471 isvalid: true\n"
        "| offset: 0 CreateTime: 1720108310684 keySize: 1 valueSize: 5 sequence: 0 headerKeys: [] key: 1 "
        "payload: hello\n")
    assert out.exit_code == 0 and out.stderr == ""


def test_golden_second_batch_position_and_shallow_dump(tmp_path):
    # Observed (public Korean notes, Kafka via Confluent image): producer 1000, value "test message1":
    # "... position: 0 CreateTime: 1731413316107 size: 81 magic: 2 compresscodec: none crc: 4097350449 isvalid: true"
    first = build_batch([SimpleRecord(b"test message1", None, 1731413316107)], producer_id=1000, producer_epoch=0,
                        base_sequence=0, partition_leader_epoch=0)
    second = build_batch([SimpleRecord(b"test message2", None, 1731413316200)], base_offset=1, producer_id=1000,
                         producer_epoch=0, base_sequence=1, partition_leader_epoch=0)
    lines = dump_files([_write(tmp_path, first + second)]).stdout.splitlines()
    assert lines[2].endswith("position: 0 CreateTime: 1731413316107 size: 81 magic: 2 compresscodec: none "
                             "crc: 4097350449 isvalid: true")
    assert lines[3].startswith("baseOffset: 1 lastOffset: 1 count: 1 baseSequence: 1 lastSequence: 1 producerId: 1000 ")
    assert " position: 81 " in lines[3] and len(lines) == 4          # shallow: no record lines


def test_record_metadata_options_and_headers(tmp_path):
    batch = build_batch([SimpleRecord(b"v", None, 5, (("trace", b"1"), ("span", None))),
                         SimpleRecord(None, b"k", 6)], producer_id=7, producer_epoch=1, base_sequence=10)
    path = _write(tmp_path, batch)
    deep = dump_files([path], DumpOptions(deep_iteration=True)).stdout.splitlines()
    assert deep[3] == "| offset: 0 CreateTime: 5 keySize: -1 valueSize: 1 sequence: 10 headerKeys: [trace,span]"
    assert deep[4] == "| offset: 1 CreateTime: 6 keySize: 1 valueSize: -1 sequence: 11 headerKeys: []"
    skipped = dump_files([path], DumpOptions(print_data_log=True, skip_record_metadata=True)).stdout.splitlines()
    assert skipped[3:] == ["| payload: v", "| key: k"]         # 4.3.1, run on this file: "| " before the first part


def test_control_batches_transaction_markers(tmp_path):
    data = (build_batch([SimpleRecord(b"x", None, 1)], producer_id=4, producer_epoch=0, base_sequence=0,
                        is_transactional=True)
            + build_control_batch(ControlRecordType.COMMIT, end_txn_marker_value(3), timestamp=2, base_offset=1,
                                  producer_id=4, producer_epoch=0, is_transactional=True))
    lines = dump_files([_write(tmp_path, data)], DEEP_DATA).stdout.splitlines()
    assert "isTransactional: true isControl: true" in lines[4]
    assert lines[5] == "| offset: 1 CreateTime: 2 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] " \
                       "endTxnMarker: COMMIT coordinatorEpoch: 3"


def test_cluster_metadata_decoder(tmp_path):
    topic_id = Uuid.from_string("i2MC2bl0S6y0cd_PoC_ZgQ")
    data = (encode_batch(Batch(0, 1, 1000, (LeaderChangeMessage(1001, (1001, 1002, 1003), (1001, 1002)),), True))
            + encode_batch(Batch(1, 1, 1001, (TopicRecord("orders", topic_id), NoOpRecord()))))
    path = _write(tmp_path, data)
    lines = dump_files([path], DumpOptions(cluster_metadata_decoder=True)).stdout.splitlines()
    assert lines[3] == ("| offset: 0 CreateTime: 1000 keySize: 4 valueSize: 34 sequence: -1 headerKeys: [] LeaderChange: "
                        '{"version":0,"leaderId":1001,"voters":[{"voterId":1001},{"voterId":1002},{"voterId":1003}],'
                        '"grantingVoters":[{"voterId":1001},{"voterId":1002}]}')
    assert lines[5].endswith(' payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"orders",'
                             '"topicId":"i2MC2bl0S6y0cd_PoC_ZgQ"}}')
    assert lines[5].startswith("| offset: 1 CreateTime: 1001 keySize: -1 ")
    assert lines[6].endswith(' payload: {"type":"NO_OP_RECORD","version":0,"data":{}}')
    garbage = build_batch([SimpleRecord(b"\x01\x63\x00", None, 1)])
    bad = dump_files([_write(tmp_path, garbage, "00000000000000000005.log")], DumpOptions(cluster_metadata_decoder=True))
    assert bad.stdout.splitlines()[1] == "Log starting offset: 5"
    assert " payload: Error at 0, skipping. " in bad.stdout


def test_torn_tail_delete_horizon_and_invalid_crc(tmp_path):
    batch = bytearray(build_batch([SimpleRecord(b"v", b"k", 50)], base_offset=3))
    struct.pack_into(">h", batch, rb.ATTRIBUTES_OFFSET, 0x40)          # delete horizon flag; CRC now stale
    path = _write(tmp_path, bytes(batch) + bytes(batch)[:30])
    out = dump_files([path]).stdout.splitlines()
    assert "deleteHorizonMs: OptionalLong[50] " in out[2] and out[2].endswith("isvalid: false")
    assert out[3] == f"Found 30 invalid bytes at the end of {SEGMENT}"


def test_non_consecutive_offsets_are_reported_newest_first(tmp_path):
    compacted = build_batch([SimpleRecord(b"a", b"1", 1), SimpleRecord(b"b", b"2", 1), SimpleRecord(b"c", b"3", 1)],
                            offset_deltas=[0, 2, 5])
    path = _write(tmp_path, compacted)
    out = dump_files([path], DumpOptions(deep_iteration=True))
    assert out.stderr == f"Non-consecutive offsets in {os.path.abspath(path)}\n  2 is followed by 5\n  0 is followed by 2\n"
    assert dump_files([path]).stderr == ""                  # shallow iteration does not look


def test_crashes_and_unknown_files(tmp_path):
    unknown = dump_files([_write(tmp_path, b"", "notes.txt")])
    assert unknown.text == f"Dumping {tmp_path / 'notes.txt'}\nIgnoring unknown file {tmp_path / 'notes.txt'}\n"
    missing = dump_files([str(tmp_path / "00000000000000000009.log")])
    assert missing.stdout.endswith("Log starting offset: 9\n") and missing.exit_code == 1
    assert missing.stderr == f'Exception in thread "main" java.nio.file.NoSuchFileException: {tmp_path}/00000000000000000009.log\n'
    corrupt = bytearray(build_batch([SimpleRecord(b"v", None, 1)]))
    struct.pack_into(">i", corrupt, rb.LENGTH_OFFSET, 3)
    path = _write(tmp_path, bytes(corrupt))
    assert dump_files([path]).stderr == ('Exception in thread "main" org.apache.kafka.common.errors.'
                                         f"CorruptRecordException: Found record size 3 smaller than minimum record "
                                         f"overhead (14) in file {path}.\n")
    assert dump_files([_write(tmp_path, b"", "abc.log")]).stderr == (
        'Exception in thread "main" java.lang.NumberFormatException: For input string: "abc"\n')
    assert "StringIndexOutOfBoundsException: begin -1, end 5, length 5" in dump_files([str(tmp_path / "noext")]).stderr


def test_snapshot_headings(tmp_path):
    batch = encode_batch(Batch(0, 1, 5, (NoOpRecord(),)))
    snapshot = dump_files([_write(tmp_path, batch, "00000000000000000100-0000000001.checkpoint")]).stdout
    assert snapshot.splitlines()[1] == "Snapshot end offset: 100, epoch: 1"
    assert dump_files([_write(tmp_path, batch, "bootstrap.checkpoint")]).stdout.splitlines()[1] == \
        "KRaft bootstrap snapshot"
