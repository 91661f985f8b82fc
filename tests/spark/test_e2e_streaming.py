"""Structured Streaming against a live sandbox cluster: rate limits, restarts and a dying leader.

Each query collects its micro-batches with ``foreachBatch`` into files named
after the batch id.  Spark re-runs an unfinished batch with the same id and
the same offsets after a restart, so rewriting that batch's file is the
idempotent write ``foreachBatch`` asks for, and the union of the files is
exactly what the query delivered.  The tests compare it with the
(partition, offset, value) of every record the brokers acknowledged.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.spark._e2e_helpers import live_cluster, produce, source

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def cluster():
    with live_cluster(seed=1403) as running:
        yield running


class BatchFiles:
    """A foreachBatch sink writing each micro-batch to ``<dir>/<batch id>.json``."""

    def __init__(self, directory: Path):
        self.directory = directory  # one file per batch id
        self.directory.mkdir(parents=True, exist_ok=True)
        self.runs: list[int] = []  # batch ids in the order Spark ran them (re-runs included)

    def __call__(self, batch, batch_id: int) -> None:
        rows = [[r.partition, r.offset, r.value.decode()]
                for r in batch.select("partition", "offset", "value").collect()]
        (self.directory / f"{batch_id}.json").write_text(json.dumps(sorted(rows)))
        self.runs.append(batch_id)

    def batches(self) -> dict[int, list[tuple[int, int, bytes]]]:
        return {int(path.stem): [(p, o, v.encode()) for p, o, v in json.loads(path.read_text())]
                for path in self.directory.glob("*.json")}

    def records(self) -> list[tuple[int, int, bytes]]:
        return [record for rows in self.batches().values() for record in rows]


def start(spark, cluster, topic: str, sink: BatchFiles, checkpoint: Path, name: str, trigger: dict, **options):
    return (spark.readStream.format("minikafka").options(**source(cluster, topic, **options)).load()
            .writeStream.queryName(name).foreachBatch(sink).option("checkpointLocation", str(checkpoint))
            .trigger(**trigger).start())


def wait_for(condition, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the streaming query made no progress"
        time.sleep(0.05)


def test_every_micro_batch_respects_maxOffsetsPerTrigger_and_nothing_is_missed(spark, cluster, tmp_path):
    cluster.create_topic("rated", partitions=3, replication_factor=3)
    produced = produce(cluster, "rated", range(150))
    sink = BatchFiles(tmp_path / "out")
    query = start(spark, cluster, "rated", sink, tmp_path / "ckpt", "rated", {"processingTime": "100 milliseconds"},
                  startingOffsets="earliest", maxOffsetsPerTrigger="40")
    try:
        query.processAllAvailable()
        produced |= produce(cluster, "rated", range(150, 250))  # arrives while the query runs
        query.processAllAvailable()
    finally:
        query.stop()
    sizes = [len(rows) for _, rows in sorted(sink.batches().items())]
    assert max(sizes) <= 40 and len(sizes) >= 7  # 250 records, at most 40 per trigger
    assert sorted(sink.records()) == sorted(produced)
    assert all(p["numInputRows"] <= 40 for p in query.recentProgress)


def test_a_query_stopped_mid_backlog_resumes_from_its_checkpoint(spark, cluster, tmp_path):
    cluster.create_topic("resumed", partitions=3, replication_factor=3)
    produced = produce(cluster, "resumed", range(300))
    sink = BatchFiles(tmp_path / "out")
    first = start(spark, cluster, "resumed", sink, tmp_path / "ckpt", "resumed_1",
                  {"processingTime": "100 milliseconds"}, startingOffsets="earliest", maxOffsetsPerTrigger="50")
    wait_for(lambda: len(sink.runs) >= 2)
    first.stop()  # possibly in the middle of a batch: the checkpoint decides what is redone
    assert len(sink.records()) < 300
    produced |= produce(cluster, "resumed", range(300, 360))  # arrives while no query runs
    # startingOffsets only applies to a new query; a restarted one resumes from its checkpoint
    second = start(spark, cluster, "resumed", sink, tmp_path / "ckpt", "resumed_2", {"availableNow": True},
                   startingOffsets="latest", maxOffsetsPerTrigger="50")
    second.awaitTermination(120)
    assert sorted(sink.records()) == sorted(produced)  # no gap, and no record in two batches
    assert len(sink.records()) == len(set(sink.records()))


def test_killing_the_leader_of_an_input_partition_mid_stream_loses_and_duplicates_nothing(spark, cluster, tmp_path):
    cluster.create_topic("failover", partitions=3, replication_factor=3, config={"min.insync.replicas": 2})
    produced = produce(cluster, "failover", range(300))
    sink = BatchFiles(tmp_path / "out")
    query = start(spark, cluster, "failover", sink, tmp_path / "ckpt", "failover",
                  {"processingTime": "100 milliseconds"}, startingOffsets="earliest", maxOffsetsPerTrigger="100")
    try:
        wait_for(lambda: len(sink.runs) >= 1)
        victim = cluster.leader("failover", 0)
        cluster.kill_broker(victim)  # while the query is still working through the backlog
        produced |= produce(cluster, "failover", range(300, 600))
        query.processAllAvailable()
        assert query.isActive and query.exception() is None
    finally:
        query.stop()
    assert cluster.leader("failover", 0) not in (None, victim)
    assert sorted(sink.records()) == sorted(produced)
    assert len(sink.records()) == 600
