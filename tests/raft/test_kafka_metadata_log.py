"""KafkaMetadataLog: the KRaft log on disk as RecordBatch v2 segments, reopened after restarts."""

from minikafka.common.uuid import Uuid
from minikafka.metadata import serde
from minikafka.metadata.records import NoOpRecord, TopicRecord
from minikafka.raft.kafka_metadata_log import (KafkaMetadataLog, decode_leader_change,
                                               encode_leader_change)
from minikafka.raft.replicated_log import Batch, LeaderChangeMessage
from minikafka.record.memory_records import decode_batches
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler

NOW = 1767225600000
TOPIC = TopicRecord(name="orders", topic_id=Uuid(1, 2))


def open_log(path):
    return KafkaMetadataLog.open(str(path), lambda: NOW)


def test_leader_change_control_record_round_trip():
    message = LeaderChangeMessage(1001, (1001, 1002, 1003), (1001, 1002))
    data = encode_leader_change(message)
    assert data[:2] == b"\x00\x00"                       # control record value version 0
    assert decode_leader_change(data) == message


def test_batches_reach_disk_as_kafka_record_batches(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader([LeaderChangeMessage(1001, (1001,), (1001,))], 1, NOW, is_control=True)
    log.append_as_leader([TOPIC, NoOpRecord()], 1, NOW)
    segment = tmp_path / "__cluster_metadata-0" / "00000000000000000000.log"
    batches = decode_batches(segment.read_bytes())
    assert [b.base_offset for b, _ in batches] == [0, 1]
    control, data = batches
    assert control[0].is_control_batch and control[0].partition_leader_epoch == 1
    assert [serde.deserialize(r.value) for r in data[1]] == [TOPIC, NoOpRecord()]
    assert all(r.key is None for r in data[1])
    metadata = (tmp_path / "__cluster_metadata-0" / "partition.metadata").read_text()
    assert metadata == "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"


def test_reopen_after_a_crash_keeps_every_complete_batch(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader([LeaderChangeMessage(1001, (1001,), (1001,))], 1, NOW, is_control=True)
    log.append_as_leader([TOPIC], 1, NOW)
    log.crash()
    segment = tmp_path / "__cluster_metadata-0" / "00000000000000000000.log"
    with open(segment, "ab") as handle:
        handle.write(b"\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x01")   # a torn third batch
    again = open_log(tmp_path)
    assert again.end_offset == 2 and again.last_fetched_epoch == 1
    assert again.read(1)[0].records == (TOPIC,)
    assert again.end_offset_for_epoch(1).offset == 2


def test_truncation_removes_the_tail_on_disk_too(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader([LeaderChangeMessage(1001, (1001,), (1001,))], 1, NOW, is_control=True)
    log.append_as_leader([TOPIC], 1, NOW)
    log.append_as_leader([NoOpRecord()], 2, NOW)
    log.truncate_to(2)
    assert log.end_offset == 2
    log.close()
    CleanShutdownFileHandler(str(tmp_path)).write(-1)
    assert open_log(tmp_path).end_offset == 2


def test_appends_continue_after_reopen(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader([TOPIC], 1, NOW)
    log.close()
    again = open_log(tmp_path)
    again.append_as_follower([Batch(1, 2, NOW, (NoOpRecord(),))])
    assert [b.base_offset for b in again.read(0)] == [0, 1]
    assert again.size_in_bytes > 0
