"""Storage both ways: a partition directory written by one side is served by the other.

Both sides get the same batches (built once by kafka-python: keys, headers,
gzip and none, an idempotent producer, timestamps out of order, three
segments rolled by ``segment.ms``) in a topic of their own,
``written-by-kafka`` on a real combined node and ``written-by-sandbox`` on
the sandbox's; each side also creates the other's topic, empty.  Both nodes
are stopped cleanly (the two directories just written must then hold the
same bytes in every file), then each side's empty partition directory gets
the other side's files (segment, offset and time index,
leader-epoch-checkpoint, producer snapshot), keeping its own
``partition.metadata``: that file holds the topic id its own controller gave
the topic, as an operator who moves a partition between clusters must keep
it.  The log dir's checkpoints still say the moved partition was empty at a
clean shutdown, which is what each broker trusts on loading it.

After both nodes start again, every read of the moved partition must equal
the same read of the partition its broker wrote itself, on both sides: the
records a consumer gets from offset 0 (offsets, keys, values, headers,
timestamps), the batches as fetched (base offsets, leader epochs, producer
fields, CRCs), the batch a fetch from each offset starts with (the offset
index), ListOffsets by time (the time index), the high watermark, and how
each broker answers a retry of the last idempotent batch (the producer
state rebuilt from the moved files).  Neither broker may rebuild a moved
index on that clean load.  Then both nodes crash (SIGKILL, the sandbox's
``kill``) and start again: without the clean-shutdown marker each recovers
every segment of the moved partition (its recovery point is set back to 0,
as if never checkpointed; Kafka's log and the sandbox's ``recovery`` events
must name each segment), checking every batch and rebuilding the indexes
and the producer state, and every read must answer exactly as before.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from kafka.record.memory_records import MemoryRecords

from minikafka import Cluster
from tests.client_batches import client_batch
from tests.oracle.real_kafka import RealKafkaCluster
from tests.oracle.sides import RealSide, SandboxSide
from tests.oracle.test_protocol import list_offsets, produce

pytestmark = pytest.mark.slow

FETCH, CREATE_TOPICS = 1, 19
BY_KAFKA, BY_SANDBOX = "written-by-kafka", "written-by-sandbox"
PRODUCER = 4242                               # an idempotent producer's id, epoch 0
HEADERS = [("trace", b"t-1"), ("lang", b"fr")]
# (records, codec, keys, headers, first timestamp after T, producer sequence or None): 1000-byte values,
# so Kafka's index.interval.bytes (4096) puts entries in the offset and time indexes.
BATCHES = [(5, 0, True, HEADERS, 0, None), (6, 1, True, (), 1_000, None),
           (4, 0, False, (), 2_000, 0), (5, 1, True, HEADERS, 3_000, 4),
           (3, 0, True, (), 500, None),                  # older than the batch before it
           (7, 1, False, HEADERS, 5_000, None), (4, 0, True, (), 6_000, 9),
           (5, 0, True, HEADERS, 7_000, None)]
# segment.ms is measured between record timestamps: a batch whose newest record is more than 2.5 s newer
# than the first batch of the active segment starts a new segment, so the partition rolls before the
# 4th and 7th batches (segments at offsets 0, 15 and 30; the second holds the out-of-order batch).
SEGMENT_MS = 2_500
SEGMENTS = [0, 15, 30]
# T: the records' first timestamp, a minute before the test starts.  Not a fixed date: a broker that loads a
# producer snapshot drops producers whose last timestamp is older than producer.id.expiration.ms (1 day),
# and the retry below needs the idempotent producer to survive the restart.
T = (int(time.time()) - 60) * 1000


def batch_bytes(spec) -> bytes:
    count, codec, keys, headers, delay, sequence = spec
    producer = None if sequence is None else (PRODUCER, 0, sequence)
    return client_batch(count, value_size=1000, codec=codec, timestamp=T + delay, producer=producer, keys=keys,
                        headers=headers)


# Built once: gzip stamps its header with the time of compression, and every side must get the same bytes.
STORED = [batch_bytes(spec) for spec in BATCHES]


def expected_records() -> list[tuple]:
    """What a consumer must read from offset 0: offsets follow the batches' record counts."""
    records, offset = [], 0
    for index in range(len(BATCHES)):
        batch = MemoryRecords(STORED[index]).next_batch()
        for record in batch:
            records.append((offset, record.key, record.value, tuple(record.headers), record.timestamp, 0))
            offset += 1
    return records


def create_topics(side, *names: str) -> None:
    with side.raw() as connection:
        answer = connection.request(CREATE_TOPICS, 7, timeout_ms=30_000, validate_only=False, topics=[
            {"name": name, "num_partitions": 1, "replication_factor": 1, "assignments": [],
             "configs": [{"name": "segment.ms", "value": str(SEGMENT_MS)}]}
            for name in names])
    assert [(t["name"], t["error_code"]) for t in answer["topics"]] == [(name, 0) for name in names], answer


def fetch(side, topic: str, offset: int, max_bytes: int = 1 << 20) -> dict:
    with side.raw() as connection:
        answer = connection.request(FETCH, 11, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes,
                                    isolation_level=0, session_id=0, session_epoch=-1, forgotten_topics_data=[],
                                    rack_id="", topics=[{"topic": topic, "partitions": [
                                        {"partition": 0, "current_leader_epoch": -1, "fetch_offset": offset,
                                         "log_start_offset": -1, "partition_max_bytes": max_bytes}]}])
    return answer["responses"][0]["partitions"][0]


def batches(records_hex: str | None) -> list:
    records = MemoryRecords(bytes.fromhex(records_hex or ""))
    found = []
    while (batch := records.next_batch()) is not None:
        found.append(batch)
    return found


def consume(side, topic: str, count: int) -> list[tuple]:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(**side.client_options(group_id=None, enable_auto_commit=False))
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        consumer.seek(partition, 0)
        got, deadline = [], time.monotonic() + 30
        while len(got) < count and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                got += [(r.offset, r.key, r.value, tuple((k, bytes(v)) for k, v in r.headers), r.timestamp,
                         r.timestamp_type) for r in records]
        return got
    finally:
        consumer.close()


def reads(side, topic: str) -> dict:
    """Everything a client can learn of the partition's stored batches (nothing here writes)."""
    side.wait_until(lambda: fetch(side, topic, 0)["error_code"] == 0, what=f"{topic}-0 served")
    whole = fetch(side, topic, 0)
    end, stored = whole["high_watermark"], []
    while not stored or stored[-1].next_offset < end:       # a fetch reads from one segment at a time
        stored += batches(fetch(side, topic, stored[-1].next_offset if stored else 0)["records"])
    timestamps = sorted({T - 1, T + 9_000} | {T + spec[4] + i for spec in BATCHES for i in range(spec[0])})
    return {
        "consumed": consume(side, topic, end),
        "batches": [(b.base_offset, b.last_offset, b.leader_epoch, b.compression_type, b.producer_id,
                     b.producer_epoch, b.base_sequence, b.crc, b.size_in_bytes, b.first_timestamp,
                     b.max_timestamp) for b in stored],
        "offsets": {key: whole[key] for key in ("error_code", "high_watermark", "last_stable_offset",
                                                 "log_start_offset")},
        "first batch fetched from each offset": [batches(fetch(side, topic, o)["records"])[0].base_offset
                                                 for o in range(end)],
        "list offsets": [(ts, answer["offset"], answer["timestamp"])
                         for ts in [-2, -1, -3, *timestamps]
                         for answer in [list_offsets(side, topic, 0, ts, version=7)]],
    }


def retry_last_idempotent_batch(side, topic: str) -> dict:
    """The producer state loaded from the directory decides: a duplicate is answered with its first offset."""
    answer = produce(side, topic, 0, STORED[6])[0]["partition_responses"][0]
    return {key: answer[key] for key in ("error_code", "base_offset", "log_start_offset")}


def stored_files(directory: Path) -> dict[str, bytes]:
    """A partition directory's files but partition.metadata (which holds each cluster's own topic id)."""
    return {path.name: path.read_bytes() for path in directory.iterdir() if path.name != "partition.metadata"}


def transplant(source: Path, target: Path) -> dict[str, int]:
    """Replace the partition's files in ``target`` with ``source``'s, keeping the target's partition.metadata;
    the name and size of each file moved."""
    for path in target.iterdir():
        if path.name != "partition.metadata":
            path.unlink()
    moved = {}
    for path in sorted(source.iterdir()):
        if path.name != "partition.metadata":
            shutil.copy2(path, target / path.name)
            moved[path.name] = path.stat().st_size
    return moved


def recoveries(real: RealKafkaCluster, sandbox: Cluster, since_seq: int) -> tuple[list[str], list[str]]:
    """What each broker said about recovering the partition moved to it: the real node's log lines since it
    started, the sandbox's ``recovery`` events since ``since_seq``."""
    words = ("Recovering unflushed segment", "corrupted index file", "Could not find offset index file")
    kafka = [line for line in real.nodes[1].log().splitlines()
             if f"partition={BY_SANDBOX}-0," in line and any(word in line for word in words)]
    box = [event.text for event in sandbox.events.since(since_seq, {"recovery"})
           if event.data.get("partition") == f"{BY_KAFKA}-0"]
    return kafka, box


def recovered_segments(lines: list[str]) -> list[int]:
    """The base offsets of the segments a broker says it recovered ("[Rr]ecovering unflushed segment N." in
    Kafka's log line and in the sandbox's event alike)."""
    return [int(match.group(1)) for line in lines
            for match in [re.search(r"[Rr]ecovering unflushed segment (\d+)\.", line)] if match]


def never_flushed(log_dir: Path, topic: str) -> None:
    """Set the partition's recovery point back to 0 in the log dir's checkpoint, as if the broker had crashed
    before its periodic checkpoint (every 60 s, the first 30 s after start) wrote the offset it reached:
    the crash recovery then covers every segment, however long the reads before it took."""
    checkpoint = log_dir / "recovery-point-offset-checkpoint"
    version, count, *entries = checkpoint.read_text(encoding="utf-8").splitlines()
    entries = [f"{topic} 0 0" if entry.startswith(f"{topic} 0 ") else entry for entry in entries]
    assert f"{topic} 0 0" in entries, entries
    checkpoint.write_text("".join(f"{line}\n" for line in (version, count, *entries)), encoding="utf-8")


def served_alike(kafka, box, sandbox) -> dict:
    """Every read of each of the four partitions; the moved ones must answer as their neighbours do."""
    want = expected_records()
    seen = {}
    for side in (kafka, box):
        for topic in (BY_KAFKA, BY_SANDBOX):
            seen[side.name, topic] = reads(side, topic)
            assert seen[side.name, topic]["consumed"] == want, (side.name, topic)
    assert seen["kafka", BY_SANDBOX] == seen["kafka", BY_KAFKA]
    assert seen["sandbox", BY_KAFKA] == seen["sandbox", BY_SANDBOX]
    assert seen["kafka", BY_KAFKA] == seen["sandbox", BY_SANDBOX]
    assert seen["kafka", BY_KAFKA]["offsets"]["high_watermark"] == len(want)

    retries = {(side.name, topic): retry_last_idempotent_batch(side, topic)
               for side in (kafka, box) for topic in (BY_KAFKA, BY_SANDBOX)}
    first_offset = sum(spec[0] for spec in BATCHES[:6])       # where the retried batch was stored
    assert set(map(str, retries.values())) == {str({"error_code": 0, "base_offset": first_offset,
                                                    "log_start_offset": 0})}, retries
    replica = sandbox.snapshot().topic(BY_KAFKA).partitions[0].replica_states[0]
    assert (replica.log_end_offset, replica.high_watermark) == (len(want), len(want))
    return seen


def write_the_same_and_stop(kafka: RealSide, box: SandboxSide) -> None:
    """Both topics on both sides; each side writes the batches to its own; both stop cleanly, and then the
    two directories just written hold the same bytes in every file (partition.metadata aside)."""
    for side, own in ((kafka, BY_KAFKA), (box, BY_SANDBOX)):
        create_topics(side, BY_KAFKA, BY_SANDBOX)
        side.wait_until(lambda: fetch(side, own, 0)["error_code"] == 0, what=f"{own}-0 has a leader")
        for batch in STORED:
            answer = produce(side, own, 0, batch)[0]["partition_responses"][0]
            assert answer["error_code"] == 0, (side.name, answer)
    kafka.stop_broker(1)
    box.cluster.shutdown(1)
    written = {side.name: stored_files(side.node_dir(1) / f"{own}-0") for side, own in
               ((kafka, BY_KAFKA), (box, BY_SANDBOX))}
    assert sorted(written["kafka"]) == sorted(written["sandbox"])
    assert [name for name in written["kafka"] if written["kafka"][name] != written["sandbox"][name]] == []


def swap_directories(kafka: RealSide, box: SandboxSide) -> None:
    """Each side's empty copy of the other's topic gets the files the other wrote."""
    moved_to_kafka = transplant(box.node_dir(1) / f"{BY_SANDBOX}-0", kafka.node_dir(1) / f"{BY_SANDBOX}-0")
    moved_to_sandbox = transplant(kafka.node_dir(1) / f"{BY_KAFKA}-0", box.node_dir(1) / f"{BY_KAFKA}-0")
    for moved in (moved_to_kafka, moved_to_sandbox):    # indexes with entries: lookups use them
        assert sorted(name for name in moved if name.endswith(".log")) == [f"{o:020d}.log" for o in SEGMENTS]
        assert "leader-epoch-checkpoint" in moved, moved
        assert [name for name, size in moved.items() if name.endswith(".index") and size], moved


def test_each_side_serves_the_partition_directory_the_other_wrote(real_kafka_available, tmp_path):
    real = RealKafkaCluster(tmp_path / "kafka", config={"offsets.topic.replication.factor": 1})
    sandbox = Cluster(brokers=[1], controllers=[1], combined=True, timing="kafka", data_dir=tmp_path / "sandbox",
                      broker_config={"offsets.topic.replication.factor": 1})
    try:
        real.start()
        sandbox.start()
        kafka, box = RealSide(real), SandboxSide(sandbox)
        write_the_same_and_stop(kafka, box)
        swap_directories(kafka, box)
        restarted_at = sandbox.events.last_seq
        kafka.start_broker(1)
        box.start_broker(1)
        # A clean load trusts the files: neither broker may find a moved index corrupt and rebuild it.
        assert recoveries(real, sandbox, restarted_at) == ([], [])
        clean = served_alike(kafka, box, sandbox)
        # A crash now: neither broker has its clean-shutdown marker when it starts again, so each recovers
        # the moved partition's segments from its recovery point: every batch is read and checked, the
        # indexes and the producer state are rebuilt from the batches.  Nothing a client sees may change.
        kafka.kill_broker(1)
        box.kill_broker(1)
        for side, topic in ((kafka, BY_SANDBOX), (box, BY_KAFKA)):
            never_flushed(side.node_dir(1), topic)
        crashed_at = sandbox.events.last_seq
        kafka.start_broker(1)
        box.start_broker(1)
        kafka_recovered, sandbox_recovered = recoveries(real, sandbox, crashed_at)
        assert recovered_segments(kafka_recovered) == SEGMENTS, kafka_recovered
        assert recovered_segments(sandbox_recovered) == SEGMENTS, sandbox_recovered
        # The sandbox's event says what Kafka's LogLoader logged (the partition's name aside).
        kafka_said = [re.search(r"\] (Recovering unflushed segment .*?) \(", line).group(1).replace(BY_SANDBOX, BY_KAFKA)
                      for line in kafka_recovered if "Recovering unflushed segment" in line]
        assert kafka_said == [text for text in sandbox_recovered if text.startswith("Recovering unflushed")]
        assert served_alike(kafka, box, sandbox) == clean
    finally:
        try:
            sandbox.stop()
        finally:
            real.stop()
