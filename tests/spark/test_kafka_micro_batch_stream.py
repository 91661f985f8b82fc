"""The stream reader's cycle, driven directly (no JVM), then through Spark (marked ``spark``)."""

from __future__ import annotations

import logging
import pickle

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

from minikafka.spark.errors import KafkaIllegalStateException
from minikafka.spark.kafka_micro_batch_stream import KafkaMicroBatchStream, rate_limit
from tests.spark._spark_helpers import fill, options, rows, tp


def test_rate_limit_shares_the_limit_in_proportion_to_backlog():
    start = {tp("t", 0): 0, tp("t", 1): 10, tp("t", 2): 5}
    until = {tp("t", 0): 60, tp("t", 1): 40, tp("t", 2): 15}  # backlogs 60, 30, 10
    assert rate_limit(10, start, until, lambda new: {}) == {tp("t", 0): 6, tp("t", 1): 13, tp("t", 2): 6}


def test_rate_limit_never_starves_a_small_partition_nor_passes_the_end():
    start = {tp("t", 0): 0, tp("t", 1): 0}
    until = {tp("t", 0): 1000, tp("t", 1): 1}  # share of t-1 is below one record
    assert rate_limit(10, start, until, lambda new: {}) == {tp("t", 0): 9, tp("t", 1): 1}
    assert rate_limit(5000, start, until, lambda new: {}) == until


def test_rate_limit_starts_new_partitions_at_their_earliest_offset():
    start = {tp("t", 0): 0}
    until = {tp("t", 0): 10, tp("t", 1): 30}
    limited = rate_limit(8, start, until, lambda new: {tp("t", 1): 10})  # backlogs 10 and 20
    assert limited == {tp("t", 0): 2, tp("t", 1): 15}


def test_rate_limit_with_nothing_to_read_returns_the_end():
    assert rate_limit(5, {tp("t", 0): 3}, {tp("t", 0): 3}, lambda new: {}) == {tp("t", 0): 3}


@pytest.fixture
def cluster(kafka):
    kafka.create_topic("t", 2)
    fill(kafka, "t", {0: 6, 1: 2})
    return kafka


def stream(cluster, **extra):
    return KafkaMicroBatchStream(options(cluster, subscribe="t", **extra))


def test_initial_offset_follows_starting_offsets(cluster):
    assert stream(cluster).initialOffset() == {"t": {"0": 6, "1": 2}}
    assert stream(cluster, startingOffsets="earliest").initialOffset() == {"t": {"0": 0, "1": 0}}
    specific = stream(cluster, startingOffsets='{"t":{"0":4,"1":-2}}')
    assert specific.initialOffset() == {"t": {"0": 4, "1": 0}}


def test_default_read_limit_comes_from_max_offsets_per_trigger(cluster):
    assert stream(cluster).getDefaultReadLimit() == ReadAllAvailable()
    assert stream(cluster, maxOffsetsPerTrigger="3").getDefaultReadLimit() == ReadMaxRows(3)


def test_latest_offset_respects_the_limit_it_is_given(cluster):
    reader = stream(cluster, maxOffsetsPerTrigger="4")
    start = {"t": {"0": 0, "1": 0}}
    assert reader.latestOffset(start, ReadMaxRows(4)) == {"t": {"0": 3, "1": 1}}
    assert reader.latestOffset(start, ReadAllAvailable()) == {"t": {"0": 6, "1": 2}}
    assert reader.reportLatestOffset() == {"t": {"0": 6, "1": 2}}


def test_a_cycle_reads_each_offset_once(cluster):
    reader = stream(cluster, startingOffsets="earliest", maxOffsetsPerTrigger="5")
    start, seen = reader.initialOffset(), []
    for _ in range(4):
        end = reader.latestOffset(start, reader.getDefaultReadLimit())
        for partition in reader.partitions(start, end):
            seen += [(row[3], row[4]) for row in rows(reader.read(partition))]
        reader.commit(end)
        start = end
    assert sorted(seen) == [(0, n) for n in range(6)] + [(1, n) for n in range(2)]
    assert reader.latestOffset(start, reader.getDefaultReadLimit()) == start  # no new data
    assert reader.partitions(start, start) == []
    reader.stop()


def test_new_partitions_are_read_from_earliest(cluster):
    reader = stream(cluster)
    start = reader.initialOffset()
    cluster.add_partitions("t", 3)
    fill(cluster, "t", {2: 3})
    end = reader.latestOffset(start, ReadAllAvailable())
    assert end == {"t": {"0": 6, "1": 2, "2": 3}}
    [partition] = reader.partitions(start, end)
    assert [row[4] for row in rows(reader.read(partition))] == [0, 1, 2]


def test_deleted_partitions_fail_or_warn_as_configured(cluster, caplog):
    start, end = {"t": {"0": 6}, "gone": {"0": 1}}, {"t": {"0": 6}}
    with pytest.raises(KafkaIllegalStateException) as error:
        stream(cluster).partitions(start, end)
    assert error.value.condition == "KAFKA_DATA_LOSS.PARTITIONS_DELETED"
    with caplog.at_level(logging.WARNING, logger="minikafka.spark"):
        assert stream(cluster, failOnDataLoss="false").partitions(start, end) == []
    assert "Set(gone-0) are gone. Some data may have been missed.." in caplog.text
    assert 'set the source\n option "failOnDataLoss" to "true".' in caplog.text


def test_a_topic_with_no_matching_partitions_has_no_new_data(kafka):
    reader = KafkaMicroBatchStream(options(kafka, subscribePattern="^nothing"))
    start = reader.initialOffset()
    assert start == {}
    assert reader.latestOffset(start, ReadAllAvailable()) == {}


def test_available_now_stops_at_the_offsets_fetched_up_front(cluster):
    reader = stream(cluster, startingOffsets="earliest")
    reader.prepareForTriggerAvailableNow()
    fill(cluster, "t", {0: 5}, start=6)
    assert reader.latestOffset(reader.initialOffset(), ReadAllAvailable()) == {"t": {"0": 6, "1": 2}}


def test_the_pickled_reader_carries_no_client(cluster):
    reader = stream(cluster)
    reader.initialOffset()
    assert reader._reader is not None
    copy = pickle.loads(pickle.dumps(reader))
    assert copy._reader is None
    assert copy.group_id == reader.group_id


# -- through Spark -----------------------------------------------------------------------


def run_available_now(spark, kafka, checkpoint, name, **extra):
    """One Trigger.AvailableNow run; returns (query progress, rows read).

    The rows are collected with foreachBatch: unlike the memory sink in append
    mode, it lets a query restart from its checkpoint.
    """
    rows = []

    def collect(batch, batch_id):
        rows.extend((r.partition, r.offset, r.value) for r in batch.collect())

    query = (spark.readStream.format("minikafka").options(**options(kafka, subscribe="t", **extra)).load()
             .writeStream.queryName(name).foreachBatch(collect).option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    return query.recentProgress, rows


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_max_offsets_per_trigger_splits_the_backlog_across_triggers(spark, kafka, tmp_path):
    kafka.create_topic("t", 3)
    fill(kafka, "t", {0: 6, 1: 12, 2: 12})
    progress, rows = run_available_now(spark, kafka, tmp_path / "ckpt", "rate_limited",
                                       startingOffsets="earliest", maxOffsetsPerTrigger="10")
    batches = [p for p in progress if p["numInputRows"] > 0]
    assert [p["numInputRows"] for p in batches] == [10, 10, 10]
    assert [p["sources"][0]["endOffset"] for p in batches] == [
        '{"t": {"0": 2, "1": 4, "2": 4}}', '{"t": {"0": 4, "1": 8, "2": 8}}', '{"t": {"0": 6, "1": 12, "2": 12}}'
    ]
    assert sorted((p, o) for p, o, _ in rows) == sorted(
        [(0, n) for n in range(6)] + [(p, n) for p in (1, 2) for n in range(12)]
    )


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_a_restarted_query_resumes_from_its_checkpoint(spark, kafka, tmp_path):
    kafka.create_topic("t", 2)
    fill(kafka, "t", {0: 3, 1: 2})
    _, first = run_available_now(spark, kafka, tmp_path / "ckpt", "resume_1", startingOffsets="earliest")
    fill(kafka, "t", {0: 2, 1: 1}, start=10)
    kafka.add_partitions("t", 3)
    fill(kafka, "t", {2: 2})
    _, second = run_available_now(spark, kafka, tmp_path / "ckpt", "resume_2", startingOffsets="latest")
    assert sorted(first) == [(0, 0, b"0:0"), (0, 1, b"0:1"), (0, 2, b"0:2"), (1, 0, b"1:0"), (1, 1, b"1:1")]
    assert sorted(second) == [(0, 3, b"0:10"), (0, 4, b"0:11"), (1, 2, b"1:10"), (2, 0, b"2:0"), (2, 1, b"2:1")]


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_records_deleted_before_a_restart_fail_or_are_skipped(spark, kafka, tmp_path):
    kafka.create_topic("t", 1)
    fill(kafka, "t", {0: 5})
    run_available_now(spark, kafka, tmp_path / "ckpt", "loss_1", startingOffsets="earliest")
    fill(kafka, "t", {0: 5}, start=5)
    kafka.delete_records(tp("t", 0), 8)  # offsets 5..7 are gone before the query reads them
    with pytest.raises(Exception) as error:
        run_available_now(spark, kafka, tmp_path / "ckpt", "loss_2")
    assert "Could not read records in offset [5, 10) for topic partition t-0" in str(error.value)
    _, rows = run_available_now(spark, kafka, tmp_path / "ckpt", "loss_3", failOnDataLoss="false")
    assert [(p, o) for p, o, _ in rows] == [(0, 8), (0, 9)]
